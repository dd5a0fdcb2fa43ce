/**
 * Every data-quality rule `check` runs, in order, each with its code, severity, title and MDS basis: the rules of
 * checkRules.ts (their codes from LEGACY_RULE_CODES) and the rules of this folder. A new rule is one more entry of
 * one of the lists below; its code needs a section in docs/data-quality.md (test/unit/dataQualityDoc.test.ts).
 */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../../base';
import type { CheckRule } from '../checkRules';
import { CHECK_RULES } from '../checkRules';
import type { MdsBasis } from './ruleBasis';
import { LEGACY_RULE_CODES } from './ruleBasis';
import { CONSISTENCY_RULES } from './consistencyRules';
import { RANGE_RULES } from './rangeRules';
import { REGISTRY_RULES } from './registryRules';
import { TIME_RULES } from './timeRules';
import { TRIP_TELEMETRY_RULES } from './tripTelemetryRules';
import { VEHICLE_RULES } from './vehicleRules';

/** A rule of the catalogue: its code and MDS basis always known. */
export interface CatalogRule extends CheckRule {
  code: string;
  mds: readonly MdsBasis[];
}

function withCode(rule: CheckRule): CatalogRule {
  const legacy = Object.hasOwn(LEGACY_RULE_CODES, rule.id) ? LEGACY_RULE_CODES[rule.id] : undefined;
  const code = rule.code ?? legacy?.code;
  const mds = rule.mds ?? legacy?.mds;
  if (!code || !mds)
    throw new Error(`The data-quality rule ${rule.id} has no code or MDS basis: give it one (rules/ruleBasis.ts)`);
  return { ...rule, code, mds };
}

/** Every rule, in the order `check` runs and reports them. */
export const RULE_CATALOG: readonly CatalogRule[] = [
  ...CHECK_RULES,
  ...TRIP_TELEMETRY_RULES,
  ...RANGE_RULES,
  ...REGISTRY_RULES,
  ...TIME_RULES,
  ...VEHICLE_RULES,
  ...CONSISTENCY_RULES,
].map(withCode);

/** The rule that `name` names: its code (any case) or its kebab id. */
export function ruleNamed(name: string): CatalogRule | undefined {
  const upper = name.trim().toUpperCase();
  return RULE_CATALOG.find((r) => r.code === upper || r.id === name.trim());
}

/** The codes of the rules `names` name (`--rule`), refusing a name no rule has. */
export function ruleCodesOf(names: readonly string[]): string[] {
  return names.map((name) => {
    const rule = ruleNamed(name);
    if (!rule)
      throw new MobilityError(
        'USAGE',
        l10n.t('--rule {0}: no such rule. The rules: {1}.', name, RULE_CATALOG.map((r) => r.code).join(', ')),
      );
    return rule.code;
  });
}
