// The analysis view model: the data-quality report of `runChecks` (as the analysis worker sends it) for the results
// panel, with a summary line and at most ANALYSIS_FINDINGS_SHOWN findings per rule, and the hourly metrics of
// `runMetrics` (the rows of `mobility-api metrics --json`'s `hours`) for its plots. No vscode.
import * as l10n from '@vscode/l10n';
import type { CheckReport } from '../../core/analysis';
import { MODE_MACHINES, RULE_CATALOG } from '../../core/analysis';
import type { AnalysisMetricsView, AnalysisResultView } from '../../shared/analysisViews';
import { ANALYSIS_FINDINGS_SHOWN } from '../../shared/analysisViews';
import { METRICS_VIEW_INTERVALS, measureChoices } from '../metrics/metricsPanelView';

/** A report's line: how many rules ran, with errors, with warnings, and not run. */
export function analysisSummaryLine(report: Pick<CheckReport, 'rules' | 'skipped'>): string {
  const errors = report.rules.filter((r) => r.severity === 'error' && r.count > 0).length;
  const warnings = report.rules.filter((r) => r.severity === 'warning' && r.count > 0).length;
  return l10n.t(
    '{0} rules run: {1} with errors, {2} with warnings; {3} not run',
    report.rules.length,
    errors,
    warnings,
    report.skipped.length,
  );
}

/** A count of an hour, or null when the harvest lacks the hour (the metrics' SQL gives NULL, never 0, for it). */
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'bigint' ? Number(value) : null;

/**
 * The plots' numbers from the metrics' hourly rows (ungrouped: one row per hour): the PROW vehicles per state (the
 * states of the MDS PROW with a vehicle in some hour, in the spec's order) and the trips started and ended.
 */
export function analysisMetricsView(rows: readonly Record<string, unknown>[]): AnalysisMetricsView {
  const prow = MODE_MACHINES.prowStates
    .map((state) => ({ state, values: rows.map((row) => count(row[`${state}_at_hour_end`])) }))
    .filter((series) => series.values.some((v) => v !== null && v > 0));
  return {
    hours: rows.map((row) => (typeof row.hour === 'string' ? row.hour : '')),
    prow,
    prowTotal: rows.map((row) => count(row.prow_at_hour_end)),
    tripsStarted: rows.map((row) => count(row.trips_started)),
    tripsEnded: rows.map((row) => count(row.trips_ended)),
  };
}

/** The views a harvest gets from the snapshot of /vehicles and /vehicles/status. */
const SNAPSHOT_VIEWS: readonly string[] = ['vehicles', 'vehicles_status'];
/** The Fetch Hours endpoint that fills a view, as its pick names it. */
const ENDPOINT_OF_VIEW: Readonly<Record<string, string>> = {
  trips: 'Trips',
  events: 'Historical events',
  telemetry: 'Telemetry',
};

/**
 * Why a rule did not run, in VS Code's words: what to do in VS Code (Fetch Hours with its snapshot box), not the CLI's
 * flags that the report's reason names. A rule whose reason is not about missing data keeps the report's reason.
 */
export function skippedInVsCode(
  report: Pick<CheckReport, 'skipped' | 'items'>,
): { code: string; id: string; why: string }[] {
  return report.skipped.map(({ code, id, why }) => {
    const needs = RULE_CATALOG.find((r) => r.code === code)?.needs ?? [];
    const empty = (view: string) => (report.items[view] ?? 0) === 0;
    if (needs.some((v) => SNAPSHOT_VIEWS.includes(v)) && SNAPSHOT_VIEWS.every(empty)) {
      return {
        code,
        id,
        why: l10n.t(
          'no snapshot of /vehicles and /vehicles/status in this harvest: run Fetch Hours into this folder again with the box "Snapshot of /vehicles and /vehicles/status" ticked (the hours done are kept; the snapshot is taken at the end)',
        ),
      };
    }
    const missing = needs.filter((v) => !SNAPSHOT_VIEWS.includes(v) && empty(v));
    if (missing.length)
      return {
        code,
        id,
        why: l10n.t(
          'needs {0} in the harvest: run Fetch Hours on {1} into a folder beside the others',
          missing.join(', '),
          missing.map((v) => ENDPOINT_OF_VIEW[v] ?? v).join(', '),
        ),
      };
    return { code, id, why };
  });
}

export function analysisResultView(args: {
  id: string;
  report: CheckReport;
  inUse: string[];
  now: number;
  metrics?: readonly Record<string, unknown>[];
}): AnalysisResultView {
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
    rules: report.rules.map((r) => ({
      code: r.code,
      id: r.id,
      title: r.title,
      severity: r.severity,
      basis: r.basis,
      count: r.count,
      findings: r.findings.slice(0, ANALYSIS_FINDINGS_SHOWN),
    })),
    skipped: skippedInVsCode(report),
    ...(args.metrics ? { metrics: analysisMetricsView(args.metrics) } : {}),
    omfChoices: { measures: measureChoices(), intervals: METRICS_VIEW_INTERVALS },
    summary: {
      kind: 'analysis',
      title,
      line,
      createdAt: args.now,
      canRunAgain: false,
      analysis: { folder: report.folder },
    },
  };
}
