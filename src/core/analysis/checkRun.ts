/**
 * Runs the data-quality rules over an open analysis and gathers the report: every finding of every rule that ran,
 * and every rule that could not run with the reason (never a silent pass).
 */
import * as l10n from '@vscode/l10n';
import { MobilityError, junitXml } from '../base';
import type { JunitCase } from '../base';
import type { AnalysisSession } from './analysisEngine';
import type { IntakeCounts } from './integrity/intake';
import { statusNotComparable } from './integrity/statusGap';
import type { CheckContext, CheckFinding, CheckRule, CheckThresholds, CheckView, CheckWindow } from './checkRules';
import { CHECK_RULES, DEFAULT_THRESHOLDS, MODE_MACHINES, hourCoverageFindings } from './checkRules';

/** One rule's result. */
export interface CheckRuleResult {
  id: string;
  title: string;
  severity: 'error' | 'warning';
  basis: string;
  count: number;
  findings: CheckFinding[];
}

/** The report `mobility-api check --json` prints. */
export interface CheckReport {
  folder: string;
  window: { start: string; end: string };
  items: Record<string, number>;
  /** Per view: items read, kept, merged as identical copies, set aside as untyped (read = kept + merged + set aside). */
  intake?: Record<string, IntakeCounts>;
  rules: CheckRuleResult[];
  skipped: { id: string; why: string }[];
}

/** Rules the report names as not run in this version, so that their absence is never taken for a pass. */
const NOT_AVAILABLE: readonly { id: string; why: () => string }[] = [];

/** Options of {@link runChecks} beyond the rules and thresholds. */
export interface CheckOptions {
  /** The mode whose state machine event-sequence follows; default: the mode the harvest was validated with, else micromobility. */
  mode?: string;
}

const HOUR_MS = 3_600_000;

/** Every rule id the check knows, for --rule. */
export const CHECK_RULE_IDS: readonly string[] = [...CHECK_RULES.map((r) => r.id), ...NOT_AVAILABLE.map((r) => r.id)];

/** Reads `name=value` thresholds over the defaults, refusing unknown names and values that are not positive numbers. */
export function thresholdsOf(pairs: readonly string[]): CheckThresholds {
  const thresholds = { ...DEFAULT_THRESHOLDS };
  for (const pair of pairs) {
    const [name, value] = pair.split('=', 2);
    if (!Object.hasOwn(DEFAULT_THRESHOLDS, name)) {
      throw new MobilityError('USAGE', l10n.t('--threshold {0}: no such threshold. Known: {1}.', pair, Object.keys(DEFAULT_THRESHOLDS).join(', ')));
    }
    const number = Number(value);
    if (value === undefined || value.trim() === '' || !Number.isFinite(number) || number < 0) {
      throw new MobilityError('USAGE', l10n.t('--threshold {0}: give a number of 0 or more, e.g. {1}={2}.', pair, name, DEFAULT_THRESHOLDS[name as keyof CheckThresholds]));
    }
    thresholds[name as keyof CheckThresholds] = number;
  }
  return thresholds;
}

function skipReason(rule: CheckRule, present: ReadonlySet<CheckView>): string | undefined {
  const missing = rule.needs.filter((v) => !present.has(v));
  if (!missing.length) return undefined;
  if (missing.includes('vehicles') || missing.includes('vehicles_status')) {
    return l10n.t('no snapshot of /vehicles and /vehicles/status in this harvest: harvest with --snapshot (it fetches them at the end of the run, into <folder>/snapshot/)');
  }
  return l10n.t('needs {0} in the harvest; harvest {0} into a folder beside the others', missing.join(', '));
}

const iso = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : null);
const text = (value: unknown) => (typeof value === 'string' ? value : null);

/** Runs `only` (every rule when empty) with `thresholds`. */
export async function runChecks(session: AnalysisSession, only: readonly string[] = [], thresholds: CheckThresholds = DEFAULT_THRESHOLDS, options: CheckOptions = {}): Promise<CheckReport> {
  for (const id of only) {
    if (!CHECK_RULE_IDS.includes(id)) throw new MobilityError('USAGE', l10n.t('--rule {0}: no such rule. The rules: {1}.', id, CHECK_RULE_IDS.join(', ')));
  }
  const wanted = (id: string) => !only.length || only.includes(id);
  const { source } = session;
  const present = new Set<CheckView>(source.parts.map((p) => p.table));
  if (source.snapshot) {
    present.add('vehicles');
    present.add('vehicles_status');
  }
  const mode = options.mode ?? source.parts.map((p) => p.manifest.validatedMode).find((m) => m && m !== 'any') ?? 'micromobility';
  if (!Object.hasOwn(MODE_MACHINES.modes, mode)) {
    throw new MobilityError('USAGE', l10n.t('--mode {0}: no such mode. The modes: {1}.', mode, Object.keys(MODE_MACHINES.modes).join(', ')));
  }
  const context: CheckContext = { mode, ...(source.snapshot?.manifest.lastUpdated !== undefined ? { snapshotLastUpdated: source.snapshot.manifest.lastUpdated } : {}) };
  // Where every present view has data: from the latest first hour to the earliest last hour.
  const window: CheckWindow = {
    start: Math.max(...source.parts.map((p) => Date.parse(`${p.manifest.from}:00:00Z`))),
    end: Math.min(...source.parts.map((p) => Date.parse(`${p.manifest.to}:00:00Z`) + HOUR_MS)),
  };
  const report: CheckReport = {
    folder: source.folder,
    window: { start: `${source.window.start}:00:00Z`, end: new Date(Date.parse(`${source.window.end}:00:00Z`) + HOUR_MS).toISOString() },
    items: await session.counts(),
    intake: session.intake.views,
    rules: [],
    skipped: [],
  };
  for (const rule of CHECK_RULES) {
    if (!wanted(rule.id)) continue;
    const why = skipReason(rule, present) ?? (rule.id === 'status-vs-events' ? await statusNotComparable(session, window, context.snapshotLastUpdated, thresholds.snapshotGapMinutes) : undefined);
    if (why) {
      report.skipped.push({ id: rule.id, why });
      continue;
    }
    let findings: CheckFinding[];
    if (rule.id === 'hour-coverage') findings = hourCoverageFindings(source, thresholds);
    else if (rule.local) findings = rule.local(source, session.intake);
    else if (rule.sql) {
      const answer = await session.query(`SELECT * FROM (${rule.sql(thresholds, window, context)}) ORDER BY 3 NULLS FIRST, 1, 2, 4`);
      findings = answer.rows.map((row) => {
        const [device, trip, time, detail] = answer.columns.map((c) => row[c.name]);
        return { device_id: text(device), trip_id: text(trip), time: iso(time), detail: text(detail) ?? '' };
      });
    } else {
      report.skipped.push({ id: rule.id, why: l10n.t('not available in this version') });
      continue;
    }
    report.rules.push({ id: rule.id, title: rule.title, severity: rule.severity, basis: rule.basis, count: findings.length, findings });
  }
  for (const rule of NOT_AVAILABLE) if (wanted(rule.id)) report.skipped.push({ id: rule.id, why: rule.why() });
  return report;
}

/** Whether a report holds a finding of an error rule (`check` then exits 1). */
export function hasErrorFinding(report: CheckReport): boolean {
  return report.rules.some((r) => r.severity === 'error' && r.count > 0);
}

/** One finding in a line: time · device · trip: detail. */
export function findingLine(f: CheckFinding): string {
  return `${[f.time, f.device_id && `device ${f.device_id}`, f.trip_id && `trip ${f.trip_id}`].filter(Boolean).join(' · ')}: ${f.detail}`;
}

/** Findings of each rule a JUnit case lists; the --json report lists every one. */
const JUNIT_FINDINGS = 50;

/**
 * The report as JUnit XML, one test case per rule: an error rule with findings fails, a warning rule passes with
 * its findings printed, a rule that could not run is skipped with the reason.
 */
export function checkJunit(report: CheckReport, timestamp: Date): string {
  const listed = (rule: CheckRuleResult) => [
    ...rule.findings.slice(0, JUNIT_FINDINGS).map(findingLine),
    ...(rule.count > JUNIT_FINDINGS ? [`… and ${rule.count - JUNIT_FINDINGS} more (check --json lists every one)`] : []),
  ].join('\n');
  const cases: JunitCase[] = [
    ...report.rules.map((rule): JunitCase => {
      const summary = `${rule.count} finding${rule.count === 1 ? '' : 's'}: ${rule.title} (${rule.basis})`;
      const base = { name: `${rule.id}: ${rule.title}`, classname: `check.${rule.severity}`, ms: 0 };
      if (rule.count === 0) return base;
      return rule.severity === 'error' ? { ...base, failure: { type: 'DataQuality', message: summary, text: listed(rule) } } : { ...base, out: `${summary}\n${listed(rule)}` };
    }),
    ...report.skipped.map((s): JunitCase => ({ name: s.id, classname: 'check', ms: 0, skipped: s.why })),
  ];
  return junitXml('mobility-api check', [{ name: `data quality of ${report.folder}`, file: report.folder, cases }], timestamp);
}
