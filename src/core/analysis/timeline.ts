/**
 * A device's timeline around a finding of the data-quality report: its trips, events and telemetry from the harvest,
 * in time order, as one SQL query over the analysis views (a user can read it and run it with `mobility-api sql`).
 * Bounded so that a busy device stays quick to show: the rows within `spanMs` of the finding's time (a trip that
 * overlaps that span included), plus the rows of the finding's trip, and of those the `maxRows` nearest the time.
 * A row is marked when the finding names it: it happens at the finding's time (a trip starts or ends then), or it
 * belongs to the finding's trip (the trip, the events and telemetry that carry its trip_id).
 */
import { sqlString } from './columnTypes';

/** What a finding names: its device, and its trip and time where it has them (ms). */
export interface TimelineTarget {
  device_id: string;
  trip_id?: string | null;
  time?: number | null;
}

/** How much of a device's history a timeline holds. */
export interface TimelineBounds {
  /** Rows up to this far before and after the finding's time, in ms. */
  spanMs: number;
  /** At most this many rows, the nearest to the finding's time first. */
  maxRows: number;
}

export const TIMELINE_BOUNDS: TimelineBounds = { spanMs: 2 * 3_600_000, maxRows: 2000 };

/** The columns of a timeline row, in the order the query gives them. */
export const TIMELINE_COLUMNS = [
  'kind',
  'time',
  'end_time',
  'id',
  'vehicle_state',
  'event_types',
  'trip_ids',
  'lat',
  'lng',
  'battery_percent',
  'duration',
  'distance',
  'speed',
  'marked',
  'total',
] as const;

/**
 * The timeline query of `target`: one row per trip (at its start_time, with its end_time), event and telemetry
 * point of the device, `kind` 'trip', 'event' or 'telemetry', in time order (a trip before the events of the same
 * millisecond, then events, then telemetry); `marked` says the finding names the row, `total` how many rows the
 * bounds allowed before `maxRows` cut them.
 */
export function timelineSql(target: TimelineTarget, bounds: TimelineBounds = TIMELINE_BOUNDS): string {
  const device = sqlString(target.device_id);
  const trip = target.trip_id ? sqlString(target.trip_id) : 'CAST(NULL AS VARCHAR)';
  const time = typeof target.time === 'number' && Number.isFinite(target.time) ? Math.round(target.time) : undefined;
  const span = Math.max(0, Math.round(bounds.spanMs));
  const rows = Math.max(1, Math.floor(bounds.maxRows));
  const atTime = time === undefined ? 'false' : `(time = ${time} OR end_time = ${time})`;
  const near = time === undefined ? 'true' : `(time <= ${time + span} AND coalesce(end_time, time) >= ${time - span})`;
  // Nearest the finding's time first; the trip and the events the finding names are never cut for telemetry.
  const keep = time === undefined ? 'time NULLS LAST' : `abs(time - ${time}) NULLS LAST`;
  return `
WITH device_rows AS (
  SELECT 'trip' AS kind, 0 AS kind_order, start_time AS time, end_time, trip_id AS id, CAST(NULL AS VARCHAR) AS vehicle_state,
    CAST(NULL AS VARCHAR[]) AS event_types, [trip_id] AS trip_ids, start_location.lat AS lat, start_location.lng AS lng,
    CAST(NULL AS DOUBLE) AS battery_percent, CAST(duration AS DOUBLE) AS duration, CAST(distance AS DOUBLE) AS distance, CAST(NULL AS DOUBLE) AS speed
  FROM trips WHERE device_id = ${device}
  UNION ALL
  SELECT 'event', 1, timestamp, NULL, event_id, vehicle_state, event_types, trip_ids, location.lat, location.lng,
    CAST(battery_percent AS DOUBLE), NULL, NULL, NULL
  FROM events WHERE device_id = ${device}
  UNION ALL
  SELECT 'telemetry', 2, timestamp, NULL, telemetry_id, NULL, NULL, trip_ids, location.lat, location.lng,
    CAST(battery_percent AS DOUBLE), NULL, NULL, CAST(location.speed AS DOUBLE)
  FROM telemetry WHERE device_id = ${device}
),
named AS (
  SELECT *, coalesce(${atTime} OR list_contains(trip_ids, ${trip}), false) AS marked FROM device_rows
),
kept AS (
  SELECT *, count(*) OVER () AS total FROM named WHERE ${near} OR marked
  ORDER BY (marked AND kind <> 'telemetry') DESC, ${keep}, time, kind_order, id
  LIMIT ${rows}
)
SELECT kind, time, end_time, id, vehicle_state, array_to_string(event_types, ', ') AS event_types, array_to_string(trip_ids, ', ') AS trip_ids,
  lat, lng, battery_percent, duration, distance, speed, marked, total
FROM kept ORDER BY time NULLS LAST, kind_order, id`;
}
