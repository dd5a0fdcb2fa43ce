// The export writers (CSV, GeoJSON) and the atomic file writer: quoting, formula injection, unicode, token
// scrubbing, 100,000 rows written in chunks with bounded memory, and a cancelled export leaving no file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { queryRows } from '../../src/shared/dataTable';
import { vehicleDataTable } from '../../src/shared/dataTableBuild';
import { writeChunksAtomically } from '../../src/results/history/exportFile';
import {
  EXPORT_CHUNK_ROWS,
  countPoints,
  csvCell,
  csvChunks,
  geoJsonChunks,
} from '../../src/results/history/exportWriters';
import { telemetryTable, tripTable } from '../../src/results/requests/resourceReaders';
import { vehicleColumns } from '../../src/results/requests/vehicleReader';

/** RFC 4180 records of a CSV text (quoted fields with commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

describe('result export', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mae-export-'));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('quotes cells with commas, quotes and line breaks, and defuses formulas', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    for (const formula of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx'])
      assert.ok(csvCell(formula).replace(/^"/, '').startsWith("'"), `${JSON.stringify(formula)} is prefixed with '`);
    assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
    assert.equal(csvCell('-12.5', true), '-12.5', 'a negative number is a number, not a formula');
  });

  it('writes every column (hidden ones too) with raw numbers, ISO times and lat/lng pairs; unicode as is; rows as filtered and sorted', () => {
    const table = tripTable([
      {
        trip_id: 't,1',
        device_id: '=cmd|calc',
        provider_id: 'p',
        start_time: Date.UTC(2025, 10, 5, 13),
        duration: 61.5,
        start_location: { lat: 52.5, lng: 13.4 },
        end_location: { lat: 52.6, lng: 13.5 },
      },
      { trip_id: 'Zürich 🚲 "quote"', device_id: 'd2', duration: 10 },
    ]);
    const rows = queryRows(table, { sortColumn: 'duration' });
    const text = [...csvChunks(table, rows)].join('');
    const parsed = parseCsv(text);
    assert.deepEqual(parsed[0], [
      'Trip ID',
      'Device ID',
      'Provider ID',
      'Trip type',
      'Start',
      'End',
      'Duration',
      'Distance',
      'Start position lat',
      'Start position lng',
      'End position lat',
      'End position lng',
    ]);
    assert.equal(parsed.length, 3);
    assert.equal(parsed[1][0], 'Zürich 🚲 "quote"', 'sorted by duration: the shorter trip first; unicode kept');
    assert.equal(parsed[2][0], 't,1');
    assert.equal(parsed[2][1], "'=cmd|calc", 'a formula is defused');
    assert.equal(parsed[2][2], 'p', 'hidden columns are exported');
    assert.equal(parsed[2][4], '2025-11-05T13:00:00.000Z');
    assert.equal(parsed[2][6], '61.5', 'raw numbers, no unit or rounding');
    assert.deepEqual(parsed[2].slice(8), ['52.5', '13.4', '52.6', '13.5']);
    assert.deepEqual(parsed[1].slice(8), ['', '', '', '']);
  });

  it('writes GeoJSON points with the row as properties; a trip gives a start and an end point', () => {
    const table = tripTable([
      { trip_id: 't1', duration: 5, start_location: { lat: 52.5, lng: 13.4 }, end_location: { lat: 52.6, lng: 13.5 } },
      { trip_id: 't2' },
    ]);
    const rows = queryRows(table, {});
    assert.equal(countPoints(table, rows), 2);
    const geo = JSON.parse([...geoJsonChunks(table, rows)].join('')) as {
      type: string;
      features: { geometry: { type: string; coordinates: number[] }; properties: Record<string, unknown> }[];
    };
    assert.equal(geo.type, 'FeatureCollection');
    assert.equal(geo.features.length, 2);
    assert.deepEqual(geo.features[0].geometry, { type: 'Point', coordinates: [13.4, 52.5] }, 'GeoJSON is [lng, lat]');
    assert.equal(geo.features[0].properties.position, 'Start position');
    assert.equal(geo.features[1].properties.position, 'End position');
    assert.equal(geo.features[0].properties['Trip ID'], 't1');
    assert.equal(geo.features[0].properties.Duration, 5);
    const empty = JSON.parse([...geoJsonChunks(table, new Uint32Array(0))].join('')) as { features: unknown[] };
    assert.deepEqual(empty.features, []);
  });

  it("scrubs the result's tokens from every chunk", () => {
    const token = `eyJhbGciOiJFUzI1NiJ9.${'a'.repeat(200)}.${'s'.repeat(86)}`;
    const table = vehicleDataTable(
      vehicleColumns([
        { device_id: `leak ${token}`, last_event: { vehicle_state: 'available', location: { lat: 1, lng: 2 } } },
      ]),
    );
    const rows = queryRows(table, {});
    const csv = [...csvChunks(table, rows, [token])].join('');
    const geo = [...geoJsonChunks(table, rows, [token])].join('');
    for (const text of [csv, geo]) {
      assert.ok(!text.includes(token), 'no token in the export');
      assert.ok(!text.includes('s'.repeat(86)), 'not even its signature');
      assert.ok(text.includes('leak eyJhbGciOi'), 'the cell is still there, with the token shortened');
    }
    JSON.parse(geo);
  });

  it('streams 100,000 telemetry rows to a file in chunks, with bounded memory, and reads them back', async () => {
    const n = 100_000;
    const items = Array.from({ length: n }, (_, i) => ({
      device_id: `device-${i}`,
      timestamp: 1_700_000_000_000 + i,
      location: { lat: 52 + (i % 1000) / 10_000, lng: 13 + i / 1e6, speed: i % 20 },
      battery_percent: i % 100,
    }));
    const table = telemetryTable(items);
    const rows = queryRows(table, {});
    let chunks = 0;
    let largest = 0;
    const counted = function* () {
      for (const chunk of csvChunks(table, rows)) {
        chunks++;
        largest = Math.max(largest, chunk.length);
        yield chunk;
      }
    };
    const target = path.join(dir, 'telemetry.csv');
    const outcome = await writeChunksAtomically(target, counted());
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(chunks, Math.ceil(n / EXPORT_CHUNK_ROWS) + 1, 'one header chunk, then chunks of rows');
    assert.ok(
      largest < 1_000_000,
      `a chunk stays small (${largest} characters), the file is ${outcome.ok ? outcome.bytes : 0} bytes`,
    );
    const lines = fs.readFileSync(target, 'utf8').split('\r\n');
    assert.equal(lines.length, n + 2, 'header, rows, and the final line end');
    assert.ok(lines[n].startsWith(`${new Date(1_700_000_000_000 + n - 1).toISOString()},device-${n - 1},`));
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.part')),
      [],
      'no temporary file left',
    );
  });

  it('leaves no file when cancelled, and no partial file when a write fails', async () => {
    const target = path.join(dir, 'cancelled.csv');
    let written = 0;
    const outcome = await writeChunksAtomically(
      target,
      (function* () {
        for (let i = 0; i < 100; i++) yield 'x'.repeat(100_000);
      })(),
      { isCancelled: () => written >= 3, onChunk: () => written++ },
    );
    assert.deepEqual(outcome, { ok: false, cancelled: true });
    assert.ok(!fs.existsSync(target), 'the target is not written');
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.startsWith('.cancelled')),
      [],
      'no temporary file left',
    );

    const bad = await writeChunksAtomically(path.join(dir, 'no-such-folder', 'x.csv'), ['a']);
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && !bad.cancelled && /Could not write .*no-such-folder/.test(bad.message));

    const failing = path.join(dir, 'failing.csv');
    const thrown = await writeChunksAtomically(
      failing,
      (function* () {
        yield 'a';
        throw new Error('generator broke');
      })(),
    );
    assert.ok(!thrown.ok && !thrown.cancelled && /generator broke/.test(thrown.message));
    assert.ok(!fs.existsSync(failing));
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.part')),
      [],
    );
  });

  it('writes bytes as they are (a descriptor set) over an older file', async () => {
    const target = path.join(dir, 'schema.protoset');
    fs.writeFileSync(target, 'the old schema');
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256);
    const outcome = await writeChunksAtomically(target, [bytes.subarray(0, 1), bytes.subarray(1)]);
    assert.deepEqual(outcome, { ok: true, bytes: bytes.length });
    assert.deepEqual(new Uint8Array(fs.readFileSync(target)), bytes, 'not re-encoded as text');
  });
});
