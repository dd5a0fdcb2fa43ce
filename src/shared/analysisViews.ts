// The analysis view of the results panel (Analyze Harvest…): the data-quality report of a harvest folder, its rules
// with severity, counts and findings, the rules that could not run and why. Types only; imported by both bundles.
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
  id: string;
  title: string;
  severity: 'error' | 'warning';
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
  skipped: { id: string; why: string }[];
  summary: ResultSummary;
}
