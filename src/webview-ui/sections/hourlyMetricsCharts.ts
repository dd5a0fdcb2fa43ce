// The fleet metrics per hour of the analysis view (analysisSection.ts): vehicles in the PROW by state, trips started and
// ended, as two charts, or a sentence saying why there is nothing to plot. Every value is set as text (dom.ts).
import * as l10n from '@vscode/l10n';
import type { AnalysisMetricsView } from '../../shared/analysisViews';
import { formatCount } from '../../shared/format';
import { HourChart, sumKnown } from '../charts/analysisCharts';
import { stateClass } from '../grid/gridRows';
import { h } from '../dom';

/** The index of the largest value (the first of equals; gaps never), or -1 when every hour is a gap. */
function peak(values: readonly (number | null)[]): number {
  let best = -1;
  values.forEach((v, i) => {
    if (v !== null && (best < 0 || v > (values[best] ?? 0))) best = i;
  });
  return best;
}

/** The least value there is (gaps left out). */
function least(values: readonly (number | null)[]): number {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? Math.min(...known) : 0;
}

/** The metrics' two charts, or a sentence saying why there is nothing to plot. */
export function metricsSection(m: AnalysisMetricsView): HTMLElement {
  const body = h(
    'section',
    { class: 'section-body', 'data-testid': 'analysis-metrics' },
    h('h2', null, l10n.t('Metrics per hour')),
  );
  if (!m.hours.length) {
    body.appendChild(h('p', { class: 'muted' }, l10n.t('The harvest has no hour to plot.')));
    return body;
  }
  const first = m.hours[0];
  const last = m.hours[m.hours.length - 1];
  const hours = m.hours.length;
  const top = peak(m.prowTotal);
  const prowSummary = m.prow.length
    ? l10n.t(
        'Vehicles in the public right-of-way at the end of each of {0} hours from {1} to {2}, by state (from the events): at most {3}, at {4}; at least {5}.',
        formatCount(hours),
        first,
        last,
        formatCount(m.prowTotal[top] ?? 0),
        m.hours[top] ?? '',
        formatCount(least(m.prowTotal)),
      )
    : l10n.t(
        'No vehicle was in the public right-of-way at the end of any of {0} hours from {1} to {2} (the harvest has no events that put one there).',
        formatCount(hours),
        first,
        last,
      );
  body.appendChild(
    new HourChart({
      id: 'prow',
      title: l10n.t('Vehicles in the PROW per hour, by state'),
      summary: prowSummary,
      hours: m.hours,
      series: m.prow.map((s) => ({ name: s.state, cls: stateClass(s.state), values: s.values })),
      stacked: true,
    }).element,
  );
  const started = sumKnown(m.tripsStarted);
  const ended = sumKnown(m.tripsEnded);
  const busiest = peak(m.tripsStarted);
  body.appendChild(
    new HourChart({
      id: 'trips',
      title: l10n.t('Trips per hour'),
      summary: l10n.t(
        '{0} trips started and {1} ended in {2} hours from {3} to {4}; the most started in one hour: {5}, at {6}.',
        formatCount(started),
        formatCount(ended),
        formatCount(hours),
        first,
        last,
        formatCount(m.tripsStarted[busiest] ?? 0),
        m.hours[busiest] ?? '',
      ),
      hours: m.hours,
      series: [
        { name: l10n.t('started'), cls: 'series-0', values: m.tripsStarted },
        { name: l10n.t('ended'), cls: 'series-1', values: m.tripsEnded },
      ],
      stacked: false,
    }).element,
  );
  return body;
}
