// The view models of a harvest (Fetch Hours…): its coverage heatmap of UTC hours and the items of one hour.
import type { DataTableView } from './dataTable';
import type { EnvironmentView, ResultSummary } from './resultSummary';

/**
 * How one hour of a harvest stands, as the heatmap colours it: the manifest's statuses, then
 * `not_fetched` (in the range, not tried yet), `fetching` (the hour in flight) and `outside` (a cell
 * of the first or last day that is not in the range).
 */
export type HeatmapCellState =
  'items' | 'empty' | 'not_found' | 'pending' | 'failed' | 'not_fetched' | 'fetching' | 'outside';

/** One hour of the heatmap. */
export interface HeatmapCellView {
  /** `YYYY-MM-DDTHH`. */
  hour: string;
  state: HeatmapCellState;
  /** What the cell shows: the item count, `0`, `404`, `202`, `500`… */
  text: string;
  /** The hour and its outcome in one sentence: the accessible name. */
  label: string;
  /** The hour's detail (status, items, bytes, attempts, time), one fact a line: the hover. */
  detail: string;
  /** Items or empty: clicking shows the hour's items. */
  canShow: boolean;
}

/** One day (a row of 24 UTC hours). */
export interface HeatmapDayView {
  /** `YYYY-MM-DD`. */
  day: string;
  cells: HeatmapCellView[];
}

/** The coverage of a harvest: days × 24 UTC hours, the legend with counts, and one summary line. */
export interface HarvestHeatmapView {
  days: HeatmapDayView[];
  legend: { state: Exclude<HeatmapCellState, 'outside'>; label: string; count: number }[];
  /** Items in the done hours of the range. */
  items: number;
  /** "38 hours: 30 with items (1,234 trips), 3 empty, 2 not found (404)…". */
  line: string;
}

/** The items of one harvested hour, as the harvest view shows them under the heatmap. */
export interface HarvestHourView {
  hour: string;
  /** "2025-11-04T13: 53 trips (48.2 KB)" or why there are none. */
  line: string;
  /** The hour's items in the resource's table (absent when the hour has none to show). */
  table?: DataTableView;
}

/** A harvest (Fetch Hours…) of an hour endpoint into a folder: its coverage, live while it runs. */
export interface HarvestResultView {
  kind: 'harvest';
  id: string;
  title: string;
  createdAt: number;
  environment: EnvironmentView;
  /** `trips`, `telemetry` or `events_historical`. */
  endpoint: string;
  outDir: string;
  /** The folder Analyze Harvest opens: the whole harvest's (every endpoint and the snapshot), `outDir` or the folder it is a subfolder of. */
  analysisFolder: string;
  from: string;
  to: string;
  running: boolean;
  /** While it runs, what it does after the hours (taking the snapshot): the status shown instead of "Fetching…". */
  step?: string;
  /** Why the harvest ended early (Cancel, a refusal, the disk), once it has. */
  stopped?: string;
  heatmap: HarvestHeatmapView;
  /** The hour whose items are shown, when one was chosen. */
  hour?: HarvestHourView;
  summary: ResultSummary;
}
