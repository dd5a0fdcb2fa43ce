// metrics: the Open Mobility Foundation's metrics (MDS 2.0.2 core and dockless metrics) over a harvest, in the
// Metrics Query API's shape: intervals aligned in a time zone (luxon), one SQL query per family of measures over the
// analysis views. Imports `base` and `analysis`; never `vscode`.

export { checkTimeZone, intervalsOf, parseIntervalDuration, zonedLabel } from './intervals';
export type { IntervalDuration, MetricsInterval } from './intervals';
export {
  DEFAULT_DEPLOYED_STATES,
  MEASURE_PATTERNS,
  eventTypes,
  parseMeasure,
  parseMeasures,
  vehicleStates,
} from './measures';
export type { Measure } from './measures';
export { METRICS_DIMENSIONS } from './omfSql';
export type { MetricsDimension } from './omfSql';
export { runOmfMetrics } from './omfMetrics';
export type {
  IncompleteInterval,
  MetricsColumn,
  MetricsQueryResponse,
  OmfMetricsOptions,
  OmfMetricsReport,
  OutsideGeographies,
} from './omfMetrics';
