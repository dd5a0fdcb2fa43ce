// The analysis view of the results panel (Analyze Harvest…): the data-quality report of a harvest folder, its rules
// with severity, counts and findings, the rules that could not run and why; the fleet metrics per hour for its plots;
// and a finding's device timeline. Types only; imported by both bundles.
import type { DataTableView } from './dataTable';
import type { ResultSummary } from './resultSummary';

/** One finding as the panel shows it (text only). */
export interface AnalysisFindingView {
  device_id: string | null;
  trip_id: string | null;
  /** ISO time, or null. */
  time: string | null;
  detail: string;
}

/** One rule that ran. */
export interface AnalysisRuleView {
  /** The stable code (`MDS-TRIP-EVENTS`), as `check --json` and JUnit name it. */
  code: string;
  id: string;
  title: string;
  severity: 'error' | 'warning' | 'info';
  basis: string;
  count: number;
  /** The first findings (the panel shows at most `ANALYSIS_FINDINGS_SHOWN`); `count` says how many there are. */
  findings: AnalysisFindingView[];
}

/** Findings of one rule the panel carries; `mobility-api check --json` lists every one. */
export const ANALYSIS_FINDINGS_SHOWN = 200;

export interface AnalysisResultView {
  kind: 'analysis';
  id: string;
  title: string;
  createdAt: number;
  folder: string;
  window: { start: string; end: string };
  /** Items per view, in the report's order. */
  items: { view: string; count: number }[];
  /** Folders a running harvest is still writing: the report covers the hours it had finished. */
  inUse: string[];
  rules: AnalysisRuleView[];
  skipped: { code: string; id: string; why: string }[];
  /** The hourly metrics (`mobility-api metrics`' SQL) for the plots; absent when they were not computed. */
  metrics?: AnalysisMetricsView;
  /** What the Metrics view's pickers offer (the OMF measures and intervals); absent: no Metrics view. */
  omfChoices?: { measures: string[]; intervals: string[] };
  summary: ResultSummary;
}

/** The hourly fleet metrics the view plots: vehicles in the PROW at each hour's end by state, and trips per hour. */
export interface AnalysisMetricsView {
  /** The UTC hours, `YYYY-MM-DDTHH`, in order. */
  hours: string[];
  /** Vehicles in the PROW per state (the states with a vehicle in some hour), one value per hour; null: the harvest lacks the hour (no data, never 0). */
  prow: { state: string; values: (number | null)[] }[];
  /** Vehicles in the PROW per hour, every state (null: no data). */
  prowTotal: (number | null)[];
  tripsStarted: (number | null)[];
  tripsEnded: (number | null)[];
}

/** What the panel asks to see: the finding `index` (into the rule's findings carried) of the rule `rule`. */
export interface AnalysisFindingRef {
  rule: string;
  index: number;
}

/** A device's timeline around a finding: its trips, events and telemetry in time order, the rows the finding names marked. */
export interface AnalysisTimelineView extends AnalysisFindingRef {
  resultId: string;
  finding: AnalysisFindingView;
  /** What the timeline holds, in words: counts, the span, the marked rows, and where the bounds cut it. */
  line: string;
  /** The rows (resource `timeline`): time, finding (the rows it names), kind, vehicle state, event types, until (a trip's end), trip, position, battery, detail, id. */
  table?: DataTableView;
  /** Per row of `table`: 1 when the finding names it. */
  marked?: Uint8Array;
  /** Per row of `table`: 0 a trip, 1 an event, 2 a telemetry point (the plot's lanes). */
  kinds?: Uint8Array;
  /** Why there is no timeline (the engine failed, the folder moved), when there is none. */
  error?: string;
}
