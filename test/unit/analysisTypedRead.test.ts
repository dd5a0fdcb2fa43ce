// One bad line never costs the rest of the harvest: thousands of good telemetry lines in several hour files, one value
// DuckDB's typed reader cannot type in one file and a null required time (which it can) in another. Every good line is
// kept, each bad one is set aside with its file and line, and copies of an item are one item whichever way their
// files were read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';

const T0 = Date.UTC(2026, 10, 20, 8);
const HOUR = 3_600_000;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const uuid = (prefix: string, n: number) => `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`;
const GOOD_PER_HOUR = 2_000;

let pointNo = 0;
/** A telemetry point of the MDS 2.0 model, its keys in the order given. */
function point(hour: number, i: number): Record<string, unknown> {
  const n = ++pointNo;
  return {
    device_id: uuid('d', (n % 50) + 1),
    provider_id: PROVIDER,
    telemetry_id: uuid('t', n),
    timestamp: T0 + hour * HOUR + i * 1_000,
    trip_ids: [uuid('r', n % 300)],
    journey_id: null,
    location: { lat: 52.5 + (n % 100) / 1e4, lng: 13.4, horizontal_accuracy: 5 },
    battery_percent: 80,
  };
}

describe('A typed read with one bad line: every good line kept, the bad one set aside with its file and line', function () {
  this.timeout(120_000);
  let dir: string;
  let report: CheckReport;
  const lines: string[][] = [[], [], [], []];
  const file = (h: number) => path.join('telemetry', 'telemetry', `${hourOf(T0 + h * HOUR)}.ndjson`);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typed-read-'));
    for (let h = 0; h < 4; h++) for (let i = 0; i < GOOD_PER_HOUR; i++) lines[h].push(JSON.stringify(point(h, i)));
    // Hour 1, line 700: battery_percent is an integer; "79%" stops DuckDB's typed reader in this file.
    lines[1].splice(699, 0, JSON.stringify({ ...point(1, 700), battery_percent: '79%' }));
    // Hour 3, line 100: a battery of 0.62, which DuckDB's typed reader would read as 0 without a word.
    lines[3].splice(99, 0, JSON.stringify({ ...point(3, 100), battery_percent: 0.62 }));
    // Hour 0, line 21: a battery written 8.0e1, a whole number (80) with an exponent: kept.
    lines[0][20] = lines[0][20].replace('"battery_percent":80', '"battery_percent":8.0e1');
    // Hour 1 also holds a byte-identical copy of an item of hour 0 (a resumed harvest).
    lines[1].push(lines[0][4]);
    // Hour 2, line 300: a null timestamp, which a typed read accepts and the model does not.
    lines[2].splice(299, 0, JSON.stringify({ ...point(2, 300), timestamp: null }));
    // Hour 3 holds a copy of an item of hour 0 with its keys in another order and spaces: the same values.
    const copy = JSON.parse(lines[0][9]) as Record<string, unknown>;
    lines[3].push(JSON.stringify(Object.fromEntries(Object.entries(copy).reverse()), null, 1).replace(/\n/g, ''));
    const endpoint = path.join(dir, 'telemetry');
    fs.mkdirSync(path.join(endpoint, 'telemetry'), { recursive: true });
    const hours: Record<string, unknown> = {};
    lines.forEach((ls, h) => {
      const body = ls.map((l) => `${l}\n`).join('');
      fs.writeFileSync(path.join(dir, file(h)), body);
      hours[hourOf(T0 + h * HOUR)] = {
        status: 'items',
        file: `telemetry/${hourOf(T0 + h * HOUR)}.ndjson`,
        items: ls.length,
        bytes: Buffer.byteLength(body),
        attempts: 1,
        requests: 1,
        pages: 1,
        httpStatus: 200,
        startedAt: new Date(T0).toISOString(),
        durationMs: 1,
      };
    });
    const manifest = {
      format: 'mobility-api-harvest',
      formatVersion: 1,
      endpoint: 'telemetry',
      path: '/telemetry',
      hourParameter: 'end_time',
      baseUrl: 'https://mds.example/provider',
      from: hourOf(T0),
      to: hourOf(T0 + 3 * HOUR),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
      hours,
    };
    fs.writeFileSync(path.join(endpoint, 'manifest.json'), JSON.stringify(manifest));
    const r = await runCliInProcess(['check', dir, '--json']);
    assert.equal(r.code, 1, r.err);
    report = JSON.parse(r.out) as CheckReport;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('check: the three bad lines are findings with their file and line; the counts add up', () => {
    const details = (report.rules.find((r) => r.id === 'untyped-items')?.findings ?? []).map((f) => f.detail).sort();
    assert.deepEqual(details, [
      `telemetry, ${file(1)} line 700: battery_percent is "79%", not a whole number (left out of telemetry; the item is in untyped_items)`,
      `telemetry, ${file(2)} line 300: timestamp is required and missing or null (left out of telemetry; the item is in untyped_items)`,
      `telemetry, ${file(3)} line 100: battery_percent is 0.62, not a whole number (left out of telemetry; the item is in untyped_items)`,
    ]);
    const read = lines.reduce((n, ls) => n + ls.length, 0);
    assert.deepEqual(report.intake?.telemetry, { read, kept: read - 5, merged: 2, setAside: 3 });
    assert.equal(report.items.telemetry, 4 * GOOD_PER_HOUR);
    // Both copies are identical copies: no two versions of one item.
    assert.equal(report.rules.find((r) => r.id === 'duplicate-ids')?.count, 0);
    // Every hour file holds the lines its manifest counts.
    assert.equal(report.rules.find((r) => r.id === 'harvest-files')?.count, 0);
  });

  it('sql: every good line of every file is a typed row (8.0e1 as 80), the bad lines are in untyped_items as written', async () => {
    const r = await runCliInProcess([
      'sql',
      dir,
      'SELECT count(*) AS n, count(DISTINCT telemetry_id) AS ids, count(*) FILTER (battery_percent = 80) AS typed FROM telemetry',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), [{ n: 4 * GOOD_PER_HOUR, ids: 4 * GOOD_PER_HOUR, typed: 4 * GOOD_PER_HOUR }]);
    const u = await runCliInProcess(['sql', dir, 'SELECT file, line, item FROM untyped_items ORDER BY line', '--json']);
    assert.deepEqual(JSON.parse(u.out), [
      { file: file(3), line: 100, item: lines[3][99] },
      { file: file(2), line: 300, item: lines[2][299] },
      { file: file(1), line: 700, item: lines[1][699] },
    ]);
  });
});
