// The OMF metrics of `mobility-api metrics` against an independent computation (issue 40, "Measured"): a few hours of
// the sandbox harvested with --snapshot, and the sandbox's own /geographies (10 Berlin districts); then each figure is
// computed again here in plain TypeScript, straight from the raw NDJSON hour files and the geographies JSON, by this
// file's own reading of MDS 2.0.2's metrics/core_metrics.md and metrics_methodology.md (not the product's SQL), with
// robust-point-in-polygon (exact arithmetic) for point-in-polygon instead of the product's geography code. Both must
// agree exactly (floats, rounded to two decimals as OMF's examples and the product print them, within 1e-9): over
// 2,000 figures, each interval and each district.
//
// This side's reading of OMF, each choice named:
// - A vehicle's state (1.1–1.4) is the `vehicle_state` of its latest event at or before the instant (the methodology's
//   1.1 table: vehicle_3's `reserve` at 10:01 already counts at the 10:01 snapshot; vehicle_1 is still `available` at
//   10:00, before its first event of the interval, from its earlier state). Before a vehicle's first event in the
//   harvest its state is unknown, so it counts nowhere; its last state holds to the end of the harvest's last hour.
// - `.avg` is time-weighted: the limit of OMF's 1-minute snapshots (seconds in the state over the interval's seconds);
//   `.min` / `.max` are over every instant of the interval [start, end); `.duration.sum` in seconds, split at interval
//   boundaries. Per geography, a state's time belongs to every geography containing the event that began it (1.4: "100%
//   assigned to the geo-location where vehicles start the state").
// - `events.[type].count` (1.5): by `timestamp`, once per type in `event_types`, in the geography of `location`.
// - `trips.[start_loc|end_loc].*` (1.6–1.10): by `start_time` / `end_time` and `start_location` / `end_location`;
//   duration is the trip's `duration` (seconds); median interpolated, standard deviation the sample's (n − 1).
// - `dockless.deployed.*` (2.1, 2.3, 2.5): as a state, "available, unavailable, reserved, or trip" (MDS 2.0:
//   non_operational, on_trip), each state's time in the geography of the event that began it. 2.8 idle.percent: deployed
//   seconds not on_trip over deployed seconds; 2.10 trips_per_vehicle.avg: trips started over dockless.deployed.avg
//   (unrounded); 2.6, 2.7, 2.9 (active, inactive, active.percent): deployed vehicles with and without on_trip time in
//   the interval, over the whole fleet only (OMF's per-zone example of them fits no reading, docs/metrics.md).
// - A point on a polygon's edge or corner (robust-point-in-polygon's 0) is inside, so in every geography sharing that
//   edge; a point on a hole's edge is inside the polygon (its boundary); an item outside every geography is in no
//   geography's row, but in the fleet-wide figures. The sandbox puts none on a border or outside: one added vehicle
//   (events and a trip) on a corner three districts share and outside the city checks both.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import classifyPoint from 'robust-point-in-polygon';
import type { MetricsQueryResponse } from '../../src/core/metrics';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { clientOn, demoCredential, mdsEnvironment } from './harvestSupport';
import { runCliInProcess } from './support/cliRunner';

const HOUR = 3_600_000;
/** The sandbox's clock: 1 March 2026, 05:00 UTC (its world's history goes back 3 days before). */
const NOW = Date.UTC(2026, 2, 1, 5);
/** The CLI signs with the real clock, months after the sandbox's: its tokens' iat lie that far "ahead". */
const SKEW_SECONDS = Math.ceil((Date.now() - NOW) / 1000) + 3600;
/** Four hours of 28 February 2026, 08:00–12:00 UTC (09:00–13:00 in Berlin, CET: local hours are UTC hours). */
const FIRST = Date.UTC(2026, 1, 28, 8);
const HOURS = 4;
const END = FIRST + HOURS * HOUR;
const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13);
/** Trips longer than this are left out of every trips measure (on both sides); an interval's trips.start_loc also
 * needs the hours up to this long after it, so the last hour has none. */
const MAX_TRIP_SECONDS = 3600;
const STATES = ['available', 'non_operational', 'reserved', 'on_trip'];
/** OMF's public right of way (2.1: "available, unavailable, reserved, or trip"), the product's default. */
const DEPLOYED = new Set(STATES);

type Loc = { lng: number; lat: number };
/** Far from Berlin: in no district. */
const OUTSIDE: Loc = { lng: 12, lat: 51 };
interface RawEvent {
  device_id: string;
  event_id: string;
  vehicle_state: string;
  event_types: string[];
  timestamp: number;
  location: Loc;
}
interface RawTrip {
  trip_id: string;
  start_time: number;
  end_time: number;
  duration: number;
  distance: number;
  start_location: Loc;
  end_location: Loc;
}
interface RawGeography {
  geography_id: string;
  effective_date?: number;
  retire_date?: number;
  geography_json: { features: { geometry: { type: string; coordinates: unknown } }[] };
}

/** Every item of every hour file of one endpoint's folder, as its manifest lists them (each hour done, 200). */
function readNdjson<T>(folder: string): T[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as {
    hours: Record<string, { status: string; file: string }>;
  };
  assert.equal(Object.keys(manifest.hours).length, HOURS);
  const out: T[] = [];
  for (const hour of Object.values(manifest.hours)) {
    assert.match(hour.status, /^(items|empty)$/);
    for (const line of fs.readFileSync(path.join(folder, hour.file), 'utf8').split('\n'))
      if (line) out.push(JSON.parse(line) as T);
  }
  return out;
}

/**
 * robust-point-in-polygon's answer, except that a point equal to one of the loop's vertices is on its boundary (0):
 * robust-point-in-polygon 1.0.3 calls some vertices outside (its open issues #2 and #3), and this very harvest puts
 * a point on the corner Mitte, Reinickendorf and Charlottenburg-Wilmersdorf share, which it placed in only two.
 */
const classify = (loop: number[][], at: number[]) =>
  loop.some((v) => v[0] === at[0] && v[1] === at[1]) ? 0 : classifyPoint(loop, at);

/** The geographies containing a point (an edge counts as in), by robust-point-in-polygon on each polygon's rings. */
function geographiesContaining(geographies: RawGeography[]): (p: Loc) => string[] {
  const polygons = geographies.flatMap((g) =>
    g.geography_json.features.flatMap((f) => {
      const rings =
        f.geometry.type === 'Polygon'
          ? [f.geometry.coordinates as number[][][]]
          : f.geometry.type === 'MultiPolygon'
            ? (f.geometry.coordinates as number[][][][])
            : [];
      assert.ok(rings.length, `${g.geography_id}: a ${f.geometry.type}`);
      return rings.map((polygon) => ({ id: g.geography_id, polygon }));
    }),
  );
  return (p) => {
    const at = [p.lng, p.lat];
    const inside = polygons.filter(
      ({ polygon: [outer, ...holes] }) => classify(outer ?? [], at) <= 0 && holes.every((h) => classify(h, at) >= 0),
    );
    return [...new Set(inside.map((x) => x.id))];
  };
}

/** Adds items to one hour file of a harvest as if the provider had served them, its manifest's counts updated. */
function appendToHour(folder: string, hour: string, items: object[]): void {
  const manifestFile = path.join(folder, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
    hours: Record<string, { status: string; file: string; items: number; bytes: number }>;
  };
  const entry = manifest.hours[hour];
  assert.ok(entry, hour);
  fs.appendFileSync(path.join(folder, entry.file), items.map((i) => `${JSON.stringify(i)}\n`).join(''));
  entry.items += items.length;
  entry.bytes = fs.statSync(path.join(folder, entry.file)).size;
  entry.status = 'items';
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
}

/** A vertex of one district that lies on another's boundary (the districts tile the city: they share corners). */
function sharedVertex(geographies: RawGeography[]): Loc {
  const outers = geographies.map((g) => (g.geography_json.features[0]?.geometry.coordinates as number[][][])[0] ?? []);
  for (const [i, ring] of outers.entries()) {
    for (const v of ring)
      if (outers.some((other, j) => j !== i && classify(other, v) === 0)) return { lng: v[0] ?? 0, lat: v[1] ?? 0 };
  }
  assert.fail('no two districts share a corner');
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  return ((s[Math.floor(mid)] ?? 0) + (s[Math.ceil(mid)] ?? 0)) / 2;
}
function sampleStd(xs: number[]): number | null {
  if (xs.length < 2) return null;
  const mean = sum(xs) / xs.length;
  return Math.sqrt(sum(xs.map((x) => (x - mean) ** 2)) / (xs.length - 1));
}

/** A state held by one vehicle from `from` to `to` (ms), begun by an event in `geos`. */
interface Segment {
  device: string;
  state: string;
  from: number;
  to: number;
  geos: string[];
}

/** Every figure computed here, by measure, interval start (ms) and group ('*' for the whole fleet, else a geography). */
function independentMetrics(
  events: RawEvent[],
  trips: RawTrip[],
  geosOf: (p: Loc) => string[],
  intervals: number[],
  groups: string[],
  eventTypes: string[],
): Map<string, number | null> {
  const figures = new Map<string, number | null>();
  const put = (measure: string, start: number, group: string, value: number | null) =>
    figures.set(`${measure}|${start}|${group}`, value);
  const groupsOf = (p: Loc) => ['*', ...geosOf(p)];

  // Vehicles' states: each event's state from its timestamp to the device's next event, the last to the harvest's end.
  const byDevice = new Map<string, RawEvent[]>();
  for (const e of events) byDevice.set(e.device_id, [...(byDevice.get(e.device_id) ?? []), e]);
  const segments: Segment[] = [];
  for (const [device, list] of byDevice) {
    list.sort((a, b) => a.timestamp - b.timestamp);
    list.forEach((e, i) => {
      const next = list[i + 1];
      assert.notEqual(
        next?.timestamp,
        e.timestamp,
        `${device}: two events at one instant would leave its state open to a tie-break`,
      );
      segments.push({
        device,
        state: e.vehicle_state,
        from: e.timestamp,
        to: next?.timestamp ?? END,
        geos: groupsOf(e.location),
      });
    });
  }
  for (const start of intervals) {
    const end = start + HOUR;
    for (const group of groups) {
      const seconds_ = new Map<string, number>();
      for (const state of [...STATES, 'deployed']) {
        const inState = (s: Segment) => (state === 'deployed' ? DEPLOYED.has(s.state) : s.state === state);
        const mine = segments.filter((s) => inState(s) && s.geos.includes(group) && s.from < end && s.to > start);
        const seconds = sum(mine.map((s) => (Math.min(s.to, end) - Math.max(s.from, start)) / 1000));
        const name = state === 'deployed' ? 'dockless.deployed' : `vehicles.${state}`;
        put(`${name}.avg`, start, group, round2(seconds / (HOUR / 1000)));
        put(`${name}.duration.sum`, start, group, round2(seconds));
        const instants = [start, ...mine.flatMap((s) => [s.from, s.to]).filter((t) => t > start && t < end)];
        const counts = instants.map((t) => mine.filter((s) => s.from <= t && t < s.to).length);
        put(`${name}.min`, start, group, Math.min(...counts));
        put(`${name}.max`, start, group, Math.max(...counts));
        seconds_.set(state, seconds);
      }
      // 2.8: time not on a trip over time deployed; 2.10: trips started over dockless.deployed.avg (unrounded).
      const deployed = seconds_.get('deployed') ?? 0;
      put(
        'dockless.utilization.idle.percent',
        start,
        group,
        deployed ? round2((deployed - (seconds_.get('on_trip') ?? 0)) / deployed) : null,
      );
      const starts = trips.filter(
        (t) => t.start_time >= start && t.start_time < end && groupsOf(t.start_location).includes(group),
      ).length;
      put(
        'dockless.utilization.trips_per_vehicle.avg',
        start,
        group,
        deployed ? round2(starts / (deployed / (HOUR / 1000))) : null,
      );
      // 2.6, 2.7, 2.9 over the whole fleet: deployed vehicles with and without time on a trip in the interval.
      const overlapping = segments.filter((s) => s.from < end && s.to > start && DEPLOYED.has(s.state));
      const active = new Set(overlapping.filter((s) => s.state === 'on_trip').map((s) => s.device));
      const inactive = new Set(overlapping.filter((s) => !active.has(s.device)).map((s) => s.device));
      put('dockless.active.count', start, group, active.size);
      put('dockless.inactive.count', start, group, inactive.size);
      put(
        'dockless.utilization.active.percent',
        start,
        group,
        active.size + inactive.size ? round2(active.size / (active.size + inactive.size)) : null,
      );
      for (const type of eventTypes) {
        put(
          `events.${type}.count`,
          start,
          group,
          events.filter(
            (e) =>
              e.event_types.includes(type) &&
              e.timestamp >= start &&
              e.timestamp < end &&
              groupsOf(e.location).includes(group),
          ).length,
        );
      }
      for (const [end_, at, where] of [
        ['start_loc', (t: RawTrip) => t.start_time, (t: RawTrip) => t.start_location],
        ['end_loc', (t: RawTrip) => t.end_time, (t: RawTrip) => t.end_location],
      ] as const) {
        const mine = trips.filter((t) => at(t) >= start && at(t) < end && groupsOf(where(t)).includes(group));
        const r = (x: number | null) => (x === null ? null : round2(x));
        put(`trips.${end_}.count`, start, group, mine.length);
        for (const field of ['duration', 'distance'] as const) {
          const xs = mine.map((t) => t[field]);
          put(`trips.${end_}.${field}.avg`, start, group, r(xs.length ? sum(xs) / xs.length : null));
          put(`trips.${end_}.${field}.sum`, start, group, r(sum(xs)));
          put(`trips.${end_}.${field}.med`, start, group, r(median(xs)));
          put(`trips.${end_}.${field}.std`, start, group, r(sampleStd(xs)));
        }
      }
    }
  }
  return figures;
}

describe('OMF metrics against an independent computation from the raw NDJSON (sandbox, 10 Berlin districts)', function () {
  this.timeout(180_000);
  let dir: string;
  let sandbox: RunningSandbox;
  let folder: string;
  let geographiesFile: string;
  let credentialArgs: string[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omf-independent-'));
    sandbox = await startSandbox({
      fleetSize: 300,
      seed: 7,
      demoDir: path.join(dir, 'demo'),
      grpc: false,
      now: () => NOW,
      historyDays: 3,
      maxSkewSeconds: SKEW_SECONDS,
    });
    const environment = mdsEnvironment(sandbox);
    credentialArgs = [
      '--credential',
      sandbox.demo.credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ];
    folder = path.join(dir, 'harvest');
    const r = await runCliInProcess([
      'harvest',
      'trips,events',
      '--from',
      hourText(FIRST),
      '--to',
      hourText(END - HOUR),
      '--out',
      folder,
      '--snapshot',
      '--base-url',
      environment.baseUrl,
      ...credentialArgs,
    ]);
    assert.equal(r.code, 0, r.err);
    // The sandbox's own Geography API, fetched signed, saved as the file both sides read.
    const exchange = await clientOn(() => Date.now()).get(
      `${environment.baseUrl}/geographies`,
      environment,
      demoCredential(sandbox),
    );
    assert.equal(exchange.status, 200, JSON.stringify(exchange.body));
    geographiesFile = path.join(dir, 'geographies.json');
    fs.writeFileSync(geographiesFile, JSON.stringify(exchange.body));
    // The sandbox's points all lie inside one district: one more vehicle, put on a corner two districts share and
    // outside every district, checks those two choices on both sides (at 09:10, 09:40 and 09:50 UTC).
    const edge = sharedVertex((exchange.body as { geographies: RawGeography[] }).geographies);
    const provider_id = readNdjson<{ provider_id: string }>(path.join(folder, 'trips'))[0]?.provider_id;
    const device_id = 'e0000000-0000-4000-8000-0000000000d1';
    const trip_id = 'e0000000-0000-4000-8000-0000000000f1';
    const at = (minute: number) => FIRST + HOUR + minute * 60_000;
    const event = (n: number, minute: number, type: string, state: string, location: Loc) => ({
      device_id,
      provider_id,
      event_id: `e0000000-0000-4000-8000-0000000000e${n}`,
      vehicle_state: state,
      event_types: [type],
      timestamp: at(minute),
      location,
    });
    appendToHour(path.join(folder, 'events'), hourText(FIRST + HOUR), [
      event(1, 10, 'provider_drop_off', 'available', edge),
      event(2, 40, 'trip_start', 'on_trip', edge),
      event(3, 50, 'trip_end', 'available', OUTSIDE),
    ]);
    appendToHour(path.join(folder, 'trips'), hourText(FIRST + HOUR), [
      {
        provider_id,
        device_id,
        trip_id,
        trip_type: ['rider'],
        start_time: at(40),
        end_time: at(50),
        start_location: edge,
        end_location: OUTSIDE,
        duration: 600,
        distance: 1500,
      },
    ]);
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every trips, events and vehicles figure, fleet-wide and per district, per local hour, agrees exactly', async () => {
    const events = readNdjson<RawEvent>(path.join(folder, 'events'));
    const trips = readNdjson<RawTrip>(path.join(folder, 'trips')).filter(
      (t) => t.duration >= 0 && t.duration <= MAX_TRIP_SECONDS,
    );
    const document = JSON.parse(fs.readFileSync(geographiesFile, 'utf8')) as { geographies: RawGeography[] };
    const ids = document.geographies.map((g) => g.geography_id);
    assert.equal(ids.length, 10);
    // Every district is in force over the whole harvest, so effective and retire dates change nothing here.
    for (const g of document.geographies)
      assert.ok((g.effective_date ?? 0) <= FIRST && (g.retire_date ?? Infinity) >= END, g.geography_id);
    assert.ok(
      events.length > 100 && trips.length > 20,
      `a few hours of a small fleet: ${events.length} events, ${trips.length} trips`,
    );

    const eventTypes = [...new Set(events.flatMap((e) => e.event_types))].sort();
    const intervals = Array.from({ length: HOURS }, (_, h) => FIRST + h * HOUR);
    const mine = independentMetrics(
      events,
      trips,
      geographiesContaining(document.geographies),
      intervals,
      ['*', ...ids],
      eventTypes,
    );

    const tripMeasures = ['start_loc', 'end_loc'].flatMap((e) =>
      ['count', ...['duration', 'distance'].flatMap((f) => ['avg', 'sum', 'med', 'std'].map((m) => `${f}.${m}`))].map(
        (m) => `trips.${e}.${m}`,
      ),
    );
    const perDistrict = [
      ...STATES.flatMap((s) => ['avg', 'min', 'max', 'duration.sum'].map((m) => `vehicles.${s}.${m}`)),
      'dockless.deployed.avg',
      'dockless.deployed.min',
      'dockless.deployed.max',
      'dockless.utilization.idle.percent',
      'dockless.utilization.trips_per_vehicle.avg',
      ...eventTypes.map((t) => `events.${t}.count`),
      ...tripMeasures,
    ];
    const common = [
      '--interval',
      'PT1H',
      '--timezone',
      'Europe/Berlin',
      '--k',
      '0',
      '--min-trip-seconds',
      '0',
      '--max-trip-seconds',
      String(MAX_TRIP_SECONDS),
      '--json',
    ];
    let compared = 0;
    const disagreements: string[] = [];
    for (const perGeography of [false, true]) {
      // Per district, OMF's own example of 2.6, 2.7 and 2.9 fits no reading (docs/metrics.md): over the fleet only.
      const measures = perGeography
        ? perDistrict
        : [...perDistrict, 'dockless.active.count', 'dockless.inactive.count', 'dockless.utilization.active.percent'];
      const args = [
        'metrics',
        folder,
        '--measures',
        measures.join(','),
        ...common,
        ...(perGeography ? ['--dimensions', 'geography_id', '--geographies', geographiesFile] : []),
      ];
      const r = await runCliInProcess(args);
      assert.equal(r.code, 0, r.err);
      const response = JSON.parse(r.out) as MetricsQueryResponse;
      const column = (name: string) => response.columns.findIndex((c) => c.name === name);
      const seen = new Set<string>();
      for (const row of response.rows) {
        const start = Date.parse(String(row[column('interval_start')]));
        const group = perGeography ? String(row[column('geography_id')]) : '*';
        seen.add(`${start}|${group}`);
        for (const measure of measures) {
          const theirs = row[column(measure)] as number | null;
          // trips.start_loc needs the hours up to --max-trip-seconds after its interval: the last hour is missing.
          if (
            (measure.startsWith('trips.start_loc.') || measure.includes('trips_per_vehicle')) &&
            start + HOUR + MAX_TRIP_SECONDS * 1000 > END
          ) {
            assert.equal(theirs, null, `${measure} at ${hourText(start)} is missing, not a figure`);
            continue;
          }
          const expected = mine.get(`${measure}|${start}|${group}`);
          assert.notEqual(
            expected,
            undefined,
            `${measure} at ${hourText(start)} in ${group}: a row this side has no interval for`,
          );
          compared++;
          const same =
            expected === null || theirs === null ? expected === theirs : Math.abs(expected! - theirs) <= 1e-9;
          if (!same)
            disagreements.push(`${measure} ${hourText(start)} ${group}: metrics ${theirs}, independent ${expected}`);
        }
      }
      // Every local hour of the harvest, and per geography every district in every hour (a quiet one with zeros).
      const wanted = intervals.flatMap((s) => (perGeography ? ids : ['*']).map((g) => `${s}|${g}`));
      assert.deepEqual([...seen].sort(), wanted.sort());
    }
    assert.deepEqual(disagreements, []);
    assert.ok(compared > 1000, `${compared} figures compared`);
  });
});
