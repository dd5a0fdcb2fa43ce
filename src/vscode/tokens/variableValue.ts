import { findJwts, MAX_TOKEN_CHARS, stripTokenText } from '../../core/auth';

/** What a debugger's value text holds, as far as a token is concerned. */
export interface DebugValueText {
  /** The text to decode: the unquoted, unescaped value, or the one token found inside it. */
  text: string;
  /**
   * The adapter shortened the value ("…" or "..." at the end of a quoted string): the text is not the
   * whole value, and the caller should ask the adapter for the full one.
   */
  truncated: boolean;
  /** The token was found inside a larger value (an object preview, a header line). */
  foundInside: boolean;
}

const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ['`', '`'],
];
const ELLIPSES = ['…', '...'];

/**
 * The token text inside a value as a debug adapter shows it: `'eyJ…'` (js-debug), `"eyJ…"` (most
 * adapters, JSON), `b'eyJ…'` (Python bytes), with JS/JSON escapes (`\"`, `\n`, `\u0041`, `\x41`)
 * undone, then `Bearer ` and surrounding quotes removed. When that is not a token, the one token
 * inside the value (an object preview such as `{token: 'eyJ…'}`) is taken. Total and linear;
 * values longer than the decoder accepts are passed on for it to refuse.
 */
export function tokenTextFromDebugValue(value: unknown): DebugValueText {
  if (typeof value !== 'string') return { text: '', truncated: false, foundInside: false };
  if (value.length > MAX_TOKEN_CHARS) return { text: value, truncated: false, foundInside: false };
  let text = value.trim();
  let truncated = false;
  // Python shows bytes as b'…'; the prefix is not part of the value.
  if (/^[bB]['"]/.test(text)) text = text.slice(1);
  const pair = QUOTE_PAIRS.find(([open]) => text.startsWith(open));
  if (pair) {
    const [open, close] = pair;
    if (text.length >= 2 && text.endsWith(close) && !endsInEscape(text.slice(0, -1))) {
      text = unescapeJs(text.slice(open.length, -close.length));
    } else {
      // An opening quote without its closing one: the adapter cut the string short.
      const cut = ELLIPSES.find((e) => text.endsWith(e));
      if (cut) {
        truncated = true;
        text = unescapeJs(text.slice(open.length, -cut.length));
      }
    }
  } else if (ELLIPSES.some((e) => text.endsWith(`${e}`)) && text.length > 100) {
    truncated = true;
  }
  const stripped = stripTokenText(text);
  if (isWholeToken(stripped)) return { text: stripped, truncated, foundInside: false };
  const inside = findJwts(value, 2);
  if (inside.length === 1)
    return { text: value.slice(inside[0].start, inside[0].end), truncated: false, foundInside: true };
  return { text: stripped, truncated, foundInside: false };
}

function isWholeToken(text: string): boolean {
  const found = findJwts(text, 1)[0];
  return !!found && found.start === 0 && found.end === text.length;
}

/** True when `s` ends in an odd number of backslashes, so that a following quote is escaped. */
function endsInEscape(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s.charCodeAt(i) === 0x5c; i--) n++;
  return n % 2 === 1;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/**
 * Undoes the escapes of a JS or JSON string literal's body. Unknown escapes keep their character
 * (`\q` → `q`), as JavaScript does; a malformed `\u` or `\x` is kept as written. One pass.
 */
export function unescapeJs(body: string): string {
  if (!body.includes('\\')) return body;
  let out = '';
  let i = 0;
  while (i < body.length) {
    const ch = body[i];
    if (ch !== '\\' || i === body.length - 1) {
      out += ch;
      i++;
      continue;
    }
    const next = body[i + 1];
    if (next === 'u') {
      if (body[i + 2] === '{') {
        const close = body.indexOf('}', i + 3);
        const hex = close === -1 ? '' : body.slice(i + 3, close);
        if (close !== -1 && close - i <= 10 && /^[0-9a-fA-F]{1,6}$/.test(hex) && Number.parseInt(hex, 16) <= 0x10ffff) {
          out += String.fromCodePoint(Number.parseInt(hex, 16));
          i = close + 1;
          continue;
        }
      } else {
        const hex = body.slice(i + 2, i + 6);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += String.fromCharCode(Number.parseInt(hex, 16));
          i += 6;
          continue;
        }
      }
      out += '\\u';
      i += 2;
      continue;
    }
    if (next === 'x') {
      const hex = body.slice(i + 2, i + 4);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 4;
        continue;
      }
      out += '\\x';
      i += 2;
      continue;
    }
    if (next === '\r' || next === '\n') {
      // A line continuation in a JS literal: the backslash and the line break vanish.
      i += next === '\r' && body[i + 2] === '\n' ? 3 : 2;
      continue;
    }
    out += SIMPLE_ESCAPES[next] ?? next;
    i += 2;
  }
  return out;
}
