// `mobility-api metrics --measures`: the OMF metrics of MDS 2.0.2. Golden tests: each worked example of
// `metrics/metrics_methodology.md` (vendored in test/fixtures/omf-metrics) as a small hand-written harvest, giving the
// same numbers; the response's shape against the README's and its example; intervals in a time zone across both
// daylight-saving days; k-anonymity; intervals the harvest does not cover.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MetricsQueryResponse } from '../../src/core/metrics';
import { intervalsOf, parseIntervalDuration } from '../../src/core/metrics';
import { runCliInProcess } from './support/cliRunner';
import { writeHarvestPart } from './support/harvestFixture';

const HOUR = 3_600_000;
/** 2026-11-20 at hh:mm:ss UTC. */
const T = (h: number, m = 0, s = 0) => Date.UTC(2026, 10, 20, h, m, s);
const P1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const P2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const uuid = (prefix: string, n: number) =>
  `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`.slice(0, 36);
type Item = Record<string, unknown>;

/** One endpoint's folder from `first` for `hours` hours, trips by end_time and events by timestamp; `statuses` as writeHarvestPart's. */
const writeHarvest = (
  dir: string,
  endpoint: 'trips' | 'events_historical',
  items: Item[],
  first: number,
  hours: number,
  statuses: Record<number, string> = {},
) =>
  writeHarvestPart(
    dir,
    endpoint,
    items,
    (i) => (endpoint === 'trips' ? i.end_time : i.timestamp) as number,
    first,
    hours,
    statuses,
  );

let eventNo = 0;
/** An event of `device` (vehicle_1 → device 1) at `timestamp`, of one type, leaving the vehicle in `state`. */
const ev = (device: number, timestamp: number, type: string, state: string, provider = P1): Item => ({
  device_id: uuid('d', device),
  provider_id: provider,
  event_id: uuid('e', ++eventNo),
  vehicle_state: state,
  event_types: [type],
  timestamp,
  location: { lat: 52.5, lng: 13.4 },
});
let tripNo = 0;
const trip = (start: number, end: number, seconds: number, metres: number, device = 1): Item => ({
  provider_id: P1,
  device_id: uuid('d', device),
  trip_id: uuid('t', ++tripNo),
  trip_type: ['rider'],
  start_time: start,
  end_time: end,
  duration: seconds,
  distance: metres,
  start_location: { lat: 52.5, lng: 13.4 },
  end_location: { lat: 52.51, lng: 13.4 },
});

/** Runs `metrics --json` and gives the response, its rows as objects by column name, and stderr. */
async function metrics(
  folder: string,
  ...args: string[]
): Promise<{ response: MetricsQueryResponse; rows: Record<string, unknown>[]; err: string }> {
  const r = await runCliInProcess(['metrics', folder, '--json', ...args]);
  assert.equal(r.code, 0, r.err);
  const response = JSON.parse(r.out) as MetricsQueryResponse;
  const rows = response.rows.map((row) => Object.fromEntries(response.columns.map((c, i) => [c.name, row[i]])));
  return { response, rows, err: r.err };
}
const at = (rows: Record<string, unknown>[], start: string, extra: Record<string, unknown> = {}) => {
  const found = rows.filter((r) => r.interval_start === start && Object.entries(extra).every(([k, v]) => r[k] === v));
  assert.equal(found.length, 1, `one row at ${start} ${JSON.stringify(extra)}: ${JSON.stringify(rows)}`);
  return found[0];
};

describe('CLI: mobility-api metrics --measures (the OMF metrics of MDS 2.0.2)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omf-metrics-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const folder = (name: string) => path.join(dir, name);

  it('1.1–1.3 vehicles.available.avg/min/max: 1.53, 1 and 3 between 10:00 and 10:15 (time-weighted, not a sample)', async () => {
    // The methodology's table, in MDS 2.0 events; vehicles 1 and 3 are available at 10:00 in its snapshots, so an
    // event before 10:00 makes them so here.
    writeHarvest(
      folder('g1'),
      'events_historical',
      [
        ev(1, T(9, 50), 'provider_drop_off', 'available'),
        ev(3, T(9, 55), 'provider_drop_off', 'available'),
        ev(3, T(10, 1), 'reservation_start', 'reserved'),
        ev(2, T(10, 4), 'provider_drop_off', 'available'),
        ev(3, T(10, 6), 'reservation_cancel', 'available'),
        ev(1, T(10, 7), 'off_hours', 'non_operational'),
        ev(2, T(10, 10), 'reservation_start', 'reserved'),
      ],
      T(9),
      2,
    );
    const { rows } = await metrics(
      folder('g1'),
      '--measures',
      'vehicles.available.avg,vehicles.available.min,vehicles.available.max',
      '--interval',
      'PT15M',
      '--k',
      '0',
    );
    const row = at(rows, '2026-11-20T10:00Z');
    assert.deepEqual(
      [row['vehicles.available.avg'], row['vehicles.available.min'], row['vehicles.available.max']],
      [1.53, 1, 3],
    );
  });

  it('1.4–1.5 vehicles.[state].duration.sum and events.[event_type].count, split where OMF splits them (zones as providers here)', async () => {
    // OMF's zones A and B: vehicle 1's available time is in zone B, vehicle 2's in zone A; here each is its provider.
    writeHarvest(
      folder('g2'),
      'events_historical',
      [
        ev(1, T(9, 59), 'reservation_start', 'reserved'),
        ev(1, T(10, 4), 'trip_start', 'on_trip'),
        ev(2, T(10, 6), 'provider_drop_off', 'available', P2),
        ev(1, T(10, 10), 'trip_end', 'available'),
        ev(1, T(10, 18), 'reservation_start', 'reserved'),
        ev(2, T(10, 20), 'reservation_start', 'reserved', P2),
      ],
      T(9),
      2,
    );
    const measures = [
      'vehicles.reserved.duration.sum',
      'vehicles.on_trip.duration.sum',
      'vehicles.available.duration.sum',
      'events.reservation_start.count',
      'events.trip_start.count',
      'events.provider_drop_off.count',
      'events.trip_end.count',
    ];
    const { rows } = await metrics(
      folder('g2'),
      '--measures',
      measures.join(','),
      '--interval',
      'PT15M',
      '--dimensions',
      'provider_id',
      '--k',
      '0',
    );
    const pick = (start: string, provider: string) =>
      measures.map((m) => at(rows, start, { provider_id: provider })[m]);
    assert.deepEqual(pick('2026-11-20T09:45Z', P1), [60, 0, 0, 1, 0, 0, 0]);
    // OMF's table says 180 s reserved for 10:00; its own events hold vehicle 1 reserved from 09:59 to 10:04, 240 s of
    // them after 10:00 (the 09:45 row's 60 s are the minute before). We give 240.
    assert.deepEqual(pick('2026-11-20T10:00Z', P1), [240, 360, 300, 0, 1, 0, 1]);
    assert.deepEqual(pick('2026-11-20T10:00Z', P2), [0, 0, 540, 0, 0, 1, 0]);
    assert.deepEqual([pick('2026-11-20T10:15Z', P1)[3], pick('2026-11-20T10:15Z', P2)[3]], [1, 1]);
  });

  it("1.6–1.14 trips.[start_loc|end_loc].count, duration and distance avg/med/std/sum: the methodology's trips table", async () => {
    writeHarvest(
      folder('g3'),
      'trips',
      [
        trip(T(10, 0), T(10, 30), 1680, 987),
        trip(T(10, 15), T(10, 30), 900, 321),
        trip(T(10, 15), T(10, 30), 720, 365),
        trip(T(10, 15), T(10, 45), 1080, 420),
        trip(T(10, 30), T(10, 30), 600, 264),
      ],
      T(9),
      8,
    );
    const measures = ['count', 'duration.avg', 'duration.sum', 'distance.avg', 'distance.sum'].flatMap((s) => [
      `trips.start_loc.${s}`,
      `trips.end_loc.${s}`,
    ]);
    const { rows } = await metrics(
      folder('g3'),
      '--measures',
      [...measures, 'trips.start_loc.duration.med', 'trips.start_loc.distance.std'].join(','),
      '--interval',
      'PT15M',
      '--k',
      '0',
    );
    const row = (hhmm: string) => at(rows, `2026-11-20T${hhmm}Z`);
    const start = (hhmm: string) =>
      ['count', 'duration.avg', 'duration.sum', 'distance.avg', 'distance.sum'].map(
        (s) => row(hhmm)[`trips.start_loc.${s}`],
      );
    const end = (hhmm: string) =>
      ['count', 'duration.avg', 'duration.sum', 'distance.avg', 'distance.sum'].map(
        (s) => row(hhmm)[`trips.end_loc.${s}`],
      );
    assert.deepEqual(start('10:00'), [1, 1680, 1680, 987, 987]);
    assert.deepEqual(start('10:15'), [3, 900, 2700, 368.67, 1106]);
    assert.deepEqual(start('10:30'), [1, 600, 600, 264, 264]);
    assert.deepEqual(end('10:30'), [4, 975, 3900, 484.25, 1937]);
    assert.deepEqual(end('10:45'), [1, 1080, 1080, 420, 420]);
    assert.deepEqual(end('10:00'), [0, null, 0, null, 0], 'no trip ended: count 0, no average');
    const d = [321, 365, 420];
    const mean = d.reduce((a, b) => a + b) / 3;
    assert.equal(
      row('10:15')['trips.start_loc.distance.std'],
      Math.round(Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / 2) * 100) / 100,
    );
    assert.equal(row('10:15')['trips.start_loc.duration.med'], 900);
  });

  it('2.1, 2.3, 2.5 dockless.deployed.avg/min/max: 2.20, 1 and 3', async () => {
    writeHarvest(
      folder('g4'),
      'events_historical',
      [
        ev(1, T(9, 48), 'trip_end', 'available'),
        ev(2, T(9, 50), 'rebalance_pick_up', 'removed'),
        ev(3, T(9, 59), 'reservation_start', 'reserved'),
        ev(2, T(10, 4), 'provider_drop_off', 'available'),
        ev(3, T(10, 6), 'reservation_cancel', 'available'),
        ev(1, T(10, 7), 'off_hours', 'non_operational'),
        ev(1, T(10, 10), 'decommissioned', 'removed'),
        ev(2, T(10, 10), 'reservation_start', 'reserved'),
        ev(3, T(10, 12), 'rebalance_pick_up', 'removed'),
        ev(2, T(10, 16), 'trip_start', 'on_trip'),
      ],
      T(9),
      2,
    );
    const { rows } = await metrics(
      folder('g4'),
      '--measures',
      'dockless.deployed.avg,dockless.deployed.min,dockless.deployed.max',
      '--interval',
      'PT15M',
      '--k',
      '0',
    );
    const row = at(rows, '2026-11-20T10:00Z');
    assert.deepEqual(
      [row['dockless.deployed.avg'], row['dockless.deployed.min'], row['dockless.deployed.max']],
      [2.2, 1, 3],
    );
  });

  it('2.2, 2.4 dockless.deployed.avg.min/avg.max: the least and most hourly average of a 4-hour interval (1.80, 4.10)', async () => {
    // OMF's hourly averages 2.20, 4.10, 3.70, 1.80 from 06:00; here from 08:00 (PT4H intervals tile the day from
    // midnight: 08:00–12:00 is one). Each hour: floor(avg) vehicles the whole hour, one more for the fraction of it.
    const events: Item[] = [];
    let device = 100;
    [2.2, 4.1, 3.7, 1.8].forEach((avg, h) => {
      const start = T(8 + h);
      for (let k = 0; k < Math.floor(avg); k++)
        events.push(
          ev(++device, start, 'provider_drop_off', 'available'),
          ev(device, start + HOUR, 'rebalance_pick_up', 'removed'),
        );
      events.push(
        ev(++device, start, 'provider_drop_off', 'available'),
        ev(device, start + Math.round((avg % 1) * 3600) * 1000, 'rebalance_pick_up', 'removed'),
      );
    });
    writeHarvest(folder('g5'), 'events_historical', events, T(8), 4);
    const { rows } = await metrics(
      folder('g5'),
      '--measures',
      'dockless.deployed.avg,dockless.deployed.avg.min,dockless.deployed.avg.max',
      '--interval',
      'PT4H',
      '--avg-of',
      'PT1H',
      '--k',
      '0',
    );
    const row = at(rows, '2026-11-20T08:00Z');
    assert.deepEqual(
      [row['dockless.deployed.avg.min'], row['dockless.deployed.avg.max'], row['dockless.deployed.avg']],
      [1.8, 4.1, 2.95],
    );
  });

  it('2.6, 2.7, 2.9 dockless.active.count, inactive.count and utilization.active.percent over the fleet: 2, 1 and 0.67', async () => {
    writeHarvest(
      folder('g6'),
      'events_historical',
      [
        ev(1, T(10, 4), 'trip_start', 'on_trip'),
        ev(2, T(10, 5), 'trip_enter_jurisdiction', 'on_trip'),
        ev(3, T(10, 6), 'provider_drop_off', 'available'),
        ev(2, T(10, 7), 'trip_leave_jurisdiction', 'elsewhere'),
        ev(1, T(10, 10), 'trip_end', 'available'),
        ev(2, T(10, 14), 'trip_enter_jurisdiction', 'on_trip'),
        ev(3, T(10, 16), 'reservation_start', 'reserved'),
      ],
      T(9),
      2,
    );
    const { rows } = await metrics(
      folder('g6'),
      '--measures',
      'dockless.active.count,dockless.inactive.count,dockless.utilization.active.percent',
      '--interval',
      'PT15M',
      '--k',
      '0',
    );
    const row = at(rows, '2026-11-20T10:00Z');
    assert.deepEqual(
      [row['dockless.active.count'], row['dockless.inactive.count'], row['dockless.utilization.active.percent']],
      [2, 1, 0.67],
    );
  });

  it('2.8 dockless.utilization.idle.percent: 0.98 from available 3200 s, non_operational 1800 s, reserved 60 s, on_trip 120 s', async () => {
    writeHarvest(
      folder('g7'),
      'events_historical',
      [
        ev(1, T(9, 50), 'provider_drop_off', 'available'),
        ev(2, T(9, 50), 'provider_drop_off', 'available'),
        ev(4, T(9, 50), 'provider_drop_off', 'available'),
        ev(4, T(10, 11, 20), 'rebalance_pick_up', 'removed'),
        ev(5, T(9, 50), 'battery_low', 'non_operational'),
        ev(6, T(9, 50), 'battery_low', 'non_operational'),
        ev(7, T(10, 0), 'reservation_start', 'reserved'),
        ev(7, T(10, 1), 'trip_start', 'on_trip'),
        ev(7, T(10, 3), 'trip_end', 'available'),
      ],
      T(9),
      2,
    );
    const measures = [
      'vehicles.available.duration.sum',
      'vehicles.non_operational.duration.sum',
      'vehicles.reserved.duration.sum',
      'vehicles.on_trip.duration.sum',
      'dockless.utilization.idle.percent',
    ];
    const { rows } = await metrics(folder('g7'), '--measures', measures.join(','), '--interval', 'PT15M', '--k', '0');
    assert.deepEqual(
      measures.map((m) => at(rows, '2026-11-20T10:00Z')[m]),
      [3200, 1800, 60, 120, 0.98],
    );
  });

  it('2.10 dockless.utilization.trips_per_vehicle.avg: 20 trips started, 2 vehicles deployed on average, 10', async () => {
    writeHarvest(
      path.join(folder('g8'), 'events'),
      'events_historical',
      [ev(1, T(9, 50), 'provider_drop_off', 'available'), ev(2, T(9, 50), 'provider_drop_off', 'available')],
      T(9),
      8,
    );
    writeHarvest(
      path.join(folder('g8'), 'trips'),
      'trips',
      Array.from({ length: 20 }, (_, n) => trip(T(10, n % 15), T(10, n % 15, 30), 30, 100, 1 + (n % 2))),
      T(9),
      8,
    );
    const { rows } = await metrics(
      folder('g8'),
      '--measures',
      'trips.start_loc.count,dockless.deployed.avg,dockless.utilization.trips_per_vehicle.avg',
      '--interval',
      'PT15M',
      '--k',
      '0',
    );
    const row = at(rows, '2026-11-20T10:00Z');
    assert.deepEqual(
      [row['trips.start_loc.count'], row['dockless.deployed.avg'], row['dockless.utilization.trips_per_vehicle.avg']],
      [20, 2, 10],
    );
  });
});

describe('CLI: mobility-api metrics --measures: time zones, the response, k-anonymity, missing intervals', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omf-metrics-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("aligns intervals in the time zone: Berlin's 29 March 2026 is 23 hours, 25 October 2026 is 25", async () => {
    const spring = parseIntervalDuration('P1D');
    const days = intervalsOf(Date.UTC(2026, 2, 28, 23), Date.UTC(2026, 2, 29, 22), spring, 'Europe/Berlin');
    assert.deepEqual(
      days.map((d) => [d.label, (d.end - d.start) / HOUR]),
      [['2026-03-29T00:00+01:00', 23]],
    );
    const hours = intervalsOf(
      Date.UTC(2026, 9, 24, 22),
      Date.UTC(2026, 9, 25, 23),
      parseIntervalDuration('PT1H'),
      'Europe/Berlin',
    );
    assert.equal(hours.length, 25);
    assert.deepEqual(
      hours.slice(1, 4).map((h) => h.label),
      ['2026-10-25T01:00+02:00', '2026-10-25T02:00+02:00', '2026-10-25T02:00+01:00'],
    );
    assert.deepEqual(
      intervalsOf(Date.UTC(2026, 1, 1), Date.UTC(2026, 1, 2), parseIntervalDuration('P1M'), 'UTC').map(
        (m) => (m.end - m.start) / HOUR / 24,
      ),
      [28],
    );
    // One vehicle available all day, harvested over each local day: 82 800 s and 90 000 s, an average of 1 vehicle.
    for (const [name, first, hoursLong] of [
      ['spring', Date.UTC(2026, 2, 28, 23), 23],
      ['autumn', Date.UTC(2026, 9, 24, 22), 25],
    ] as const) {
      writeHarvest(
        path.join(dir, name),
        'events_historical',
        [ev(1, first, 'provider_drop_off', 'available')],
        first,
        hoursLong,
      );
      const { rows, response } = await metrics(
        path.join(dir, name),
        '--measures',
        'vehicles.available.duration.sum,vehicles.available.avg',
        '--interval',
        'P1D',
        '--timezone',
        'Europe/Berlin',
        '--k',
        '0',
      );
      assert.equal(response.query.timezone, 'Europe/Berlin');
      assert.deepEqual(
        rows.map((r) => [r['vehicles.available.duration.sum'], r['vehicles.available.avg']]),
        [[hoursLong * 3600, 1]],
        name,
      );
    }
  });

  it("--json prints the Metrics Query API response: the README's fields, the example's keys, a column per dimension and measure", async () => {
    writeHarvest(
      path.join(dir, 'shape', 'events'),
      'events_historical',
      [ev(1, T(9, 5), 'provider_drop_off', 'available'), ev(2, T(9, 6), 'provider_drop_off', 'available', P2)],
      T(9),
      8,
    );
    writeHarvest(path.join(dir, 'shape', 'trips'), 'trips', [trip(T(9, 10), T(9, 20), 600, 1000)], T(9), 8);
    const { response } = await metrics(
      path.join(dir, 'shape'),
      '--measures',
      'dockless.deployed.avg,trips.end_loc.count',
      '--interval',
      'PT1H',
      '--dimensions',
      'provider_id',
    );
    const example = JSON.parse(
      fs.readFileSync(path.resolve('test/fixtures/omf-metrics/activities_response.json'), 'utf8'),
    ) as MetricsQueryResponse;
    assert.deepEqual(Object.keys(response).sort(), Object.keys(example).sort());
    assert.deepEqual(Object.keys(response.query).sort(), Object.keys(example.query).sort());
    assert.match(response.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(response.query, {
      measures: ['dockless.deployed.avg', 'trips.end_loc.count'],
      interval: 'PT1H',
      start_date: '2026-11-20T09:00Z',
      end_date: '2026-11-20T16:00Z',
      dimensions: ['provider_id'],
      timezone: 'UTC',
      k_value: 10,
      filters: [],
    });
    assert.deepEqual(response.columns, [
      { name: 'interval_start', column_type: 'dimension', data_type: 'datetime' },
      { name: 'provider_id', column_type: 'dimension', data_type: 'string' },
      { name: 'dockless.deployed.avg', column_type: 'measure', data_type: 'float' },
      { name: 'trips.end_loc.count', column_type: 'measure', data_type: 'integer' },
    ]);
    for (const c of [...response.columns, ...example.columns])
      assert.deepEqual(Object.keys(c), ['name', 'column_type', 'data_type']);
    assert.equal(response.rows.length, 8 * 2, 'a row per hour and provider');
    assert.ok(response.rows.every((r) => r.length === response.columns.length));
    assert.deepEqual(response.rows[0], ['2026-11-20T09:00Z', P1, 0.92, -1]);
  });

  it('k-anonymity: a count below k (0 included) is -1, as OMF redacts; --k 0 turns it off; only counts are redacted', async () => {
    writeHarvest(
      path.join(dir, 'k'),
      'trips',
      [
        ...Array.from({ length: 3 }, () => trip(T(10, 1), T(10, 20), 600, 100)),
        ...Array.from({ length: 12 }, () => trip(T(11, 1), T(11, 20), 600, 100)),
      ],
      T(9),
      8,
    );
    const measures = ['--measures', 'trips.start_loc.count,trips.start_loc.duration.avg', '--interval', 'PT1H'];
    const pick = (rows: Record<string, unknown>[]) =>
      rows.slice(0, 3).map((r) => [r['trips.start_loc.count'], r['trips.start_loc.duration.avg']]);
    const redacted = await metrics(path.join(dir, 'k'), ...measures);
    assert.equal(redacted.response.query.k_value, 10);
    assert.deepEqual(pick(redacted.rows), [
      [-1, null],
      [-1, 600],
      [12, 600],
    ]);
    const two = await metrics(path.join(dir, 'k'), ...measures, '--k', '2');
    assert.deepEqual(pick(two.rows), [
      [-1, null],
      [3, 600],
      [12, 600],
    ]);
    const off = await metrics(path.join(dir, 'k'), ...measures, '--k', '0');
    assert.equal(off.response.query.k_value, 0);
    assert.deepEqual(pick(off.rows), [
      [0, null],
      [3, 600],
      [12, 600],
    ]);
  });

  it('an interval the harvest does not cover is missing (null), never 0, and stderr says which and why', async () => {
    // Events 09–12 h: 10 h still 202, 11 h failed; a day in UTC starts before the first hour.
    writeHarvest(
      path.join(dir, 'gaps'),
      'events_historical',
      [ev(1, T(9, 5), 'provider_drop_off', 'available'), ev(2, T(12, 5), 'provider_drop_off', 'available')],
      T(9),
      4,
      { 1: 'pending', 2: 'failed' },
    );
    const hourly = await metrics(
      path.join(dir, 'gaps'),
      '--measures',
      'vehicles.available.max,events.provider_drop_off.count',
      '--interval',
      'PT1H',
      '--k',
      '0',
    );
    assert.deepEqual(
      hourly.rows.map((r) => [r.interval_start, r['vehicles.available.max'], r['events.provider_drop_off.count']]),
      [
        ['2026-11-20T09:00Z', 1, 1],
        ['2026-11-20T10:00Z', null, null],
        ['2026-11-20T11:00Z', null, null],
        ['2026-11-20T12:00Z', 2, 1],
      ],
    );
    assert.match(
      hourly.err,
      /2026-11-20T10:00Z: no value for vehicles\.available\.max, events\.provider_drop_off\.count: 2026-11-20T10 events still 202/,
    );
    assert.match(hourly.err, /2026-11-20T11:00Z: .*2026-11-20T11 events failed \(HTTP 503\)/);
    const daily = await metrics(
      path.join(dir, 'gaps'),
      '--measures',
      'events.provider_drop_off.count,trips.end_loc.count',
      '--interval',
      'P1D',
      '--k',
      '0',
    );
    assert.deepEqual(daily.response.rows, [['2026-11-20T00:00Z', null, null]]);
    assert.match(daily.err, /2026-11-20T00 events before the harvest's first hour/);
    assert.match(daily.err, /the harvest has no trips/);
    const text = await runCliInProcess([
      'metrics',
      path.join(dir, 'gaps'),
      '--measures',
      'events.provider_drop_off.count',
      '--interval',
      'PT1H',
    ]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^2026-11-20T10:00Z\s+missing$/m);
    assert.match(text.out, /^Incomplete intervals \(missing, not 0\):$/m);
  });

  it('--dimensions vehicle_type groups by the /vehicles snapshot (a device it does not list is "unknown")', async () => {
    const folder = path.join(dir, 'types');
    writeHarvest(
      path.join(folder, 'events'),
      'events_historical',
      [
        ev(1, T(9), 'provider_drop_off', 'available'),
        ev(2, T(9), 'provider_drop_off', 'available'),
        ev(3, T(9, 30), 'provider_drop_off', 'available'),
      ],
      T(9),
      1,
    );
    const snap = path.join(folder, 'snapshot');
    fs.mkdirSync(snap, { recursive: true });
    const vehicles = [1, 2].map((n) => ({
      device_id: uuid('d', n),
      provider_id: P1,
      vehicle_id: `V-${n}`,
      vehicle_type: n === 1 ? 'scooter_standing' : 'bicycle',
      propulsion_types: ['electric'],
    }));
    fs.writeFileSync(path.join(snap, 'vehicles.ndjson'), vehicles.map((v) => JSON.stringify(v) + '\n').join(''));
    fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), '');
    const lists = {
      vehicles: { file: 'vehicles.ndjson', items: 2, pages: 1 },
      vehicles_status: { file: 'vehicles_status.ndjson', items: 0, pages: 1 },
    };
    fs.writeFileSync(
      path.join(snap, 'snapshot.json'),
      JSON.stringify({
        format: 'mobility-api-snapshot',
        formatVersion: 1,
        baseUrl: 'https://mds.example/provider',
        fetchedAt: new Date(T(10)).toISOString(),
        lastUpdated: T(10),
        lists,
      }),
    );
    const { rows } = await metrics(
      folder,
      '--measures',
      'dockless.deployed.avg',
      '--interval',
      'PT1H',
      '--dimensions',
      'vehicle_type',
    );
    assert.deepEqual(
      rows.map((r) => [r.vehicle_type, r['dockless.deployed.avg']]),
      [
        ['bicycle', 1],
        ['scooter_standing', 1],
        ['unknown', 0.5],
      ],
    );
  });

  it('refuses, with exit 2 and what to fix: an unknown measure, an interval that does not tile a day, a time zone, geography_id without geographies', async () => {
    writeHarvest(path.join(dir, 'bad'), 'events_historical', [], T(9), 1);
    const cases: [string[], RegExp][] = [
      [
        ['--measures', 'vehicles.parked.avg', '--interval', 'PT1H'],
        /vehicles\.parked\.avg is not a metric of MDS 2\.0\.2 \(the vehicle states are available, elsewhere/,
      ],
      [
        ['--measures', 'trips.start_loc.count', '--interval', 'PT7M'],
        /--interval PT7M: give an ISO 8601 duration from PT15M to P1M that tiles a day/,
      ],
      [['--measures', 'trips.start_loc.count'], /needs --interval/],
      [
        ['--measures', 'trips.start_loc.count', '--interval', 'PT1H', '--timezone', 'Mars/Olympus'],
        /--timezone Mars\/Olympus: give an IANA time zone name/,
      ],
      [
        ['--measures', 'trips.start_loc.count', '--interval', 'PT1H', '--dimensions', 'geography_id'],
        /--dimensions geography_id needs --geographies <file>/,
      ],
      [
        ['--measures', 'trips.start_loc.count', '--interval', 'PT1H', '--dimensions', 'vehicle_type'],
        /--dimensions vehicle_type needs the \/vehicles snapshot/,
      ],
      [
        ['--measures', 'dockless.deployed.avg.min', '--interval', 'PT1H', '--avg-of', 'P1D'],
        /--avg-of P1D must be shorter than --interval PT1H/,
      ],
      [['--measures', 'trips.start_loc.count', '--interval', 'PT1H', '--k', 'ten'], /--k ten: give a whole number/],
    ];
    for (const [args, expected] of cases) {
      const r = await runCliInProcess(['metrics', path.join(dir, 'bad'), ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, expected);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    }
  });
});
