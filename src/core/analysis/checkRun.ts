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
import type { CheckFinding, CheckRule, CheckThresholds, CheckView } from './checkRules';
import { DEFAULT_THRESHOLDS, MODE_MACHINES } from './checkRules';
import { hourCoverageFindings } from './rules/hourCoverage';
import { checkContextOf, checkWindowOf, harvestModeOf } from './ruleSql';
import { reportsVsTrips } from './reportsRule';
import type { RuleSeverity } from './rules/ruleBasis';
import { mdsBasisUrl, ruleDocOf } from './rules/ruleBasis';
import type { CatalogRule } from './rules/ruleCatalog';
import { RULE_CATALOG, ruleCodesOf } from './rules/ruleCatalog';

/**
 * The version of the report's shape (docs/check-report.schema.json): the major changes when a field changes meaning
 * or goes, the minor when one is added.
 */
export const CHECK_REPORT_VERSION = '1.1';

/** One rule's result. */
export interface CheckRuleResult {
  /** The stable code, e.g. `MDS-TRIP-EVENTS`. */
  code: string;
  /** The kebab id, an alias of the code. */
  id: string;
  title: string;
  severity: RuleSeverity;
  basis: string;
  /** The official MDS 2.0.2 text it rests on: file, section and address. */
  mds: { file: string; section: string; url: string }[];
  /** Its section of the docs, relative to the docs folder (`data-quality.md#mds-trip-events`). */
  doc: string;
  count: number;
  findings: CheckFinding[];
}

/** The report `mobility-api check --json` prints, a versioned document (`report_version`). */
export interface CheckReport {
  report_version: string;
  folder: string;
  window: { start: string; end: string };
  /** The mode whose state machine the event rules followed. */
  mode: string;
  /** The thresholds the rules ran with, by name. */
  thresholds: CheckThresholds;
  items: Record<string, number>;
  /** Per view: items read, kept, merged as identical copies, set aside as untyped (read = kept + merged + set aside). */
  intake?: Record<string, IntakeCounts>;
  rules: CheckRuleResult[];
  skipped: { code: string; id: string; why: string }[];
}

/** Rules the report names as not run in this version, so that their absence is never taken for a pass. */
const NOT_AVAILABLE: readonly { code: string; id: string; why: () => string }[] = [];

/** Options of {@link runChecks} beyond the rules and thresholds. */
export interface CheckOptions {
  /** The mode whose state machine event-sequence follows; default: the mode the harvest was validated with, else micromobility. */
  mode?: string;
  /** The agency's IANA time zone for reports-vs-trips (without it, that rule is skipped, saying so). */
  timeZone?: string;
}

const HOUR_MS = 3_600_000;

/** Every rule code the check knows, for --rule (each rule's kebab id is an alias). */
export const CHECK_RULE_IDS: readonly string[] = [
  ...RULE_CATALOG.map((r) => r.code),
  ...NOT_AVAILABLE.map((r) => r.code),
];

/** Reads `name=value` thresholds over the defaults, refusing unknown names and values that are not positive numbers. */
export function thresholdsOf(pairs: readonly string[]): CheckThresholds {
  const thresholds = { ...DEFAULT_THRESHOLDS };
  for (const pair of pairs) {
    const [name, value] = pair.split('=', 2);
    if (!Object.hasOwn(DEFAULT_THRESHOLDS, name)) {
      throw new MobilityError(
        'USAGE',
        l10n.t('--threshold {0}: no such threshold. Known: {1}.', pair, Object.keys(DEFAULT_THRESHOLDS).join(', ')),
      );
    }
    const number = Number(value);
    if (value === undefined || value.trim() === '' || !Number.isFinite(number) || number < 0) {
      throw new MobilityError(
        'USAGE',
        l10n.t(
          '--threshold {0}: give a number of 0 or more, e.g. {1}={2}.',
          pair,
          name,
          DEFAULT_THRESHOLDS[name as keyof CheckThresholds],
        ),
      );
    }
    thresholds[name as keyof CheckThresholds] = number;
  }
  return thresholds;
}

function skipReason(rule: CheckRule, present: ReadonlySet<CheckView>): string | undefined {
  const missing = rule.needs.filter((v) => !present.has(v));
  if (!missing.length) return undefined;
  if (missing.includes('vehicles') || missing.includes('vehicles_status')) {
    return l10n.t(
      'no snapshot of /vehicles and /vehicles/status in this harvest: harvest with --snapshot (it fetches them at the end of the run, into <folder>/snapshot/)',
    );
  }
  return l10n.t('needs {0} in the harvest; harvest {0} into a folder beside the others', missing.join(', '));
}

/** A time in ms as ISO 8601, or null (also for a time JavaScript's Date cannot hold, beyond ±8.64e15 ms). */
const iso = (ms: unknown) =>
  typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
const text = (value: unknown) => (typeof value === 'string' ? value : null);

/** Runs `only` (every rule when empty) with `thresholds`. */
export async function runChecks(
  session: AnalysisSession,
  only: readonly string[] = [],
  thresholds: CheckThresholds = DEFAULT_THRESHOLDS,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const codes = ruleCodesOf(only);
  const wanted = (code: string) => !codes.length || codes.includes(code);
  const { source } = session;
  const present = new Set<CheckView>(source.parts.map((p) => p.table));
  if (source.snapshot) {
    present.add('vehicles');
    present.add('vehicles_status');
  }
  const mode = options.mode ?? harvestModeOf(source);
  if (!Object.hasOwn(MODE_MACHINES.modes, mode)) {
    throw new MobilityError(
      'USAGE',
      l10n.t('--mode {0}: no such mode. The modes: {1}.', mode, Object.keys(MODE_MACHINES.modes).join(', ')),
    );
  }
  const context = checkContextOf(source, mode);
  // Where every present view has data: from the latest first hour to the earliest last hour.
  const window = checkWindowOf(source);
  const report: CheckReport = {
    report_version: CHECK_REPORT_VERSION,
    folder: source.folder,
    window: {
      start: `${source.window.start}:00:00Z`,
      end: new Date(Date.parse(`${source.window.end}:00:00Z`) + HOUR_MS).toISOString(),
    },
    mode,
    thresholds,
    items: await session.counts(),
    intake: session.intake.views,
    rules: [],
    skipped: [],
  };
  for (const rule of RULE_CATALOG) {
    if (!wanted(rule.code)) continue;
    const why =
      skipReason(rule, present) ??
      (rule.id === 'status-vs-events'
        ? await statusNotComparable(session, window, context.snapshotLastUpdated, thresholds.snapshotGapMinutes)
        : undefined);
    if (why) {
      report.skipped.push({ code: rule.code, id: rule.id, why });
      continue;
    }
    let findings: CheckFinding[];
    if (rule.id === 'hour-coverage') findings = hourCoverageFindings(source, thresholds);
    else if (rule.id === 'reports-vs-trips') {
      const result = await reportsVsTrips(session, thresholds, options.timeZone);
      if ('skip' in result) {
        report.skipped.push({ code: rule.code, id: rule.id, why: result.skip });
        continue;
      }
      findings = result.findings;
      for (const { month, why } of result.notCompared)
        report.skipped.push({ code: rule.code, id: rule.id, why: `${month}: ${why}` });
    } else if (rule.manifest) findings = rule.manifest(source, thresholds);
    else if (rule.local) findings = rule.local(source, session.intake);
    else if (rule.sql) {
      const answer = await session.query(
        `SELECT * FROM (${rule.sql(thresholds, window, context)}) ORDER BY 3 NULLS FIRST, 1, 2, 4`,
      );
      findings = answer.rows.map((row) => {
        const [device, trip, time, detail] = answer.columns.map((c) => row[c.name]);
        return { device_id: text(device), trip_id: text(trip), time: iso(time), detail: text(detail) ?? '' };
      });
    } else {
      report.skipped.push({ code: rule.code, id: rule.id, why: l10n.t('not available in this version') });
      continue;
    }
    report.rules.push(ruleResult(rule, findings));
  }
  for (const rule of NOT_AVAILABLE)
    if (wanted(rule.code)) report.skipped.push({ code: rule.code, id: rule.id, why: rule.why() });
  return report;
}

function ruleResult(rule: CatalogRule, findings: CheckFinding[]): CheckRuleResult {
  const mds = rule.mds.map((b) => ({ file: b.file, section: b.section, url: mdsBasisUrl(b) }));
  return {
    code: rule.code,
    id: rule.id,
    title: rule.title,
    severity: rule.severity,
    basis: rule.basis,
    mds,
    doc: ruleDocOf(rule.code),
    count: findings.length,
    findings,
  };
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
  const listed = (rule: CheckRuleResult) =>
    [
      ...rule.findings.slice(0, JUNIT_FINDINGS).map(findingLine),
      ...(rule.count > JUNIT_FINDINGS
        ? [`… and ${rule.count - JUNIT_FINDINGS} more (check --json lists every one)`]
        : []),
    ].join('\n');
  const cases: JunitCase[] = [
    ...report.rules.map((rule): JunitCase => {
      const summary = `${rule.count} finding${rule.count === 1 ? '' : 's'}: ${rule.title} (${rule.basis})`;
      const base = { name: `${rule.code}: ${rule.title}`, classname: `check.${rule.severity}`, ms: 0 };
      if (rule.count === 0) return base;
      return rule.severity === 'error'
        ? { ...base, failure: { type: 'DataQuality', message: summary, text: listed(rule) } }
        : { ...base, out: `${summary}\n${listed(rule)}` };
    }),
    ...report.skipped.map((s): JunitCase => ({ name: s.code, classname: 'check', ms: 0, skipped: s.why })),
  ];
  return junitXml(
    'mobility-api check',
    [{ name: `data quality of ${report.folder}`, file: report.folder, cases }],
    timestamp,
  );
}
