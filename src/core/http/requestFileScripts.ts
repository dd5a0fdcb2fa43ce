// What a request file may hold that is code or control flow of another client, read so that it is never skipped in
// silence: httpYac's script blocks (`{{` … `}}`, `{{ test(…) }}`), JetBrains' handlers (`> {% client.test(…) %}`,
// `< {% … %}`) and httpYac's meta data. Of the meta data, `# @disabled` (the request is not sent) and `# @sleep <ms>`
// (wait before sending) run as httpYac documents them; `@loop`, `@ref`, `@forceRef` and a `@disabled` with a condition
// are refused, each at its line and column, as are script blocks: no user script runs in the extension or the CLI.
import * as l10n from '@vscode/l10n';

/** A line of a request file that is refused where it stands: a test or request runs nothing that it asks for. */
export interface RefusedLine {
  text: string;
  /** 0-based line; 0-based column and length of the part at fault. */
  line: number;
  column: number;
  length: number;
  message: string;
}

/** httpYac's script block start: `{{` alone on its line, or with its event (`{{@response`, `{{+after`). */
const SCRIPT_START = /^\s*\{\{(@js\s+)?(\+|@)?(request|streaming|response|after|responseLogging)?\s*$/i;
const SCRIPT_END = /^\s*\}\}\s*$/;
/** JetBrains' response handler and pre-request script: `> {% … %}` and `< {% … %}`, over one line or several. */
const HANDLER_START = /^\s*[<>]\s*\{%/;
const HANDLER_END = /%\}\s*$/;
/** httpYac's meta data: `# @word value` (or `// @word value`). */
const META = /^(\s*(?:#|\/\/)\s*)@([A-Za-z]+)\b\s*(.*)$/;

const noScript = () =>
  l10n.t(
    'no user script runs in the extension or the CLI. Write the test as ?? lines under the request (?? status == 200, ?? body <path> …).',
  );

/**
 * The lines of a block without its script blocks and handlers, each of which is recorded in `refused` at its first
 * line (a block that is never closed runs to the end of the block).
 */
export function takeScripts(
  lines: { text: string; line: number }[],
  refused: RefusedLine[],
): { text: string; line: number }[] {
  const kept: { text: string; line: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const { text, line } = lines[i];
    const column = text.length - text.trimStart().length;
    const at = (message: string) =>
      refused.push({ text: text.trim(), line, column, length: Math.max(1, text.trim().length), message });
    if (SCRIPT_START.test(text)) {
      at(
        l10n.t("httpYac's script blocks ({{ … }}, with test(…) or expect(…)) are not supported here: {0}", noScript()),
      );
      while (i + 1 < lines.length && !SCRIPT_END.test(lines[i + 1].text)) i++;
      i++;
      continue;
    }
    if (isScriptLine(text)) {
      at(
        l10n.t("httpYac's script blocks ({{ … }}, with test(…) or expect(…)) are not supported here: {0}", noScript()),
      );
      continue;
    }
    if (HANDLER_START.test(text)) {
      at(
        l10n.t(
          "JetBrains' handler scripts ({0} … %}, with client.test(…)) are not supported here: {1}",
          text.trim().startsWith('<') ? '< {%' : '> {%',
          noScript(),
        ),
      );
      if (!HANDLER_END.test(text.trim().slice(3))) {
        while (i + 1 < lines.length && !HANDLER_END.test(lines[i + 1].text)) i++;
        i++;
      }
      continue;
    }
    kept.push(lines[i]);
  }
  return kept;
}

/** A whole line `{{ … }}` that is a script, not a `{{variable}}` or a URL that starts with one. */
function isScriptLine(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{{') || !trimmed.endsWith('}}')) return false;
  const inner = trimmed.slice(2, -2);
  if (inner.includes('{{') || inner.includes('}}')) return false;
  // A variable, or one of the functions REST Client writes as `{{$name args}}`.
  return !/^\s*\$?[\w.-]+(\s+[^()]*)?\s*$/.test(inner);
}

/** A `??` line in a block without a request line: httpYac runs such a block before every request; refused here. */
export function globalAssertion(a: { text: string; line: number; column: number }): RefusedLine {
  return {
    text: a.text,
    line: a.line,
    column: a.column,
    length: a.text.length,
    message: l10n.t(
      '"{0}" stands in a block without a request (a global assertion, which httpYac checks on every request of the file): not supported here. Put it under each request it checks.',
      a.text,
    ),
  };
}

/** What a meta data line asks of its request. */
export type MetaLine = { kind: 'disabled' } | { kind: 'sleep'; ms: number } | { kind: 'refused'; refused: RefusedLine };

/** httpYac's meta data that changes how a request runs; undefined for any other line (a name, a comment). */
export function readMeta(text: string, line: number): MetaLine | undefined {
  const meta = META.exec(text);
  if (!meta) return undefined;
  const [, lead, word, rawValue] = meta;
  const value = rawValue.trim();
  const column = lead.length;
  const refuse = (message: string): MetaLine => ({
    kind: 'refused',
    refused: { text: text.trim(), line, column, length: Math.max(1, text.trimEnd().length - column), message },
  });
  switch (word) {
    case 'disabled':
      if (value === '') return { kind: 'disabled' };
      return refuse(
        l10n.t(
          '"# @disabled {0}" is not supported here: its condition would be a script, and no user script runs in the extension or the CLI. Write "# @disabled" alone to leave the request out.',
          value,
        ),
      );
    case 'sleep':
      if (/^\d{1,7}$/.test(value)) return { kind: 'sleep', ms: Number(value) };
      return refuse(
        l10n.t(
          '"# @sleep" takes the milliseconds to wait before the request, a whole number up to 9999999: "# @sleep 1000".',
        ),
      );
    case 'loop':
      return refuse(
        l10n.t(
          '"# @loop" is not supported here: its iterations are a script, and no user script runs in the extension or the CLI. Write one request for each value.',
        ),
      );
    case 'ref':
    case 'forceRef':
      return refuse(
        l10n.t(
          '"# @{0}" is not supported here: a request runs alone, with no answer of another request in its variables. Remove the line, and run the other request before it in the file.',
          word,
        ),
      );
    default:
      return undefined;
  }
}

/**
 * Why `text` is not a text request file, if it is not: a NUL (binary files have them, text files
 * do not) or U+FFFD, what invalid UTF-8 becomes when decoded (by Node's `utf8` and by VS Code).
 */
export function notTextReason(text: string): string | undefined {
  if (text.includes('\u0000'))
    return l10n.t(
      'Not a text request file: it holds NUL bytes, as binary files do. Write requests as UTF-8 text in a .http or .rest file.',
    );
  const bad = text.indexOf('\uFFFD');
  if (bad < 0) return undefined;
  const line = text.slice(0, bad).split('\n').length;
  return l10n.t('Not a text request file: it is not valid UTF-8 (line {0}). Save it as UTF-8 text.', line);
}
