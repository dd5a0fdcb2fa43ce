// httpYac's conditions (its `src/plugins/assert/predicates`), with the same ids, the same conversion of the
// expected text to the type of the value read (`convertToType`) and the same results, so that a file written for
// httpYac passes or fails here as it does there.
import { createHash } from 'node:crypto';

/** One condition: its ids as httpYac spells them (the first is the canonical one). */
export interface Predicate {
  readonly ids: readonly string[];
  /** Takes no expected value (`exists`, `isNumber`, …). */
  readonly unary?: boolean;
  /** The expected text is used as written, never converted to the value's type (`matches`, hashes). */
  readonly noAutoConvert?: boolean;
  /** An empty expected value is allowed: `?? body note ==` compares with the empty string, as in httpYac. */
  readonly emptyExpected?: boolean;
  /** A failure is two values that differ (equality): an editor may show them as a diff, expected against actual. */
  readonly diffable?: boolean;
  /** What a passing value is, for a failure message: "a number", "truthy". */
  readonly describeExpected?: () => string;
  match(value: unknown, expected: unknown): boolean;
}

/** httpYac's `toString`: strings as they are, numbers as text, other values (but falsy ones) as JSON. */
export function toText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return `${value}`;
  if (value) return stringifySafe(value);
  return undefined;
}

/** httpYac's `toNumber`: numbers as they are, text by `parseFloat` ("200 OK" is 200), else undefined. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const text = typeof value === 'string' ? value : undefined;
  if (text) {
    const n = Number.parseFloat(text.trim());
    if (!Number.isNaN(n)) return n;
  }
  return undefined;
}

/** httpYac's `toBoolean`: true/false in any case, a number's truth, else `fallback`. */
function toBoolean(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return !!value;
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) return fallback;
  if (/^true$/i.test(text)) return true;
  if (/^false$/i.test(text)) return false;
  const n = Number.parseFloat(text);
  return Number.isNaN(n) ? fallback : !!n;
}

function stringifySafe(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * The expected text converted to the type of the value read, as httpYac's `convertToType`: a number for a number
 * (`?? status == 200`), a boolean for a boolean, text for text, null for `null`, parsed JSON for an object or list.
 */
export function convertExpected(value: unknown, expected: string | undefined): unknown {
  if (expected === undefined) return expected;
  if (typeof value === 'number') return toNumber(expected);
  if (typeof value === 'boolean') return toBoolean(expected, !!expected);
  if (typeof value === 'string') return toText(expected);
  if (value === null && expected === 'null') return null;
  if (value === undefined && expected === 'undefined') return undefined;
  if (typeof value === 'object') {
    try {
      return JSON.parse(expected) as unknown;
    } catch {
      return expected;
    }
  }
  return expected;
}

const compare = (test: (a: number, b: number) => boolean) => (value: unknown, expected: unknown) => {
  const a = toNumber(value);
  const b = toNumber(expected);
  return a !== undefined && b !== undefined && test(a, b);
};

const text = (test: (a: string, b: string) => boolean) => (value: unknown, expected: unknown) => {
  const a = toText(value);
  const b = toText(expected);
  return !!a && !!b && test(a, b);
};

/** The base64 digest of a value read as text (or bytes), as httpYac's `sha256`, `sha512` and `md5` compare it. */
export function digestOf(algorithm: string, value: unknown): string | undefined {
  if (algorithm !== 'md5' && algorithm !== 'sha256' && algorithm !== 'sha512') return undefined;
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : undefined;
  return bytes === undefined ? undefined : createHash(algorithm).update(bytes).digest('base64');
}

const hash = (algorithm: 'md5' | 'sha256' | 'sha512') => (value: unknown, expected: unknown) => {
  const digest = digestOf(algorithm, value);
  return digest !== undefined && digest === expected;
};

/** Every condition of httpYac's assert plugin. */
export const PREDICATES: readonly Predicate[] = [
  {
    ids: ['==', '===', 'equals'],
    emptyExpected: true,
    diffable: true,
    match: (value, expected) =>
      typeof value === 'object' ? stringifySafe(value) === stringifySafe(expected) : value === expected,
  },
  { ids: ['!=', '!==', 'not equals'], emptyExpected: true, match: (value, expected) => value !== expected },
  { ids: ['>'], match: compare((a, b) => a > b) },
  { ids: ['>='], match: compare((a, b) => a >= b) },
  { ids: ['<'], match: compare((a, b) => a < b) },
  { ids: ['<='], match: compare((a, b) => a <= b) },
  { ids: ['startsWith'], match: text((a, b) => a.startsWith(b)) },
  { ids: ['endsWith'], match: text((a, b) => a.endsWith(b)) },
  {
    ids: ['includes', 'contains'],
    match: (value, expected) => {
      const a = toText(value);
      const b = toText(expected);
      if (a && b) return a.includes(b);
      return Array.isArray(value) && value.includes(expected);
    },
  },
  { ids: ['matches'], noAutoConvert: true, match: text((a, b) => new RegExp(b, 'u').test(a)) },
  { ids: ['exists', 'isTrue'], unary: true, match: (value) => !!value },
  { ids: ['isFalse'], unary: true, match: (value) => !value },
  { ids: ['isNumber'], unary: true, match: (value) => typeof value === 'number' },
  { ids: ['isBoolean'], unary: true, match: (value) => typeof value === 'boolean' },
  { ids: ['isString'], unary: true, match: (value) => typeof value === 'string' },
  { ids: ['isArray'], unary: true, match: (value) => Array.isArray(value) },
  { ids: ['sha256'], noAutoConvert: true, match: hash('sha256') },
  { ids: ['sha512'], noAutoConvert: true, match: hash('sha512') },
  { ids: ['md5'], noAutoConvert: true, match: hash('md5') },
];

/** Symbolic ids, longest first: `===` is read before `==`, `>=` before `>`; they need no space before the value. */
const SYMBOLS = PREDICATES.flatMap((p) =>
  p.ids.filter((id) => !/^[a-z]/i.test(id)).map((id) => ({ id, predicate: p })),
).sort((a, b) => b.id.length - a.id.length);
const WORDS = PREDICATES.flatMap((p) =>
  p.ids.filter((id) => /^[a-z]/i.test(id)).map((id) => ({ id, predicate: p })),
).sort((a, b) => b.id.length - a.id.length);

/** The condition that `text` starts with, and how long its id is; a word id must end at a space or the end. */
export function predicateAt(text: string): { predicate: Predicate; id: string } | undefined {
  for (const s of SYMBOLS) if (text.startsWith(s.id)) return { predicate: s.predicate, id: s.id };
  for (const w of WORDS) {
    if (text.startsWith(w.id) && (text.length === w.id.length || /\s/.test(text[w.id.length])))
      return { predicate: w.predicate, id: w.id };
  }
  return undefined;
}

/** Every id, for messages and the grammar: `==, ===, equals, !=, …`. */
export function predicateIds(): string[] {
  return PREDICATES.flatMap((p) => [...p.ids]);
}
