// `mobility-api metrics --dimensions geography_id --geographies <file>`: the OMF metrics per geography, over a
// hand-written harvest and geographies (two squares sharing an edge, a third where nothing happens), a point on the
// shared edge (in both) and points outside every geography (in no row), each figure against one counted by hand.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MetricsQueryResponse } from '../../src/core/metrics';
import { runCliInProcess } from './support/cliRunner';
import { writeHarvestPart } from './support/harvestFixture';

/** 2026-11-20 at hh:mm UTC. */
const T = (h: number, m = 0) => Date.UTC(2026, 10, 20, h, m);
const P1 = 'aaaaaaaa-0000-4000-8000-000000000001';
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

const A = 'a0000000-0000-4000-8000-00000000000a';
const B = 'b0000000-0000-4000-8000-00000000000b';
const C = 'c0000000-0000-4000-8000-00000000000c';
/** Points: inside A, inside B, on the edge A and B share (lng 13.1), outside every geography. */
const IN_A = { lng: 13.05, lat: 52.05 };
const IN_B = { lng: 13.15, lat: 52.05 };
const EDGE = { lng: 13.1, lat: 52.05 };
const OUT = { lng: 14, lat: 53 };

const square = (west: number, south: number, east: number, north: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [west, south],
      [east, south],
      [east, north],
      [west, north],
      [west, south],
    ],
  ],
});
const geography = (id: string, name: string, geometry: unknown) => ({
  geography_id: id,
  name,
  published_date: Date.UTC(2025, 0, 1),
  geography_json: { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry }] },
});
const GEOGRAPHIES = {
  version: '2.0.0',
  last_updated: Date.UTC(2025, 0, 1),
  geographies: [
    geography(A, 'A', square(13.0, 52.0, 13.1, 52.1)),
    geography(B, 'B', square(13.1, 52.0, 13.2, 52.1)),
    geography(C, 'C (nothing happens)', square(12.0, 51.0, 12.1, 51.1)),
  ],
};

let eventNo = 0;
const ev = (
  device: number,
  timestamp: number,
  type: string,
  state: string,
  location: { lng: number; lat: number },
): Item => ({
  device_id: uuid('d', device),
  provider_id: P1,
  event_id: uuid('e', ++eventNo),
  vehicle_state: state,
  event_types: [type],
  timestamp,
  location,
});
let tripNo = 0;
const trip = (
  device: number,
  start: number,
  end: number,
  from: { lng: number; lat: number },
  to: { lng: number; lat: number },
  metres: number,
): Item => ({
  provider_id: P1,
  device_id: uuid('d', device),
  trip_id: uuid('t', ++tripNo),
  trip_type: ['rider'],
  start_time: start,
  end_time: end,
  duration: (end - start) / 1000,
  distance: metres,
  start_location: from,
  end_location: to,
});

describe('CLI: mobility-api metrics --dimensions geography_id (the OMF metrics per geography)', function () {
  this.timeout(120_000);
  let dir: string;
  let folder: string;
  let geographiesFile: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omf-metrics-geo-'));
    folder = path.join(dir, 'harvest');
    geographiesFile = path.join(dir, 'geographies.json');
    fs.writeFileSync(geographiesFile, JSON.stringify(GEOGRAPHIES));
    // d1: available in A, a trip from A to B, available in B. d2: available on the shared edge (A and B). d3: outside
    // every geography. d4: available in B from 10:15.
    writeHarvest(
      path.join(folder, 'events'),
      'events_historical',
      [
        ev(1, T(10), 'provider_drop_off', 'available', IN_A),
        ev(1, T(10, 30), 'trip_start', 'on_trip', IN_A),
        ev(1, T(10, 40), 'trip_end', 'available', IN_B),
        ev(2, T(10), 'provider_drop_off', 'available', EDGE),
        ev(3, T(10), 'provider_drop_off', 'available', OUT),
        ev(3, T(10, 45), 'battery_low', 'non_operational', OUT),
        ev(4, T(10, 15), 'provider_drop_off', 'available', IN_B),
      ],
      T(9),
      8,
    );
    // t1 A → B; t2 from the edge to outside; t3 from outside into A.
    writeHarvest(
      path.join(folder, 'trips'),
      'trips',
      [
        trip(1, T(10, 30), T(10, 40), IN_A, IN_B, 1000),
        trip(5, T(10, 5), T(10, 20), EDGE, OUT, 2000),
        trip(6, T(10, 10), T(10, 25), OUT, IN_A, 500),
      ],
      T(9),
      8,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function perGeography(
    measures: string[],
    ...extra: string[]
  ): Promise<{ response: MetricsQueryResponse; at10: Record<string, Record<string, unknown>>; err: string }> {
    const r = await runCliInProcess([
      'metrics',
      folder,
      '--json',
      '--measures',
      measures.join(','),
      '--interval',
      'PT1H',
      '--dimensions',
      'geography_id',
      '--geographies',
      geographiesFile,
      ...extra,
    ]);
    assert.equal(r.code, 0, r.err);
    const response = JSON.parse(r.out) as MetricsQueryResponse;
    const rows = response.rows.map((row) => Object.fromEntries(response.columns.map((c, i) => [c.name, row[i]])));
    const at10 = Object.fromEntries(
      rows.filter((row) => row.interval_start === '2026-11-20T10:00Z').map((row) => [row.geography_id as string, row]),
    );
    return { response, at10, err: r.err };
  }
  const pick = (row: Record<string, unknown> | undefined, measures: string[]) => measures.map((m) => row?.[m]);

  it('vehicle states by the geography of the event that began them: a vehicle on the edge is in both, one outside in none', async () => {
    const measures = [
      'vehicles.available.duration.sum',
      'vehicles.available.avg',
      'vehicles.available.min',
      'vehicles.available.max',
      'vehicles.on_trip.duration.sum',
      'dockless.deployed.avg',
      'dockless.utilization.idle.percent',
    ];
    const { response, at10, err } = await perGeography(measures, '--k', '0');
    // A: d1 available 10:00–10:30 (1800 s), d2 all hour (3600 s); d1's trip began in A (600 s).
    assert.deepEqual(pick(at10[A], measures), [5400, 1.5, 1, 2, 600, 1.67, 0.9]);
    // B: d1 available 10:40– (1200 s), d2 3600 s, d4 10:15– (2700 s): 1 vehicle at 10:00, 2 at 10:15, 3 at 10:40.
    assert.deepEqual(pick(at10[B], measures), [7500, 2.08, 1, 3, 0, 2.08, 1]);
    assert.deepEqual(
      pick(at10[C], measures),
      [0, 0, 0, 0, 0, 0, null],
      'a geography where nothing happened has its row',
    );
    assert.deepEqual(Object.keys(at10).sort(), [A, B, C], 'd3, outside every geography, is in no row');
    assert.deepEqual(response.columns.slice(0, 2), [
      { name: 'interval_start', column_type: 'dimension', data_type: 'datetime' },
      { name: 'geography_id', column_type: 'dimension', data_type: 'string' },
    ]);
    assert.deepEqual(response.query.dimensions, ['geography_id']);
    assert.match(err, /3 geographies from .*geographies\.json/);
    assert.match(err, /outside every geography \(in no row\): 1 of 3 trip starts, 1 of 3 trip ends, 2 of 7 events/);
  });

  it('events by their location; trips by their start or end point; active and inactive vehicles; trips per vehicle', async () => {
    const measures = [
      'events.provider_drop_off.count',
      'events.trip_start.count',
      'events.trip_end.count',
      'events.battery_low.count',
      'trips.start_loc.count',
      'trips.start_loc.duration.sum',
      'trips.end_loc.count',
      'trips.end_loc.distance.sum',
      'dockless.active.count',
      'dockless.inactive.count',
      'dockless.utilization.active.percent',
      'dockless.utilization.trips_per_vehicle.avg',
    ];
    const { at10 } = await perGeography(measures, '--k', '0');
    // A: drop-offs d1 and d2 (edge); d1's trip_start; trips t1 and t2 (edge) start here, t3 ends here; d1 active (its
    // trip began here), d2 inactive; 2 trips over 6000/3600 deployed vehicles.
    assert.deepEqual(pick(at10[A], measures), [2, 1, 0, 0, 2, 1500, 1, 500, 1, 1, 0.5, 1.2]);
    // B: drop-offs d2 (edge) and d4; d1's trip_end; t2 starts on the edge, t1 ends here; d2 and d4 inactive, and d1 is
    // not: it had a trip in the interval (in A). 1 trip over 7500/3600.
    assert.deepEqual(pick(at10[B], measures), [2, 0, 1, 0, 1, 900, 1, 1000, 0, 2, 0, 0.48]);
    assert.deepEqual(pick(at10[C], measures), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null]);
  });

  it('OMF 2.6–2.7 per zone: active in the zone where the trip began (A 2), inactive only without a trip (A 0, B 1: vehicle 3)', async () => {
    const zones = path.join(dir, 'zones');
    writeHarvest(
      zones,
      'events_historical',
      [
        ev(1, T(10, 4), 'trip_start', 'on_trip', IN_A),
        ev(2, T(10, 5), 'trip_enter_jurisdiction', 'on_trip', IN_A),
        ev(3, T(10, 6), 'provider_drop_off', 'available', IN_B),
        ev(2, T(10, 7), 'trip_leave_jurisdiction', 'elsewhere', IN_A),
        ev(1, T(10, 10), 'trip_end', 'available', IN_B),
        ev(2, T(10, 14), 'trip_enter_jurisdiction', 'on_trip', IN_A),
        ev(3, T(10, 16), 'reservation_start', 'reserved', IN_B),
      ],
      T(9),
      2,
    );
    const r = await runCliInProcess([
      'metrics',
      zones,
      '--json',
      '--measures',
      'dockless.active.count,dockless.inactive.count',
      '--interval',
      'PT15M',
      '--dimensions',
      'geography_id',
      '--geographies',
      geographiesFile,
      '--k',
      '0',
    ]);
    assert.equal(r.code, 0, r.err);
    const rows = (JSON.parse(r.out) as MetricsQueryResponse).rows.filter((row) => row[0] === '2026-11-20T10:00Z');
    assert.deepEqual(
      rows.map((row) => row.slice(1)),
      [
        [A, 2, 0],
        [B, 0, 1],
        [C, 0, 0],
      ],
    );
  });

  it('k-anonymity still applies per geography: every count below 10 is -1, other measures are not redacted', async () => {
    const { response, at10 } = await perGeography([
      'trips.start_loc.count',
      'trips.start_loc.duration.sum',
      'dockless.active.count',
    ]);
    assert.equal(response.query.k_value, 10);
    assert.deepEqual(
      pick(at10[A], ['trips.start_loc.count', 'trips.start_loc.duration.sum', 'dockless.active.count']),
      [-1, 1500, -1],
    );
    assert.deepEqual(
      pick(at10[C], ['trips.start_loc.count', 'trips.start_loc.duration.sum', 'dockless.active.count']),
      [-1, 0, -1],
    );
  });

  it('refuses, with exit 2 and what to fix: --geographies without geography_id, a file that is not a Geography document', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ version: '2.0.0', geographies: [{ name: 'no id' }] }));
    const cases: [string[], RegExp][] = [
      [
        ['--geographies', geographiesFile],
        /--geographies counts the metrics per geography: add geography_id to --dimensions/,
      ],
      [['--dimensions', 'geography_id', '--geographies', bad], /do not follow the MDS 2\.0 Geography schema/],
      [
        ['--dimensions', 'geography_id', '--geographies', path.join(dir, 'none.json')],
        /Cannot read the geographies file/,
      ],
    ];
    for (const [args, expected] of cases) {
      const r = await runCliInProcess([
        'metrics',
        folder,
        '--measures',
        'trips.start_loc.count',
        '--interval',
        'PT1H',
        ...args,
      ]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, expected);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    }
  });
});
