// The rules that check every trip against its own fields and against the telemetry (issue 39): trip-duration,
// trip-distance, telemetry-speed, trip-telemetry-coverage and idle-drift, run by `runChecks` over a small harvest
// written here (NDJSON items that follow the MDS 2.0.2 text), in one DuckDB session. Each rule has devices made to fire
// it and devices made not to; a trip that is right in every way fires none.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnalysisSession, readHarvestSource, runChecks } from '../../src/core/analysis';
import type { CheckReport } from '../../src/core/analysis';
import { TRIP_TELEMETRY_RULES } from '../../src/core/analysis/rules/tripTelemetryRules';
import { writeHarvestPart } from './support/harvestFixture';

const T0 = Date.UTC(2026, 10, 20, 8); // the harvest's first hour; three hours
const S = 1000;
const MIN = 60 * S;
const iso = (ms: number) => new Date(ms).toISOString();
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const dev = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`;
const tripId = (n: number) => `rrrrrrrr-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A point `metres` north of (52.5, 13.4) (a degree of latitude is 111,195 m on the mean sphere). */
const north = (metres: number) => ({ lat: 52.5 + metres / 111_195, lng: 13.4 });

type Item = Record<string, unknown>;
type Location = { lat: number; lng: number };

let serial = 0;
const trips: Item[] = [];
const events: Item[] = [];
const telemetry: Item[] = [];
const event = (device: string, timestamp: number, types: string[], state: string, location: Location, trip?: string) =>
  events.push({
    device_id: device,
    provider_id: PROVIDER,
    event_id: `eeeeeeee-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
    vehicle_state: state,
    event_types: types,
    timestamp,
    location,
    ...(trip ? { trip_ids: [trip] } : {}),
  });
const point = (device: string, timestamp: number, location: Location, trip?: string) =>
  telemetry.push({
    device_id: device,
    provider_id: PROVIDER,
    telemetry_id: `tttttttt-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
    timestamp,
    trip_ids: trip ? [trip] : null,
    journey_id: null,
    location: { ...location, horizontal_accuracy: 5 },
  });

/**
 * A trip of device `n` from `start`, `seconds` long, 2 km north, with its events and a point a minute; `change` edits
 * the trip item, `points` the point times (seconds after the start) and places (metres north).
 */
function ride(
  n: number,
  start: number,
  options: { seconds?: number; change?: Partial<Item>; points?: [number, number][]; end?: number } = {},
): void {
  const seconds = options.seconds ?? 600;
  const endMetres = options.end ?? 2000;
  const id = tripId(n);
  trips.push({
    provider_id: PROVIDER,
    device_id: dev(n),
    trip_id: id,
    trip_type: ['rider'],
    start_time: start,
    end_time: start + seconds * S,
    duration: seconds,
    distance: endMetres,
    start_location: north(0),
    end_location: north(endMetres),
    ...options.change,
  });
  event(dev(n), start, ['trip_start'], 'on_trip', north(0), id);
  event(dev(n), start + seconds * S, ['trip_end'], 'available', north(endMetres), id);
  const steps = Math.round(seconds / 60);
  const points =
    options.points ?? Array.from({ length: steps + 1 }, (_, i): [number, number] => [i * 60, (endMetres * i) / steps]);
  for (const [s, m] of points) point(dev(n), start + s * S, north(m), id);
}

const T = (minutes: number) => T0 + minutes * MIN;

// Clean in every rule: a trip of 600 s and 2,000 m, its points a minute apart, parked before and after.
event(dev(1), T(1), ['located'], 'available', north(0));
point(dev(1), T(2), north(0));
ride(1, T(5));
point(dev(1), T(30), north(2000));
point(dev(1), T(90), north(2010));

// trip-duration: a duration in milliseconds (2), an end before the start (3), a duration 300 s off (4); 2 s off is fine (5).
ride(2, T(10), { change: { duration: 600_000 } });
ride(3, T(20), { change: { end_time: T(20) - 300 * S } });
ride(4, T(30), { change: { duration: 900 } });
ride(5, T(40), { change: { duration: 602 } });

// trip-distance: a distance in kilometres (6), shorter than the straight line (7), a loop trip shorter than its path
// (8); longer than both is fine (9), and so is a trip with no telemetry whose distance is the straight line (19).
ride(6, T(10), { change: { distance: 2 } });
ride(7, T(20), { change: { distance: 1000 } });
ride(8, T(30), {
  end: 0,
  change: { distance: 1000 },
  points: [
    [0, 0],
    [120, 750],
    [300, 1500],
    [480, 750],
    [600, 0],
  ],
});
ride(9, T(40), { change: { distance: 2600 } });
trips.push({
  provider_id: PROVIDER,
  device_id: dev(19),
  trip_id: tripId(19),
  start_time: T(50),
  end_time: T(60),
  duration: 600,
  distance: 2000,
  start_location: north(0),
  end_location: north(2000),
});

// telemetry-speed: a point 30 km away, 2 s before the next one (10); two points at the same time 20 m apart (within
// their accuracy) are fine (11).
ride(10, T(10), {
  points: [
    [0, 0],
    [60, 200],
    [118, 30_000],
    [120, 400],
    [600, 2000],
  ],
});
ride(11, T(20), {
  points: [
    [0, 0],
    [300, 1000],
    [300, 1020],
    [600, 2000],
  ],
});

// trip-telemetry-coverage: a 26-minute trip whose points all lie in its first minute (12), a first point 3 minutes
// late (13); a first point 30 s late and 100 m off is fine (14).
ride(12, T(10), {
  seconds: 1560,
  points: [
    [0, 0],
    [20, 30],
    [40, 60],
    [60, 90],
  ],
});
ride(13, T(20), {
  points: [
    [180, 600],
    [300, 1000],
    [600, 2000],
  ],
});
ride(14, T(30), {
  points: [
    [30, 100],
    [300, 1000],
    [600, 2000],
  ],
});

// idle-drift: a parked vehicle whose point drifts 3 km and back (15); a vehicle carried 2 km while removed and dropped
// off 3 km away (16); one in a truck before the harvest's first drop-off (17); a point with lat and lng swapped (the
// units rule's) (18).
event(dev(15), T(70), ['located'], 'available', north(0));
point(dev(15), T(80), north(0));
point(dev(15), T(90), north(3000));
point(dev(15), T(100), north(0));
event(dev(16), T(70), ['rebalance_pick_up'], 'removed', north(0));
point(dev(16), T(80), north(2000));
event(dev(16), T(90), ['provider_drop_off'], 'available', north(3000));
point(dev(16), T(100), north(3000));
point(dev(17), T(5), north(0));
point(dev(17), T(10), north(2000));
event(dev(17), T(20), ['provider_drop_off'], 'available', north(3000));
point(dev(17), T(30), north(3000));
event(dev(18), T(70), ['located'], 'available', north(0));
point(dev(18), T(80), { lat: 13.4, lng: 52.5 });
point(dev(18), T(90), north(0));

// A trip in microseconds (20), its points too: MDS-RANGE-TIMESTAMP-UNIT's finding, not these rules' (its duration and
// distance would look 1000 times off, its points far outside it).
const US = 1000;
trips.push({
  provider_id: PROVIDER,
  device_id: dev(20),
  trip_id: tripId(20),
  start_time: T(50) * US,
  end_time: T(60) * US,
  duration: 600,
  distance: 2000,
  start_location: north(0),
  end_location: north(2000),
});
point(dev(20), T(50) * US, north(0), tripId(20));
point(dev(20), T(55) * US, north(1000), tripId(20));
point(dev(20), T(60) * US, north(2000), tripId(20));
/** The hour file of a time: a time in microseconds goes into its millisecond's hour (a provider's answer for that hour). */
const msOf = (t: unknown) => ((t as number) >= 100_000_000_000_000 ? (t as number) / US : (t as number));

describe('check: every trip against its own fields and against the telemetry', function () {
  this.timeout(60_000);
  let dir: string;
  let session: AnalysisSession;
  let report: CheckReport;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trip-telemetry-'));
    writeHarvestPart(path.join(dir, 'trips'), 'trips', trips, (i) => msOf(i.end_time), T0, 3);
    writeHarvestPart(
      path.join(dir, 'events_historical'),
      'events_historical',
      events,
      (i) => i.timestamp as number,
      T0,
      3,
    );
    writeHarvestPart(path.join(dir, 'telemetry'), 'telemetry', telemetry, (i) => msOf(i.timestamp), T0, 3);
    session = await AnalysisSession.open(await readHarvestSource(dir));
    report = await runChecks(
      session,
      TRIP_TELEMETRY_RULES.map((r) => r.id),
    );
  });
  after(() => {
    session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const findings = (rule: string) => {
    const result = report.rules.find((r) => r.id === rule);
    assert.ok(result, `${rule} ran`);
    return result.findings;
  };
  /** Device number, trip number (0: none) and time of each finding. */
  const brief = (rule: string) =>
    findings(rule)
      .map((f) => `${Number(f.device_id?.slice(-12))} ${f.trip_id ? Number(f.trip_id.slice(-12)) : '-'} ${f.time}`)
      .sort();

  it('runs every rule, none skipped, each with its code', () => {
    assert.deepEqual(report.skipped, []);
    assert.deepEqual(
      report.rules.map((r) => r.id),
      ['trip-duration', 'trip-distance', 'telemetry-speed', 'trip-telemetry-coverage', 'idle-drift'],
    );
    for (const rule of TRIP_TELEMETRY_RULES) assert.match(rule.code, /^MDS-[A-Z-]+$/, rule.id);
  });

  it('trip-duration: a duration in milliseconds, an end before the start, a duration off by 300 s; not 2 s off', () => {
    assert.deepEqual(brief('trip-duration'), [`2 2 ${iso(T(10))}`, `3 3 ${iso(T(20))}`, `4 4 ${iso(T(30))}`]);
    const detail = (n: number) => findings('trip-duration').find((f) => f.device_id === dev(n))?.detail ?? '';
    assert.match(detail(2), /^duration 600000 looks like milliseconds: end_time - start_time is 600(\.0)? s/);
    assert.match(
      detail(3),
      /^end_time \(2026-11-20 08:15:00\) is 300(\.0)? s before start_time \(2026-11-20 08:20:00\)/,
    );
    assert.match(
      detail(4),
      /^duration 900 s, but end_time - start_time is 600(\.0)? s \(300(\.0)? s apart, more than 5 s\)/,
    );
  });

  it('trip-distance: kilometres, shorter than the straight line, shorter than the telemetry path; not longer than both, nor a trip without telemetry', () => {
    assert.deepEqual(brief('trip-distance'), [`6 6 ${iso(T(10))}`, `7 7 ${iso(T(20))}`, `8 8 ${iso(T(30))}`]);
    const detail = (n: number) => findings('trip-distance').find((f) => f.device_id === dev(n))?.detail ?? '';
    assert.match(
      detail(6),
      /^distance 2 looks like kilometres: the straight line from start_location to end_location is 2000 m, the telemetry path 2000 m over 11 points/,
    );
    assert.match(
      detail(7),
      /^distance 1000 m is shorter than the straight line from start_location to end_location, 2000 m/,
    );
    assert.match(detail(8), /^distance 1000 m is shorter than its telemetry path, 3000 m over 5 points/);
  });

  it('telemetry-speed: 30 km in 2 s inside a trip, one finding per trip at its first step too fast; not two points within their accuracy', () => {
    assert.deepEqual(brief('telemetry-speed'), [`10 10 ${iso(T(10) + 118 * S)}`]);
    assert.match(
      findings('telemetry-speed')[0].detail,
      /^2 steps between consecutive telemetry points of the trip are faster than 45 m\/s beyond their horizontal accuracy \(the first ends at this time\); the fastest: 29\d{3} m in 2(\.0)? s \(from 2026-11-20 08:11:58\)/,
    );
  });

  it('trip-telemetry-coverage: a 26-minute trip whose points lie in its first minute, a first point 3 minutes late; not 30 s and 100 m off', () => {
    assert.deepEqual(brief('trip-telemetry-coverage'), [`12 12 ${iso(T(10) + 1560 * S)}`, `13 13 ${iso(T(20))}`]);
    const detail = (n: number) => findings('trip-telemetry-coverage').find((f) => f.device_id === dev(n))?.detail ?? '';
    assert.match(
      detail(12),
      /^its last telemetry point is 1500 s before end_time and 1910 m from end_location \(more than 60 s or 150 m\): its 4 points cover 4 % of the trip \(0 s to 60 s of its 1560 s\)/,
    );
    assert.match(detail(13), /^its first telemetry point is 180 s after start_time and 600 m from start_location/);
  });

  it('idle-drift: a parked vehicle that drifts 3 km; not one carried while removed, nor before its first drop-off, nor a swapped coordinate', () => {
    assert.deepEqual(brief('idle-drift'), [`15 - ${iso(T(90))}`]);
    assert.match(
      findings('idle-drift')[0].detail,
      /^3000 m from where it stood at 2026-11-20 09:10:00 \(its first position since its last event or trip\), with no trip open \(more than 500 m; 1 of its points outside trips that far\)$/,
    );
  });

  it("a trip right in every way, the parked vehicle around it, and a trip in microseconds (another rule's) fire no rule", () => {
    const named = report.rules.flatMap((r) =>
      r.findings
        .filter((f) => [1, 5, 9, 11, 14, 16, 17, 18, 19, 20].some((n) => f.device_id === dev(n)))
        .map((f) => `${r.id}: ${f.device_id} ${f.detail}`),
    );
    assert.deepEqual(named, []);
  });
});
