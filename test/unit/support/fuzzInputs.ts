// Hostile inputs for the fuzz tests: mutations of real keys, key files, tokens and MDS bodies made
// at test time (truncation, flipped characters, inserted NULs and lone surrogates, prototype keys,
// deep nesting), random text, and a counter that bounds the time of each input. Not a test file.
import fc from 'fast-check';

/** Any UTF-16 code unit, lone surrogates and NUL included (fast-check's units leave surrogates out). */
export const anyCodeUnit: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Random text of any code units. */
export const noise = (maxLength = 64): fc.Arbitrary<string> => fc.string({ unit: anyCodeUnit, maxLength });

/** `[[[…]]]` nested `depth` levels. */
export function nested(depth: number, open = '[', close = ']'): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** Text that has broken parsers before: NUL, lone surrogates, BOM, escapes, PEM and JSON pieces, prototype keys. */
const SPLICES = [
  '\0',
  '\0\0\0\0',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uD800',
  '\uFEFF',
  '\uFFFD',
  '\r',
  '\n',
  '\r\n',
  '\\n',
  '\\',
  '"',
  "'",
  '=',
  '.',
  '..',
  '-----',
  '-----BEGIN PRIVATE KEY-----\n',
  '-----END PRIVATE KEY-----\n',
  '-----BEGIN ',
  '-----END ',
  'Proc-Type: 4,ENCRYPTED\n',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"__proto__":{"polluted":true},',
  '"constructor":{"prototype":{"polluted":true}},',
  '"prototype":{"polluted":true},',
  nested(300),
  'eyJ',
  'Bearer ',
  '%00',
];

export type Mutation = (s: string) => string;

const at = (s: string, i: number): number => (s.length === 0 ? 0 : i % (s.length + 1));

/** One edit of a text. Parameters are numbers, so fast-check shrinks them towards small edits. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // truncation anywhere
  fc.nat().map(
    (i): Mutation =>
      (s) =>
        s.slice(0, at(s, i)),
  ),
  // one character replaced by any code unit
  fc.tuple(fc.nat(), anyCodeUnit).map(
    ([i, c]): Mutation =>
      (s) =>
        s.length === 0 ? c : s.slice(0, i % s.length) + c + s.slice((i % s.length) + 1),
  ),
  // one character's low bits flipped (a bit error in transit)
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([i, x]): Mutation => (s) => {
    if (s.length === 0) return s;
    const k = i % s.length;
    return s.slice(0, k) + String.fromCharCode(s.charCodeAt(k) ^ x) + s.slice(k + 1);
  }),
  // a known-troublesome splice inserted
  fc.tuple(fc.nat(), fc.constantFrom(...SPLICES)).map(
    ([i, piece]): Mutation =>
      (s) =>
        s.slice(0, at(s, i)) + piece + s.slice(at(s, i)),
  ),
  // random text inserted
  fc.tuple(fc.nat(), noise(12)).map(
    ([i, piece]): Mutation =>
      (s) =>
        s.slice(0, at(s, i)) + piece + s.slice(at(s, i)),
  ),
  // a range deleted
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 80 })).map(
    ([i, n]): Mutation =>
      (s) =>
        s.slice(0, at(s, i)) + s.slice(at(s, i) + n),
  ),
  // a range duplicated
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 80 })).map(
    ([i, n]): Mutation =>
      (s) =>
        s.slice(0, at(s, i) + n) + s.slice(at(s, i)),
  ),
  // paste damage and wrappers
  fc.constantFrom<Mutation>(
    (s) => JSON.stringify(s),
    (s) => s.replace(/\n/g, '\\n'),
    (s) => s.replace(/\n/g, '\r\n'),
    (s) => s.replace(/\n/g, ''),
    (s) => `  \t${s}\n\n`,
    (s) => `\uFEFF${s}`,
    (s) => s.toLowerCase(),
    (s) => s.toUpperCase(),
    (s) => s + s,
    (s) => s.split('').reverse().join(''),
  ),
);

/** A base text with one to four mutations applied. */
export function mutatedFrom(bases: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...bases), fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([base, edits]) => edits.reduce((s, edit) => edit(s), base));
}

/** Keys that pollute a prototype when an object is merged naively, and keys our readers look at. */
export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** JSON values of every kind, with hostile strings, huge numbers and deep nesting among them. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: noise(40) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      1e308,
      -1e308,
      2 ** 53 + 1,
      -0,
      1767225600123,
      0.5,
      '',
      ' ',
      '\0',
      '\uD800',
      'x'.repeat(5000),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(30, 300, 3000).map((d) => JSON.parse(nested(d)) as unknown) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...HOSTILE_KEYS).map((k) => JSON.parse(`{"${k}":{"polluted":true}}`) as unknown),
  },
);

/**
 * JSON text of `base` with fields replaced, removed or added, hostile keys included. `__proto__`
 * keys are written into the text, so that JSON.parse makes them own properties as an attacker's
 * body would.
 */
export function jsonEditedFrom(
  bases: readonly Record<string, unknown>[],
  fieldNames: readonly string[],
): fc.Arbitrary<string> {
  const edit = fc.oneof(
    fc.tuple(fc.constant('set' as const), fc.constantFrom(...fieldNames, ...HOSTILE_KEYS), hostileJsonValue),
    fc.tuple(fc.constant('drop' as const), fc.constantFrom(...fieldNames), fc.constant(undefined)),
  );
  return fc.tuple(fc.constantFrom(...bases), fc.array(edit, { minLength: 1, maxLength: 4 })).map(([base, edits]) => {
    const entries = new Map<string, unknown>(Object.entries(base));
    for (const [kind, key, value] of edits) {
      if (kind === 'drop') entries.delete(key);
      else entries.set(key, value);
    }
    // Built by hand: JSON.stringify of an object would lose a `__proto__` key.
    return `{${[...entries].map(([k, v]) => `${JSON.stringify(k)}:${safeStringify(v)}`).join(',')}}`;
  });
}

function safeStringify(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * Counts what each input ended in. The work is bounded by the inputs, not by a clock: every input
 * has a bounded size (at most 10 MB), so a parser that is linear finishes, and one that hangs or is
 * quadratic on 10 MB runs into mocha's timeout for the whole test. The slowest input is printed
 * as a figure, never asserted (a loaded machine must not fail a correct parser).
 */
export class FuzzCounter {
  inputs = 0;
  typedErrors = 0;
  results = 0;
  slowestMs = 0;

  constructor(readonly target: string) {}

  /** Runs one input, counting it and its time. */
  time<T>(input: unknown, run: () => T): T {
    const start = performance.now();
    try {
      return run();
    } finally {
      this.note(input, performance.now() - start);
    }
  }

  async timeAsync<T>(input: unknown, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run();
    } finally {
      this.note(input, performance.now() - start);
    }
  }

  private note(input: unknown, ms: number): void {
    this.inputs++;
    if (ms > this.slowestMs) {
      this.slowestMs = ms;
      this.slowestInput = preview(input);
    }
  }

  /** The start of the slowest input, for the printed line. */
  slowestInput = '';

  line(): string {
    return `fuzz ${this.target}: ${this.inputs} inputs, ${this.typedErrors} typed errors, ${this.results} results (slowest ${this.slowestMs.toFixed(1)} ms: ${this.slowestInput.slice(0, 60)})`;
  }
}

/** The start of an input, for failure messages. */
export function preview(input: unknown): string {
  const text = typeof input === 'string' ? input : String(JSON.stringify(input));
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text);
}

/** Own property names of the built-in prototypes, to detect pollution. */
export function prototypeSnapshot(): string {
  const names = (o: object) => Object.getOwnPropertyNames(o).sort().join(',');
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(names).join('|');
}
