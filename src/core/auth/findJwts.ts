import { decodeJwt } from './decodeJwt';

/**
 * Finding compact JWS tokens (JWTs) in editor text, cheaply enough for a hover on a large file.
 *
 * A token is a run of three base64url parts joined by dots whose header part starts with `eyJ`
 * (base64url of `{"`), delimited by any character outside `A–Z a–z 0–9 - _ .` (quotes, spaces,
 * `=`, `:`…), so tokens are found in JSON strings, after `Bearer `, after `=` in `.env` files and in
 * log lines alike. Only candidates that {@link decodeJwt} decodes are reported: `eyJ.eyJ.x`
 * garbage, or a token cut short, is not. The scan is one pass with no regular expressions; each
 * character is looked at a bounded number of times.
 */

/** On a longer line, findJwtAt looks only this far (in characters) to each side of the position. */
export const HOVER_WINDOW_CHARS = 32 * 1024;

/** A token found on a line: `line.slice(start, end) === token`. */
export interface FoundJwt {
  start: number;
  end: number;
  token: string;
}

/**
 * The token under `character` on `line`, or undefined. A position just after a token's last
 * character also counts, as a text cursor there still belongs to it. Looks at no more than
 * {@link HOVER_WINDOW_CHARS} on each side, so tokens longer than that are not found.
 */
export function findJwtAt(line: string, character: number): FoundJwt | undefined {
  if (typeof line !== 'string' || !Number.isInteger(character) || character < 0 || character > line.length)
    return undefined;
  let at = character;
  if (!isTokenChar(line.charCodeAt(at))) {
    if (at > 0 && isTokenChar(line.charCodeAt(at - 1))) at -= 1;
    else return undefined;
  }
  const windowStart = Math.max(0, at - HOVER_WINDOW_CHARS);
  const windowEnd = Math.min(line.length, at + HOVER_WINDOW_CHARS + 1);

  let runStart = at;
  while (runStart > windowStart && isTokenChar(line.charCodeAt(runStart - 1))) runStart--;
  let runEnd = at + 1;
  while (runEnd < windowEnd && isTokenChar(line.charCodeAt(runEnd))) runEnd++;

  // A run that reaches a window edge inside the line was cut off there: its outermost part is
  // incomplete and must not be taken for a whole part.
  const cutLeft = runStart === windowStart && windowStart > 0 && isTokenChar(line.charCodeAt(windowStart - 1));
  const cutRight = runEnd === windowEnd && windowEnd < line.length && isTokenChar(line.charCodeAt(windowEnd));

  for (const found of tokensInRun(line, runStart, runEnd, cutLeft, cutRight)) {
    // `character`, not `at`: after `<token>.` the cursor is past the dot, not just after the token.
    if (found.start <= character && character <= found.end)
      return { ...found, token: line.slice(found.start, found.end) };
    if (found.start > at) break;
  }
  return undefined;
}

/**
 * Every token in `text` (a document or a log), in order, at most `limit` of them. Offsets are
 * UTF-16 code-unit offsets into `text`, as editors use.
 */
export function findJwts(text: string, limit = 100): Array<{ start: number; end: number }> {
  const results: Array<{ start: number; end: number }> = [];
  if (typeof text !== 'string' || !(limit > 0)) return results;
  let i = 0;
  while (i < text.length && results.length < limit) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < text.length && isTokenChar(text.charCodeAt(i))) i++;
    for (const found of tokensInRun(text, runStart, i, false, false)) {
      results.push(found);
      if (results.length >= limit) break;
    }
  }
  return results;
}

/**
 * The tokens inside one run of token characters `text[start, end)`, left to right. The run is
 * split at dots; each part starting with `eyJ` is tried as a header followed by two more parts.
 * A part is tried at most three times (as header, payload, signature), which keeps this linear.
 */
function* tokensInRun(
  text: string,
  start: number,
  end: number,
  cutLeft: boolean,
  cutRight: boolean,
): Generator<{ start: number; end: number }> {
  // Part boundaries: [partStart[k], partEnd[k]) for k = 0..n-1.
  const partStart: number[] = [start];
  const partEnd: number[] = [];
  // A plain loop rather than indexOf: indexOf would search past `end`, to the end of the text,
  // once per run, which is quadratic on text with many short runs and no dots.
  for (let i = start; i < end; i++) {
    if (text.charCodeAt(i) !== 0x2e) continue;
    partEnd.push(i);
    partStart.push(i + 1);
  }
  partEnd.push(end);
  const first = cutLeft ? 1 : 0;
  const last = cutRight ? partStart.length - 2 : partStart.length - 1;

  let k = first;
  while (k + 2 <= last) {
    let found = false;
    for (const tokenStart of headerStarts(text, partStart[k], partEnd[k])) {
      if (!looksLikeTokenAt(text, tokenStart, partEnd[k], partStart[k + 1], partEnd[k + 1])) continue;
      const tokenEnd = partEnd[k + 2];
      if (decodeJwt(text.slice(tokenStart, tokenEnd)).ok) {
        yield { start: tokenStart, end: tokenEnd };
        found = true;
        break;
      }
    }
    k += found ? 3 : 1;
  }
}

/**
 * Where a header may start inside one part: at the part's start, or (for text glued to the token,
 * as in `Bearer%20eyJ…` or an escaped newline `\neyJ…` in a log) at one of the first few `eyJ`s
 * inside it. One scan of the part, so the whole search stays linear.
 */
function headerStarts(text: string, start: number, end: number): number[] {
  const starts = [start];
  for (let i = start + 1; i + 3 <= end && starts.length < 4; i++) {
    if (text.charCodeAt(i) === 0x65 && text.charCodeAt(i + 1) === 0x79 && text.charCodeAt(i + 2) === 0x4a)
      starts.push(i);
  }
  return starts;
}

/**
 * Cheap filter before decoding: the header starts with `eyJ` and is long enough to hold
 * `{"alg":"…"}`, and the payload is non-empty and starts with `e` (base64url of a leading `{`).
 */
function looksLikeTokenAt(text: string, hStart: number, hEnd: number, pStart: number, pEnd: number): boolean {
  return (
    hEnd - hStart >= 14 &&
    text.charCodeAt(hStart) === 0x65 /* e */ &&
    text.charCodeAt(hStart + 1) === 0x79 /* y */ &&
    text.charCodeAt(hStart + 2) === 0x4a /* J */ &&
    pEnd - pStart >= 3 &&
    text.charCodeAt(pStart) === 0x65
  ); /* e */
}

/** base64url characters and the dot. */
function isTokenChar(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x5f ||
    c === 0x2e
  );
}
