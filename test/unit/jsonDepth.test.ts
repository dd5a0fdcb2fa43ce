import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, jsonNestsDeeperThan, valueNestsDeeperThan } from '../../src/core/base/jsonDepth';
import { interpretBody } from '../../src/core/http/exchange';
import type { HttpExchange } from '../../src/core/http/exchange';

/** The scan as it was before strings were skipped with indexOf: one character at a time. */
function referenceScan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > maxDepth) return true;
    } else if (c === ']' || c === '}') depth--;
  }
  return false;
}

const nestedLists = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

function exchangeOf(text: string): HttpExchange {
  const exchange = {
    contentType: 'application/json',
    ok: true,
    body: undefined,
    bodyKind: 'empty',
  } as unknown as HttpExchange;
  interpretBody(exchange, new TextEncoder().encode(text));
  return exchange;
}

describe('JSON nesting guard', () => {
  it('the text scan gives the character-by-character answer for any text of quotes, backslashes and brackets', () => {
    const text = fc
      .array(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':'), { maxLength: 60 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 0, max: 6 }),
        (t, max) => jsonNestsDeeperThan(t, max) === referenceScan(t, max),
      ),
      { numRuns: 20_000 },
    );
  });

  it('the check of a parsed value gives the answer of the text scan on its JSON', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.integer({ min: 0, max: 8 }),
        (value, max) => valueNestsDeeperThan(value, max) === jsonNestsDeeperThan(JSON.stringify(value), max),
      ),
      { numRuns: 5_000 },
    );
    for (const levels of [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      const objects = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      assert.equal(valueNestsDeeperThan(JSON.parse(nestedLists(levels))), levels > MAX_JSON_DEPTH, `${levels} lists`);
      assert.equal(valueNestsDeeperThan(JSON.parse(objects)), levels > MAX_JSON_DEPTH, `${levels} objects`);
    }
    // Far deeper than any stack: answered without recursing that far.
    assert.equal(valueNestsDeeperThan(JSON.parse(nestedLists(200_000))), true);
  });

  it('a response body within the limit is JSON, one level deeper is kept as text with the reason', () => {
    const within = exchangeOf(`{"vehicles":${nestedLists(MAX_JSON_DEPTH - 1)},"s":"${'['.repeat(1000)}"}`);
    assert.equal(within.bodyKind, 'json');
    assert.equal(within.bodyProblem, undefined);
    const deeper = exchangeOf(`{"vehicles":${nestedLists(MAX_JSON_DEPTH)}}`);
    assert.equal(deeper.bodyKind, 'text');
    assert.match(deeper.bodyProblem!, /more than 256 levels deep, so it is kept as text/);
    assert.equal(deeper.body, deeper.text);
    const broken = exchangeOf(`{"vehicles":${'['.repeat(1000)}`);
    assert.equal(broken.bodyKind, 'text');
    assert.match(broken.bodyProblem!, /does not parse/);
  });
});
