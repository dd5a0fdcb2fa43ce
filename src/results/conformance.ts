// The conformance of a whole result (every page) for the panel and the CLI: each page is checked
// against the official MDS 2.0 schemas, and the pages' findings are merged into one report.
import type { ApiResult } from '../core/apiClient';
import type { ConformanceReport } from '../core/conformance/validateMds';
import { guessMdsEndpoint, validateMdsResponse } from '../core/conformance/validateMds';
import type { MdsMode } from '../core/conformance/schemaCorrections';
import type { ConformanceRule } from '../core/conformance/findingSummary';
import { isMdsEndpointId } from '../core/mdsEndpoints';
import type { MdsEndpointId } from '../core/mdsEndpoints';

/** At most this many examples per rule survive the merge of the pages. */
const EXAMPLES_PER_RULE = 5;

/**
 * The MDS 2.0 conformance of every 2xx page of `result` that has a body, as one report; undefined
 * when the result is not an MDS endpoint's answer (a MaaS path, an error page, a 202 without a body).
 */
export function resultConformance(result: ApiResult, endpointId: string | undefined, mode?: MdsMode): ConformanceReport | undefined {
  const pages = result.pages.filter((p) => p.ok && p.status !== 202 && (p.bodyKind === 'json' || p.bodyKind === 'csv'));
  if (pages.length === 0) return undefined;
  const bodyOf = (i: number) => (pages[i].bodyKind === 'csv' ? (pages[i].text ?? '') : pages[i].body);
  let endpoint: MdsEndpointId | undefined = endpointId !== undefined && isMdsEndpointId(endpointId) ? endpointId : undefined;
  endpoint ??= guessMdsEndpoint(bodyOf(0));
  if (!endpoint) return undefined;
  const reports = pages.map((page, i) => validateMdsResponse(endpoint, bodyOf(i), { mode, contentType: page.contentType, maxExamplesPerRule: EXAMPLES_PER_RULE }));
  return mergeReports(reports);
}

/** One report for several pages of one endpoint: counts added up, rules merged, examples capped. */
export function mergeReports(reports: readonly ConformanceReport[]): ConformanceReport {
  const [first, ...rest] = reports;
  if (rest.length === 0) return first;
  const merged: ConformanceReport = { ...first, rules: cloneRules(first.rules), schemaBugs: cloneRules(first.schemaBugs) };
  for (const report of rest) {
    merged.conforms &&= report.conforms;
    merged.itemsChecked += report.itemsChecked;
    merged.itemsWithFindings += report.itemsWithFindings;
    merged.findingCount += report.findingCount;
    merged.omittedFindings += report.omittedFindings;
    merged.officialItemsChecked += report.officialItemsChecked;
    mergeRules(merged.rules, report.rules);
    mergeRules(merged.schemaBugs, report.schemaBugs);
  }
  merged.rules.sort((a, b) => b.count - a.count);
  return merged;
}

function cloneRules(rules: readonly ConformanceRule[]): ConformanceRule[] {
  return rules.map((r) => ({ ...r, examples: [...r.examples] }));
}

function mergeRules(into: ConformanceRule[], more: readonly ConformanceRule[]): void {
  for (const rule of more) {
    const same = into.find((r) => r.keyword === rule.keyword && r.where === rule.where && r.message === rule.message && r.schemaBug === rule.schemaBug);
    if (!same) {
      into.push({ ...rule, examples: [...rule.examples] });
      continue;
    }
    same.count += rule.count;
    for (const example of rule.examples) if (same.examples.length < EXAMPLES_PER_RULE) same.examples.push(example);
  }
}
