// The Metrics view's model: the OMF metrics of a harvest (core/metrics, the Metrics Query API's response) laid out by
// interval, place (each geography by `geography_id`, or the whole fleet) and measure, with the geographies'
// polygons for the map. No vscode.
import * as l10n from '@vscode/l10n';
import type { MdsGeography } from '../../core/geography';
import type { OmfMetricsOptions, OmfMetricsReport } from '../../core/metrics';
import {
  DEFAULT_DEPLOYED_STATES,
  checkTimeZone,
  eventTypes,
  parseIntervalDuration,
  parseMeasures,
  vehicleStates,
} from '../../core/metrics';
import type { GeoShapeView, MetricsMapView } from '../../shared/metricsMap/metricsMapViews';

/** The intervals the view's picker offers (the durations core/metrics accepts that a city asks most). */
export const METRICS_VIEW_INTERVALS = ['PT15M', 'PT30M', 'PT1H', 'PT2H', 'PT4H', 'PT6H', 'PT12H', 'P1D', 'P1W', 'P1M'];

/** What the view computes first: the vehicles in the street and the trips started, per hour. */
export const METRICS_VIEW_DEFAULT = {
  measures: ['dockless.deployed.avg', 'trips.start_loc.count'],
  interval: 'PT1H',
  timeZone: 'UTC',
};

/** Every measure the picker offers: the dockless metrics, the trips measures, then per vehicle state and event type. */
export function measureChoices(): string[] {
  const trips = [
    'count',
    'duration.avg',
    'duration.med',
    'duration.sum',
    'distance.avg',
    'distance.med',
    'distance.sum',
  ];
  return [
    'dockless.deployed.avg',
    'dockless.deployed.min',
    'dockless.deployed.max',
    'dockless.deployed.avg.min',
    'dockless.deployed.avg.max',
    'dockless.active.count',
    'dockless.inactive.count',
    'dockless.utilization.idle.percent',
    'dockless.utilization.active.percent',
    'dockless.utilization.trips_per_vehicle.avg',
    ...['start_loc', 'end_loc'].flatMap((loc) => trips.map((s) => `trips.${loc}.${s}`)),
    ...vehicleStates().flatMap((s) => ['avg', 'min', 'max', 'duration.sum'].map((stat) => `vehicles.${s}.${stat}`)),
    ...eventTypes().map((t) => `events.${t}.count`),
  ];
}

/** The polygons of the geographies, as the map draws them. */
export function shapesOf(
  geographies: readonly Pick<MdsGeography, 'geography_id' | 'name' | 'polygons'>[],
): GeoShapeView[] {
  return geographies
    .filter((g) => g.polygons.length)
    .map((g) => ({
      id: g.geography_id,
      name: g.name,
      polygons: g.polygons.map((rings) => rings.map((ring) => ring.map((p) => [p[0], p[1]]))),
    }));
}

/**
 * The view of a report: its rows (one per interval and group, `geography_id` the one dimension with geographies)
 * spread by interval × place × measure. Without geographies there is one place, the whole fleet. A place with no row
 * in an interval has the value the Metrics API gives an empty group: null (the harvest lacks the hours) when the
 * interval is incomplete for that measure, else 0 for a count below k shown as -1 by the same rule, else null.
 */
export function metricsMapView(args: {
  resultId: string;
  report: OmfMetricsReport;
  geographies?: { source: string; list: readonly Pick<MdsGeography, 'geography_id' | 'name' | 'polygons'>[] };
}): MetricsMapView {
  const { response } = args.report;
  const cols = response.columns;
  const measureCols = cols.map((c, i) => [c, i] as const).filter(([c]) => c.column_type === 'measure');
  const geoCol = cols.findIndex((c) => c.name === 'geography_id');
  const places =
    args.geographies && geoCol >= 0
      ? args.geographies.list.map((g) => ({ id: g.geography_id, name: g.name }))
      : [{ id: '', name: l10n.t('whole fleet') }];
  const placeIndex = new Map(places.map((p, i) => [p.id, i]));
  const intervals = [...new Set(response.rows.map((r) => String(r[0])))];
  const intervalIndex = new Map(intervals.map((t, i) => [t, i]));
  const measures = measureCols.map(([c]) => ({
    name: c.name,
    dataType: c.data_type === 'integer' ? ('integer' as const) : ('float' as const),
    count: c.name.endsWith('.count'),
  }));
  const values: (number | null)[] = new Array<number | null>(intervals.length * places.length * measures.length).fill(
    null,
  );
  // A group without a row: a count is 0 (below any k > 0: -1), other measures have no value.
  const incomplete = new Map(args.report.incomplete.map((g) => [g.interval_start, new Set(g.measures)]));
  intervals.forEach((t, i) =>
    places.forEach((_, p) =>
      measures.forEach((m, k) => {
        if (incomplete.get(t)?.has(m.name) || !m.count) return;
        values[(i * places.length + p) * measures.length + k] = response.query.k_value > 0 ? -1 : 0;
      }),
    ),
  );
  for (const row of response.rows) {
    const i = intervalIndex.get(String(row[0]));
    const p = geoCol >= 0 && args.geographies ? placeIndex.get(String(row[geoCol])) : 0;
    if (i === undefined || p === undefined) continue;
    measureCols.forEach(([, col], k) => {
      const v = row[col];
      values[(i * places.length + p) * measures.length + k] = typeof v === 'number' && Number.isFinite(v) ? v : null;
    });
  }
  return {
    resultId: args.resultId,
    interval: response.query.interval,
    timezone: response.query.timezone,
    k: response.query.k_value,
    measures,
    intervals,
    places,
    values,
    ...(args.geographies ? { shapes: shapesOf(args.geographies.list), geographies: args.geographies.source } : {}),
    incomplete: args.report.incomplete,
    choices: { measures: measureChoices(), intervals: METRICS_VIEW_INTERVALS },
  };
}

/**
 * The options of the view's query: OMF's defaults for every choice it leaves open (as `mobility-api metrics` without
 * its options), per geography when there are geographies. Throws a clear USAGE error for a measure, interval or zone
 * core/metrics refuses.
 */
export function metricsViewOptions(
  request: { measures: readonly string[]; interval: string; timeZone: string },
  byGeography: boolean,
): OmfMetricsOptions {
  const interval = parseIntervalDuration(request.interval);
  return {
    measures: parseMeasures(request.measures.join(',')),
    interval,
    timeZone: checkTimeZone(request.timeZone),
    dimensions: byGeography ? ['geography_id'] : [],
    k: 10,
    avgOf: parseIntervalDuration(
      interval.unit === 'minutes' || (interval.unit === 'hours' && interval.amount === 1) ? 'PT15M' : 'PT1H',
    ),
    deployedStates: [...DEFAULT_DEPLOYED_STATES],
    staleAfterMs: 48 * 3_600_000,
    tripSeconds: { min: 10, max: 5 * 3600 },
  };
}
