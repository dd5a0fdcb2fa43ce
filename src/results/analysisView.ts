// The analysis view model: the data-quality report of `runChecks` (as the analysis worker sends it) for the results
// panel, with a summary line and at most ANALYSIS_FINDINGS_SHOWN findings per rule, and the hourly metrics of
// `runMetrics` (the rows of `mobility-api metrics --json`'s `hours`) for its plots. No vscode.
import * as l10n from '@vscode/l10n';
import type { CheckReport } from '../core/analysis';
import { MODE_MACHINES } from '../core/analysis';
import type { AnalysisMetricsView, AnalysisResultView } from '../shared/analysisViews';
import { ANALYSIS_FINDINGS_SHOWN } from '../shared/analysisViews';

/** A report's line: how many rules ran, with errors, with warnings, and not run. */
export function analysisSummaryLine(report: Pick<CheckReport, 'rules' | 'skipped'>): string {
  const errors = report.rules.filter((r) => r.severity === 'error' && r.count > 0).length;
  const warnings = report.rules.filter((r) => r.severity === 'warning' && r.count > 0).length;
  return l10n.t('{0} rules run: {1} with errors, {2} with warnings; {3} not run', report.rules.length, errors, warnings, report.skipped.length);
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * The plots' numbers from the metrics' hourly rows (ungrouped: one row per hour): the PROW vehicles per state (the
 * states of the MDS PROW with a vehicle in some hour, in the spec's order) and the trips started and ended.
 */
export function analysisMetricsView(rows: readonly Record<string, unknown>[]): AnalysisMetricsView {
  const prow = MODE_MACHINES.prowStates
    .map((state) => ({ state, values: rows.map((row) => count(row[state])) }))
    .filter((series) => series.values.some((v) => v > 0));
  return {
    hours: rows.map((row) => (typeof row.hour === 'string' ? row.hour : '')),
    prow,
    prowTotal: rows.map((row) => count(row.prow_vehicles)),
    tripsStarted: rows.map((row) => count(row.trips_started)),
    tripsEnded: rows.map((row) => count(row.trips_ended)),
  };
}

export function analysisResultView(args: { id: string; report: CheckReport; inUse: string[]; now: number; metrics?: readonly Record<string, unknown>[] }): AnalysisResultView {
  const { report } = args;
  const title = l10n.t('Data quality: {0}', report.folder.split(/[\\/]/).filter(Boolean).pop() ?? report.folder);
  const line = analysisSummaryLine(report);
  return {
    kind: 'analysis',
    id: args.id,
    title,
    createdAt: args.now,
    folder: report.folder,
    window: report.window,
    items: Object.entries(report.items).map(([view, count]) => ({ view, count })),
    inUse: args.inUse,
    rules: report.rules.map((r) => ({ id: r.id, title: r.title, severity: r.severity, basis: r.basis, count: r.count, findings: r.findings.slice(0, ANALYSIS_FINDINGS_SHOWN) })),
    skipped: report.skipped,
    ...(args.metrics ? { metrics: analysisMetricsView(args.metrics) } : {}),
    summary: { kind: 'analysis', title, line, createdAt: args.now, canRunAgain: false, analysis: { folder: report.folder } },
  };
}
