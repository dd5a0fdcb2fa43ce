// The conformance of a whole result (every page) for the panel and the CLI: each page is checked
// against the official MDS 2.0 schemas, and the pages' findings are merged into one report.
import type { ApiResult, HttpExchange } from '../../core/http';
import type { ConformanceRuleView, ConformanceView } from '../../shared/conformanceViews';
import type { ConformanceReport, ConformanceRule, MdsMode } from '../../core/conformance';
import { guessMdsEndpoint, validateMdsResponse } from '../../core/conformance';
import { isMdsEndpointId } from '../../core/mds';
import type { MdsEndpointId } from '../../core/mds';

/** At most this many examples per rule survive the merge of the pages. */
const EXAMPLES_PER_RULE = 5;

/**
 * The MDS 2.0 conformance of every 2xx page of `result` that has a body, as one report; undefined
 * when the result is not an MDS endpoint's answer (a MaaS path, an error page, a 202 without a body).
 */
export function resultConformance(
  result: ApiResult,
  endpointId: string | undefined,
  mode?: MdsMode,
): ConformanceReport | undefined {
  const pages = result.pages.filter((p) => p.ok && p.status !== 202 && (p.bodyKind === 'json' || p.bodyKind === 'csv'));
  if (pages.length === 0) return undefined;
  const bodyOf = (i: number) => (pages[i].bodyKind === 'csv' ? (pages[i].text ?? '') : pages[i].body);
  let endpoint: MdsEndpointId | undefined =
    endpointId !== undefined && isMdsEndpointId(endpointId) ? endpointId : undefined;
  endpoint ??= guessMdsEndpoint(bodyOf(0));
  if (!endpoint) return undefined;
  const reports = pages.map((page, i) =>
    validateMdsResponse(endpoint, bodyOf(i), {
      mode,
      contentType: page.contentType,
      maxExamplesPerRule: EXAMPLES_PER_RULE,
    }),
  );
  return mergeReports(reports);
}

/** One report for several pages of one endpoint: counts added up, rules merged, examples capped. */
export function mergeReports(reports: readonly ConformanceReport[]): ConformanceReport {
  const [first, ...rest] = reports;
  if (rest.length === 0) return first;
  const merged: ConformanceReport = {
    ...first,
    rules: cloneRules(first.rules),
    schemaBugs: cloneRules(first.schemaBugs),
  };
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

/** Adds `more` to `into`: the same rule (keyword, place, message, schema bug) adds its count and a few more examples. */
function mergeRules<
  R extends { keyword: string; where: string; message: string; schemaBug?: string; count: number; examples: unknown[] },
>(into: R[], more: readonly R[]): void {
  for (const rule of more) {
    const same = into.find(
      (r) =>
        r.keyword === rule.keyword &&
        r.where === rule.where &&
        r.message === rule.message &&
        r.schemaBug === rule.schemaBug,
    );
    if (!same) {
      into.push({ ...rule, examples: [...rule.examples] });
      continue;
    }
    same.count += rule.count;
    for (const example of rule.examples) if (same.examples.length < EXAMPLES_PER_RULE) same.examples.push(example);
  }
}

/** A rule as the panel lists it: its examples tagged with the page they were found on. */
function ruleView(rule: ConformanceRule, pageIndex: number): ConformanceRuleView {
  const view: ConformanceRuleView = {
    keyword: rule.keyword,
    message: rule.message,
    where: rule.where,
    count: rule.count,
    examples: rule.examples.map((e) => ({ pageIndex, path: e.path, value: e.value })),
  };
  if (rule.schemaBug) view.schemaBug = rule.schemaBug;
  return view;
}

/**
 * The panel's conformance view of `result`: every 2xx page with a body validated against the official MDS 2.0
 * schemas, the findings grouped by rule over all pages, and each example pointing into its own page's body.
 * `notMds` when the result is not an MDS endpoint's answer.
 */
export function resultConformanceView(
  result: Pick<ApiResult, 'pages'>,
  endpointId: string | undefined,
  mode?: MdsMode,
  pageOffset = 0,
): ConformanceView {
  const pages = result.pages
    .map((page, index) => ({ page, index: index + pageOffset }))
    .filter(({ page: p }) => p.ok && p.status !== 202 && (p.bodyKind === 'json' || p.bodyKind === 'csv'));
  if (pages.length === 0) return { state: 'notMds' };
  const bodyOf = (p: HttpExchange) => (p.bodyKind === 'csv' ? (p.text ?? '') : p.body);
  let endpoint: MdsEndpointId | undefined =
    endpointId !== undefined && isMdsEndpointId(endpointId) ? endpointId : undefined;
  endpoint ??= guessMdsEndpoint(bodyOf(pages[0].page));
  if (!endpoint) return { state: 'notMds' };
  const rules: ConformanceRuleView[] = [];
  const schemaBugs: ConformanceRuleView[] = [];
  const view: Extract<ConformanceView, { state: 'checked' }> = {
    state: 'checked',
    conforms: true,
    endpoint,
    mode: mode ?? 'micromobility',
    schemaSource: '',
    itemsChecked: 0,
    itemsWithFindings: 0,
    findingCount: 0,
    omittedFindings: 0,
    rules,
    schemaBugs,
  };
  for (const { page, index } of pages) {
    const report = validateMdsResponse(endpoint, bodyOf(page), {
      mode,
      contentType: page.contentType,
      maxExamplesPerRule: EXAMPLES_PER_RULE,
    });
    view.conforms &&= report.conforms;
    view.mode = report.mode;
    view.schemaSource = `${report.schemaSource.repository} ${report.schemaSource.ref} (${report.schemaSource.commit.slice(0, 7)})`;
    view.itemsChecked += report.itemsChecked;
    view.itemsWithFindings += report.itemsWithFindings;
    view.findingCount += report.findingCount;
    view.omittedFindings += report.omittedFindings;
    mergeRules(
      rules,
      report.rules.map((r) => ruleView(r, index)),
    );
    mergeRules(
      schemaBugs,
      report.schemaBugs.map((r) => ruleView(r, index)),
    );
  }
  rules.sort((a, b) => b.count - a.count);
  schemaBugs.sort((a, b) => b.count - a.count);
  return view;
}

/** `a` and the view of more pages of the same result, as one. */
export function mergeConformanceViews(a: ConformanceView | undefined, b: ConformanceView): ConformanceView {
  if (a?.state !== 'checked') return b;
  if (b.state !== 'checked') return a;
  const rules = a.rules.map((r) => ({ ...r, examples: [...r.examples] }));
  const schemaBugs = a.schemaBugs.map((r) => ({ ...r, examples: [...r.examples] }));
  mergeRules(rules, b.rules);
  mergeRules(schemaBugs, b.schemaBugs);
  rules.sort((x, y) => y.count - x.count);
  return {
    ...a,
    conforms: a.conforms && b.conforms,
    itemsChecked: a.itemsChecked + b.itemsChecked,
    itemsWithFindings: a.itemsWithFindings + b.itemsWithFindings,
    findingCount: a.findingCount + b.findingCount,
    omittedFindings: a.omittedFindings + b.omittedFindings,
    rules,
    schemaBugs,
  };
}
