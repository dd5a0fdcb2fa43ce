// The Metrics view of the results panel (the OMF metrics of a harvest, per geography when the harvest has geographies
// loaded) and the notebook's map output: the view model the host sends, the requests the webview sends back, and the
// guards of both. Types, constants and pure guards only; imported by both bundles.
import { isRecord } from '../isRecord';

/** One geography as the map draws it: GeoJSON polygons (outer ring, then holes) of [longitude, latitude]. */
export interface GeoShapeView {
  id: string;
  /** The document's `name`: data, shown as text. */
  name: string;
  polygons: number[][][][];
}

export interface MetricsMeasureView {
  name: string;
  dataType: 'integer' | 'float';
  /** A `.count`: below k it is -1 (k-suppressed), never a real value. */
  count: boolean;
}

/** The OMF metrics of a harvest as the Metrics view shows them. */
export interface MetricsMapView {
  resultId: string;
  /** The query, as the Metrics API's `query` says it. */
  interval: string;
  timezone: string;
  k: number;
  measures: MetricsMeasureView[];
  /** `interval_start` of each interval, in order. */
  intervals: string[];
  /** The rows of the table: each geography (by `geography_id`), or one row for the whole fleet without geographies. */
  places: { id: string; name: string }[];
  /** values[(interval × places + place) × measures + measure]; null: missing (the harvest lacks the hours), never 0; -1 on a count: below k. */
  values: (number | null)[];
  /** The geographies' polygons, when the harvest has geographies loaded. */
  shapes?: GeoShapeView[];
  /** Where the geographies came from (the setting), or undefined without. */
  geographies?: string;
  /** Intervals without values for some measures, and why. */
  incomplete: { interval_start: string; measures: string[]; hours: { hour: string; why: string }[] }[];
  /** What the pickers offer. */
  choices: { measures: string[]; intervals: string[] };
}

/** The value of measure `m` of place `p` in interval `i`. */
export function metricValue(
  view: Pick<MetricsMapView, 'values' | 'places' | 'measures'>,
  i: number,
  p: number,
  m: number,
): number | null {
  return view.values[(i * view.places.length + p) * view.measures.length + m] ?? null;
}

/** What the Metrics view asks the host. */
export type MetricsViewRequest =
  /** Compute these measures at this interval (the OMF metrics, per geography when geographies are loaded). */
  | { op: 'compute'; measures: string[]; interval: string; timeZone: string }
  /** Save what is shown: the table of interval `interval` as CSV, or the geographies coloured by `measure` as GeoJSON. */
  | { op: 'export'; format: 'csv' | 'geojson'; interval: number; measure: number }
  /** Pick a Geography document (the setting mobilityApi.analysis.geographies) and compute again. */
  | { op: 'chooseGeographies' };

/** The host's answer: the view, or a line (saved, not saved, why it failed). */
export interface MetricsViewAnswer {
  resultId: string;
  view?: MetricsMapView;
  status?: string;
  error?: string;
}

const MAX_TEXT = 200;
const isName = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT && /^[A-Za-z0-9_.:/+-]+$/.test(v);
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1_000_000;

/** The request the webview sent, checked field by field, or undefined. */
export function parseMetricsViewRequest(value: unknown): MetricsViewRequest | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.op) {
    case 'compute': {
      const { measures, interval, timeZone } = value;
      if (
        !Array.isArray(measures) ||
        !measures.length ||
        measures.length > 50 ||
        !measures.every(isName) ||
        !isName(interval) ||
        !isName(timeZone)
      )
        return undefined;
      return { op: 'compute', measures, interval, timeZone };
    }
    case 'export':
      return (value.format === 'csv' || value.format === 'geojson') && isIndex(value.interval) && isIndex(value.measure)
        ? { op: 'export', format: value.format, interval: value.interval, measure: value.measure }
        : undefined;
    case 'chooseGeographies':
      return { op: 'chooseGeographies' };
    default:
      return undefined;
  }
}
