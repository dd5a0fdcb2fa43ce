import type { DecodedToken, LintFinding, SignatureCheck, TimeClaim } from '../../core/auth';

/** The longest header or payload JSON a hover shows; the decoded view shows all of it. */
export const HOVER_JSON_CHARS = 3000;

/** What a hover says about one token. Everything token-derived is escaped or fenced. */
export interface HoverContent {
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  /** Undefined when no stored credential has the token's kid. */
  signature?: SignatureCheck;
  /** A `command:` URI that opens the decoded view; it must not hold the token. */
  openLink?: string;
  /** Formats ms since the epoch as a local date and time; `Date#toLocaleString` when not given. */
  formatLocal?: (ms: number) => string;
}

/**
 * Markdown for a JWT hover: a title line with the algorithm, key id and finding counts, the times in
 * local time and relative to now, the signature state, the lint findings with their spec rules,
 * and the header and payload as JSON code blocks. Token-derived text is backslash-escaped (every
 * ASCII punctuation character, so no link, emphasis or HTML can form) or put in a code fence longer
 * than any backtick run inside it; the only link is `openLink`.
 */
export function hoverMarkdown(content: HoverContent): string {
  const { decoded, findings } = content;
  const local = content.formatLocal ?? ((ms: number) => new Date(ms).toLocaleString());
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const alg = decoded.header.alg;
  const kid = decoded.header.kid;
  const title = [
    '**JWT**',
    escapeMarkdown(typeof alg === 'string' ? alg : JSON.stringify(alg)),
    kid === undefined ? 'no kid' : `kid ${escapeMarkdown(typeof kid === 'string' ? kid : limitedJson(kid))}`,
    errors || warnings ? `${plural(errors, 'error')}, ${plural(warnings, 'warning')}` : 'no findings',
  ].join(' · ');
  const lines: string[] = [content.openLink ? `${title} · [Open decoded view](${content.openLink})` : title, ''];

  const times: Array<[string, TimeClaim | undefined]> = [
    ['Issued (iat)', decoded.times.iat],
    ['Not before (nbf)', decoded.times.nbf],
    ['Expires (exp)', decoded.times.exp],
  ];
  for (const [label, t] of times) {
    if (!t) continue;
    const when = Math.abs(t.seconds) <= 8.64e12 ? local(t.seconds * 1000) : 'out of range';
    lines.push(`- ${label}: ${escapeMarkdown(when)} (${escapeMarkdown(t.relative)})`);
  }
  if (decoded.lifetimeSeconds !== undefined)
    lines.push(`- Lifetime: ${escapeMarkdown(String(decoded.lifetimeSeconds))} s`);
  lines.push(`- Signature: ${signatureLine(content.signature, decoded)}`);
  lines.push('');

  if (findings.length) {
    lines.push('**Findings**', '');
    for (const f of findings) {
      lines.push(
        `- ${SEVERITY_LABEL[f.severity]}: ${escapeMarkdown(f.message)} (spec ${escapeMarkdown(f.rule)}, ${escapeMarkdown(f.id)})`,
      );
    }
  } else {
    lines.push('No findings: the token follows the spec as far as can be told without the server.');
  }
  lines.push(
    '',
    '**Header**',
    codeBlock(limitedJson(decoded.header)),
    '**Payload**',
    codeBlock(limitedJson(decoded.payload)),
  );
  return lines.join('\n');
}

const SEVERITY_LABEL: Record<LintFinding['severity'], string> = { error: 'Error', warning: 'Warning', info: 'Info' };

function signatureLine(signature: SignatureCheck | undefined, decoded: DecodedToken): string {
  if (!decoded.signaturePresent) return 'none (the token is unsigned)';
  if (!signature) return 'not verified (no stored credential has this kid)';
  if (signature.state === 'verified') return 'verified with the stored credential whose kid matches';
  return `does not verify: ${escapeMarkdown(signature.reason)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function limitedJson(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    json = String(value);
  }
  if (json.length <= HOVER_JSON_CHARS) return json;
  return `${json.slice(0, HOVER_JSON_CHARS)}\n… ${(json.length - HOVER_JSON_CHARS).toLocaleString('en-US')} more characters: open the decoded view`;
}

/**
 * Text as literal markdown: every ASCII punctuation character is backslash-escaped (CommonMark allows
 * that for all of them), so no emphasis, link, autolink, HTML or entity can form; line breaks and
 * other control characters become spaces, so the text cannot start a block.
 */
export function escapeMarkdown(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x2028 || c === 0x2029) out += ' ';
    else if (
      (c >= 0x21 && c <= 0x2f) ||
      (c >= 0x3a && c <= 0x40) ||
      (c >= 0x5b && c <= 0x60) ||
      (c >= 0x7b && c <= 0x7e)
    )
      out += `\\${text[i]}`;
    else out += text[i];
  }
  return out;
}

/** A fenced JSON code block whose fence is longer than any backtick run in `text`, so it cannot be closed early. */
export function codeBlock(text: string, language = 'json'): string {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 0x60 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}
