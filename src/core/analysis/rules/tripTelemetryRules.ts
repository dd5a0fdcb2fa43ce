/**
 * Rules that check every trip against its own fields and against the telemetry, and the telemetry outside trips
 * (issue 39): a trip's duration against its times, its distance against the straight line and the telemetry path, the
 * speed between consecutive points of a trip, how much of the trip its telemetry covers, and a parked vehicle that
 * moves. Each rule is one SQL query over the analysis views, with the columns of every rule (device_id, trip_id, time in
 * ms, detail). The list joins the catalogue (ruleCatalog.ts); this file imports nothing of checkRules.ts (no import cycle), its
 * rules have the same shape.
 */
import type { MdsBasis } from './ruleBasis';
import { inMsSql } from './timeUnits';

/** The thresholds of these rules (named, with defaults in {@link TRIP_TELEMETRY_THRESHOLDS}; part of `CheckThresholds`). */
export interface TripTelemetryThresholds {
  /** trip-duration: how far `duration` may be from end_time minus start_time, in seconds. */
  durationToleranceSeconds: number;
  /** trip-distance: how much shorter than the straight line between start and end `distance` may be, in metres (GPS error). */
  distanceSlackMeters: number;
  /** trip-distance: the share of the trip's telemetry path that `distance` must reach (the path of sampled points is a lower bound, noise aside). */
  distancePathRatio: number;
  /** telemetry-speed: how far two points may be apart beyond their horizontal accuracies without counting as movement, in metres. */
  positionJitterMeters: number;
  /** trip-telemetry-coverage: how far a trip's first and last points may be from its start and end times, in seconds. */
  tripEndpointSeconds: number;
  /** trip-telemetry-coverage: how far they may be from its start_location and end_location, in metres. */
  tripEndpointMeters: number;
  /** idle-drift: how far a vehicle may move with no trip open, from where its last event or point put it, in metres. */
  driftMeters: number;
}

export const TRIP_TELEMETRY_THRESHOLDS: TripTelemetryThresholds = {
  durationToleranceSeconds: 5,
  distanceSlackMeters: 50,
  distancePathRatio: 0.8,
  positionJitterMeters: 30,
  tripEndpointSeconds: 60,
  tripEndpointMeters: 150,
  driftMeters: 500,
};

/** The thresholds these rules read: their own and the shared highest plausible speed. */
type Thresholds = TripTelemetryThresholds & { maxSpeedMetersPerSecond: number };

/** One rule, in the shape of `CheckRule` (checkRules.ts). */
export interface TripTelemetryRule {
  /** The stable code (rules/ruleCatalog.ts). */
  code: string;
  id: string;
  title: string;
  severity: 'error' | 'warning';
  basis: string;
  /** The official MDS 2.0.2 text it rests on. */
  mds: readonly MdsBasis[];
  needs: readonly ('trips' | 'events' | 'telemetry')[];
  sql: (t: Thresholds, w: { start: number; end: number }) => string;
}

/** Metres between two (lat, lng) points on the earth, in SQL (haversine, mean radius). */
export function metresSql(lat1: string, lng1: string, lat2: string, lng2: string): string {
  return `(2 * 6371008.8 * asin(sqrt(pow(sin(radians(${lat2} - ${lat1}) / 2), 2) + cos(radians(${lat1})) * cos(radians(${lat2})) * pow(sin(radians(${lng2} - ${lng1}) / 2), 2))))`;
}

/**
 * The steps between consecutive points of a trip (the points of each trip_id, the first of a point's trip_ids, in time
 * order: one sort, measured faster than a sort of each device's points or of the points unnested per trip); `fast`: the
 * steps faster than maxSpeedMetersPerSecond beyond the points' horizontal accuracy and positionJitterMeters.
 */
const tripSegments = (t: Thresholds) => `
      p AS (SELECT device_id, trip_ids[1] AS trip_id, timestamp, location.lat AS lat, location.lng AS lng, coalesce(location.horizontal_accuracy, 0) AS acc
            FROM telemetry WHERE len(trip_ids) > 0 AND ${inMsSql('timestamp')} AND location.lat IS NOT NULL),
      s AS (SELECT *, lag(timestamp) OVER w AS prev_time, lag(lat) OVER w AS prev_lat, lag(lng) OVER w AS prev_lng, lag(acc) OVER w AS prev_acc
            FROM p WINDOW w AS (PARTITION BY trip_id, device_id ORDER BY timestamp)),
      seg AS (SELECT device_id, trip_id, timestamp, prev_time, m, (timestamp - prev_time) / 1000 AS secs, greatest(m - acc - prev_acc - ${t.positionJitterMeters}, 0) AS beyond
              FROM (SELECT *, ${metresSql('prev_lat', 'prev_lng', 'lat', 'lng')} AS m FROM s WHERE prev_time IS NOT NULL)),
      fast AS (SELECT * FROM seg WHERE beyond > 0 AND (secs = 0 OR beyond / secs > ${t.maxSpeedMetersPerSecond}))`;

export const TRIP_TELEMETRY_RULES: readonly TripTelemetryRule[] = [
  {
    code: 'MDS-TRIP-DURATION',
    id: 'trip-duration',
    title: "A trip's duration is its end_time minus its start_time, in seconds",
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Trips: start_time and end_time are timestamps (integer milliseconds, general-information.md), duration is "Time, in Seconds"; a trip ends after it starts',
    needs: ['trips'],
    mds: [
      { file: 'data-types.md', section: 'Trips' },
      { file: 'general-information.md', section: 'Timestamps' },
    ],
    sql: (t) => `
      WITH d AS (SELECT device_id, trip_id, start_time, end_time, duration, (end_time - start_time) / 1000 AS span FROM trips
                 WHERE ${inMsSql('start_time')} AND ${inMsSql('end_time')})
      SELECT device_id, trip_id, start_time AS time, CASE
        WHEN span < 0 THEN format('end_time ({}) is {} s before start_time ({})', epoch_ms(end_time)::VARCHAR, round(-span, 3), epoch_ms(start_time)::VARCHAR)
        WHEN duration IS NULL THEN format('no duration (end_time - start_time is {} s)', round(span, 3))
        WHEN abs(duration - span * 1000) <= greatest(${t.durationToleranceSeconds * 1000}, span * 10) THEN format('duration {} looks like milliseconds: end_time - start_time is {} s (MDS: duration in seconds)', duration, round(span, 3))
        WHEN span >= 120 AND abs(duration - span / 60) <= 1 THEN format('duration {} looks like minutes: end_time - start_time is {} s (MDS: duration in seconds)', duration, round(span, 3))
        ELSE format('duration {} s, but end_time - start_time is {} s ({} s apart, more than {} s)', duration, round(span, 3), round(abs(duration - span), 3), ${t.durationToleranceSeconds}) END AS detail
      FROM d WHERE span < 0 OR duration IS NULL OR abs(duration - span) > ${t.durationToleranceSeconds}`,
  },
  {
    code: 'MDS-TRIP-DISTANCE',
    id: 'trip-distance',
    title:
      "A trip's distance is at least the straight line and the telemetry path between its start and end, in metres",
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Trips: distance is "Trip Distance, in Meters" between start_location and end_location; provider/README.md, Telemetry: a trip\'s telemetry includes "every observed point in the trip", so its path is a lower bound',
    needs: ['trips'],
    mds: [
      { file: 'data-types.md', section: 'Trips' },
      { file: 'provider/README.md', section: 'Telemetry' },
    ],
    // The path leaves out segments faster than maxSpeedMetersPerSecond (telemetry-speed's findings): what is left is
    // still a lower bound of the distance ridden, each segment being at most the way between its two points.
    sql: (t) => `
      WITH ${tripSegments(t)},
      path AS (SELECT device_id, trip_id, sum(m) FILTER (WHERE beyond = 0 OR (secs > 0 AND beyond / secs <= ${t.maxSpeedMetersPerSecond})) AS path, count(*) + 1 AS points
               FROM seg GROUP BY device_id, trip_id),
      d AS (SELECT trips.device_id, trips.trip_id, start_time, distance, coalesce(path.path, 0) AS path, coalesce(path.points, 0) AS points,
              ${metresSql('start_location.lat', 'start_location.lng', 'end_location.lat', 'end_location.lng')} AS line
            FROM trips LEFT JOIN path ON path.device_id = trips.device_id AND path.trip_id = trips.trip_id
            WHERE distance >= 0 AND start_location.lat IS NOT NULL AND end_location.lat IS NOT NULL),
      b AS (SELECT *, greatest(line - ${t.distanceSlackMeters}, path * ${t.distancePathRatio} - ${t.distanceSlackMeters}) AS least FROM d)
      SELECT device_id, trip_id, start_time AS time, CASE
        WHEN distance > 0 AND distance * 1000 >= least AND distance * 1000 <= greatest(line, path) * 3 + 1000
          THEN format('distance {} looks like kilometres: the straight line from start_location to end_location is {} m, the telemetry path {} m over {} points (MDS: distance in metres)', distance, round(line)::BIGINT, round(path)::BIGINT, points)
        WHEN line - ${t.distanceSlackMeters} >= path * ${t.distancePathRatio} - ${t.distanceSlackMeters}
          THEN format('distance {} m is shorter than the straight line from start_location to end_location, {} m (more than {} m shorter)', distance, round(line)::BIGINT, ${t.distanceSlackMeters})
        ELSE format('distance {} m is shorter than its telemetry path, {} m over {} points (less than {} of it, less {} m)', distance, round(path)::BIGINT, points, ${t.distancePathRatio}, ${t.distanceSlackMeters}) END AS detail
      FROM b WHERE distance < least`,
  },
  {
    code: 'MDS-TELEMETRY-SPEED',
    id: 'telemetry-speed',
    title: 'The telemetry of a trip moves at a plausible speed between consecutive points',
    severity: 'error',
    basis:
      "MDS 2.0.2 provider/README.md, Telemetry: a trip's points are its observed GPS or GNSS positions (data-types.md, Telemetry and GPS Data: WGS 84 positions, timestamps from the GPS clock, horizontal_accuracy in metres); no vehicle covers kilometres in seconds",
    needs: ['telemetry'],
    mds: [
      { file: 'provider/README.md', section: 'Telemetry' },
      { file: 'data-types.md', section: 'GPS Data' },
    ],
    // The finding's time is the end of the trip's first step that is too fast: for one point far off, that point.
    sql: (t) => `
      WITH ${tripSegments(t)}
      SELECT device_id, trip_id, min(timestamp) AS time,
        format('{} between consecutive telemetry points of the trip {} faster than {} m/s beyond their horizontal accuracy (the first ends at this time); the fastest: {} m in {} s (from {})', CASE WHEN count(*) = 1 THEN '1 step' ELSE count(*) || ' steps' END, CASE WHEN count(*) = 1 THEN 'is' ELSE 'are' END,
          ${t.maxSpeedMetersPerSecond}, round(arg_max(m, m / greatest(secs, 0.001)))::BIGINT, arg_max(secs, m / greatest(secs, 0.001)), epoch_ms(arg_max(prev_time, m / greatest(secs, 0.001)))::VARCHAR) AS detail
      FROM fast GROUP BY device_id, trip_id`,
  },
  {
    code: 'MDS-TRIP-TELEMETRY-COVERAGE',
    id: 'trip-telemetry-coverage',
    title: 'The telemetry of a trip begins at its start and ends at its end',
    severity: 'error',
    basis:
      'MDS 2.0.2 provider/README.md, Telemetry: "Telemetry for a trip must include at least 2 points: the start point and end point" and every observed point between; data-types.md, Trips: start_time, end_time, start_location, end_location',
    needs: ['trips', 'telemetry'],
    mds: [
      { file: 'provider/README.md', section: 'Telemetry' },
      { file: 'data-types.md', section: 'Trips' },
    ],
    // Trips with fewer than 2 points are telemetry-gaps' findings; a trip that ends before it starts is trip-duration's.
    sql: (t, w) => `
      WITH tr AS (SELECT * FROM trips WHERE start_time >= ${w.start} AND end_time < ${w.end} AND end_time >= start_time),
      per AS (SELECT device_id, trip_ids, count(*) AS points, min(timestamp) AS first, max(timestamp) AS last,
                arg_min(location, timestamp) AS fl, arg_max(location, timestamp) AS ll
              FROM telemetry WHERE len(trip_ids) > 0 AND ${inMsSql('timestamp')} GROUP BY device_id, trip_ids),
      p AS (SELECT device_id, trip_id, sum(points) AS points, min(first) AS first, max(last) AS last, arg_min(fl, first) AS fl, arg_max(ll, last) AS ll
            FROM (SELECT device_id, unnest(trip_ids) AS trip_id, points, first, last, fl, ll FROM per) GROUP BY device_id, trip_id HAVING sum(points) >= 2),
      c AS (SELECT tr.device_id, tr.trip_id, tr.start_time, tr.end_time, tr.start_location AS sl, tr.end_location AS el, p.points, p.first, p.last, p.fl, p.ll
            FROM tr JOIN p ON p.trip_id = tr.trip_id AND p.device_id = tr.device_id),
      e AS (SELECT *, (first - start_time) / 1000 AS first_off, (last - end_time) / 1000 AS last_off,
              ${metresSql('fl.lat', 'fl.lng', 'sl.lat', 'sl.lng')} AS first_m, ${metresSql('ll.lat', 'll.lng', 'el.lat', 'el.lng')} AS last_m,
              format('its {} points cover {} % of the trip ({} s to {} s of its {} s)', points, round(100 * (least(last, end_time) - greatest(first, start_time)) / greatest(end_time - start_time, 1))::BIGINT,
                round((first - start_time) / 1000)::BIGINT, round((last - start_time) / 1000)::BIGINT, round((end_time - start_time) / 1000)::BIGINT) AS span
            FROM c)
      SELECT device_id, trip_id, start_time AS time,
        format('its first telemetry point is {} s {} start_time and {} m from start_location (more than {} s or {} m): {}', round(abs(first_off))::BIGINT, CASE WHEN first_off < 0 THEN 'before' ELSE 'after' END,
          round(first_m)::BIGINT, ${t.tripEndpointSeconds}, ${t.tripEndpointMeters}, span) AS detail
      FROM e WHERE abs(first_off) > ${t.tripEndpointSeconds} OR first_m > ${t.tripEndpointMeters}
      UNION ALL
      SELECT device_id, trip_id, end_time,
        format('its last telemetry point is {} s {} end_time and {} m from end_location (more than {} s or {} m): {}', round(abs(last_off))::BIGINT, CASE WHEN last_off < 0 THEN 'before' ELSE 'after' END,
          round(last_m)::BIGINT, ${t.tripEndpointSeconds}, ${t.tripEndpointMeters}, span)
      FROM e WHERE abs(last_off) > ${t.tripEndpointSeconds} OR last_m > ${t.tripEndpointMeters}`,
  },
  {
    code: 'MDS-TELEMETRY-IDLE-DRIFT',
    id: 'idle-drift',
    title: 'No vehicle moves while no trip of it is open',
    severity: 'warning',
    basis:
      'MDS 2.0.2 data-types.md, Telemetry: trip_ids is "If not in a trip, null"; modes/vehicle_states.md and micromobility.md: a vehicle moves on a trip (on_trip) or while removed, and comes back by an event (provider_drop_off, trip_end, located)',
    needs: ['telemetry', 'events'],
    mds: [
      { file: 'data-types.md', section: 'Telemetry' },
      { file: 'modes/micromobility.md', section: 'State Machine Diagram' },
    ],
    // The device's timeline: its points outside trips, its events and its trips' starts and ends. Each event and trip
    // end begins a stretch where the vehicle stands where it put it; a point of that stretch farther than driftMeters
    // from the stretch's first position is a finding (one per stretch). Left out: stretches that begin in a state in
    // which a vehicle moves (on_trip, removed, missing...) or at a trip start, the stretch before the device's first
    // event or trip when that event says the vehicle arrived (trip_end, a drop-off, located, comms_restored), and points
    // outside the area of the other points (a swapped or wrong coordinate: the units rule's).
    sql: (t) => `
      WITH idle AS (SELECT device_id, timestamp, location.lat AS lat, location.lng AS lng FROM telemetry
                    WHERE (trip_ids IS NULL OR len(trip_ids) = 0) AND ${inMsSql('timestamp')} AND location.lat IS NOT NULL),
      box AS (SELECT approx_quantile(lat, 0.05) AS lat0, approx_quantile(lat, 0.95) AS lat1, approx_quantile(lng, 0.05) AS lng0, approx_quantile(lng, 0.95) AS lng1 FROM idle),
      tl AS (SELECT device_id, timestamp, 1 AS o, lat, lng, NULL::BOOLEAN AS moving, NULL::BOOLEAN AS arrives FROM idle, box
               WHERE lat BETWEEN lat0 - 0.5 AND lat1 + 0.5 AND lng BETWEEN lng0 - 0.5 AND lng1 + 0.5
             UNION ALL
             SELECT device_id, timestamp, 0, location.lat, location.lng,
               coalesce(vehicle_state NOT IN ('available', 'non_operational', 'reserved'), true) OR list_has_any(event_types, ['trip_start', 'trip_enter_jurisdiction']),
               len(list_filter(event_types, x -> x LIKE '%drop_off' OR x IN ('trip_end', 'trip_leave_jurisdiction', 'trip_cancel', 'located', 'comms_restored', 'unspecified'))) > 0
             FROM events WHERE ${inMsSql('timestamp')}
             UNION ALL SELECT device_id, start_time, 0, start_location.lat, start_location.lng, true, false FROM trips WHERE ${inMsSql('start_time')}
             UNION ALL SELECT device_id, end_time, 0, end_location.lat, end_location.lng, false, true FROM trips WHERE ${inMsSql('end_time')}),
      runs AS (SELECT *, sum(1 - o) OVER w AS run, last_value(CASE WHEN o = 0 THEN moving END IGNORE NULLS) OVER w AS run_moving,
                 last_value(CASE WHEN o = 0 THEN lat END IGNORE NULLS) OVER w AS blat, last_value(CASE WHEN o = 0 THEN lng END IGNORE NULLS) OVER w AS blng,
                 last_value(CASE WHEN o = 0 THEN timestamp END IGNORE NULLS) OVER w AS btime,
                 first_value(lat) OVER w AS flat, first_value(lng) OVER w AS flng, first_value(timestamp) OVER w AS ftime,
                 first_value(arrives IGNORE NULLS) OVER (PARTITION BY device_id ORDER BY timestamp, o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS next_arrives
               FROM tl WINDOW w AS (PARTITION BY device_id ORDER BY timestamp, o ROWS UNBOUNDED PRECEDING)),
      r AS (SELECT device_id, timestamp, lat, lng, run, CASE WHEN run = 0 THEN flat ELSE blat END AS lat0, CASE WHEN run = 0 THEN flng ELSE blng END AS lng0,
              CASE WHEN run = 0 THEN ftime ELSE btime END AS since
            FROM runs WHERE o = 1 AND NOT coalesce(run_moving, false) AND NOT (run = 0 AND coalesce(next_arrives, false))),
      d AS (SELECT *, ${metresSql('lat0', 'lng0', 'lat', 'lng')} AS m FROM r WHERE lat0 IS NOT NULL)
      SELECT device_id, NULL AS trip_id, min(timestamp) FILTER (WHERE m > ${t.driftMeters}) AS time,
        format('{} m from where it stood at {} (its first position since its last event or trip), with no trip open (more than {} m; {} of its points outside trips that far)', round(max(m))::BIGINT, epoch_ms(any_value(since))::VARCHAR,
          ${t.driftMeters}, count(*) FILTER (WHERE m > ${t.driftMeters})) AS detail
      FROM d GROUP BY device_id, run HAVING max(m) > ${t.driftMeters}`,
  },
];
