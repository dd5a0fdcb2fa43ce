// No item is lost or skipped in silence: hand-written harvest folders whose faults follow the MDS 2.0 text (ids of two
// different items, items the model cannot type, hour files that disagree with their manifest), read by `check`, `sql`,
// `metrics` and `parquet` as a user runs them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';

const T0 = Date.UTC(2026, 10, 20, 8); // 2026-11-20T08:00Z
const MIN = 60_000;
const HOUR = 60 * MIN;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const id = (prefix: string, n: number) =>
  `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`.slice(0, 36);
const dev = (n: number) => id('d', n);
const at = (metres: number) => ({ lat: 52.5 + metres / 111_195, lng: 13.4 });

type Item = Record<string, unknown>;
/** A line of an hour file: an item, or text written as it stands (a line the model cannot type). */
type Line = Item | string;
const text = (l: Line) => (typeof l === 'string' ? l : JSON.stringify(l));

/** Writes one endpoint's harvest folder, lines per hour as given; `counts` overrides the manifest's item count of an hour. */
function writeHarvest(
  dir: string,
  endpoint: 'trips' | 'events_historical' | 'telemetry',
  byHour: Line[][],
  counts: Record<number, number> = {},
): void {
  fs.mkdirSync(path.join(dir, endpoint), { recursive: true });
  const hours: Record<string, unknown> = {};
  byHour.forEach((lines, h) => {
    const hour = hourOf(T0 + h * HOUR);
    const body = lines.map((l) => `${text(l)}\n`).join('');
    fs.writeFileSync(path.join(dir, endpoint, `${hour}.ndjson`), body);
    hours[hour] = {
      status: lines.length ? 'items' : 'empty',
      file: `${endpoint}/${hour}.ndjson`,
      items: counts[h] ?? lines.length,
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
    from: hourOf(T0),
    to: hourOf(T0 + (byHour.length - 1) * HOUR),
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    hours,
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

function writeSnapshot(dir: string, vehicles: Line[], statuses: Line[], lastUpdated: number): void {
  const snap = path.join(dir, 'snapshot');
  fs.mkdirSync(snap, { recursive: true });
  fs.writeFileSync(path.join(snap, 'vehicles.ndjson'), vehicles.map((v) => `${text(v)}\n`).join(''));
  fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), statuses.map((v) => `${text(v)}\n`).join(''));
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
      fetchedAt: new Date(lastUpdated).toISOString(),
      lastUpdated,
      lists,
    }),
  );
}

const trip = (device: string, tripId: string, start: number, extra: Item = {}): Item => ({
  provider_id: PROVIDER,
  device_id: device,
  trip_id: tripId,
  trip_type: ['rider'],
  start_time: start,
  end_time: start + 600_000,
  duration: 600,
  distance: 2000,
  start_location: at(0),
  end_location: at(2000),
  ...extra,
});
let eventNo = 0;
const event = (device: string, timestamp: number, types: string[], state: string, extra: Item = {}): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  event_id: id('e', ++eventNo),
  vehicle_state: state,
  event_types: types,
  timestamp,
  location: at(0),
  battery_percent: 80,
  ...extra,
});
let pointNo = 0;
const point = (device: string, tripId: string, timestamp: number, extra: Item = {}): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  telemetry_id: id('t', ++pointNo),
  timestamp,
  trip_ids: [tripId],
  journey_id: null,
  location: at(0),
  ...extra,
});
const vehicle = (n: number, extra: Item = {}): Item => ({
  device_id: dev(n),
  provider_id: PROVIDER,
  vehicle_id: `V-${n}`,
  vehicle_type: 'scooter_standing',
  propulsion_types: ['electric'],
  ...extra,
});

describe('No item is lost or skipped in silence (check, sql, metrics, parquet)', function () {
  this.timeout(120_000);
  let dir: string;
  let h: string;
  /** The lines of the trips' first hour, as written. */
  const tripsHour0: Line[] = [];
  const shared = id('r', 40); // one trip_id on two devices
  const versioned = id('r', 50); // one trip, two versions
  const copied = id('r', 60); // one trip written twice, byte for byte
  const badEvents = { percent: 0, nullTime: 0, state: 0 };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'integrity-'));
    h = path.join(dir, 'h');
    const copy = trip(dev(6), copied, T0 + 5 * MIN);
    tripsHour0.push(
      trip(dev(1), id('r', 1), T0 + 1 * MIN),
      trip(dev(4), shared, T0 + 2 * MIN),
      trip(dev(5), shared, T0 + 3 * MIN, { distance: 3100 }),
      trip(dev(7), versioned, T0 + 4 * MIN, { distance: 1200 }),
      copy,
      copy,
      // MDS 2.0 Trips: duration is an integer of seconds; "600s" cannot be typed.
      trip(dev(8), id('r', 80), T0 + 6 * MIN, { duration: '600s' }),
    );
    const tripsHour1: Line[] = [
      trip(dev(7), versioned, T0 + 4 * MIN, { distance: 1250 }),
      trip(dev(2), id('r', 2), T0 + 65 * MIN),
    ];
    writeHarvest(path.join(h, 'trips'), 'trips', [tripsHour0, tripsHour1]);
    const events: Line[] = [
      event(dev(1), T0 + 1 * MIN, ['trip_start'], 'on_trip', { trip_ids: [id('r', 1)] }),
      event(dev(1), T0 + 11 * MIN, ['trip_end'], 'available', { trip_ids: [id('r', 1)] }),
      // battery_percent is an integer 0 to 100; "79%" is a string.
      event(dev(2), T0 + 20 * MIN, ['located'], 'available', { battery_percent: '79%' }),
      // timestamp is required.
      event(dev(2), T0 + 21 * MIN, ['located'], 'available', { timestamp: null }),
      // vehicle_state takes the values of modes/vehicle_states.md; "parked" is none of them.
      event(dev(3), T0 + 22 * MIN, ['located'], 'parked'),
      'not json at all',
    ];
    badEvents.percent = 3;
    badEvents.nullTime = 4;
    badEvents.state = 5;
    const reused = event(dev(9), T0 + 30 * MIN, ['located'], 'available');
    events.push(reused, { ...reused, device_id: dev(10) });
    writeHarvest(path.join(h, 'events_historical'), 'events_historical', [events, []]);
    const p = point(dev(1), id('r', 1), T0 + 2 * MIN);
    writeHarvest(path.join(h, 'telemetry'), 'telemetry', [
      [p, p, { ...p, location: at(15) }, point(dev(1), id('r', 1), T0 + 4 * MIN)],
      [],
    ]);
    writeSnapshot(
      h,
      [vehicle(1), vehicle(2, { vehicle_id: 'V-shared' }), vehicle(3, { vehicle_id: 'V-shared' })],
      [],
      T0 + 2 * HOUR,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  let report: CheckReport;
  const findingsOf = (rule: string) => report.rules.find((r) => r.id === rule)?.findings ?? [];

  it('check: an id of two different items is two items, said to be one id on two devices or two versions of one item', async () => {
    const r = await runCliInProcess(['check', h, '--json']);
    assert.equal(r.code, 1, r.err);
    report = JSON.parse(r.out) as CheckReport;
    const details = findingsOf('duplicate-ids').map((f) => f.detail);
    assert.ok(
      details.some((d) => d.includes(`trips trip_id ${shared} is used by 2 devices (${dev(4)}, ${dev(5)})`)),
      details.join('\n'),
    );
    assert.ok(
      details.some((d) => d.includes(`trips trip_id ${versioned}: 2 versions of one item with different content`)),
      details.join('\n'),
    );
    assert.ok(
      details.some((d) => /^events event_id e0000006-.* is used by 2 devices/.test(d)),
      details.join('\n'),
    );
    assert.ok(
      details.some((d) => /^telemetry telemetry_id t0000001-.*: 2 versions of one item/.test(d)),
      details.join('\n'),
    );
    assert.ok(
      details.some((d) => d === `vehicles vehicle_id V-shared is used by 2 devices (${dev(2)}, ${dev(3)})`),
      details.join('\n'),
    );
    assert.ok(!details.some((d) => d.includes(copied)), 'identical copies are one item, no finding');
    assert.equal(details.length, 5, details.join('\n'));
  });

  it('check: items that cannot be typed are findings with their file and line; the rest is analysed', () => {
    const details = findingsOf('untyped-items').map((f) => f.detail);
    const events = path.join('events_historical', 'events_historical', `${hourOf(T0)}.ndjson`);
    assert.deepEqual(
      details.sort(),
      [
        `events, ${events} line ${badEvents.nullTime}: timestamp is required and missing or null (left out of events; the item is in untyped_items)`,
        `events, ${events} line ${badEvents.percent}: battery_percent is "79%", not a whole number (left out of events; the item is in untyped_items)`,
        `events, ${events} line ${badEvents.state}: vehicle_state is parked, not a value of the MDS 2.0 model (left out of events; the item is in untyped_items)`,
        `events, ${events} line 6: not JSON (left out of events; the item is in untyped_items)`,
        `trips, ${path.join('trips', 'trips', `${hourOf(T0)}.ndjson`)} line 7: duration is "600s", not a whole number (left out of trips; the item is in untyped_items)`,
      ].sort(),
    );
    assert.equal(findingsOf('untyped-items').find((f) => f.detail.includes('79%'))?.device_id, dev(2));
    // Other rules ran over the rest.
    assert.ok(report.rules.some((r) => r.id === 'event-sequence'));
  });

  it('check: per endpoint, items read = kept + merged as identical copies + set aside, in --json and in the text', async () => {
    const intake = report.intake ?? {};
    assert.deepEqual(intake.trips, { read: 9, kept: 7, merged: 1, setAside: 1 });
    assert.deepEqual(intake.events, { read: 8, kept: 4, merged: 0, setAside: 4 });
    assert.deepEqual(intake.telemetry, { read: 4, kept: 3, merged: 1, setAside: 0 });
    assert.deepEqual(intake.vehicles, { read: 3, kept: 3, merged: 0, setAside: 0 });
    for (const [view, c] of Object.entries(intake)) {
      assert.equal(c.read, c.kept + c.merged + c.setAside, view);
      assert.equal(c.kept, report.items[view], `${view}: kept is what the view holds`);
    }
    assert.equal(report.items.untyped_items, 5);
    const text = await runCliInProcess(['check', h, '--rule', 'untyped-items']);
    assert.match(
      text.out,
      /^ {2}trips: 9 read = 7 kept \+ 1 merged as identical copies \+ 1 set aside \(untyped_items\)$/m,
    );
    assert.match(
      text.out,
      /^ {2}events: 8 read = 4 kept \+ 0 merged as identical copies \+ 4 set aside \(untyped_items\)$/m,
    );
  });

  it('sql: both items of one id are kept, and the untyped items are reachable as raw JSON with file and line', async () => {
    const r = await runCliInProcess([
      'sql',
      h,
      `SELECT trip_id, device_id, distance FROM trips WHERE trip_id IN ('${shared}', '${versioned}', '${copied}') ORDER BY trip_id, device_id, distance`,
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), [
      { trip_id: shared, device_id: dev(4), distance: 2000 },
      { trip_id: shared, device_id: dev(5), distance: 3100 },
      { trip_id: versioned, device_id: dev(7), distance: 1200 },
      { trip_id: versioned, device_id: dev(7), distance: 1250 },
      { trip_id: copied, device_id: dev(6), distance: 2000 },
    ]);
    const u = await runCliInProcess([
      'sql',
      h,
      "SELECT endpoint, line, problem, item->>'battery_percent' AS battery FROM untyped_items WHERE endpoint = 'events' AND line = 3",
      '--json',
    ]);
    assert.equal(u.code, 0, u.err);
    assert.deepEqual(JSON.parse(u.out), [
      { endpoint: 'events', line: 3, problem: 'battery_percent is "79%", not a whole number', battery: '79%' },
    ]);
  });

  it('metrics and parquet keep both items of one id', async () => {
    const m = await runCliInProcess(['metrics', h, '--json']);
    assert.equal(m.code, 0, m.err);
    const days = (JSON.parse(m.out) as { days: { trips: number }[] }).days;
    assert.equal(
      days.reduce((n, d) => n + d.trips, 0),
      7,
      'every typed trip, both of each shared id',
    );
    const out = path.join(dir, 'pq');
    const p = await runCliInProcess(['parquet', h, '--out', out]);
    assert.equal(p.code, 0, p.err);
    const r = await runCliInProcess([
      'sql',
      out,
      `SELECT count(*) AS n, count(*) FILTER (trip_id = '${shared}') AS shared FROM trips`,
      '--json',
    ]);
    assert.deepEqual(JSON.parse(r.out), [{ n: 7, shared: 2 }]);
  });

  it('harvest-files: an hour file that lost lines its manifest counts, a manifest naming another endpoint, a file it does not list', async () => {
    const m = path.join(dir, 'm');
    // The trips folder's manifest counts 4 items more than the first hour's file holds (lines lost).
    writeHarvest(path.join(m, 'trips'), 'trips', [[trip(dev(1), id('r', 1), T0 + MIN)], []], { 0: 5 });
    // A folder whose manifest says trips, holding events.
    writeHarvest(path.join(m, 'wrong'), 'trips', [[event(dev(1), T0 + MIN, ['located'], 'available')], []]);
    fs.writeFileSync(
      path.join(m, 'trips', 'trips', `${hourOf(T0 + 5 * HOUR)}.ndjson`),
      `${JSON.stringify(trip(dev(2), id('r', 2), T0 + 5 * HOUR))}\n`,
    );
    const r = await runCliInProcess(['check', m, '--json', '--rule', 'harvest-files']);
    assert.equal(r.code, 1, r.err);
    const details = (JSON.parse(r.out) as CheckReport).rules[0].findings.map((f) => f.detail);
    const first = path.join('trips', 'trips', `${hourOf(T0)}.ndjson`);
    assert.ok(
      details.includes(
        `trips: ${path.join('trips', 'manifest.json')} counts 5 items for the hour ${hourOf(T0)}, but ${first} holds 1 (lines lost)`,
      ),
      details.join('\n'),
    );
    assert.ok(
      details.some((d) =>
        d.startsWith(
          `trips: ${path.join('wrong', 'manifest.json')} names the endpoint trips, but the items of ${path.join('wrong', 'trips', `${hourOf(T0)}.ndjson`)} carry no trip_id and carry event_id (items of events_historical)`,
        ),
      ),
      details.join('\n'),
    );
    assert.ok(
      details.includes(
        `trips: ${path.join('trips', 'trips', `${hourOf(T0 + 5 * HOUR)}.ndjson`)} is in the harvest folder but ${path.join('trips', 'manifest.json')} does not list it: it was not read`,
      ),
      details.join('\n'),
    );
    assert.equal(details.length, 3, details.join('\n'));
  });

  it('a manifest file entry that leaves the folder (.., absolute, a link outside) is refused with a clear error, exit 2', async () => {
    const outside = path.join(dir, 'outside.ndjson');
    fs.writeFileSync(outside, `${JSON.stringify(trip(dev(1), id('r', 1), T0 + MIN))}\n`);
    for (const [name, entry, why] of [
      ['dots', '../outside.ndjson', /leaves the folder \(\.\.\)/],
      ['absolute', outside, /is an absolute path/],
      ['link', 'trips/link.ndjson', /is a link to .*outside\.ndjson, outside the harvest folder/],
    ] as const) {
      const folder = path.join(dir, name);
      writeHarvest(folder, 'trips', [[trip(dev(1), id('r', 1), T0 + MIN)]]);
      if (name === 'link') fs.symlinkSync(outside, path.join(folder, 'trips', 'link.ndjson'));
      const manifestFile = path.join(folder, 'manifest.json');
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { hours: Record<string, { file: string }> };
      manifest.hours[hourOf(T0)].file = entry;
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      const r = await runCliInProcess(['sql', folder, 'SELECT count(*) FROM trips']);
      assert.equal(r.code, 2, `${name}: ${r.out}`);
      assert.match(r.err, why, name);
      assert.match(r.err, /A harvest manifest names files inside its own folder only/, name);
      assert.doesNotMatch(r.err, /\n\s+at /, `${name}: no stack trace`);
    }
  });
});
