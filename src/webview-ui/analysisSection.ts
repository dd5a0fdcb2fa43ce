// The analysis view of the results panel (Analyze Harvest…): the data-quality report of a harvest folder. A table of
// the rules (severity, count), each rule's findings under it (time, device, trip, detail), and the rules that could
// not run with the reason. Every value is set as text (dom.ts): a harvest's strings are data, never markup.
import * as l10n from '@vscode/l10n';
import type { AnalysisResultView, AnalysisRuleView } from '../shared/analysisViews';
import { h } from './dom';
import { collapsible, resultHeader } from './panelContext';

function ruleMark(rule: AnalysisRuleView): string {
  if (rule.count === 0) return l10n.t('ok');
  return rule.severity === 'error' ? l10n.t('error') : l10n.t('warning');
}

function findingsTable(rule: AnalysisRuleView): HTMLElement {
  const head = h('tr', null, ...[l10n.t('Time (UTC)'), l10n.t('Device'), l10n.t('Trip'), l10n.t('Detail')].map((t) => h('th', { scope: 'col' }, t)));
  const body = h('tbody', null, ...rule.findings.map((f) => h('tr', null,
    h('td', { translate: 'no' }, f.time ?? ''),
    h('td', { translate: 'no', class: 'code-inline' }, f.device_id ?? ''),
    h('td', { translate: 'no', class: 'code-inline' }, f.trip_id ?? ''),
    h('td', null, f.detail))));
  const more = rule.count > rule.findings.length ? h('p', { class: 'muted' }, l10n.t('The first {0} of {1} findings; `mobility-api check --json` lists every one.', rule.findings.length, rule.count)) : null;
  return h('div', null,
    h('p', { class: 'muted' }, l10n.t('Basis: {0}', rule.basis)),
    h('table', { class: 'analysis-findings', 'data-testid': `findings-${rule.id}`, 'aria-label': l10n.t('Findings of {0}', rule.id) }, h('thead', null, head), body),
    more);
}

export function renderAnalysis(root: HTMLElement, r: AnalysisResultView): void {
  root.appendChild(resultHeader(r.title, [
    l10n.t('Folder: {0}', r.folder), h('br'),
    l10n.t('{0} to {1}', r.window.start, r.window.end), ' · ',
    r.items.map((i) => l10n.t('{0} {1}', i.view, i.count)).join(', '), h('br'),
    h('span', { 'data-testid': 'summary-line' }, r.summary.line),
  ], []));
  if (r.inUse.length) {
    root.appendChild(h('p', { class: 'notice-inline', role: 'status', 'data-testid': 'analysis-in-use' }, l10n.t('A harvest is still writing {0}: the report covers the hours it had finished. Analyze again when it is done.', r.inUse.join(', '))));
  }
  const rows = r.rules.map((rule) => h('tr', { 'data-testid': `rule-${rule.id}`, 'data-severity': rule.severity, 'data-count': rule.count },
    h('td', null, ruleMark(rule)),
    h('td', { translate: 'no' }, rule.id),
    h('td', null, rule.severity === 'error' ? l10n.t('error') : l10n.t('warning')),
    h('td', { class: 'num' }, rule.count),
    h('td', null, rule.title)));
  const skipped = r.skipped.map((s) => h('tr', { 'data-testid': `rule-${s.id}`, 'data-skipped': 'true' },
    h('td', null, l10n.t('not run')), h('td', { translate: 'no' }, s.id), h('td', null, ''), h('td', null, ''), h('td', null, s.why)));
  root.appendChild(h('section', { class: 'section-body' },
    h('h2', null, l10n.t('Rules')),
    h('table', { class: 'analysis-rules', 'data-testid': 'analysis-rules' },
      h('thead', null, h('tr', null, ...[l10n.t('Result'), l10n.t('Rule'), l10n.t('Severity'), l10n.t('Findings'), l10n.t('What it checks')].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, ...rows, ...skipped))));
  for (const rule of r.rules) {
    if (!rule.count) continue;
    root.appendChild(collapsible(l10n.t('{0}: {1} ({2})', rule.id, rule.title, rule.count), findingsTable(rule), rule.severity === 'error', `section-rule-${rule.id}`));
  }
}
