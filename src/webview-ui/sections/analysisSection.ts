// The analysis view of the results panel (Analyze Harvest…): the data-quality report of a harvest folder. A table of
// the rules (severity, count), the fleet metrics per hour as plots (vehicles in the PROW by state, trips started and
// ended), each rule's findings (time, device, trip, detail) with a button that opens the device's timeline, the rules
// that could not run with the reason, and the timeline of the finding chosen: its trips, events and telemetry in
// time order in the results table and on a plot, the rows the finding names marked. Every value is set as text
// (dom.ts): a harvest's strings are data, never markup.
import * as l10n from '@vscode/l10n';
import type {
  AnalysisFindingView,
  AnalysisResultView,
  AnalysisRuleView,
  AnalysisTimelineView,
} from '../../shared/analysisViews';
import { DataGrid } from '../grid/dataGrid';
import { button, clear, h } from '../dom';
import type { PanelContext } from '../panelContext';
import { collapsible, resultHeader } from '../panelContext';
import { TimelinePlot } from '../charts/timelinePlot';
import { MetricsSection } from '../map/metricsSection';
import { metricsSection } from './hourlyMetricsCharts';

function ruleMark(rule: AnalysisRuleView): string {
  if (rule.count === 0) return l10n.t('ok');
  return severityText(rule.severity);
}

function severityText(severity: AnalysisRuleView['severity']): string {
  return severity === 'error' ? l10n.t('error') : severity === 'warning' ? l10n.t('warning') : l10n.t('info');
}

/** One rendered analysis result and the timeline of the finding chosen in it. */
export class AnalysisView {
  private result: AnalysisResultView | undefined;
  private timelineHost: HTMLElement | undefined;
  /** The button of the finding whose timeline is shown (or asked for): "Back to the finding" returns to it. */
  private opener: { rule: string; index: number } | undefined;
  /** The Metrics view (the OMF metrics, per geography on a map). */
  omf: MetricsSection | undefined;

  constructor(private readonly ctx: PanelContext) {}

  render(root: HTMLElement, r: AnalysisResultView): void {
    this.result = r;
    root.appendChild(
      resultHeader(
        r.title,
        [
          l10n.t('Folder: {0}', r.folder),
          h('br'),
          l10n.t('{0} to {1}', r.window.start, r.window.end),
          ' · ',
          r.items.map((i) => l10n.t('{0} {1}', i.view, i.count)).join(', '),
          h('br'),
          h('span', { 'data-testid': 'summary-line' }, r.summary.line),
        ],
        [
          button(l10n.t('Analyze Again'), () => this.ctx.post({ type: 'analyzeAgain' }), {
            secondary: true,
            'data-testid': 'analyze-again',
            title: l10n.t('Run the rules on this folder again'),
          }),
        ],
      ),
    );
    if (r.inUse.length) {
      root.appendChild(
        h(
          'p',
          { class: 'notice-inline', role: 'status', 'data-testid': 'analysis-in-use' },
          l10n.t(
            'A harvest is still writing {0}: the report covers the hours it had finished. Analyze again when it is done.',
            r.inUse.join(', '),
          ),
        ),
      );
    }
    const rows = r.rules.map((rule) =>
      h(
        'tr',
        { 'data-testid': `rule-${rule.id}`, 'data-severity': rule.severity, 'data-count': rule.count },
        h('td', null, ruleMark(rule)),
        h('td', { translate: 'no', title: rule.id }, rule.code),
        h('td', null, severityText(rule.severity)),
        h('td', { class: 'num' }, rule.count),
        h('td', null, rule.title),
      ),
    );
    const skipped = r.skipped.map((s) =>
      h(
        'tr',
        { 'data-testid': `rule-${s.id}`, 'data-skipped': 'true' },
        h('td', null, l10n.t('not run')),
        h('td', { translate: 'no', title: s.id }, s.code),
        h('td', null, ''),
        h('td', null, ''),
        h('td', null, s.why),
      ),
    );
    root.appendChild(
      h(
        'section',
        { class: 'section-body' },
        h('h2', null, l10n.t('Rules')),
        h(
          'table',
          { class: 'analysis-rules', 'data-testid': 'analysis-rules' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ...[
                l10n.t('Result'),
                l10n.t('Rule'),
                l10n.t('Severity'),
                l10n.t('Findings'),
                l10n.t('What it checks'),
              ].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h('tbody', null, ...rows, ...skipped),
        ),
      ),
    );
    if (r.metrics) root.appendChild(metricsSection(r.metrics));
    this.omf = r.omfChoices ? new MetricsSection(this.ctx, r.id, r.omfChoices) : undefined;
    if (this.omf) root.appendChild(this.omf.element);
    for (const rule of r.rules) {
      if (!rule.count) continue;
      const open = rule.severity === 'error' || this.ctx.ui.timeline?.rule === rule.id;
      root.appendChild(
        collapsible(
          l10n.t('{0}: {1} ({2})', rule.code, rule.title, rule.count),
          this.findingsTable(rule),
          open,
          `section-rule-${rule.id}`,
        ),
      );
    }
    this.timelineHost = h('section', { class: 'section-body timeline', 'data-testid': 'analysis-timeline' });
    this.timelineHost.hidden = true;
    root.appendChild(this.timelineHost);
    // The timeline that was open (before a reload, or before the report was shown again) opens again.
    const was = this.ctx.ui.timeline;
    if (was && this.findingOf(was.rule, was.index)?.device_id) this.open(was.rule, was.index, false);
  }

  private findingOf(rule: string, index: number): AnalysisFindingView | undefined {
    return this.result?.rules.find((r) => r.id === rule)?.findings[index];
  }

  private findingsTable(rule: AnalysisRuleView): HTMLElement {
    const head = h(
      'tr',
      null,
      ...[l10n.t('Time (UTC)'), l10n.t('Device'), l10n.t('Trip'), l10n.t('Detail'), l10n.t('Timeline')].map((t) =>
        h('th', { scope: 'col' }, t),
      ),
    );
    const body = h(
      'tbody',
      null,
      ...rule.findings.map((f, index) =>
        h(
          'tr',
          null,
          h('td', { translate: 'no', class: 'finding-time' }, f.time ?? ''),
          h('td', { translate: 'no', class: 'code-inline' }, f.device_id ?? ''),
          h('td', { translate: 'no', class: 'code-inline' }, f.trip_id ?? ''),
          h('td', null, f.detail),
          h('td', null, f.device_id ? this.timelineButton(rule.id, index, f) : ''),
        ),
      ),
    );
    const more =
      rule.count > rule.findings.length
        ? h(
            'p',
            { class: 'muted' },
            l10n.t(
              'The first {0} of {1} findings; `mobility-api check --json` lists every one.',
              rule.findings.length,
              rule.count,
            ),
          )
        : null;
    return h(
      'div',
      null,
      h('p', { class: 'muted' }, l10n.t('Basis: {0}', rule.basis)),
      h(
        'table',
        {
          class: 'analysis-findings',
          'data-testid': `findings-${rule.id}`,
          'aria-label': l10n.t('Findings of {0}', rule.id),
        },
        h('thead', null, head),
        body,
      ),
      more,
    );
  }

  private timelineButton(rule: string, index: number, f: AnalysisFindingView): HTMLElement {
    const b = h(
      'button',
      {
        type: 'button',
        class: 'link-button timeline-open',
        'data-testid': `timeline-${rule}-${index}`,
        'aria-label': f.time
          ? l10n.t('Timeline of device {0} around {1}', f.device_id ?? '', f.time)
          : l10n.t('Timeline of device {0}', f.device_id ?? ''),
      },
      l10n.t('Timeline'),
    );
    b.addEventListener('click', () => this.open(rule, index, true));
    return b;
  }

  /** Asks the host for the timeline of finding `index` of `rule`; `focus` moves the keyboard to it. */
  private open(rule: string, index: number, focus: boolean): void {
    const r = this.result;
    const host = this.timelineHost;
    const finding = this.findingOf(rule, index);
    if (!r || !host || !finding?.device_id) return;
    this.opener = { rule, index };
    this.ctx.ui.timeline = { rule, index };
    this.ctx.persist();
    clear(host);
    // Under its finding's table, not at the end of a long report, so that it opens where the user is reading.
    document.querySelector(`[data-testid="findings-${CSS.escape(rule)}"]`)?.insertAdjacentElement('afterend', host);
    host.hidden = false;
    const heading = h(
      'h2',
      { tabindex: -1, 'data-testid': 'timeline-title' },
      l10n.t('Timeline of device {0}', finding.device_id),
    );
    host.append(
      heading,
      h(
        'p',
        { class: 'muted', role: 'status', 'data-testid': 'timeline-line' },
        l10n.t("Reading the device's trips, events and telemetry around this finding…"),
      ),
    );
    if (focus) heading.focus();
    this.ctx.post({ type: 'analysisTimeline', resultId: r.id, rule, index });
  }

  /** The timeline the host read: the finding, a line, the plot and the table. */
  timeline(view: AnalysisTimelineView): void {
    const r = this.result;
    const host = this.timelineHost;
    if (!r || !host || view.resultId !== r.id || this.opener?.rule !== view.rule || this.opener.index !== view.index)
      return;
    const hadFocus = host.contains(document.activeElement);
    clear(host);
    const f = view.finding;
    const heading = h(
      'h2',
      { tabindex: -1, 'data-testid': 'timeline-title' },
      l10n.t('Timeline of device {0}', f.device_id ?? ''),
    );
    const back = button(l10n.t('Back to the Finding'), () => this.backToFinding(), {
      secondary: true,
      'data-testid': 'timeline-back',
    });
    host.append(
      heading,
      h(
        'p',
        { 'data-testid': 'timeline-finding' },
        l10n.t(
          'Finding of {0}: {1}',
          view.rule,
          [f.time, f.trip_id ? l10n.t('trip {0}', f.trip_id) : '', f.detail].filter(Boolean).join(' · '),
        ),
      ),
      h('p', { class: view.error ? 'error-text' : 'muted', 'data-testid': 'timeline-line' }, view.line),
      h('div', { class: 'toolbar' }, back),
    );
    if (view.table && view.table.count) {
      const plot = new TimelinePlot();
      host.appendChild(plot.element);
      plot.setData(view);
      const grid = new DataGrid(
        {},
        () => undefined,
        (text) => this.ctx.announce(text),
      );
      host.appendChild(grid.element);
      grid.setData(view.table);
      grid.markRows(view.marked);
    }
    this.ctx.announce(view.line);
    if (hadFocus) heading.focus();
  }

  /** Closes the timeline and puts the keyboard back on the finding's button. */
  private backToFinding(): void {
    const at = this.opener;
    if (this.timelineHost) {
      clear(this.timelineHost);
      this.timelineHost.hidden = true;
    }
    this.opener = undefined;
    this.ctx.ui.timeline = undefined;
    this.ctx.persist();
    const opener = at
      ? document.querySelector<HTMLElement>(`[data-testid="timeline-${CSS.escape(at.rule)}-${at.index}"]`)
      : null;
    opener?.closest('vscode-collapsible')?.setAttribute('open', '');
    // After the key's events: an Enter that pressed Back would otherwise press the finding's button too, reopening it.
    setTimeout(() => opener?.focus(), 0);
  }
}
