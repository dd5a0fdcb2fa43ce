/**
 * The SQL of the OMF metrics over the analysis views (`events`, `trips`, the snapshot's `vehicles`), one query per
 * family of measures, each answering rows of (interval index `i`, the dimensions, figures). The intervals are a
 * VALUES list written in; a dimension is a column, and `geography_id` is a join on the geography assignment's tables
 * (`events_geographies`, `trips_geographies`), so a vehicle, event or trip counts in every geography that holds it.
 *
 * Vehicle states are segments: each event's `vehicle_state` holds from its timestamp to the device's next event, for
 * at most the lookback (`staleAfterMs`: OMF's 48 hours), and never past the harvest's end. Averages weigh each
 * segment by its time inside the interval (the limit of OMF's 1-minute snapshots); the minimum and maximum are those
 * of the step function "vehicles in the state", at the interval's start and after every change inside it.
 */
import type { MetricsInterval } from './intervals';

export type MetricsDimension = 'provider_id' | 'vehicle_type' | 'geography_id';
export const METRICS_DIMENSIONS: readonly MetricsDimension[] = ['provider_id', 'vehicle_type', 'geography_id'];

/** What the queries need besides the measures. */
export interface OmfSqlOptions {
  intervals: readonly MetricsInterval[];
  /** `--avg-of` sub-intervals, with the index of their interval. */
  subIntervals: readonly { parent: number; start: number; end: number }[];
  dimensions: readonly MetricsDimension[];
  deployedStates: readonly string[];
  staleAfterMs: number;
  /** Trips outside [min, max] seconds are left out of every trips measure. */
  tripSeconds: { min: number; max: number };
  /** The harvest's end (ms): no state holds past it. */
  windowEnd: number;
}

const q = (text: string) => `'${text.replace(/'/g, "''")}'`;
const list = (values: readonly string[]) => `[${values.map(q).join(', ')}]`;

/** The dimension columns of every answer: the requested ones and `_all` (one group when none is asked). */
export const dimensionColumns = (o: Pick<OmfSqlOptions, 'dimensions'>) => ['_all', ...o.dimensions];

/** The select list and joins of the dimensions of rows `x` (device_id, provider_id), for events (by event_id) or trips (at `point`). */
function dims(o: OmfSqlOptions, on: 'events' | { trips: 'start' | 'end' }): { select: string; joins: string } {
  const select = ['1 AS _all'];
  const joins: string[] = [];
  for (const d of o.dimensions) {
    if (d === 'provider_id') select.push("coalesce(CAST(x.provider_id AS VARCHAR), 'unknown') AS provider_id");
    if (d === 'vehicle_type') {
      select.push("coalesce(dv.vehicle_type, 'unknown') AS vehicle_type");
      joins.push(
        'LEFT JOIN (SELECT device_id, any_value(vehicle_type) AS vehicle_type FROM vehicles GROUP BY device_id) dv ON dv.device_id = x.device_id',
      );
    }
    if (d === 'geography_id') {
      select.push('CAST(g.geography_id AS VARCHAR) AS geography_id');
      // An inner join: an item outside every geography is in no row (OMF counts "within a geographic area").
      joins.push(
        on === 'events'
          ? 'JOIN events_geographies g ON g.event_id = x.event_id AND g.device_id = x.device_id'
          : `JOIN trips_geographies g ON g.trip_id = x.trip_id AND g.point = ${q(on.trips)}`,
      );
    }
  }
  return { select: select.join(', '), joins: joins.join('\n') };
}

const intervalsValues = (o: OmfSqlOptions) =>
  `SELECT * FROM (VALUES ${o.intervals.map((iv, i) => `(${i}, ${iv.start}, ${iv.end})`).join(', ')}) AS t(i, s, e)`;

/**
 * The state segments `seg` (dims, device_id, st, t0, t1) of the states asked for (`states`) and of `deployed` (any of
 * the deployed states), each at the dimensions of the event that began it.
 */
function segments(o: OmfSqlOptions, states: readonly string[]): string {
  const d = dims(o, 'events');
  const cols = dimensionColumns(o).join(', ');
  return `
    seg0 AS (
      SELECT device_id, provider_id, event_id, timestamp, vehicle_state,
        least(coalesce(lead(timestamp) OVER (PARTITION BY device_id ORDER BY timestamp), ${o.windowEnd}), timestamp + ${o.staleAfterMs}, ${o.windowEnd}) AS t1
      FROM events),
    seg1 AS (SELECT ${d.select}, x.device_id, x.vehicle_state, x.timestamp AS t0, x.t1 FROM seg0 x ${d.joins} WHERE x.t1 > x.timestamp),
    seg AS (
      SELECT ${cols}, device_id, vehicle_state AS st, t0, t1 FROM seg1 WHERE list_contains(${list(states)}, vehicle_state)
      UNION ALL
      SELECT ${cols}, device_id, 'deployed' AS st, t0, t1 FROM seg1 WHERE list_contains(${list(o.deployedStates)}, vehicle_state))`;
}

/** Per interval, group and state (and `deployed`): seconds in the state (`dur`), and the least and most vehicles in it. */
export function stateSql(o: OmfSqlOptions, states: readonly string[]): string {
  const cols = dimensionColumns(o).join(', ');
  return `
    WITH iv AS (${intervalsValues(o)}), ${segments(o, states)},
    ov AS (SELECT iv.i, ${cols}, st, CAST(sum(least(t1, iv.e) - greatest(t0, iv.s)) AS DOUBLE) / 1000 AS dur FROM seg JOIN iv ON seg.t0 < iv.e AND seg.t1 > iv.s GROUP BY ALL),
    groups AS (SELECT DISTINCT ${cols}, st FROM seg),
    deltas AS (
      SELECT ${cols}, st, t0 AS t, 1 AS delta FROM seg
      UNION ALL SELECT ${cols}, st, t1 AS t, -1 AS delta FROM seg
      UNION ALL SELECT ${cols}, st, iv.s AS t, 0 AS delta FROM groups, iv),
    steps AS (SELECT ${cols}, st, t, sum(delta) AS delta FROM deltas GROUP BY ALL),
    counts AS (SELECT *, sum(delta) OVER (PARTITION BY ${cols}, st ORDER BY t ROWS UNBOUNDED PRECEDING) AS n FROM steps),
    mm AS (SELECT iv.i, ${cols}, st, CAST(min(n) AS INTEGER) AS mn, CAST(max(n) AS INTEGER) AS mx FROM counts JOIN iv ON counts.t >= iv.s AND counts.t < iv.e GROUP BY ALL)
    SELECT mm.i, ${dimensionColumns(o)
      .map((c) => `mm.${c}`)
      .join(', ')}, mm.st, coalesce(ov.dur, 0) AS dur, mm.mn, mm.mx
    FROM mm LEFT JOIN ov ON ov.i = mm.i AND ov.st = mm.st AND ${dimensionColumns(o)
      .map((c) => `ov.${c} IS NOT DISTINCT FROM mm.${c}`)
      .join(' AND ')}`;
}

/** Per interval and group: the least and most of the deployed vehicles' averages over the interval's sub-intervals. */
export function deployedRangeSql(o: OmfSqlOptions): string {
  const cols = dimensionColumns(o).join(', ');
  const sub = `SELECT * FROM (VALUES ${o.subIntervals.map((s, j) => `(${j}, ${s.parent}, ${s.start}, ${s.end})`).join(', ')}) AS t(j, p, s, e)`;
  return `
    WITH sv AS (${sub}), ${segments(o, [])},
    dep AS (SELECT * FROM seg WHERE st = 'deployed'),
    avgs AS (SELECT sv.j, ${cols}, CAST(sum(least(t1, sv.e) - greatest(t0, sv.s)) AS DOUBLE) / (sv.e - sv.s) AS a FROM dep JOIN sv ON dep.t0 < sv.e AND dep.t1 > sv.s GROUP BY sv.j, sv.s, sv.e, ${cols}),
    groups AS (SELECT DISTINCT ${cols} FROM dep),
    grid AS (SELECT sv.j, sv.p, ${dimensionColumns(o)
      .map((c) => `groups.${c}`)
      .join(', ')} FROM sv, groups)
    SELECT grid.p AS i, ${dimensionColumns(o)
      .map((c) => `grid.${c}`)
      .join(', ')}, min(coalesce(avgs.a, 0)) AS avg_min, max(coalesce(avgs.a, 0)) AS avg_max
    FROM grid LEFT JOIN avgs ON avgs.j = grid.j AND ${dimensionColumns(o)
      .map((c) => `avgs.${c} IS NOT DISTINCT FROM grid.${c}`)
      .join(' AND ')}
    GROUP BY grid.p, ${dimensionColumns(o)
      .map((c) => `grid.${c}`)
      .join(', ')}`;
}

/**
 * Per interval and group: the deployed vehicles with time in trip (`active`: at the group of the event that began the
 * trip) and those with no time in trip anywhere in the interval (`inactive`: at the group of each state they began).
 * Without geographies a device is in one group, and the two are its fleet's split; with them, a vehicle whose trip
 * started in A and ended in B is active in A and not inactive in B (OMF: "has no trip during the interval").
 */
export function activitySql(o: OmfSqlOptions): string {
  const cols = dimensionColumns(o).join(', ');
  return `
    WITH iv AS (${intervalsValues(o)}), ${segments(o, ['on_trip'])},
    per AS (SELECT iv.i, ${cols}, device_id, bool_or(st = 'on_trip') AS active FROM seg JOIN iv ON seg.t0 < iv.e AND seg.t1 > iv.s GROUP BY ALL),
    tripped AS (SELECT DISTINCT iv.i, seg0.device_id FROM seg0 JOIN iv ON seg0.timestamp < iv.e AND seg0.t1 > iv.s WHERE seg0.vehicle_state = 'on_trip' AND seg0.t1 > seg0.timestamp)
    SELECT per.i, ${dimensionColumns(o)
      .map((c) => `per.${c}`)
      .join(', ')}, CAST(count(*) FILTER (per.active) AS INTEGER) AS active,
      CAST(count(*) FILTER (NOT per.active AND t.device_id IS NULL) AS INTEGER) AS inactive
    FROM per LEFT JOIN tripped t ON t.i = per.i AND t.device_id = per.device_id GROUP BY ALL`;
}

/** Per interval, group and event type: the events received (an event of several types counts once for each). */
export function eventsSql(o: OmfSqlOptions, types: readonly string[]): string {
  const d = dims(o, 'events');
  return `
    WITH iv AS (${intervalsValues(o)}),
    ev AS (SELECT device_id, provider_id, event_id, timestamp, unnest(event_types) AS event_type FROM events)
    SELECT iv.i, ${d.select}, x.event_type, CAST(count(*) AS INTEGER) AS n
    FROM ev x ${d.joins} JOIN iv ON x.timestamp >= iv.s AND x.timestamp < iv.e
    WHERE list_contains(${list(types)}, x.event_type)
    GROUP BY ALL`;
}

/** Per interval and group: the trips that start (`start_loc`) or end (`end_loc`) in it, their count, durations and distances. */
export function tripsSql(o: OmfSqlOptions, loc: 'start_loc' | 'end_loc'): string {
  const d = dims(o, { trips: loc === 'start_loc' ? 'start' : 'end' });
  const time = loc === 'start_loc' ? 'start_time' : 'end_time';
  const stats = (col: string) =>
    `avg(x.${col}) AS ${col}_avg, median(x.${col}) AS ${col}_med, stddev_samp(x.${col}) AS ${col}_std, CAST(sum(x.${col}) AS DOUBLE) AS ${col}_sum`;
  return `
    WITH iv AS (${intervalsValues(o)})
    SELECT iv.i, ${d.select}, CAST(count(*) AS INTEGER) AS n, ${stats('duration')}, ${stats('distance')}
    FROM trips x ${d.joins} JOIN iv ON x.${time} >= iv.s AND x.${time} < iv.e
    WHERE x.duration >= ${o.tripSeconds.min} AND x.duration <= ${o.tripSeconds.max}
    GROUP BY ALL`;
}
