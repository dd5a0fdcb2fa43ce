// `mobility-api check`: each data-quality rule against a harvest folder made for it, holding items made to be found
// and items made not to be; the report's shape, rules that cannot run and why, thresholds, and the exit codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { readHarvestSource, ruleQueriesOf } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';
import { XSD, xmllint, xpath } from './support/junitSchema';

const T0 = Date.UTC(2026, 10, 20, 8); // 2026-11-20T08:00Z, the harvest's first hour
const MIN = 60_000;
const HOUR = 60 * MIN;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const id = (prefix: string, n: number) =>
  `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`.slice(0, 36);
const at = (lat: number, lng: number) => ({ lat, lng });
/** A point `metres` north of (52.5, 13.4). */
const north = (metres: number) => at(52.5 + metres / 111_195, 13.4);

type Item = Record<string, unknown>;

/** Writes one endpoint's harvest folder: items per hour (by `timeOf`), a manifest, and `statuses` for given hours. */
function writeHarvest(
  dir: string,
  endpoint: 'trips' | 'events_historical' | 'telemetry',
  items: Item[],
  timeOf: (i: Item) => number,
  hours: number,
  statuses: Record<number, string> = {},
): void {
  fs.mkdirSync(path.join(dir, endpoint), { recursive: true });
  const record: Record<string, unknown> = {};
  for (let h = 0; h < hours; h++) {
    const hour = hourOf(T0 + h * HOUR);
    const status = statuses[h];
    if (status === 'missing') continue;
    if (status && status !== 'items') {
      record[hour] = {
        status,
        items: 0,
        bytes: 0,
        attempts: 1,
        requests: 1,
        pages: 0,
        startedAt: new Date().toISOString(),
        durationMs: 1,
      };
      continue;
    }
    const inHour = items.filter((i) => timeOf(i) >= T0 + h * HOUR && timeOf(i) < T0 + (h + 1) * HOUR);
    const text = inHour.map((i) => JSON.stringify(i) + '\n').join('');
    fs.writeFileSync(path.join(dir, endpoint, `${hour}.ndjson`), text);
    record[hour] = {
      status: inHour.length ? 'items' : 'empty',
      file: `${endpoint}/${hour}.ndjson`,
      items: inHour.length,
      bytes: Buffer.byteLength(text),
      attempts: 1,
      requests: 1,
      pages: 1,
      httpStatus: 200,
      startedAt: new Date().toISOString(),
      durationMs: 1,
    };
  }
  const manifest = {
    format: 'mobility-api-harvest',
    formatVersion: 1,
    endpoint,
    path: `/${endpoint}`,
    hourParameter: 'end_time',
    baseUrl: 'https://mds.example/provider',
    from: hourOf(T0),
    to: hourOf(T0 + (hours - 1) * HOUR),
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    hours: record,
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

let eventNo = 0;
const event = (
  device: string,
  timestamp: number,
  types: string[],
  state: string,
  location: { lat: number; lng: number },
  trip?: string,
  extra: Item = {},
): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  event_id: id('e', ++eventNo),
  vehicle_state: state,
  event_types: types,
  timestamp,
  location,
  ...(trip ? { trip_ids: [trip] } : {}),
  ...extra,
});
let pointNo = 0;
const point = (device: string, trip: string, timestamp: number, location: Item = north(0), extra: Item = {}): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  telemetry_id: id('t', ++pointNo),
  timestamp,
  trip_ids: [trip],
  journey_id: null,
  location,
  ...extra,
});
const trip = (
  device: string,
  tripId: string,
  start: number,
  seconds: number,
  metres: number,
  extra: Item = {},
): Item => ({
  provider_id: PROVIDER,
  device_id: device,
  trip_id: tripId,
  trip_type: ['rider'],
  start_time: start,
  end_time: start + seconds * 1000,
  duration: seconds,
  distance: metres,
  start_location: north(0),
  end_location: north(metres),
  ...extra,
});
/** A trip that passes every rule: both events, telemetry every 2 minutes. */
function goodTrip(device: string, tripId: string, start: number): { trips: Item[]; events: Item[]; telemetry: Item[] } {
  const seconds = 600;
  return {
    trips: [trip(device, tripId, start, seconds, 2000)],
    events: [
      event(device, start, ['trip_start'], 'on_trip', north(0), tripId),
      event(device, start + seconds * 1000, ['trip_end'], 'available', north(2000), tripId),
    ],
    telemetry: [0, 2, 4, 6, 8, 10].map((m) => point(device, tripId, start + m * MIN, north(m * 200))),
  };
}

describe('CLI: mobility-api check', function () {
  this.timeout(60_000);
  let dir: string;
  let faulty: string;
  let clean: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-'));
    const dev = (n: number) => id('d', n);
    const trips: Item[] = [];
    const events: Item[] = [];
    const telemetry: Item[] = [];
    const add = (parts: { trips?: Item[]; events?: Item[]; telemetry?: Item[] }) => {
      trips.push(...(parts.trips ?? []));
      events.push(...(parts.events ?? []));
      telemetry.push(...(parts.telemetry ?? []));
    };
    for (let n = 1; n <= 12; n++) add(goodTrip(dev(n), id('r', n), T0 + n * 5 * MIN));
    // trip-events: trip 20 has no trip_end event.
    const noEnd = goodTrip(dev(20), id('r', 20), T0 + 30 * MIN);
    add({ ...noEnd, events: noEnd.events.slice(0, 1) });
    // duplicate-events: device 21 sends one changed_geographies twice, under two event_ids (on_trip -> on_trip is a
    // transition of the micromobility machine, so that only this rule finds it).
    add({
      events: [
        event(dev(21), T0 + 40 * MIN, ['changed_geographies'], 'on_trip', north(0)),
        event(dev(21), T0 + 40 * MIN, ['changed_geographies'], 'on_trip', north(0)),
      ],
    });
    // telemetry-gaps: trip 22 has one point; trip 23 a gap of 8 minutes.
    const onePoint = goodTrip(dev(22), id('r', 22), T0 + 50 * MIN);
    add({ ...onePoint, telemetry: onePoint.telemetry.slice(0, 1) });
    const gap = goodTrip(dev(23), id('r', 23), T0 + 55 * MIN);
    add({ ...gap, telemetry: gap.telemetry.filter((_, i) => i === 0 || i >= 4) });
    // teleport: device 24 moves 800 m with no trip; device 25 moves 300 m (below 500: no finding); device 26 is dropped off 2 km away (no finding).
    add({
      events: [
        event(dev(24), T0 + 70 * MIN, ['located'], 'available', north(0)),
        event(dev(24), T0 + 80 * MIN, ['battery_low'], 'non_operational', north(800)),
      ],
    });
    add({
      events: [
        event(dev(25), T0 + 70 * MIN, ['located'], 'available', north(0)),
        event(dev(25), T0 + 80 * MIN, ['battery_low'], 'non_operational', north(300)),
      ],
    });
    add({
      events: [
        event(dev(26), T0 + 70 * MIN, ['rebalance_pick_up'], 'removed', north(0)),
        event(dev(26), T0 + 80 * MIN, ['provider_drop_off'], 'available', north(2000)),
      ],
    });
    // units: battery 150, a negative distance, swapped coordinates, a speed of 60 m/s.
    add({
      events: [
        event(dev(27), T0 + 90 * MIN, ['battery_charged'], 'available', north(0), undefined, { battery_percent: 150 }),
      ],
    });
    const negativeCost = goodTrip(dev(28), id('r', 28), T0 + 95 * MIN);
    add({ ...negativeCost, trips: [{ ...negativeCost.trips[0], standard_cost: -100 }] });
    add({ events: [event(dev(29), T0 + 100 * MIN, ['located'], 'available', at(13.4, 52.5))] });
    add({ telemetry: [point(dev(30), id('r', 30), T0 + 105 * MIN, { ...north(0), speed: 60 })] });
    // phantom-trips: trip 31 lasts 20 s (with its events and telemetry, so that only this rule finds it).
    add({
      trips: [trip(dev(31), id('r', 31), T0 + 110 * MIN, 20, 400)],
      events: [
        event(dev(31), T0 + 110 * MIN, ['trip_start'], 'on_trip', north(0), id('r', 31)),
        event(dev(31), T0 + 110 * MIN + 20_000, ['trip_end'], 'available', north(400), id('r', 31)),
      ],
      telemetry: [
        point(dev(31), id('r', 31), T0 + 110 * MIN),
        point(dev(31), id('r', 31), T0 + 110 * MIN + 20_000, north(400)),
      ],
    });
    // event-sequence: device 32 ends a trip it never started (available -> available by trip_end); device 35's
    // [trip_end, battery_low] lands in available, not non_operational. Not found: device 33's events delivered in
    // reverse order (valid in timestamp order), device 34's [trip_end, battery_low] into non_operational.
    add({
      events: [
        event(dev(32), T0 + 120 * MIN, ['located'], 'available', north(0)),
        event(dev(32), T0 + 125 * MIN, ['trip_end'], 'available', north(0), id('r', 32)),
      ],
    });
    add({
      events: [
        event(dev(33), T0 + 126 * MIN, ['located'], 'available', north(0)),
        event(dev(33), T0 + 130 * MIN, ['trip_end'], 'available', north(0), id('r', 33)),
        event(dev(33), T0 + 128 * MIN, ['trip_start'], 'on_trip', north(0), id('r', 33)),
      ],
    });
    for (const [n, state] of [
      [34, 'non_operational'],
      [35, 'available'],
    ] as const) {
      add({
        events: [
          event(dev(n), T0 + 140 * MIN, ['trip_start'], 'on_trip', north(0), id('r', n)),
          event(dev(n), T0 + 145 * MIN, ['trip_end', 'battery_low'], state, north(0), id('r', n)),
        ],
      });
    }
    // A trip_start sent twice (device 36): a duplicate-events finding, and not an event-sequence one (on_trip -> on_trip
    // by trip_start): the state machine walks an event sent twice once.
    const twiceStarted = goodTrip(dev(36), id('r', 36), T0 + 155 * MIN);
    add({
      ...twiceStarted,
      events: [
        event(dev(36), T0 + 150 * MIN, ['located'], 'available', north(0)),
        twiceStarted.events[0],
        { ...twiceStarted.events[0], event_id: id('e', ++eventNo) },
        twiceStarted.events[1],
      ],
    });
    faulty = path.join(dir, 'faulty');
    // hour-coverage: the hour at T0+3h still 202, T0+5h missing; 4 hours of data otherwise.
    writeHarvest(path.join(faulty, 'trips'), 'trips', trips, (i) => i.end_time as number, 7, {
      3: 'pending',
      5: 'missing',
    });
    writeHarvest(path.join(faulty, 'events_historical'), 'events_historical', events, (i) => i.timestamp as number, 7);
    writeHarvest(path.join(faulty, 'telemetry'), 'telemetry', telemetry, (i) => i.timestamp as number, 7);

    clean = path.join(dir, 'clean');
    const good = [1, 2, 3].map((n) => goodTrip(dev(n), id('r', n), T0 + n * 10 * MIN));
    writeHarvest(
      path.join(clean, 'trips'),
      'trips',
      good.flatMap((g) => g.trips),
      (i) => i.end_time as number,
      2,
    );
    writeHarvest(
      path.join(clean, 'events_historical'),
      'events_historical',
      good.flatMap((g) => g.events),
      (i) => i.timestamp as number,
      2,
    );
    writeHarvest(
      path.join(clean, 'telemetry'),
      'telemetry',
      good.flatMap((g) => g.telemetry),
      (i) => i.timestamp as number,
      2,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const check = async (folder: string, ...args: string[]) => {
    const r = await runCliInProcess(['check', folder, '--json', ...args]);
    return { ...r, report: r.out ? (JSON.parse(r.out) as CheckReport) : undefined };
  };
  const findingsOf = (report: CheckReport | undefined, rule: string) =>
    report?.rules.find((r) => r.id === rule)?.findings ?? [];

  it('finds nothing in a clean harvest, exit 0, and says which rules it could not run and why', async () => {
    const r = await check(clean);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      r.report?.rules.filter((rule) => rule.count > 0).map((rule) => rule.id),
      [],
    );
    assert.deepEqual(r.report?.items, {
      trips: 3,
      events: 6,
      telemetry: 18,
      vehicles: 0,
      vehicles_status: 0,
      untyped_items: 0,
    });
    assert.deepEqual(r.report?.skipped.map((s) => s.id).sort(), [
      'registry',
      'registry-status-device',
      'registry-vehicle-id',
      'reports-vs-trips',
      'status-last-event',
      'status-own-items',
      'status-vs-events',
    ]);
    assert.match(
      r.report?.skipped.find((s) => s.id === 'registry')?.why ?? '',
      /no snapshot of \/vehicles and \/vehicles\/status in this harvest: harvest with --snapshot/,
    );
    assert.ok(
      r.report?.rules.some((rule) => rule.id === 'event-sequence'),
      'event-sequence runs',
    );
  });

  it('finds each planted fault, with its device, trip and time, and nothing else; exit 1', async () => {
    const r = await check(faulty);
    assert.equal(r.code, 1, r.err);
    const dev = (n: number) => id('d', n);
    const tripEvents = findingsOf(r.report, 'trip-events');
    assert.deepEqual(
      tripEvents.map((f) => [f.device_id, f.trip_id, f.time]),
      [
        [dev(20), id('r', 20), new Date(T0 + 30 * MIN).toISOString()],
        [dev(20), id('r', 20), new Date(T0 + 40 * MIN).toISOString()],
      ],
    );
    assert.match(tripEvents[0].detail, /a trip_start never followed by a trip_end/);
    assert.match(tripEvents[1].detail, /no trip_end event of its device with this trip_id within 60 s of its end_time/);
    assert.deepEqual(
      findingsOf(r.report, 'duplicate-events').map((f) => [f.device_id, f.time]),
      [
        [dev(21), new Date(T0 + 40 * MIN).toISOString()],
        [dev(36), new Date(T0 + 155 * MIN).toISOString()],
      ],
    );
    const gaps = findingsOf(r.report, 'telemetry-gaps');
    assert.deepEqual(gaps.map((f) => f.trip_id).sort(), [id('r', 22), id('r', 23)]);
    assert.match(gaps.find((f) => f.trip_id === id('r', 22))?.detail ?? '', /^1 telemetry points/);
    assert.match(gaps.find((f) => f.trip_id === id('r', 23))?.detail ?? '', /no telemetry for 480 s/);
    const teleports = findingsOf(r.report, 'teleport');
    assert.deepEqual(
      teleports.map((f) => f.device_id),
      [dev(24)],
    );
    assert.match(teleports[0].detail, /^800 m from its last known location/);
    const units = findingsOf(r.report, 'units');
    assert.deepEqual(units.map((f) => f.device_id).sort(), [dev(27), dev(28), dev(29), dev(30)]);
    assert.match(units.find((f) => f.device_id === dev(27))?.detail ?? '', /battery_percent 150 is above 100/);
    assert.match(units.find((f) => f.device_id === dev(28))?.detail ?? '', /a negative standard_cost \(-100\)/);
    assert.match(units.find((f) => f.device_id === dev(29))?.detail ?? '', /inside them once lat and lng are swapped/);
    assert.match(units.find((f) => f.device_id === dev(30))?.detail ?? '', /speed 60(\.0)? m\/s is above 45 m\/s/);
    assert.deepEqual(
      findingsOf(r.report, 'phantom-trips').map((f) => f.trip_id),
      [id('r', 31)],
    );
    const sequence = findingsOf(r.report, 'event-sequence');
    assert.deepEqual(
      sequence.map((f) => [f.device_id, f.time]),
      [
        [dev(32), new Date(T0 + 125 * MIN).toISOString()],
        [dev(35), new Date(T0 + 145 * MIN).toISOString()],
      ],
    );
    assert.match(
      sequence[0].detail,
      /^available -> available by \[trip_end\] is not a transition of the micromobility state machine/,
    );
    const hours = findingsOf(r.report, 'hour-coverage').map((f) => f.detail);
    assert.ok(
      hours.some((d) => d === `trips: the hour ${hourOf(T0 + 3 * HOUR)} still answered 202 (not processed yet)`),
      hours.join('\n'),
    );
    assert.ok(
      hours.some(
        (d) => d === `trips: the hour ${hourOf(T0 + 5 * HOUR)} is missing from the harvest (run it again to fetch it)`,
      ),
      hours.join('\n'),
    );
    assert.equal(hours.length, 2, hours.join('\n'));
  });

  it('an empty hour between busy ones is a likely outage, by the busyHourItems threshold', async () => {
    const outage = path.join(dir, 'outage');
    const trips = [0, 2].flatMap((h) =>
      [1, 2].map((n) => trip(id('d', n), id('r', h * 10 + n), T0 + h * HOUR + n * MIN, 120, 800)),
    );
    writeHarvest(outage, 'trips', trips, (i) => i.end_time as number, 3);
    const low = await check(outage, '--rule', 'hour-coverage', '--threshold', 'busyHourItems=2');
    assert.deepEqual(
      findingsOf(low.report, 'hour-coverage').map((f) => f.detail),
      [`trips: the hour ${hourOf(T0 + HOUR)} is empty between 2 and 2 items: a likely outage`],
    );
    const byDefault = await check(outage, '--rule', 'hour-coverage');
    assert.deepEqual(
      findingsOf(byDefault.report, 'hour-coverage'),
      [],
      'two items are not busy by the default threshold',
    );
    assert.deepEqual(
      low.report?.rules.map((rule) => rule.id),
      ['hour-coverage'],
    );
  });

  it('--rule runs the rules named, thresholds change what is found, and bad input exits 2', async () => {
    const teleport = await check(faulty, '--rule', 'teleport', '--threshold', 'teleportMeters=200');
    assert.deepEqual(
      teleport.report?.rules.map((rule) => rule.id),
      ['teleport'],
    );
    assert.deepEqual(
      findingsOf(teleport.report, 'teleport')
        .map((f) => f.device_id)
        .sort(),
      [id('d', 24), id('d', 25)],
    );
    assert.equal(teleport.code, 0, 'teleport is a warning');
    for (const [args, message] of [
      [['--rule', 'nope'], /--rule nope: no such rule/],
      [['--threshold', 'teleportMeters=far'], /give a number of 0 or more/],
      [['--threshold', 'speed=3'], /no such threshold/],
    ] as const) {
      const r = await check(faulty, ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, message);
    }
  });

  it('--junit writes one test case per rule that CI servers read: error findings fail, warnings pass, rules not run are skipped', async function () {
    const report = path.join(dir, 'reports', 'check.xml');
    const r = await runCliInProcess(['check', faulty, '--junit', report]);
    assert.equal(r.code, 1, r.err);
    assert.equal(
      xmllint(this, ['--noout', '--schema', XSD, report]).status,
      0,
      'the report validates against the Jenkins JUnit schema',
    );
    assert.equal(xpath(this, report, 'string(/testsuites/@tests)'), '39');
    assert.equal(xpath(this, report, 'count(//testcase[failure])'), '7');
    assert.equal(xpath(this, report, 'count(//testcase[skipped])'), '7');
    assert.match(
      xpath(this, report, 'string(//testcase[starts-with(@name, "MDS-TRIP-EVENTS:")]/failure/@message)'),
      /^2 findings: Every trip has its start and end events/,
    );
    assert.match(
      xpath(this, report, 'string(//testcase[starts-with(@name, "MDS-VEHICLE-TELEPORT:")]/system-out)'),
      /800 m from its last known location/,
    );
    assert.equal(xpath(this, report, 'count(//testcase[starts-with(@name, "MDS-VEHICLE-TELEPORT:")]/failure)'), '0');
    const cleanReport = path.join(dir, 'reports', 'clean.xml');
    assert.equal((await runCliInProcess(['check', clean, '--junit', cleanReport])).code, 0);
    assert.equal(xpath(this, cleanReport, 'count(//failure)'), '0');
  });

  it('prints a text report: each rule, its first findings, the rules not run', async () => {
    const r = await runCliInProcess(['check', faulty]);
    assert.equal(r.code, 1);
    assert.match(r.out, /^FAIL {2}MDS-TRIP-EVENTS \(error\): Every trip has its start and end events: 2 findings$/m);
    assert.match(r.out, /^warn {2}MDS-VEHICLE-TELEPORT \(warning\): No vehicle moves without a trip: 1 finding$/m);
    assert.match(r.out, /^skip {2}MDS-REGISTRY-DEVICE: no snapshot of \/vehicles/m);
    assert.match(r.out, /^\d+ rules run: \d+ with errors, \d+ with warnings; 7 not run\.$/m);
  });
});

/** Writes `<dir>/snapshot/` as `harvest --snapshot` does. */
function writeSnapshot(dir: string, vehicles: Item[], statuses: Item[], lastUpdated: number): void {
  const snap = path.join(dir, 'snapshot');
  fs.mkdirSync(snap, { recursive: true });
  fs.writeFileSync(path.join(snap, 'vehicles.ndjson'), vehicles.map((v) => JSON.stringify(v) + '\n').join(''));
  fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), statuses.map((v) => JSON.stringify(v) + '\n').join(''));
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

describe('CLI: mobility-api check with a /vehicles snapshot (status-vs-events, registry)', function () {
  this.timeout(60_000);
  let dir: string;
  const dev = (n: number) => id('v', n);
  const vehicle = (n: number, extra: Item = {}): Item => ({
    device_id: dev(n),
    provider_id: PROVIDER,
    vehicle_id: `V-${n}`,
    vehicle_type: 'scooter_standing',
    propulsion_types: ['electric'],
    ...extra,
  });
  const status = (n: number, state: string, time: number): Item => ({
    device_id: dev(n),
    provider_id: PROVIDER,
    last_event: {
      device_id: dev(n),
      provider_id: PROVIDER,
      event_id: id('s', n),
      vehicle_state: state,
      event_types: ['located'],
      timestamp: time,
      location: north(0),
    },
    last_telemetry: {
      device_id: dev(n),
      provider_id: PROVIDER,
      telemetry_id: id('q', n),
      timestamp: time,
      trip_ids: null,
      journey_id: null,
      location: north(0),
    },
  });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-snapshot-'));
    const events = [
      // 1: agrees with its status. 2: the status says non_operational, its last event (inside the window) available.
      event(dev(1), T0 + 10 * MIN, ['located'], 'available', north(0)),
      event(dev(2), T0 + 10 * MIN, ['located'], 'available', north(0)),
      // 3: its status's last_event is after the harvest (not comparable): no finding though the states differ.
      event(dev(3), T0 + 10 * MIN, ['located'], 'available', north(0)),
      // 4: on a trip by its events, absent from the status feed. 5: removed (not in the PROW), absent: no finding.
      event(dev(4), T0 + 20 * MIN, ['trip_start'], 'on_trip', north(0), id('r', 4)),
      event(dev(5), T0 + 20 * MIN, ['located'], 'available', north(0)),
      event(dev(5), T0 + 30 * MIN, ['rebalance_pick_up'], 'removed', north(0)),
      // 6: not in /vehicles (registry), but in the status feed, agreeing.
      event(dev(6), T0 + 40 * MIN, ['located'], 'available', north(0)),
    ];
    // Trips carrying a vehicle_type: 1 agrees with /vehicles, 2 does not.
    const trips = [
      trip(dev(1), id('r', 1), T0 + 15 * MIN, 300, 900, {
        vehicle_type: 'scooter_standing',
        propulsion_types: ['electric'],
      }),
      trip(dev(2), id('r', 2), T0 + 15 * MIN, 300, 900, { vehicle_type: 'bicycle', propulsion_types: ['human'] }),
    ];
    writeHarvest(path.join(dir, 'events_historical'), 'events_historical', events, (i) => i.timestamp as number, 2);
    writeHarvest(path.join(dir, 'trips'), 'trips', trips, (i) => i.end_time as number, 2);
    // 7 is listed twice by /vehicles.
    const vehicles = [1, 2, 3, 4, 5, 7, 7].map((n) => vehicle(n));
    const statuses = [
      status(1, 'available', T0 + 10 * MIN),
      status(2, 'non_operational', T0 + 10 * MIN),
      status(3, 'non_operational', T0 + 135 * MIN),
      status(6, 'available', T0 + 40 * MIN),
    ];
    writeSnapshot(dir, vehicles, statuses, T0 + 150 * MIN);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const report = async (folder: string, ...args: string[]) => {
    const r = await runCliInProcess(['check', folder, '--json', ...args]);
    return { ...r, report: r.out ? (JSON.parse(r.out) as CheckReport) : undefined };
  };
  const findings = (r: CheckReport | undefined, rule: string) =>
    (r?.rules.find((x) => x.id === rule)?.findings ?? []).map((f) => [f.device_id, f.time, f.detail]);

  it('status-vs-events: a status that disagrees with the last event before last_updated, a PROW vehicle the feed lacks', async () => {
    const r = await report(dir, '--rule', 'status-vs-events');
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(r.report?.skipped, []);
    const found = findings(r.report, 'status-vs-events');
    assert.deepEqual(
      found.map(([d, t]) => [d, t]),
      [
        [dev(2), new Date(T0 + 10 * MIN).toISOString()],
        [dev(4), new Date(T0 + 20 * MIN).toISOString()],
      ],
    );
    assert.match(String(found[0][2]), /the \/vehicles\/status snapshot says non_operational .* says available/);
    assert.match(
      String(found[1][2]),
      /public right-of-way \(on_trip\), but the \/vehicles\/status snapshot does not list it/,
    );
  });

  it('registry: a device /vehicles lacks, one listed twice, a vehicle_type and propulsion that disagree', async () => {
    const r = await report(dir, '--rule', 'registry');
    assert.equal(r.code, 1, r.err);
    const found = findings(r.report, 'registry');
    assert.deepEqual(found.map(([d]) => d).sort(), [dev(2), dev(2), dev(6), dev(7)].sort(), JSON.stringify(found));
    assert.ok(
      found.some(
        ([d, , detail]) =>
          d === dev(6) &&
          /^events carry this device_id, which the \/vehicles snapshot does not list$/.test(String(detail)),
      ),
    );
    assert.ok(found.some(([d, , detail]) => d === dev(7) && detail === 'listed 2 times by /vehicles'));
    assert.ok(
      found.some(
        ([d, , detail]) =>
          d === dev(2) && detail === 'trips give vehicle_type bicycle, /vehicles says scooter_standing',
      ),
    );
    assert.ok(
      found.some(
        ([d, , detail]) => d === dev(2) && detail === 'trips give propulsion_types [human], /vehicles says [electric]',
      ),
    );
  });

  it("one endpoint's folder of the harvest reads the snapshot beside it; the views vehicles and vehicles_status hold it", async () => {
    const r = await report(path.join(dir, 'events_historical'), '--rule', 'registry');
    assert.deepEqual(r.report?.skipped, []);
    assert.deepEqual(
      findings(r.report, 'registry')
        .map(([d]) => d)
        .sort(),
      [dev(6), dev(7)].sort(),
    );
    const sql = await runCliInProcess([
      'sql',
      dir,
      'SELECT (SELECT count(*) FROM vehicles) AS v, (SELECT count(*) FROM vehicles_status) AS s, (SELECT max(last_event.timestamp) FROM vehicles_status) AS t',
      '--json',
    ]);
    assert.equal(sql.code, 0, sql.err);
    assert.deepEqual(JSON.parse(sql.out), [{ v: 6, s: 4, t: T0 + 135 * MIN }]);
  });

  it("each rule's SQL of the starter notebook, run by sql, finds what check finds (the snapshot's time and the mode written in)", async function () {
    // One sql run per rule, each reading the harvest afresh: 10 s alone, past 60 s in a full run on two shared cores.
    this.timeout(240_000);
    const checked = await report(dir);
    assert.ok(checked.report, checked.err);
    const counts = new Map(checked.report.rules.map((r) => [r.id, r.count]));
    // The rules this harvest exercises with its snapshot: those whose SQL depends on more than the window.
    for (const id of ['status-vs-events', 'registry'])
      assert.ok((counts.get(id) ?? 0) > 0, `check finds something by ${id}: ${JSON.stringify([...counts])}`);
    const queries = ruleQueriesOf(await readHarvestSource(dir)).filter((q) => q.sql && counts.has(q.id));
    assert.ok(queries.length >= 10, `${queries.length} rules with SQL ran`);
    for (const query of queries) {
      const run = await runCliInProcess(['sql', dir, query.sql ?? '', '--json']);
      assert.equal(run.code, 0, `${query.id}: ${run.err}`);
      assert.equal((JSON.parse(run.out) as unknown[]).length, counts.get(query.id), `${query.id} finds as many`);
    }
  });

  it('on the Parquet of the harvest, status-vs-events and registry run and find the same; the views hold the snapshot', async () => {
    const out = `${dir}-parquet`;
    try {
      const written = await runCliInProcess(['parquet', dir, '--out', out]);
      assert.equal(written.code, 0, written.err);
      const onParquet = await report(out);
      const onNdjson = await report(dir);
      assert.equal(onParquet.code, 1, onParquet.err);
      assert.deepEqual(
        onParquet.report?.skipped.map((s) => s.id),
        onNdjson.report?.skipped.map((s) => s.id),
      );
      assert.ok(
        !onParquet.report?.skipped.some((s) => s.id === 'registry' || s.id === 'status-vs-events'),
        JSON.stringify(onParquet.report?.skipped),
      );
      assert.deepEqual(onParquet.report?.rules, onNdjson.report?.rules);
      assert.deepEqual(
        findings(onParquet.report, 'registry')
          .map(([d]) => d)
          .sort(),
        [dev(2), dev(2), dev(6), dev(7)].sort(),
      );
      assert.equal(findings(onParquet.report, 'status-vs-events').length, 2);
      const sql = await runCliInProcess([
        'sql',
        out,
        'SELECT (SELECT count(*) FROM vehicles) AS v, (SELECT count(*) FROM vehicles_status) AS s, (SELECT max(last_event.timestamp) FROM vehicles_status) AS t',
        '--json',
      ]);
      assert.equal(sql.code, 0, sql.err);
      assert.deepEqual(JSON.parse(sql.out), [{ v: 6, s: 4, t: T0 + 135 * MIN }]);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('CLI: mobility-api metrics', function () {
  this.timeout(60_000);
  let dir: string;
  let bare: string;
  const dev = (n: number) => id('m', n);

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-'));
    // Hour 0 ends with 1 in the PROW (1 available; 2 removed; 3 has no event yet), hour 1 with 2 (1 available, 3 non_operational).
    const events = [
      event(dev(1), T0 + 10 * MIN, ['located'], 'available', north(0)),
      event(dev(1), T0 + 70 * MIN, ['trip_start'], 'on_trip', north(0), id('r', 1)),
      event(dev(1), T0 + 80 * MIN, ['trip_end'], 'available', north(0), id('r', 1)),
      event(dev(2), T0 + 5 * MIN, ['located'], 'available', north(0)),
      event(dev(2), T0 + 30 * MIN, ['rebalance_pick_up'], 'removed', north(0)),
      event(dev(3), T0 + 90 * MIN, ['battery_low'], 'non_operational', north(0)),
    ];
    // Hour 0: trips of 120 s / 500 m and 300 s / 1000 m; hour 1: 600 s / 2000 m.
    const trips = [
      trip(dev(3), id('r', 3), T0 + 20 * MIN, 120, 500),
      trip(dev(1), id('r', 2), T0 + 40 * MIN, 300, 1000),
      trip(dev(1), id('r', 1), T0 + 70 * MIN, 600, 2000),
    ];
    const telemetry = [
      point(dev(1), id('r', 2), T0 + 41 * MIN),
      point(dev(1), id('r', 2), T0 + 44 * MIN),
      point(dev(3), id('r', 3), T0 + 21 * MIN),
      point(dev(1), id('r', 1), T0 + 75 * MIN),
    ];
    for (const folder of ['with', 'bare']) {
      writeHarvest(path.join(dir, folder, 'events'), 'events_historical', events, (i) => i.timestamp as number, 2);
      writeHarvest(path.join(dir, folder, 'trips'), 'trips', trips, (i) => i.end_time as number, 2);
      writeHarvest(path.join(dir, folder, 'telemetry'), 'telemetry', telemetry, (i) => i.timestamp as number, 2);
    }
    writeSnapshot(
      path.join(dir, 'with'),
      [
        {
          device_id: dev(1),
          provider_id: PROVIDER,
          vehicle_id: 'V-1',
          vehicle_type: 'scooter_standing',
          propulsion_types: ['electric'],
        },
        {
          device_id: dev(3),
          provider_id: PROVIDER,
          vehicle_id: 'V-3',
          vehicle_type: 'bicycle',
          propulsion_types: ['human', 'electric_assist'],
        },
      ],
      [],
      T0 + 3 * HOUR,
    );
    bare = path.join(dir, 'bare');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('per hour: vehicles in the PROW from the events, trips started and ended, median and p90, telemetry; per day: trips per vehicle', async () => {
    const r = await runCliInProcess(['metrics', bare, '--json']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { hours: Record<string, unknown>[]; days: Record<string, unknown>[] };
    const pick = (row: Record<string, unknown>) => [
      row.hour,
      row.prow_at_hour_end,
      row.available_at_hour_end,
      row.non_operational_at_hour_end,
      row.on_trip_at_hour_end,
      row.trips_started,
      row.trips_ended,
      row.duration_median_s,
      row.duration_p90_s,
      row.distance_median_m,
      row.distance_p90_m,
      row.telemetry_points,
    ];
    assert.deepEqual(report.hours.map(pick), [
      [hourOf(T0), 1, 1, 0, 0, 2, 2, 210, 282, 750, 950, 3],
      [hourOf(T0 + HOUR), 2, 1, 1, 0, 1, 1, 600, 600, 2000, 2000, 1],
    ]);
    assert.deepEqual(report.days, [
      { date: hourOf(T0).slice(0, 10), trips: 3, vehicles_at_hour_ends: 2, trips_per_vehicle_at_hour_ends: 1.5 },
    ]);
    const text = await runCliInProcess(['metrics', bare]);
    assert.match(text.out, /^Per day \(vehicles: in the PROW at the end of at least one hour of the day\):$/m);
  });

  it("an hour the harvest has not done is empty, never 0: trips still 202 at hour 1 leave its trips and the day's empty", async () => {
    const gap = path.join(dir, 'gap');
    writeHarvest(
      path.join(gap, 'events'),
      'events_historical',
      [event(dev(1), T0 + 10 * MIN, ['located'], 'available', north(0))],
      (i) => i.timestamp as number,
      2,
    );
    writeHarvest(
      path.join(gap, 'trips'),
      'trips',
      [trip(dev(1), id('r', 9), T0 + 20 * MIN, 120, 500)],
      (i) => i.end_time as number,
      2,
      { 1: 'pending' },
    );
    const r = await runCliInProcess(['metrics', gap, '--json']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { hours: Record<string, unknown>[]; days: Record<string, unknown>[] };
    assert.deepEqual(
      report.hours.map((h) => [h.prow_at_hour_end, h.trips_started, h.telemetry_points]),
      [
        [1, 1, null],
        [1, null, null],
      ],
    );
    assert.deepEqual(
      report.days.map((d) => [d.trips, d.vehicles_at_hour_ends, d.trips_per_vehicle_at_hour_ends]),
      [[null, 1, null]],
    );
  });

  it('--by vehicle_type and propulsion_type read the /vehicles snapshot (a device it lacks is "unknown"); without one, exit 2', async () => {
    const r = await runCliInProcess(['metrics', path.join(dir, 'with'), '--json', '--by', 'vehicle_type']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as {
      by: string;
      hours: Record<string, unknown>[];
      days: Record<string, unknown>[];
    };
    assert.equal(report.by, 'vehicle_type');
    assert.deepEqual(
      report.days.map((d) => [d.vehicle_type, d.trips, d.vehicles_at_hour_ends]),
      [
        ['bicycle', 1, 1],
        ['scooter_standing', 2, 1],
      ],
    );
    assert.deepEqual(
      report.hours
        .filter((h) => h.hour === hourOf(T0 + HOUR))
        .map((h) => [h.vehicle_type, h.prow_at_hour_end, h.trips_ended]),
      [
        ['bicycle', 1, 0],
        ['scooter_standing', 1, 1],
      ],
    );
    const propulsion = JSON.parse(
      (await runCliInProcess(['metrics', path.join(dir, 'with'), '--json', '--by', 'propulsion_type'])).out,
    ) as { days: Record<string, unknown>[] };
    assert.deepEqual(
      propulsion.days.map((d) => d.propulsion_type),
      ['electric', 'electric_assist+human'],
    );
    const missing = await runCliInProcess(['metrics', bare, '--by', 'vehicle_type']);
    assert.equal(missing.code, 2);
    assert.match(
      missing.err,
      /--by vehicle_type needs the \/vehicles snapshot, which this harvest does not hold: harvest with --snapshot/,
    );
    const wrong = await runCliInProcess(['metrics', bare, '--by', 'colour']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /--by colour: group by one of vehicle_type, propulsion_type, provider_id/);
  });
});
