/**
 * Conformance findings of a harvest, kept small: per hour and per run, a count per rule and a
 * couple of examples, however many items break it.
 */
import type { ConformanceReport, MdsMode } from '../conformance';
import { validateMdsResponse } from '../conformance';
import type { MdsHourEndpointId } from '../mds';
import type { HarvestConformance, HarvestRuleSummary } from './harvestManifest';

/** Examples kept per rule in the manifest. */
export const EXAMPLES_PER_RULE = 2;
/** Distinct rules kept per hour or run; further findings are still counted in `findingCount`. */
const MAX_RULES = 50;

/** Adds up the conformance of pages (an hour) or of hours (a run). */
export class ConformanceTally {
  private readonly rules = new Map<string, HarvestRuleSummary>();
  itemsChecked = 0;
  itemsWithFindings = 0;
  findingCount = 0;

  constructor(
    private readonly endpoint: MdsHourEndpointId,
    private readonly mode: MdsMode | undefined,
  ) {}

  /** Checks one page's body against the official schemas and adds its findings. */
  addPage(body: unknown, contentType: string): void {
    this.addReport(
      validateMdsResponse(this.endpoint, body, {
        mode: this.mode,
        contentType,
        maxExamplesPerRule: EXAMPLES_PER_RULE,
        officialSampleSize: 0,
      }),
    );
  }

  private addReport(report: ConformanceReport): void {
    this.itemsChecked += report.itemsChecked;
    this.itemsWithFindings += report.itemsWithFindings;
    this.findingCount += report.findingCount;
    for (const rule of report.rules) {
      this.addRule({
        keyword: rule.keyword,
        message: rule.message,
        where: rule.where,
        count: rule.count,
        examples: rule.examples.map((e) => ({ path: e.path, value: e.value })),
      });
    }
  }

  /** Adds an hour's summary (for the run's total). */
  addSummary(summary: HarvestConformance): void {
    this.itemsChecked += summary.itemsChecked;
    this.itemsWithFindings += summary.itemsWithFindings;
    this.findingCount += summary.findingCount;
    for (const rule of summary.rules) this.addRule(rule);
  }

  private addRule(rule: HarvestRuleSummary): void {
    const key = `${rule.keyword}\u0000${rule.where}\u0000${rule.message}`;
    const same = this.rules.get(key);
    if (same) {
      same.count += rule.count;
      for (const example of rule.examples) if (same.examples.length < EXAMPLES_PER_RULE) same.examples.push(example);
      return;
    }
    if (this.rules.size >= MAX_RULES) return;
    this.rules.set(key, { ...rule, examples: rule.examples.slice(0, EXAMPLES_PER_RULE) });
  }

  /** The summary as the manifest records it: rules most frequent first. */
  summary(): HarvestConformance {
    const rules = [...this.rules.values()].sort((a, b) => b.count - a.count || a.where.localeCompare(b.where));
    return {
      conforms: this.findingCount === 0,
      itemsChecked: this.itemsChecked,
      itemsWithFindings: this.itemsWithFindings,
      findingCount: this.findingCount,
      rules,
    };
  }
}
