// The property path of httpYac's `?? body <path> …`. httpYac evaluates `(response.parsedBody || response.body).<path>`
// as JavaScript; no user script runs here, so the path is read as what such paths are: property names, `[0]`
// indexes and `["quoted names"]`, `.length` of a list or a text. Anything else is said to be unsupported.
import * as l10n from '@vscode/l10n';

/** One step of a path: a property name or a list index. */
export type PathStep = { key: string } | { index: number };

/** A path as read, or why it cannot be, with the column (in the path) where reading stopped. */
export type ParsedPath = { steps: PathStep[] } | { problem: string; offset: number; unsupported: boolean };

const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/** Reads `items[0].device_id`, `["x-y"].z`, `links.next`, `vehicles.length`. */
export function parseBodyPath(text: string): ParsedPath {
  if (/^\$[.[]/.test(text)) {
    return {
      problem: l10n.t(
        '"{0}" is a JSONPath; httpYac reads the body path as property access: write "?? body {1} …".',
        text,
        text.replace(/^\$\.?/, ''),
      ),
      offset: 0,
      unsupported: false,
    };
  }
  const steps: PathStep[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const dotted = i === 0 ? IDENTIFIER.exec(rest) : rest.startsWith('.') ? IDENTIFIER.exec(rest.slice(1)) : null;
    if (dotted) {
      steps.push({ key: dotted[0] });
      i += dotted[0].length + (i === 0 ? 0 : 1);
      continue;
    }
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      steps.push({ index: Number(index[1]) });
      i += index[0].length;
      continue;
    }
    const quoted = /^\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]/.exec(rest);
    if (quoted) {
      steps.push({ key: (quoted[1] ?? quoted[2]).replace(/\\(.)/g, '$1') });
      i += quoted[0].length;
      continue;
    }
    return {
      problem: l10n.t(
        '"{0}" is not a property path (at "{1}"): write names, [0] indexes and ["quoted names"], as in "items[0].device_id". A JavaScript expression is not run here: no user script runs in the extension or the CLI.',
        text,
        rest,
      ),
      offset: i,
      unsupported: true,
    };
  }
  return { steps };
}

/** The path as it reads: `items[0]["x-y"].length`. */
export function pathText(steps: readonly PathStep[]): string {
  return steps
    .map((s, i) =>
      'index' in s
        ? `[${s.index}]`
        : IDENTIFIER.exec(s.key)?.[0] === s.key
          ? `${i ? '.' : ''}${s.key}`
          : `[${JSON.stringify(s.key)}]`,
    )
    .join('');
}

/**
 * The value at `steps` in `root`: `found: false` with the part that is missing when a step has nothing to read
 * (httpYac fails the assertion with a TypeError then); the last step missing gives `found: true, value: undefined`
 * with `missing` set, as JavaScript reads an absent property.
 */
export function readPath(
  root: unknown,
  steps: readonly PathStep[],
): { found: true; value: unknown; missing?: string } | { found: false; missing: string } {
  let current = root;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const here = pathText(steps.slice(0, i + 1));
    if (current === null || current === undefined)
      return { found: false, missing: pathText(steps.slice(0, i)) || here };
    let next: unknown;
    if ('index' in step) {
      next =
        Array.isArray(current) || typeof current === 'string'
          ? current[step.index]
          : isObject(current) && Object.hasOwn(current, String(step.index))
            ? current[String(step.index)]
            : undefined;
    } else if (step.key === 'length' && (Array.isArray(current) || typeof current === 'string')) {
      next = current.length;
    } else {
      next =
        isObject(current) && !Array.isArray(current) && Object.hasOwn(current, step.key)
          ? current[step.key]
          : undefined;
    }
    if (next === undefined && i === steps.length - 1) return { found: true, value: undefined, missing: here };
    current = next;
    if (current === undefined) return { found: false, missing: here };
  }
  return { found: true, value: current };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
