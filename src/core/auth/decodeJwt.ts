import { describeExpiry, describeIssued, describeNotBefore, jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../base';
import { paddedParts } from './tokenRules';
import type { DuplicateMember, JsonAsWritten, WrittenNumber } from './tokenJson';
import { readJsonAsWritten } from './tokenJson';

/**
 * Longest token text (after stripping `Bearer`, quotes and whitespace) that is decoded at all.
 * Real tokens are well under 2 KB; anything near this is a pasted file, not a token.
 */
export const MAX_TOKEN_CHARS = 1024 * 1024;

/** Why a text could not be decoded; stable for the UI and tests. */
export type DecodeFailureCode =
  | 'not-text'
  | 'empty'
  | 'too-large'
  | 'part-count'
  | 'jwe-not-supported'
  | 'empty-part'
  | 'not-base64url'
  | 'not-utf8'
  | 'not-json'
  | 'too-deep'
  | 'not-object'
  | 'alg-missing';

/** One of the three dot-separated parts of a compact JWS. */
export type TokenPart = 'header' | 'payload' | 'signature';

/** A numeric time claim, shown three ways. */
export interface TimeClaim {
  /** The claim as found: seconds since 1970-01-01T00:00:00Z. */
  seconds: number;
  /** ISO 8601 in UTC, or "out of range" for a time a JavaScript Date cannot hold. */
  iso: string;
  /** "expires in 4 min", "issued 2 min ago", "becomes valid in 10 s". */
  relative: string;
}

/**
 * What a token says, without the token itself: the caller keeps the text, so that nothing that
 * renders or logs a decoded view can leak a usable bearer token by accident.
 */
export interface DecodedToken {
  /** The JOSE header as parsed by JSON.parse; `alg` is always a string. */
  header: Record<string, unknown>;
  /** The claims as parsed by JSON.parse. Keys such as `__proto__` are ordinary own keys here. */
  payload: Record<string, unknown>;
  /** False for `header.payload.` (an unsigned token). The signature is not verified here. */
  signaturePresent: boolean;
  /** Each of `iat`, `nbf`, `exp` that is a finite number. */
  times: { iat?: TimeClaim; nbf?: TimeClaim; exp?: TimeClaim };
  /** `exp − iat` in seconds, when both are finite numbers. */
  lifetimeSeconds?: number;
  /**
   * The parts written with "=" padding, which compact JWS leaves out (RFC 7515 section 2): decoded
   * so they can be read, and named by the lint (a server enforcing spec 5 refuses the token).
   */
  paddedParts?: TokenPart[];
  /**
   * Member names an object of the header or payload writes more than once. JSON.parse keeps the last value, which is
   * what `header` and `payload` hold; RFC 7515 section 4 (header) and RFC 7519 section 4 (claims) want them unique.
   */
  duplicateMembers?: (DuplicateMember & { part: 'header' | 'payload' })[];
  /** Numbers JSON.parse cannot hold as written (`"exp": 1e400` parses as Infinity), with the text the token writes. */
  writtenNumbers?: (WrittenNumber & { part: 'header' | 'payload' })[];
}

/** A decoded token, or a plain-words reason why the text is not one. */
export type DecodeResult =
  { ok: true; token: DecodedToken } | { ok: false; reason: string; code: DecodeFailureCode; part?: TokenPart };

type Failure = Extract<DecodeResult, { ok: false }>;

const AUTHORIZATION_PREFIX = /^authorization[ \t]*:[ \t]*/i;
const BEARER_PREFIX = /^bearer[ \t]+/i;
const QUOTES = new Set(['"', "'", '`']);

/**
 * The token text inside what a user pastes: surrounding whitespace, `Authorization: Bearer `,
 * `Bearer ` (any case) and one pair of surrounding quotes are removed, in whatever nesting they
 * come (`"Bearer eyJ…"`, `Bearer "eyJ…"`). Everything else is left as it is.
 */
export function stripTokenText(text: string): string {
  let t = text.trim();
  // Each pass removes at most one layer of each kind; three passes cover every realistic nesting
  // and keep the work bounded.
  for (let pass = 0; pass < 3; pass++) {
    const before = t;
    if (t.length >= 2 && QUOTES.has(t[0]) && t[t.length - 1] === t[0]) t = t.slice(1, -1).trim();
    t = t.replace(AUTHORIZATION_PREFIX, '');
    t = t.replace(BEARER_PREFIX, '').trim();
    if (t === before) break;
  }
  return t;
}

/**
 * Decodes a compact JWS (a JWT) without verifying it. Total: any string gives a result in time
 * linear in its length and nothing is thrown; texts over {@link MAX_TOKEN_CHARS} are refused
 * before any work. `options.now` (ms) is the "now" of the relative times; it defaults to the clock.
 */
export function decodeJwt(text: string, options: { now?: number } = {}): DecodeResult {
  try {
    return decodeUnsafe(text, options.now ?? Date.now());
  } catch {
    // Not expected to happen: every step above is checked. Kept so that the promise of totality
    // holds even for inputs nobody thought of.
    return fail('not-json', 'The text could not be decoded as a JWT.');
  }
}

function decodeUnsafe(text: unknown, now: number): DecodeResult {
  if (typeof text !== 'string') return fail('not-text', 'No token text was given.');
  if (text.length > MAX_TOKEN_CHARS) {
    return fail(
      'too-large',
      `The text is ${text.length.toLocaleString('en-US')} characters long; a JWT is a few hundred. Paste only the token (at most ${MAX_TOKEN_CHARS.toLocaleString('en-US')} characters are decoded).`,
    );
  }
  const t = stripTokenText(text);
  if (t === '')
    return fail('empty', 'The text is empty. Paste a JWT: three base64url parts separated by dots (eyJ….eyJ….…).');
  if (/^bearer$/i.test(t) || /^authorization[ \t]*:/i.test(t)) {
    return fail(
      'empty',
      `There is only "${t}" and no token after it. Paste the whole header value, including the token.`,
    );
  }

  const dots = countDots(t);
  if (dots === 4) {
    return fail(
      'jwe-not-supported',
      'This looks like an encrypted token (JWE, five parts). Only signed tokens (JWS, three parts) can be decoded here.',
    );
  }
  if (dots !== 2) {
    const parts = dots + 1;
    const found = parts === 1 ? 'found one part with no dots' : `found ${parts.toLocaleString('en-US')} parts`;
    return fail(
      'part-count',
      `A JWT has three parts separated by dots (header.payload.signature), but ${found}. Check that the token was copied whole.`,
    );
  }

  const firstDot = t.indexOf('.');
  const secondDot = t.indexOf('.', firstDot + 1);
  const written = [t.slice(0, firstDot), t.slice(firstDot + 1, secondDot), t.slice(secondDot + 1)];
  const padded = paddedParts(written);
  const unpadded = written.map((segment) => segment.replace(/=+$/, ''));
  const segments: Record<TokenPart, string> = {
    header: unpadded[0] ?? '',
    payload: unpadded[1] ?? '',
    signature: unpadded[2] ?? '',
  };
  for (const part of ['header', 'payload'] as const) {
    if (segments[part] === '')
      return fail(
        'empty-part',
        `The ${part} part is empty. A JWT needs a base64url-encoded JSON ${part} between the dots.`,
        part,
      );
  }
  for (const part of ['header', 'payload', 'signature'] as const) {
    const problem = base64urlProblem(segments[part]);
    if (problem) return fail('not-base64url', `The ${part} part is not base64url: ${problem}`, part);
  }

  const header = parseJsonObject(segments.header, 'header');
  if (!header.ok) return header.failure;
  const payload = parseJsonObject(segments.payload, 'payload');
  if (!payload.ok) return payload.failure;
  const duplicates = [
    ...header.written.duplicates.map((d) => ({ ...d, part: 'header' as const })),
    ...payload.written.duplicates.map((d) => ({ ...d, part: 'payload' as const })),
  ];
  const numbers = [
    ...header.written.numbers.map((n) => ({ ...n, part: 'header' as const })),
    ...payload.written.numbers.map((n) => ({ ...n, part: 'payload' as const })),
  ];

  const alg = ownValue(header.value, 'alg');
  if (alg === undefined)
    return fail(
      'alg-missing',
      'The header has no "alg". Every JWS header names its signing algorithm, e.g. "alg": "ES256".',
      'header',
    );
  if (typeof alg !== 'string')
    return fail('alg-missing', `The header's "alg" is ${jsonTypeOf(alg)}, not a string such as "ES256".`, 'header');

  const times: DecodedToken['times'] = {};
  const iat = finiteNumber(ownValue(payload.value, 'iat'));
  const nbf = finiteNumber(ownValue(payload.value, 'nbf'));
  const exp = finiteNumber(ownValue(payload.value, 'exp'));
  if (iat !== undefined) times.iat = timeClaim(iat, describeIssued(iat * 1000, now));
  if (nbf !== undefined) times.nbf = timeClaim(nbf, describeNotBefore(nbf * 1000, now));
  if (exp !== undefined) times.exp = timeClaim(exp, describeExpiry(exp * 1000, now));

  const token: DecodedToken = {
    header: header.value,
    payload: payload.value,
    signaturePresent: segments.signature !== '',
    times,
  };
  if (iat !== undefined && exp !== undefined) token.lifetimeSeconds = exp - iat;
  if (padded.length > 0) token.paddedParts = padded;
  if (duplicates.length > 0) token.duplicateMembers = duplicates;
  if (numbers.length > 0) token.writtenNumbers = numbers;
  return { ok: true, token };
}

function fail(code: DecodeFailureCode, reason: string, part?: TokenPart): Failure {
  return part ? { ok: false, code, reason, part } : { ok: false, code, reason };
}

function countDots(t: string): number {
  let n = 0;
  for (let i = t.indexOf('.'); i !== -1; i = t.indexOf('.', i + 1)) n++;
  return n;
}

/**
 * Undefined when `s` is valid unpadded base64url, else what is wrong. Checked by hand because
 * Buffer.from(…, 'base64url') silently skips characters it does not know.
 */
function base64urlProblem(s: string): string | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
    if (ok) continue;
    const ch = s[i];
    if (ch === '+' || ch === '/')
      return `it contains "${ch}" at position ${i + 1}, which is standard base64. JWTs use base64url ("-" and "_" instead of "+" and "/").`;
    if (ch === '=')
      return `it contains "=" at position ${i + 1}; base64url has no "=" (and a JWT not even as padding at the end).`;
    return `it contains ${describeChar(c)} at position ${i + 1}; only A–Z, a–z, 0–9, "-" and "_" are allowed.`;
  }
  if (s.length % 4 === 1)
    return `its length (${s.length}) is not possible for base64url; a character is missing or extra.`;
  return undefined;
}

function describeChar(code: number): string {
  if (code < 0x20 || code === 0x7f)
    return `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  if (code === 0x20) return 'a space';
  if (code >= 0xd800 && code <= 0xdfff) return 'a non-ASCII character';
  return `"${String.fromCharCode(code)}"`;
}

function parseJsonObject(
  segment: string,
  part: 'header' | 'payload',
): { ok: true; value: Record<string, unknown>; written: JsonAsWritten } | { ok: false; failure: Failure } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(segment, 'base64url'));
  } catch {
    return {
      ok: false,
      failure: fail('not-utf8', `The ${part} decodes to bytes that are not UTF-8 text, so it is not JSON.`, part),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      failure: fail(
        'not-json',
        `The ${part} is not valid JSON once decoded. Check that the token was copied whole and not altered.`,
        part,
      ),
    };
  }
  // Such a value parses, but would overflow the stack of whatever renders or serialises it later.
  if (jsonNestsDeeperThan(text)) {
    return {
      ok: false,
      failure: fail(
        'too-deep',
        `The ${part} nests lists or objects more than ${MAX_JSON_DEPTH} levels deep; a JWT ${part} is a flat object of claims. This is not a token to use.`,
        part,
      ),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      failure: fail(
        'not-object',
        `The ${part} is JSON ${jsonTypeOf(value)}, not a JSON object ({…}) as a JWT ${part} must be.`,
        part,
      ),
    };
  }
  return { ok: true, value: value as Record<string, unknown>, written: readJsonAsWritten(text) };
}

/** A property only if the object holds it itself, so that nothing is read from a prototype. */
export function ownValue(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** "a string", "an array", "null"… as used in messages about JSON values. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return 'a value';
  }
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

// Date holds ±8.64e15 ms; beyond that toISOString throws.
const MAX_DATE_SECONDS = 8.64e12;

function timeClaim(seconds: number, relative: string): TimeClaim {
  const iso = Math.abs(seconds) <= MAX_DATE_SECONDS ? new Date(seconds * 1000).toISOString() : 'out of range';
  return { seconds, iso, relative };
}
