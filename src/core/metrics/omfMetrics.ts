/**
 * The OMF metrics of a harvest as the Metrics Query API answers them (MDS 2.0.2 `metrics/README.md`): one row per
 * interval and group, a column per dimension and measure; counts below k redacted as -1; an interval the harvest does
 * not cover has no value (null), listed apart with its hours and why.
 */
import { randomUUID } from 'node:crypto';
import * as l10n from '@vscode/l10n';
import type { AnalysisSession } from '../analysis';
import { MobilityError } from '../base';
import { intervalGaps } from './coverage';
import type { GapKind } from './coverage';
import { intervalsOf, isShorter, subIntervalsOf } from './intervals';
import type { IntervalDuration, MetricsInterval } from './intervals';
import { isRedactedCount } from './measures';
import type { Measure } from './measures';
import { activitySql, deployedRangeSql, dimensionColumns, eventsSql, stateSql, tripsSql } from './omfSql';
import type { MetricsDimension, OmfSqlOptions } from './omfSql';

const HOUR_MS = 3_600_000;

/** The choices OMF leaves open, and the query. */
export interface OmfMetricsOptions {
  measures: Measure[];
  interval: IntervalDuration;
  timeZone: string;
  dimensions: MetricsDimension[];
  /** k-anonymity: counts below it are -1; 0 turns it off. OMF: 10. */
  k: number;
  /** The sub-interval whose averages `dockless.deployed.avg.min`/`.avg.max` range over. */
  avgOf: IntervalDuration;
  deployedStates: string[];
  /** A state older than this without a newer event no longer counts (OMF's note: 48 hours). */
  staleAfterMs: number;
  /** Trips shorter or longer are left out (OMF's note: 10 seconds, 5 hours). */
  tripSeconds: { min: number; max: number };
}

/** A column of the Metrics Query API's response. */
export interface MetricsColumn {
  name: string;
  column_type: 'dimension' | 'measure';
  data_type: 'datetime' | 'string' | 'integer' | 'float';
}

/** The Metrics Query API's response, exactly. */
export interface MetricsQueryResponse {
  id: string;
  query: {
    measures: string[];
    interval: string;
    start_date: string;
    end_date: string;
    dimensions: string[];
    timezone: string;
    k_value: number;
    filters: { name: string; values: string[] }[];
  };
  columns: MetricsColumn[];
  rows: (string | number | null)[][];
}

/** An interval without values for some measures: the harvest lacks hours it needs. */
export interface IncompleteInterval {
  interval_start: string;
  measures: string[];
  hours: { hour: string; why: string }[];
}

/** With `geography_id`: the harvest's items in no geography live at their time, which no row counts. */
export interface OutsideGeographies {
  trips: number;
  tripStarts: number;
  tripEnds: number;
  allEvents: number;
  events: number;
}

export interface OmfMetricsReport {
  response: MetricsQueryResponse;
  incomplete: IncompleteInterval[];
  outside?: OutsideGeographies;
}

type Raw = Map<string, Record<string, unknown>>;

const round2 = (v: number) => Math.round(v * 100) / 100;
const num = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : undefined;

/** The hours and tables a measure needs. */
function kindsOf(m: Measure): GapKind[] {
  if (m.family === 'trips') return [m.key === 'start_loc' ? 'trips_start' : 'trips_end'];
  if (m.family === 'tripsPerVehicle') return ['events', 'trips_start'];
  return ['events'];
}

/** The harvest's trips (by start and end) and events that lie in no geography (see {@link OutsideGeographies}). */
async function outsideGeographies(session: AnalysisSession): Promise<OutsideGeographies> {
  const notIn = (point: string) =>
    `(SELECT count(*) FROM trips x WHERE NOT EXISTS (SELECT 1 FROM trips_geographies g WHERE g.trip_id = x.trip_id AND g.point = '${point}'))`;
  const answer =
    await session.query(`SELECT (SELECT count(*) FROM trips) AS trips, ${notIn('start')} AS starts, ${notIn('end')} AS ends, (SELECT count(*) FROM events) AS all_events,
    (SELECT count(*) FROM events x WHERE NOT EXISTS (SELECT 1 FROM events_geographies g WHERE g.event_id = x.event_id AND g.device_id = x.device_id)) AS events`);
  const row = answer.rows[0] ?? {};
  return {
    trips: num(row.trips) ?? 0,
    tripStarts: num(row.starts) ?? 0,
    tripEnds: num(row.ends) ?? 0,
    allEvents: num(row.all_events) ?? 0,
    events: num(row.events) ?? 0,
  };
}

/** Refuses a dimension the harvest cannot give: vehicle_type without the snapshot, geography_id without the assignment. */
function checkDimensions(session: AnalysisSession, dimensions: readonly MetricsDimension[]): void {
  if (dimensions.includes('vehicle_type') && !session.source.snapshot) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        '--dimensions vehicle_type needs the /vehicles snapshot (MDS 2.0 events and trips carry no vehicle_type), which this harvest does not hold: harvest with --snapshot.',
      ),
    );
  }
  if (dimensions.includes('geography_id')) {
    if (!session.geographyAssignment)
      throw new MobilityError(
        'USAGE',
        l10n.t(
          '--dimensions geography_id needs --geographies <file>: the MDS Geography document whose geographies the metrics are counted in.',
        ),
      );
  }
}

/**
 * Every geography of the document has its rows, beside each combination of the other dimensions seen: a district where
 * nothing happened counts 0 (a count, -1 below k), not a missing row.
 */
async function everyGeography(
  session: AnalysisSession,
  groups: Map<string, (string | null)[]>,
  at: number,
): Promise<void> {
  const ids = (await session.query('SELECT geography_id FROM geographies')).rows.map((r) => String(r.geography_id));
  const others = new Map<string, (string | null)[]>();
  for (const dims of groups.values()) {
    const rest = dims.filter((_, j) => j !== at);
    others.set(JSON.stringify(rest), rest);
  }
  if (!others.size) others.set('[]', []);
  for (const rest of others.values()) {
    for (const id of ids) {
      const dims = [...rest.slice(0, at), id, ...rest.slice(at)];
      groups.set(JSON.stringify(dims), dims);
    }
  }
}

/** Computes the measures over the harvest of `session`. */
export async function runOmfMetrics(session: AnalysisSession, o: OmfMetricsOptions): Promise<OmfMetricsReport> {
  if (o.measures.some((m) => m.family === 'deployedRange') && !isShorter(o.avgOf, o.interval)) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        '--avg-of {0} must be shorter than --interval {1}: dockless.deployed.avg.min and .avg.max are the least and most of the averages over the shorter intervals inside each interval.',
        o.avgOf.text,
        o.interval.text,
      ),
    );
  }
  checkDimensions(session, o.dimensions);
  const window = {
    start: Date.parse(`${session.source.window.start}:00:00Z`),
    end: Date.parse(`${session.source.window.end}:00:00Z`) + HOUR_MS,
  };
  const intervals = intervalsOf(window.start, window.end, o.interval, o.timeZone);
  const sqlOptions: OmfSqlOptions = {
    intervals,
    subIntervals: o.measures.some((m) => m.family === 'deployedRange')
      ? subIntervalsOf(intervals, o.avgOf, o.timeZone)
      : [],
    dimensions: o.dimensions,
    deployedStates: o.deployedStates,
    staleAfterMs: o.staleAfterMs,
    tripSeconds: o.tripSeconds,
    windowEnd: window.end,
  };
  const dimCols = dimensionColumns(o);
  const keyOf = (row: Record<string, unknown>) =>
    JSON.stringify([row.i, ...dimCols.slice(1).map((c) => row[c] ?? null)]);
  const groups = new Map<string, (string | null)[]>();
  const raw = new Map<string, Raw>();
  const collect = (family: string, rows: Record<string, unknown>[], sub?: (row: Record<string, unknown>) => string) => {
    const table: Raw = raw.get(family) ?? new Map<string, Record<string, unknown>>();
    raw.set(family, table);
    for (const row of rows) {
      const dims = dimCols.slice(1).map((c) => (typeof row[c] === 'string' ? row[c] : null));
      groups.set(JSON.stringify(dims), dims);
      table.set(`${keyOf(row)}${sub ? `|${sub(row)}` : ''}`, row);
    }
  };
  const families = new Set(o.measures.map((m) => m.family));
  const has = (...f: Measure['family'][]) => f.some((x) => families.has(x));
  if (has('state', 'idle', 'tripsPerVehicle')) {
    const states = [
      ...new Set(
        o.measures
          .filter((m) => m.family === 'state' && m.key !== 'deployed')
          .map((m) => m.key as string)
          .concat(has('idle') ? ['on_trip'] : []),
      ),
    ];
    collect('state', (await session.query(stateSql(sqlOptions, states))).rows, (r) => String(r.st));
  }
  if (has('deployedRange')) collect('range', (await session.query(deployedRangeSql(sqlOptions))).rows);
  if (has('activity')) collect('activity', (await session.query(activitySql(sqlOptions))).rows);
  const eventTypes = o.measures.filter((m) => m.family === 'events').map((m) => m.key as string);
  if (eventTypes.length)
    collect('events', (await session.query(eventsSql(sqlOptions, eventTypes))).rows, (r) => String(r.event_type));
  for (const loc of ['start_loc', 'end_loc'] as const) {
    if (
      o.measures.some(
        (m) => (m.family === 'trips' && m.key === loc) || (loc === 'start_loc' && m.family === 'tripsPerVehicle'),
      )
    )
      collect(loc, (await session.query(tripsSql(sqlOptions, loc))).rows);
  }
  if (o.dimensions.includes('geography_id'))
    await everyGeography(session, groups, o.dimensions.indexOf('geography_id'));
  if (!o.dimensions.length || !groups.size) groups.set('[]', []);

  const gaps = intervalGaps(
    session.source,
    intervals,
    [...new Set(o.measures.flatMap(kindsOf))],
    o.tripSeconds.max * 1000,
  );
  const gapKinds = new Map<number, Set<GapKind>>();
  for (const g of gaps) (gapKinds.get(g.interval) ?? gapKinds.set(g.interval, new Set()).get(g.interval))?.add(g.kind);

  const rows: (string | number | null)[][] = [];
  const sortedGroups = [...groups.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  intervals.forEach((iv, i) => {
    for (const dims of sortedGroups) {
      const key = JSON.stringify([i, ...dims]);
      const missing = gapKinds.get(i);
      const values = o.measures.map((m) =>
        kindsOf(m).some((k) => missing?.has(k)) ? null : valueOf(m, raw, key, iv, o),
      );
      rows.push([iv.label, ...dims, ...values]);
    }
  });
  const columns: MetricsColumn[] = [
    { name: 'interval_start', column_type: 'dimension', data_type: 'datetime' },
    ...o.dimensions.map((name): MetricsColumn => ({ name, column_type: 'dimension', data_type: 'string' })),
    ...o.measures.map((m): MetricsColumn => ({ name: m.name, column_type: 'measure', data_type: m.dataType })),
  ];
  const incomplete: IncompleteInterval[] = [];
  for (const [i, kinds] of [...gapKinds.entries()].sort((a, b) => a[0] - b[0])) {
    const hours = new Map<string, string>();
    for (const g of gaps.filter((x) => x.interval === i))
      for (const h of g.hours) hours.set(`${h.hour} ${g.kind === 'events' ? 'events' : 'trips'}`, h.why);
    incomplete.push({
      interval_start: intervals[i].label,
      measures: o.measures.filter((m) => kindsOf(m).some((k) => kinds.has(k))).map((m) => m.name),
      hours: [...hours.entries()].map(([hour, why]) => ({ hour, why })),
    });
  }
  return {
    response: {
      id: randomUUID(),
      query: {
        measures: o.measures.map((m) => m.name),
        interval: o.interval.text,
        start_date: intervals[0].label,
        end_date: intervals[intervals.length - 1].label,
        dimensions: [...o.dimensions],
        timezone: o.timeZone,
        k_value: o.k,
        filters: [],
      },
      columns,
      rows,
    },
    incomplete,
    ...(o.dimensions.includes('geography_id') ? { outside: await outsideGeographies(session) } : {}),
  };
}

/** One measure's value in one interval and group, from the families' rows; counts below k become -1, floats two decimals. */
function valueOf(
  m: Measure,
  raw: Map<string, Raw>,
  key: string,
  iv: MetricsInterval,
  o: OmfMetricsOptions,
): number | null {
  const get = (family: string, sub?: string) => raw.get(family)?.get(sub === undefined ? key : `${key}|${sub}`);
  const seconds = (iv.end - iv.start) / 1000;
  let v: number | null;
  switch (m.family) {
    case 'state': {
      const row = get('state', m.key);
      const dur = num(row?.dur) ?? 0;
      v =
        m.stat === 'avg'
          ? dur / seconds
          : m.stat === 'duration.sum'
            ? dur
            : (num(m.stat === 'min' ? row?.mn : row?.mx) ?? 0);
      break;
    }
    case 'deployedRange':
      v = num(get('range')?.[m.stat === 'avg.min' ? 'avg_min' : 'avg_max']) ?? 0;
      break;
    case 'activity': {
      const row = get('activity');
      const active = num(row?.active) ?? 0;
      const inactive = num(row?.inactive) ?? 0;
      v =
        m.stat === 'active'
          ? active
          : m.stat === 'inactive'
            ? inactive
            : active + inactive
              ? active / (active + inactive)
              : null;
      break;
    }
    case 'idle': {
      const deployed = num(get('state', 'deployed')?.dur) ?? 0;
      const trip = o.deployedStates.includes('on_trip') ? (num(get('state', 'on_trip')?.dur) ?? 0) : 0;
      v = deployed ? (deployed - trip) / deployed : null;
      break;
    }
    case 'tripsPerVehicle': {
      const avg = (num(get('state', 'deployed')?.dur) ?? 0) / seconds;
      v = avg ? (num(get('start_loc')?.n) ?? 0) / avg : null;
      break;
    }
    case 'events':
      v = num(get('events', m.key)?.n) ?? 0;
      break;
    case 'trips': {
      const row = get(m.key as string);
      if (m.stat === 'count') v = num(row?.n) ?? 0;
      else {
        const [col, stat] = m.stat.split('.');
        v = num(row?.[`${col}_${stat}`]) ?? (stat === 'sum' ? 0 : null);
      }
      break;
    }
  }
  if (v === null) return null;
  if (isRedactedCount(m) && o.k > 0 && v < o.k) return -1;
  return m.dataType === 'integer' ? v : round2(v);
}
