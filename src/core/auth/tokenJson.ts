// What JSON.parse hides about a token's header and payload: a member name written twice (JSON.parse keeps the last in
// silence; RFC 7515 section 4 and RFC 7519 section 4 say such a token must be refused or read by its last value) and a
// number JSON.parse cannot hold as written (`1e400` becomes Infinity, which JSON.stringify shows as `null`). Read with
// jsonc-parser's tokenizer (strict JSON), not by hand.
import type { JSONPath } from 'jsonc-parser/lib/esm/main.js';

/** A member name that an object of the part holds more than once. */
export interface DuplicateMember {
  /** Where the object is, then the name: `["alg"]`, `["cnf", "kid"]`. */
  path: (string | number)[];
  /** How often the name is written in that object. */
  count: number;
}

/** A number as the token writes it, where JSON.parse's value differs: beyond a double's range or an integer's precision. */
export interface WrittenNumber {
  path: (string | number)[];
  /** The literal as written, e.g. `1e400`. */
  text: string;
}

/** What `readJsonAsWritten` finds; both lists empty for an ordinary token. */
export interface JsonAsWritten {
  duplicates: DuplicateMember[];
  numbers: WrittenNumber[];
}

type JsoncParser = typeof import('jsonc-parser/lib/esm/main.js');
let jsonc: JsoncParser | undefined;

/** The duplicates and numbers of `text`, which JSON.parse accepted (so it is strict JSON). */
export function readJsonAsWritten(text: string): JsonAsWritten {
  // Required on first use, as in requestFileGrpc.ts: the module sets up its tables when it loads, which activation need not pay.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  jsonc ??= require('jsonc-parser/lib/esm/main.js') as JsoncParser;
  const duplicates: DuplicateMember[] = [];
  const numbers: WrittenNumber[] = [];
  // One entry per open object (its names so far) or array (undefined).
  const open: (Map<string, number> | undefined)[] = [];
  const reported = new Map<string, DuplicateMember>();
  jsonc.visit(
    text,
    {
      onObjectBegin: () => void open.push(new Map()),
      onObjectEnd: () => void open.pop(),
      onArrayBegin: () => void open.push(undefined),
      onArrayEnd: () => void open.pop(),
      onObjectProperty: (
        name: string,
        _offset: number,
        _length: number,
        _line: number,
        _column: number,
        pathSupplier: () => JSONPath,
      ) => {
        const names = open[open.length - 1];
        if (!names) return;
        const count = (names.get(name) ?? 0) + 1;
        names.set(name, count);
        if (count < 2) return;
        const path = [...pathSupplier(), name];
        const key = JSON.stringify(path.map(String));
        const known = reported.get(key);
        if (known) known.count = count;
        else {
          const entry = { path, count };
          reported.set(key, entry);
          duplicates.push(entry);
        }
      },
      onLiteralValue: (
        value: unknown,
        offset: number,
        length: number,
        _line: number,
        _column: number,
        pathSupplier: () => JSONPath,
      ) => {
        if (typeof value !== 'number') return;
        const written = text.slice(offset, offset + length);
        if (
          !Number.isFinite(value) ||
          (Number.isInteger(value) && !Number.isSafeInteger(value) && String(value) !== written)
        ) {
          numbers.push({ path: [...pathSupplier()], text: written });
        }
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return { duplicates, numbers };
}

/**
 * `JSON.stringify(value, null, space)`, but each number listed in `numbers` (by its path from `value`) is written as the
 * token writes it: `"exp": 1e400`, not `"exp": null`. Still JSON; what JSON.parse makes of it is another matter.
 */
export function stringifyAsWritten(value: unknown, numbers: readonly WrittenNumber[], space?: number): string {
  if (numbers.length === 0) return JSON.stringify(value, null, space);
  const byPath = new Map(numbers.map((n) => [JSON.stringify(n.path.map(String)), n.text]));
  const marker = `\u0001written-number-${Math.random().toString(36).slice(2)}-`;
  const texts: string[] = [];
  // The path of every object or array met, so that a number's path is known from its holder.
  const pathOf = new Map<object, string[]>();
  const text = JSON.stringify(
    value,
    function (this: object, key: string, v: unknown) {
      const parent = pathOf.get(this);
      const path = parent === undefined ? [] : [...parent, key];
      if (typeof v === 'object' && v !== null) pathOf.set(v, path);
      if (typeof v !== 'number') return v;
      const written = byPath.get(JSON.stringify(path));
      if (written === undefined) return v;
      texts.push(written);
      return `${marker}${texts.length - 1}`;
    },
    space,
  );
  // The marker starts with a control character (written \u0001) and holds a random part: no string of a token is taken for it.
  const quoted = JSON.stringify(marker).slice(0, -1);
  return text.replace(new RegExp(`${escapeRegExp(quoted)}(\\d+)"`, 'g'), (_m, i: string) => texts[Number(i)]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
