// The MDS 2.0.2 state machines that event-sequence follows, read a second way: the tables of the vendored official
// modes/*.md by a markdown parser (markdown-it, GFM tables) instead of modeMachines.ts's line reading, and the prose
// sentences that open a state to or from every other state expanded by hand here, each sentence checked to be in the
// vendored text word for word. The committed modeTransitions.json must be exactly that set, mode by mode.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { MODE_MACHINES } from '../../src/core/analysis';
import { bundledMdsSchema } from '../../src/core/conformance';

const VENDORED = path.resolve('schemas', 'mds-modes', 'modes');
const MODES = ['micromobility', 'car-share', 'delivery-robots', 'passenger-services'];

/** The words in backticks of a cell's text, trimmed. */
const ticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1].trim());

/** Each table's rows (cells as text) under the headings of the file, by markdown-it's tokens. */
function tablesOf(text: string): { heading: string; header: string[]; rows: string[][] }[] {
  const tokens = new MarkdownIt().parse(text, {});
  const tables: { heading: string; header: string[]; rows: string[][] }[] = [];
  let heading = '';
  let row: string[] | undefined;
  let inHead = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open') heading = tokens[i + 1].content;
    else if (token.type === 'table_open') tables.push({ heading, header: [], rows: [] });
    else if (token.type === 'thead_open') inHead = true;
    else if (token.type === 'thead_close') inHead = false;
    else if (token.type === 'tr_open') row = [];
    else if ((token.type === 'th_open' || token.type === 'td_open') && row) row.push(tokens[i + 1].content);
    else if (token.type === 'tr_close' && row) {
      const table = tables[tables.length - 1];
      if (inHead) table.header = row;
      else table.rows.push(row);
      row = undefined;
    }
  }
  return tables;
}

/** The states listed under "### Vehicle States", by markdown-it's list items. */
function statesOf(text: string): string[] {
  const tokens = new MarkdownIt().parse(text, {});
  const start = tokens.findIndex((t, i) => t.type === 'heading_open' && tokens[i + 1].content === 'Vehicle States');
  const out: string[] = [];
  for (let i = start + 3; i < tokens.length && tokens[i].type !== 'heading_open'; i++) {
    if (
      tokens[i].type === 'inline' &&
      tokens[i - 1].type === 'paragraph_open' &&
      tokens[i - 2]?.type === 'list_item_open'
    )
      out.push(...ticked(tokens[i].content).slice(0, 1));
  }
  return out;
}

/**
 * The sentences of the official text beyond the tables, as this test reads them (by hand): the exact words, and what
 * they allow. Only micromobility.md has such sentences in 2.0.2.
 */
const PROSE: Record<
  string,
  { sentence: string; into?: { state: string; types: string[] }; outOf?: { state: string; types: string[] } }[]
> = {
  micromobility: [
    {
      sentence: 'any state can go to `non_contactable` with event type `comms_lost` or `unspecified`',
      into: { state: 'non_contactable', types: ['comms_lost', 'unspecified'] },
    },
    // "of" is the text's typo for "or".
    {
      sentence: '`non_contactable` can go to any state with event type `comms_restored` of `unspecified`.',
      outOf: { state: 'non_contactable', types: ['comms_restored', 'unspecified'] },
    },
    {
      sentence: '`missing` can go to any state with event type `located` or `unspecified`.',
      outOf: { state: 'missing', types: ['located', 'unspecified'] },
    },
  ],
};

function independentReading(mode: string): Set<string> {
  const text = fs.readFileSync(path.join(VENDORED, `${mode}.md`), 'utf8');
  const table = tablesOf(text).find((t) => /^Vehicle States? Events$/.test(t.heading));
  assert.ok(table, `${mode}: a table under "Vehicle State(s) Events"`);
  const from = table.header.findIndex((c) => c.includes('**From**'));
  const to = table.header.findIndex((c) => c.includes('**To**'));
  const type = table.header.findIndex((c) => c === '`event_type`');
  assert.ok(from >= 0 && to >= 0 && type >= 0, `${mode}: From, To and event_type columns`);
  const out = new Set<string>();
  for (const row of table.rows)
    for (const f of ticked(row[from]))
      for (const t of ticked(row[to])) for (const e of ticked(row[type])) out.add(`${f} ${e} ${t}`);
  const states = statesOf(text);
  assert.ok(states.length >= 7, `${mode}: its states`);
  for (const rule of PROSE[mode] ?? []) {
    assert.ok(
      text.replace(/\s+/g, ' ').includes(rule.sentence),
      `${mode}: the sentence «${rule.sentence}» is in the vendored text`,
    );
    if (rule.into)
      for (const s of states)
        if (s !== rule.into.state) for (const e of rule.into.types) out.add(`${s} ${e} ${rule.into.state}`);
    if (rule.outOf)
      for (const s of states)
        if (s !== rule.outOf.state) for (const e of rule.outOf.types) out.add(`${rule.outOf.state} ${e} ${s}`);
  }
  return out;
}

describe('MDS 2.0.2 state machines against an independent reading of the official text', () => {
  for (const mode of MODES) {
    it(`${mode}: the committed transitions are exactly the table rows (read by markdown-it) and the "any state" sentences`, () => {
      const expected = independentReading(mode);
      const committed = new Set(MODE_MACHINES.modes[mode].transitions.map((t) => t.join(' ')));
      assert.deepEqual(
        [...committed].filter((t) => !expected.has(t)).sort(),
        [],
        `${mode}: transitions the official text does not have`,
      );
      assert.deepEqual(
        [...expected].filter((t) => !committed.has(t)).sort(),
        [],
        `${mode}: transitions of the official text that are missing`,
      );
      assert.equal(committed.size, MODE_MACHINES.modes[mode].transitions.length, `${mode}: no transition twice`);
    });
  }

  it('every event type of a machine is an event type of the MDS 2.0 events model (no state read as an event type)', () => {
    const schema: unknown = bundledMdsSchema('events_historical');
    const enums = new Set<string>();
    const walk = (node: unknown, key?: string) => {
      if (Array.isArray(node)) node.forEach((n) => walk(n, key));
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'enum' && Array.isArray(v) && key && /event_type/.test(key))
            v.forEach((x) => typeof x === 'string' && enums.add(x));
          walk(v, k === 'enum' ? key : /event_type/.test(k) ? k : key);
        }
      }
    };
    walk(schema);
    assert.ok(enums.size > 20, `the events model's event types (${enums.size})`);
    for (const mode of MODES) {
      const unknown = [...new Set(MODE_MACHINES.modes[mode].transitions.map(([, e]) => e))].filter(
        (e) => !enums.has(e),
      );
      assert.deepEqual(unknown, [], `${mode}: event types not in the events model`);
    }
  });
});
