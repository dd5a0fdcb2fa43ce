/**
 * The fleet summary over a harvest (not the OMF metrics: those are `core/metrics`, and no column here has an OMF
 * metric's name), each one SQL query over the analysis views (no aggregation in JavaScript), so that a user can read
 * and change it; an hour a table's harvest has not done is NULL, never 0:
 * - per hour: the vehicles in the public right-of-way at the hour's end, by state, reconstructed from the events
 *   (each device's last event before the hour's end; devices without an event in the harvest are not counted);
 *   trips started and ended; the median and 90th percentile of the duration and distance of the trips ended;
 *   telemetry points;
 * - per day: trips started, the vehicles in the PROW at the end of at least one hour of the day, and trips per vehicle.
 * Optionally by vehicle_type or propulsion_type (from the /vehicles snapshot) or provider_id (from the items).
 */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { AnalysisSession, QueryAnswer } from './analysisEngine';
import { MODE_MACHINES } from './checkRules';
import type { HarvestSource } from './harvestSource';
import { dedentSql } from './ruleSql';

/** What `--by` may group by. */
export const METRICS_GROUPS = ['vehicle_type', 'propulsion_type', 'provider_id'] as const;
export type MetricsGroup = (typeof METRICS_GROUPS)[number];

const HOUR_MS = 3_600_000;
const q = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The window of the metrics: [start, end) in ms, and the hours (ms) each table has done; an hour not done is NULL, never 0. */
export interface MetricsWindow {
  start: number;
  end: number;
  done?: Record<'events' | 'trips' | 'telemetry', number[]>;
}

/** The window of the metrics, in ms: [start, end), from the harvest's first to its last hour, with each table's done hours. */
export function metricsWindow(source: HarvestSource): MetricsWindow {
  const done = (table: 'events' | 'trips' | 'telemetry') =>
    [
      ...new Set(
        source.parts
          .filter((p) => p.table === table)
          .flatMap((p) => p.hours.map((h) => Date.parse(`${h.hour}:00:00Z`))),
      ),
    ].sort((a, b) => a - b);
  return {
    start: Date.parse(`${source.window.start}:00:00Z`),
    end: Date.parse(`${source.window.end}:00:00Z`) + HOUR_MS,
    done: { events: done('events'), trips: done('trips'), telemetry: done('telemetry') },
  };
}

/** `value` where `hour` is done in `table`'s harvest, else NULL (without the done hours: `value`). */
function ifDone(window: MetricsWindow, table: 'events' | 'trips' | 'telemetry', hour: string, value: string): string {
  if (!window.done) return value;
  return `CASE WHEN list_contains([${window.done[table].join(', ')}]::BIGINT[], ${hour}) THEN ${value} END`;
}

/** `value` where every hour of the day `day` inside the window is done in `table`'s harvest, else NULL. */
function ifDayDone(window: MetricsWindow, table: 'events' | 'trips' | 'telemetry', day: string, value: string): string {
  if (!window.done) return value;
  return `CASE WHEN (SELECT bool_and(list_contains([${window.done[table].join(', ')}]::BIGINT[], h.hour)) FROM hours h WHERE h.hour // 86400000 * 86400000 = ${day}) THEN ${value} END`;
}

/**
 * The SQL of both tables, `hours` and `days`, as a user reads it: the starter notebook's metrics cells hold exactly
 * this text, and `runMetrics` runs it.
 */
export function metricsSql(window: MetricsWindow, by?: MetricsGroup): { hours: string; days: string } {
  // The group of a row of `table` (aliased x), joined to the snapshot's devices (d).
  const group =
    by === 'provider_id'
      ? "coalesce(x.provider_id, 'unknown')"
      : by === 'vehicle_type'
        ? "coalesce(d.vehicle_type, 'unknown')"
        : by === 'propulsion_type'
          ? "coalesce(d.propulsion_type, 'unknown')"
          : "'all'";
  const from = (table: string) => `${table} x LEFT JOIN dev d ON d.device_id = x.device_id`;
  const states = MODE_MACHINES.prowStates;
  const common = `
    dev AS (SELECT device_id, any_value(vehicle_type) AS vehicle_type, any_value(array_to_string(list_sort(propulsion_types), '+')) AS propulsion_type FROM vehicles GROUP BY device_id),
    hours AS (SELECT range AS hour FROM range(${window.start}, ${window.end}, ${HOUR_MS})),
    devices AS (SELECT device_id, any_value(provider_id) AS provider_id FROM events GROUP BY device_id),
    grid AS (SELECT h.hour, h.hour + ${HOUR_MS} AS hour_end, v.device_id, v.provider_id FROM hours h, devices v),
    st AS (SELECT g.hour, g.device_id, g.provider_id, e.vehicle_state FROM grid g ASOF LEFT JOIN events e ON g.device_id = e.device_id AND g.hour_end > e.timestamp),
    prow AS (SELECT x.hour, ${group} AS grp, x.device_id, x.vehicle_state FROM ${from('st')} WHERE list_contains([${states.map(q).join(', ')}], x.vehicle_state))`;
  const label = by ? `, grp AS ${by}` : '';
  const hours = `
    WITH ${common},
    p AS (SELECT hour, grp, count(*) AS prow_vehicles, ${states.map((s) => `count(*) FILTER (vehicle_state = ${q(s)}) AS ${s}`).join(', ')} FROM prow GROUP BY ALL),
    ts AS (SELECT x.start_time // ${HOUR_MS} * ${HOUR_MS} AS hour, ${group} AS grp, count(*) AS trips_started FROM ${from('trips')} GROUP BY ALL),
    te AS (SELECT x.end_time // ${HOUR_MS} * ${HOUR_MS} AS hour, ${group} AS grp, count(*) AS trips_ended,
             round(quantile_cont(x.duration, 0.5), 1) AS duration_median_s, round(quantile_cont(x.duration, 0.9), 1) AS duration_p90_s,
             round(quantile_cont(x.distance, 0.5), 1) AS distance_median_m, round(quantile_cont(x.distance, 0.9), 1) AS distance_p90_m
           FROM ${from('trips')} GROUP BY ALL),
    tp AS (SELECT x.timestamp // ${HOUR_MS} * ${HOUR_MS} AS hour, ${group} AS grp, count(*) AS telemetry_points FROM ${from('telemetry')} GROUP BY ALL),
    groups AS (SELECT grp FROM p UNION SELECT grp FROM ts UNION SELECT grp FROM te UNION SELECT grp FROM tp ${by ? '' : "UNION SELECT 'all'"}),
    k AS (SELECT h.hour, g.grp FROM hours h, groups g)
    SELECT strftime(epoch_ms(k.hour), '%Y-%m-%dT%H') AS hour${label},
      ${ifDone(window, 'events', 'k.hour', 'coalesce(p.prow_vehicles, 0)')} AS prow_at_hour_end, ${states.map((s) => `${ifDone(window, 'events', 'k.hour', `coalesce(p.${s}, 0)`)} AS ${s}_at_hour_end`).join(', ')},
      ${ifDone(window, 'trips', 'k.hour', 'coalesce(ts.trips_started, 0)')} AS trips_started, ${ifDone(window, 'trips', 'k.hour', 'coalesce(te.trips_ended, 0)')} AS trips_ended,
      te.duration_median_s, te.duration_p90_s, te.distance_median_m, te.distance_p90_m,
      ${ifDone(window, 'telemetry', 'k.hour', 'coalesce(tp.telemetry_points, 0)')} AS telemetry_points
    FROM k LEFT JOIN p USING (hour, grp) LEFT JOIN ts USING (hour, grp) LEFT JOIN te USING (hour, grp) LEFT JOIN tp USING (hour, grp)
    ORDER BY k.hour, k.grp`;
  const days = `
    WITH ${common},
    days AS (SELECT DISTINCT hour // 86400000 * 86400000 AS day FROM hours),
    v AS (SELECT hour // 86400000 * 86400000 AS day, grp, count(DISTINCT device_id) AS vehicles FROM prow GROUP BY ALL),
    t AS (SELECT x.start_time // 86400000 * 86400000 AS day, ${group} AS grp, count(*) AS trips FROM ${from('trips')} WHERE x.start_time >= ${window.start} AND x.start_time < ${window.end} GROUP BY ALL),
    groups AS (SELECT grp FROM v UNION SELECT grp FROM t ${by ? '' : "UNION SELECT 'all'"}),
    k AS (SELECT d.day, g.grp FROM days d, groups g)
    SELECT strftime(epoch_ms(k.day), '%Y-%m-%d') AS date${label}, ${ifDayDone(window, 'trips', 'k.day', 'coalesce(t.trips, 0)')} AS trips, ${ifDayDone(window, 'events', 'k.day', 'coalesce(v.vehicles, 0)')} AS vehicles_at_hour_ends,
      ${ifDayDone(window, 'trips', 'k.day', ifDayDone(window, 'events', 'k.day', 'CASE WHEN coalesce(v.vehicles, 0) > 0 THEN round(coalesce(t.trips, 0) / v.vehicles, 2) END'))} AS trips_per_vehicle_at_hour_ends
    FROM k LEFT JOIN v USING (day, grp) LEFT JOIN t USING (day, grp)
    ORDER BY k.day, k.grp`;
  return { hours: dedentSql(hours), days: dedentSql(days) };
}

/** The metrics `mobility-api metrics --json` prints. */
export interface MetricsReport {
  folder: string;
  window: { start: string; end: string };
  by?: MetricsGroup;
  hours: QueryAnswer['rows'];
  days: QueryAnswer['rows'];
}

/** Runs both metrics queries; refuses a grouping by the vehicles' type without a /vehicles snapshot. */
export async function runMetrics(
  session: AnalysisSession,
  by?: MetricsGroup,
): Promise<MetricsReport & { answers: { hours: QueryAnswer; days: QueryAnswer } }> {
  if (by !== undefined && !(METRICS_GROUPS as readonly string[]).includes(by)) {
    throw new MobilityError('USAGE', l10n.t('--by {0}: group by one of {1}.', by, METRICS_GROUPS.join(', ')));
  }
  if ((by === 'vehicle_type' || by === 'propulsion_type') && !session.source.snapshot) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        '--by {0} needs the /vehicles snapshot, which this harvest does not hold: harvest with --snapshot, or group by provider_id.',
        by,
      ),
    );
  }
  const window = metricsWindow(session.source);
  const sql = metricsSql(window, by);
  const hours = await session.query(sql.hours);
  const days = await session.query(sql.days);
  return {
    folder: session.source.folder,
    window: { start: new Date(window.start).toISOString(), end: new Date(window.end).toISOString() },
    ...(by ? { by } : {}),
    hours: hours.rows,
    days: days.rows,
    answers: { hours, days },
  };
}
