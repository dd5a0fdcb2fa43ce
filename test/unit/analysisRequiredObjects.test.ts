// A required object that is null or missing is an item that cannot be typed, like a null required time: MDS 2.0.2
// (data-types.md and the mds-openapi models) requires a trip's `start_location` and `end_location`, a telemetry
// point's `location`, an event's `location` (or, for a geography-driven event, its `event_geographies`), and a
// status's `last_event` and `last_telemetry`, and lets none of them be null; a GPS point requires `lat` and `lng`.
// Such items are set aside with their file, line and why, counted, and kept as raw JSON; the rest is analysed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';

const T0 = Date.UTC(2026, 10, 20, 8);
const MIN = 60_000;
const hour = new Date(T0).toISOString().slice(0, 13);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const id = (prefix: string, n: number) => `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`;
const dev = (n: number) => id('d', n);
const at = (metres: number) => ({ lat: 52.5 + metres / 111_195, lng: 13.4 });

type Item = Record<string, unknown>;

/** The hour files of `endpoint` under `dir` (lines as written, from T0's hour on), with their manifest; their paths. */
function writeHours(dir: string, endpoint: 'trips' | 'events_historical' | 'telemetry', byHour: string[][]): string[] {
  fs.mkdirSync(path.join(dir, endpoint, endpoint), { recursive: true });
  const record: Record<string, unknown> = {};
  const hourAt = (h: number) => new Date(T0 + h * 3_600_000).toISOString().slice(0, 13);
  byHour.forEach((lines, h) => {
    const body = lines.map((l) => `${l}\n`).join('');
    fs.writeFileSync(path.join(dir, endpoint, endpoint, `${hourAt(h)}.ndjson`), body);
    record[hourAt(h)] = {
      status: 'items',
      file: `${endpoint}/${hourAt(h)}.ndjson`,
      items: lines.length,
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
    endpoint,
    path: `/${endpoint}`,
    hourParameter: 'end_time',
    baseUrl: 'https://mds.example/provider',
    from: hour,
    to: hourAt(byHour.length - 1),
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    hours: record,
  };
  fs.writeFileSync(path.join(dir, endpoint, 'manifest.json'), JSON.stringify(manifest));
  return byHour.map((_, h) => path.join(endpoint, endpoint, `${hourAt(h)}.ndjson`));
}
/** One hour file of `endpoint` under `dir`, with its manifest; its path. */
const writeHour = (dir: string, endpoint: 'trips' | 'events_historical' | 'telemetry', items: Item[]): string =>
  writeHours(dir, endpoint, [items.map((i) => JSON.stringify(i))])[0];

const trip = (n: number, extra: Item = {}): Item => ({
  provider_id: PROVIDER,
  device_id: dev(n),
  trip_id: id('r', n),
  trip_type: ['rider'],
  start_time: T0 + n * MIN,
  end_time: T0 + (n + 10) * MIN,
  duration: 600,
  distance: 2000,
  start_location: at(0),
  end_location: at(2000),
  ...extra,
});
const event = (n: number, extra: Item = {}): Item => ({
  device_id: dev(n),
  provider_id: PROVIDER,
  event_id: id('e', n),
  vehicle_state: 'available',
  event_types: ['located'],
  timestamp: T0 + n * MIN,
  location: at(0),
  battery_percent: 80,
  ...extra,
});
const point = (n: number, extra: Item = {}): Item => ({
  device_id: dev(n),
  provider_id: PROVIDER,
  telemetry_id: id('t', n),
  timestamp: T0 + n * MIN,
  trip_ids: null,
  journey_id: null,
  location: at(0),
  battery_percent: 80,
  ...extra,
});
const vehicle = (n: number): Item => ({
  device_id: dev(n),
  provider_id: PROVIDER,
  vehicle_id: `V-${n}`,
  vehicle_type: 'scooter_standing',
  propulsion_types: ['electric'],
});
const status = (n: number, extra: Item = {}): Item => ({
  device_id: dev(n),
  provider_id: PROVIDER,
  last_event: event(n),
  last_telemetry: point(n),
  ...extra,
});
const without = (item: Item, field: string): Item =>
  Object.fromEntries(Object.entries(item).filter(([k]) => k !== field));

describe('Required objects: an item whose required GPS point, event or telemetry is null or missing is set aside, with its file and line', function () {
  this.timeout(120_000);
  let dir: string;
  let report: CheckReport;
  const files = { trips: '', events: '', telemetry: '', status: path.join('snapshot', 'vehicles_status.ndjson') };
  const statuses: Item[] = [
    status(1),
    status(2, { last_telemetry: null }),
    without(status(3), 'last_event'),
    status(4, { last_telemetry: { ...point(4), location: null } }),
    status(5, { last_event: { ...event(5), location: { lat: 52.5, lng: null } } }),
  ];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'required-objects-'));
    files.trips = writeHour(dir, 'trips', [
      trip(1),
      trip(2, { end_location: null }),
      without(trip(3), 'start_location'),
      trip(4, { end_location: { lat: null, lng: 13.4 } }),
      trip(5),
    ]);
    files.events = writeHour(dir, 'events_historical', [
      event(1),
      event(2, { location: null }),
      without(event(3), 'location'),
      // A geography-driven event (MDS 2.0.2: event_geographies is "required if location is not present"): kept.
      { ...without(event(4), 'location'), event_geographies: [id('g', 1)] },
      event(5, { location: { lng: 13.4 } }),
    ]);
    files.telemetry = writeHour(dir, 'telemetry', [point(1), point(2, { location: null }), point(3)]);
    const snap = path.join(dir, 'snapshot');
    fs.mkdirSync(snap, { recursive: true });
    const vehicles = [1, 2, 3, 4, 5].map(vehicle);
    fs.writeFileSync(path.join(snap, 'vehicles.ndjson'), vehicles.map((v) => `${JSON.stringify(v)}\n`).join(''));
    fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), statuses.map((v) => `${JSON.stringify(v)}\n`).join(''));
    const lists = {
      vehicles: { file: 'vehicles.ndjson', items: vehicles.length, pages: 1 },
      vehicles_status: { file: 'vehicles_status.ndjson', items: statuses.length, pages: 1 },
    };
    fs.writeFileSync(
      path.join(snap, 'snapshot.json'),
      JSON.stringify({
        format: 'mobility-api-snapshot',
        formatVersion: 1,
        baseUrl: 'https://mds.example/provider',
        fetchedAt: new Date(T0 + 3_600_000).toISOString(),
        lastUpdated: T0 + 3_600_000,
        lists,
      }),
    );
    const r = await runCliInProcess(['check', dir, '--json']);
    assert.equal(r.code, 1, r.err);
    report = JSON.parse(r.out) as CheckReport;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('check: each such item is an untyped-items finding that says which object and why; the counts add up', () => {
    const details = (report.rules.find((r) => r.id === 'untyped-items')?.findings ?? []).map((f) => f.detail).sort();
    const aside = (view: string, file: string, line: number, why: string) =>
      `${view}, ${file} line ${line}: ${why} (left out of ${view}; the item is in untyped_items)`;
    assert.deepEqual(
      details,
      [
        aside(
          'events',
          files.events,
          2,
          'location is null and there are no event_geographies; MDS 2.0 requires a GPS point (or, for a geography-driven event, event_geographies)',
        ),
        aside(
          'events',
          files.events,
          3,
          'location is missing and there are no event_geographies; MDS 2.0 requires a GPS point (or, for a geography-driven event, event_geographies)',
        ),
        aside('events', files.events, 5, 'location.lat is required and missing or null'),
        aside('telemetry', files.telemetry, 2, 'location is null; MDS 2.0 requires a GPS point'),
        aside('trips', files.trips, 2, 'end_location is null; MDS 2.0 requires a GPS point'),
        aside('trips', files.trips, 3, 'start_location is missing; MDS 2.0 requires a GPS point'),
        aside('trips', files.trips, 4, 'end_location.lat is required and missing or null'),
        aside('vehicles_status', files.status, 2, 'last_telemetry is null; MDS 2.0 requires a telemetry point'),
        aside('vehicles_status', files.status, 3, 'last_event is missing; MDS 2.0 requires an event'),
        aside('vehicles_status', files.status, 4, 'last_telemetry.location is null; MDS 2.0 requires a GPS point'),
        aside('vehicles_status', files.status, 5, 'last_event.location.lng is required and missing or null'),
      ].sort(),
    );
    assert.deepEqual(report.intake?.trips, { read: 5, kept: 2, merged: 0, setAside: 3 });
    assert.deepEqual(report.intake?.events, { read: 5, kept: 2, merged: 0, setAside: 3 });
    assert.deepEqual(report.intake?.telemetry, { read: 3, kept: 2, merged: 0, setAside: 1 });
    assert.deepEqual(report.intake?.vehicles_status, { read: 5, kept: 1, merged: 0, setAside: 4 });
  });

  it('sql: the typed views hold the rest (the geography-driven event too); the items set aside are in untyped_items as written', async () => {
    const r = await runCliInProcess([
      'sql',
      dir,
      'SELECT (SELECT list(trip_id ORDER BY trip_id) FROM trips) AS trips, (SELECT list(event_id ORDER BY event_id) FROM events) AS events, (SELECT list(device_id ORDER BY device_id) FROM vehicles_status) AS statuses',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), [
      { trips: [id('r', 1), id('r', 5)], events: [id('e', 1), id('e', 4)], statuses: [dev(1)] },
    ]);
    const u = await runCliInProcess([
      'sql',
      dir,
      "SELECT line, item FROM untyped_items WHERE endpoint = 'vehicles_status' ORDER BY line",
      '--json',
    ]);
    assert.equal(u.code, 0, u.err);
    assert.deepEqual(
      JSON.parse(u.out),
      [2, 3, 4, 5].map((line) => ({ line, item: JSON.stringify(statuses[line - 1]) })),
    );
  });
});

describe('One typed pass over the files: an integer of the model that is not whole, at any depth, is set aside with its line; 8.0e1 is 80', function () {
  this.timeout(120_000);
  let dir: string;
  let files: string[];
  const lines = [
    // Hour 0, line 2: location.satellites is an integer of the model (data-types/gps); 7.5 is not whole.
    [JSON.stringify(point(1)), JSON.stringify(point(2, { location: { ...at(0), satellites: 7.5 } }))],
    // Hour 1: a battery written 8.0e1 (80) and a whole number too large for a double to hold exactly: both kept, as written.
    [
      JSON.stringify(point(61)).replace('"battery_percent":80', '"battery_percent":8.0e1'),
      JSON.stringify(point(62)).replace(/"timestamp":\d+/, '"timestamp":9007199254740993'),
    ],
  ];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whole-numbers-'));
    files = writeHours(dir, 'telemetry', lines);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('check and sql: the fraction is a finding with its file and line; the rest is typed, each value as written', async () => {
    const r = await runCliInProcess(['check', dir, '--json', '--rule', 'untyped-items']);
    const report = JSON.parse(r.out) as CheckReport;
    assert.deepEqual(
      (report.rules.find((x) => x.id === 'untyped-items')?.findings ?? []).map((f) => f.detail),
      [
        `telemetry, ${files[0]} line 2: location.satellites is 7.5, not a whole number (left out of telemetry; the item is in untyped_items)`,
      ],
    );
    assert.deepEqual(report.intake?.telemetry, { read: 4, kept: 3, merged: 0, setAside: 1 });
    const s = await runCliInProcess([
      'sql',
      dir,
      'SELECT telemetry_id, battery_percent, timestamp::VARCHAR AS t FROM telemetry ORDER BY telemetry_id',
      '--json',
    ]);
    assert.equal(s.code, 0, s.err);
    assert.deepEqual(JSON.parse(s.out), [
      { telemetry_id: id('t', 1), battery_percent: 80, t: String(T0 + MIN) },
      { telemetry_id: id('t', 61), battery_percent: 80, t: String(T0 + 61 * MIN) },
      { telemetry_id: id('t', 62), battery_percent: 80, t: '9007199254740993' },
    ]);
  });
});
