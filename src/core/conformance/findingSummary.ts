/**
 * Findings grouped by rule with bounded memory: a page of 100,000 items that all break the same rule is one rule with
 * a count and a few examples, not 100,000 findings.
 */
import type { ConformanceFinding } from './explainErrors';
import type { SchemaCorrectionId } from './schemaCorrections';

/** Every finding of one rule: the same keyword and message at the same place of every item. */
export interface ConformanceRule {
  /** The ajv keyword broken. */
  keyword: string;
  /** What the rule expects (shared by every finding of the rule). */
  message: string;
  /** The JSON Pointer of the place with every array index written `*`: `/vehicles_status/*\/last_event`. */
  where: string;
  /** Set when a known bug of the official schema causes these findings. */
  schemaBug?: SchemaCorrectionId;
  /** How many findings the rule has. */
  count: number;
  /** The first findings, at most `maxExamplesPerRule`. */
  examples: ConformanceFinding[];
}

/** Distinct rules kept; more are only counted (a response can invent any number of unexpected property names). */
export const MAX_RULES = 200;

/** Collects findings into rules. */
export class FindingSummary {
  private readonly rules = new Map<string, ConformanceRule>();
  /** Findings of rules beyond MAX_RULES. */
  overflowFindings = 0;

  constructor(private readonly maxExamplesPerRule: number) {}

  add(finding: ConformanceFinding): void {
    const where = finding.path.replace(/\/\d+(?=\/|$)/g, '/*');
    const key = `${finding.schemaBug ?? ''}\u0000${finding.keyword}\u0000${where}\u0000${finding.message}`;
    let rule = this.rules.get(key);
    if (!rule) {
      if (this.rules.size >= MAX_RULES) {
        this.overflowFindings++;
        return;
      }
      rule = { keyword: finding.keyword, message: finding.message, where, count: 0, examples: [] };
      if (finding.schemaBug) rule.schemaBug = finding.schemaBug;
      this.rules.set(key, rule);
    }
    rule.count++;
    if (rule.examples.length < this.maxExamplesPerRule) rule.examples.push(finding);
  }

  /** The rules, most frequent first. */
  list(): ConformanceRule[] {
    return [...this.rules.values()].sort((a, b) => b.count - a.count || a.where.localeCompare(b.where));
  }
}
