/**
 * The rules' own SQL as a user reads it (a starter notebook): each rule's query over the views, with the thresholds,
 * the harvest's window and its context written in, exactly as `runChecks` runs it (before its ordering).
 */
import type { CheckContext, CheckThresholds, CheckWindow } from './checkRules';
import { DEFAULT_THRESHOLDS } from './checkRules';
import type { HarvestSource } from './harvestSource';
import type { RuleSeverity } from './rules/ruleBasis';
import { RULE_CATALOG } from './rules/ruleCatalog';

const HOUR_MS = 3_600_000;

/** Where every part of the harvest has data, in ms: from the latest first hour to the earliest last hour's end. */
export function checkWindowOf(source: HarvestSource): CheckWindow {
  return {
    start: Math.max(...source.parts.map((p) => Date.parse(`${p.manifest.from}:00:00Z`))),
    end: Math.min(...source.parts.map((p) => Date.parse(`${p.manifest.to}:00:00Z`) + HOUR_MS)),
  };
}

/** The mode the harvest was validated with, else micromobility: the state machine event-sequence follows by default. */
export function harvestModeOf(source: HarvestSource): string {
  return source.parts.map((p) => p.manifest.validatedMode).find((m) => m && m !== 'any') ?? 'micromobility';
}

/** What the rules know of the harvest besides its views: the mode, the events' done hours, the snapshot's last_updated. */
export function checkContextOf(source: HarvestSource, mode = harvestModeOf(source)): CheckContext {
  return {
    mode,
    eventHours: source.parts.filter((p) => p.table === 'events').flatMap((p) => p.hours.map((h) => h.hour)),
    ...(source.snapshot?.manifest.lastUpdated !== undefined
      ? { snapshotLastUpdated: source.snapshot.manifest.lastUpdated }
      : {}),
  };
}

/** One rule with its query, or `sql` undefined for a rule read from the manifests (hour coverage). */
export interface RuleQuery {
  code: string;
  id: string;
  title: string;
  severity: RuleSeverity;
  basis: string;
  sql?: string;
}

/**
 * Every rule of the check with its own SQL for `source`: the window, the mode, the events' done hours and the
 * snapshot's time written in, as `runChecks` writes them (a query without them finds something else).
 */
export function ruleQueriesOf(source: HarvestSource, thresholds: CheckThresholds = DEFAULT_THRESHOLDS): RuleQuery[] {
  const window = checkWindowOf(source);
  const context = checkContextOf(source);
  return RULE_CATALOG.map((rule) => ({
    code: rule.code,
    id: rule.id,
    title: rule.title,
    severity: rule.severity,
    basis: rule.basis,
    ...(rule.sql && rule.id !== 'hour-coverage' ? { sql: dedentSql(rule.sql(thresholds, window, context)) } : {}),
  }));
}

/** The query without the indentation it has in the source file (what a notebook cell shows). */
export function dedentSql(sql: string): string {
  const lines = sql
    .replace(/^\s*\n/, '')
    .replace(/\s+$/, '')
    .split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent).trimEnd()).join('\n');
}
