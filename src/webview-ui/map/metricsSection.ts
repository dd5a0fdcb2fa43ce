// The Metrics view of a data-quality report (Analyze Harvest…): the OMF metrics of the harvest (core/metrics, as
// `mobility-api metrics --measures` computes them), computed by the host on request. Pick the measures, the interval
// and the time zone; with geographies loaded (the setting mobilityApi.analysis.geographies, or Choose Geographies…),
// a map of the geographies shaded by the chosen measure in the chosen interval, with its legend, and beside it a
// table (geography × measure); a slider moves through the intervals. Without geographies: the table of the whole
// fleet and a plot per measure over the intervals, and a line saying how to load geographies. Save CSV (the table
// shown) and Save GeoJSON (the geographies as shaded) go through the host's save dialog. Every value is set as text.
import * as l10n from '@vscode/l10n';
import type { MetricsMapView, MetricsViewAnswer } from '../../shared/metricsMap/metricsMapViews';
import { metricValue } from '../../shared/metricsMap/metricsMapViews';
import { HourChart } from '../charts/analysisCharts';
import { button, clear, h } from '../dom';
import type { PanelContext } from '../panelContext';
import { collapsible } from '../panelContext';
import { geoMapFigure, mapValueText } from './geoMap';
import type { MapShading } from './geoMap';

const DEFAULT_MEASURES = ['dockless.deployed.avg', 'trips.start_loc.count'];

type Select = HTMLElement & { value: string };
type MultiSelect = HTMLElement & { value: string[] };
type Field = HTMLElement & { value: string };

export class MetricsSection {
  readonly element: HTMLElement;
  private readonly measuresSelect: MultiSelect;
  private readonly intervalSelect: Select;
  private readonly zoneField: Field;
  private readonly status: HTMLElement;
  private readonly body: HTMLElement;
  private view: MetricsMapView | undefined;
  private interval = 0;
  private measure = 0;

  constructor(
    private readonly ctx: PanelContext,
    private readonly resultId: string,
    choices: { measures: string[]; intervals: string[] },
  ) {
    this.measuresSelect = h(
      'vscode-multi-select',
      { 'data-testid': 'metrics-measures', 'aria-label': l10n.t('Measures'), label: l10n.t('Measures') },
      ...choices.measures.map((m) => h('vscode-option', { value: m, selected: DEFAULT_MEASURES.includes(m) }, m)),
    );
    this.intervalSelect = h(
      'vscode-single-select',
      { 'data-testid': 'metrics-interval', 'aria-label': l10n.t('Interval'), label: l10n.t('Interval') },
      ...choices.intervals.map((i) => h('vscode-option', { value: i, selected: i === 'PT1H' }, i)),
    );
    this.zoneField = h('vscode-textfield', {
      'data-testid': 'metrics-timezone',
      'aria-label': l10n.t('Time zone (IANA, such as Europe/Berlin)'),
      placeholder: 'UTC',
      value: 'UTC',
    });
    this.status = h(
      'p',
      { class: 'muted', role: 'status', 'data-testid': 'metrics-status' },
      l10n.t(
        'Pick the measures and the interval, then Compute: the OMF metrics of this harvest, as mobility-api metrics computes them.',
      ),
    );
    this.body = h('div', { 'data-testid': 'metrics-body' });
    this.element = h(
      'section',
      { class: 'section-body', 'data-testid': 'metrics-view' },
      h('h2', null, l10n.t('OMF metrics')),
      h(
        'div',
        { class: 'metrics-controls' },
        this.measuresSelect,
        this.intervalSelect,
        this.zoneField,
        button(l10n.t('Compute'), () => this.compute(), { 'data-testid': 'metrics-compute' }),
        button(
          l10n.t('Choose Geographies…'),
          () => this.ask({ op: 'chooseGeographies' }, l10n.t('Choosing a Geography document…')),
          {
            secondary: true,
            'data-testid': 'metrics-geographies',
            title: l10n.t('Pick an MDS Geography document (sets mobilityApi.analysis.geographies) and compute again'),
          },
        ),
      ),
      this.status,
      this.body,
    );
  }

  private compute(): void {
    const measures =
      Array.isArray(this.measuresSelect.value) && this.measuresSelect.value.length
        ? this.measuresSelect.value
        : DEFAULT_MEASURES;
    this.ask(
      {
        op: 'compute',
        measures,
        interval: this.intervalSelect.value || 'PT1H',
        timeZone: this.zoneField.value.trim() || 'UTC',
      },
      l10n.t('Computing the metrics…'),
    );
  }

  private ask(request: Parameters<typeof this.post>[0], line: string): void {
    this.status.textContent = line;
    this.post(request);
  }

  private post(
    request:
      | { op: 'compute'; measures: string[]; interval: string; timeZone: string }
      | { op: 'export'; format: 'csv' | 'geojson'; interval: number; measure: number }
      | { op: 'chooseGeographies' },
  ): void {
    this.ctx.post({ type: 'metricsView', resultId: this.resultId, request });
  }

  /** The host's answer: a view to show, or a line (saved, not saved, an error). */
  answer(answer: MetricsViewAnswer): void {
    if (answer.resultId !== this.resultId) return;
    if (answer.error) {
      this.status.textContent = answer.error;
      this.status.className = 'error-text';
      this.ctx.announce(answer.error);
    } else if (answer.status) {
      this.status.textContent = answer.status;
      this.status.className = 'muted';
      this.ctx.announce(answer.status);
    }
    if (answer.view) {
      this.view = answer.view;
      this.interval = 0;
      this.measure = 0;
      this.status.className = 'muted';
      this.status.textContent = l10n.t(
        '{0} intervals of {1} in {2}, k = {3}; {4} places.',
        answer.view.intervals.length,
        answer.view.interval,
        answer.view.timezone,
        answer.view.k,
        answer.view.places.length,
      );
      this.draw();
    }
  }

  private draw(): void {
    const v = this.view;
    if (!v) return;
    clear(this.body);
    if (!v.intervals.length || !v.measures.length) {
      this.body.appendChild(h('p', { class: 'muted' }, l10n.t('The harvest has no interval to show.')));
      return;
    }
    const colourBy = h(
      'vscode-single-select',
      {
        'data-testid': 'metrics-colour-by',
        'aria-label': l10n.t('Shade the map by'),
        label: l10n.t('Shade the map by'),
      },
      ...v.measures.map((m, i) => h('vscode-option', { value: String(i), selected: i === this.measure }, m.name)),
    ) as Select;
    colourBy.addEventListener('change', () => {
      this.measure = Number(colourBy.value) || 0;
      this.drawInterval();
    });
    const slider = h('input', {
      type: 'range',
      'data-testid': 'metrics-slider',
      'aria-label': l10n.t('Interval shown'),
    });
    slider.min = '0';
    slider.max = String(v.intervals.length - 1);
    slider.step = '1';
    slider.value = String(this.interval);
    slider.setAttribute('aria-valuetext', v.intervals[this.interval]);
    slider.addEventListener('input', () => {
      this.interval = Number(slider.value);
      slider.setAttribute('aria-valuetext', v.intervals[this.interval]);
      this.drawInterval();
    });
    const exports = h(
      'div',
      { class: 'toolbar' },
      button(
        l10n.t('Save CSV'),
        () =>
          this.ask({ op: 'export', format: 'csv', interval: this.interval, measure: this.measure }, l10n.t('Saving…')),
        { secondary: true, 'data-testid': 'metrics-save-csv', title: l10n.t('The table of the interval shown') },
      ),
      v.shapes?.length
        ? button(
            l10n.t('Save GeoJSON'),
            () =>
              this.ask(
                { op: 'export', format: 'geojson', interval: this.interval, measure: this.measure },
                l10n.t('Saving…'),
              ),
            {
              secondary: true,
              'data-testid': 'metrics-save-geojson',
              title: l10n.t('The geographies as shaded, with their values'),
            },
          )
        : null,
    );
    const hint = v.shapes?.length
      ? h(
          'p',
          { class: 'muted', 'data-testid': 'metrics-geographies-line' },
          l10n.t('Geographies from {0}.', v.geographies ?? ''),
        )
      : h(
          'p',
          { class: 'notice-inline', 'data-testid': 'metrics-geographies-line' },
          l10n.t(
            "No geographies loaded: the metrics are the whole fleet's. To see them per geography on a map, set mobilityApi.analysis.geographies to an MDS Geography document (geographies.json) or press Choose Geographies…",
          ),
        );
    this.body.append(
      hint,
      h('div', { class: 'metrics-controls' }, colourBy, exports),
      h(
        'div',
        { class: 'metrics-slider' },
        slider,
        h('span', { 'data-testid': 'metrics-interval-shown', translate: 'no' }, v.intervals[this.interval]),
      ),
      h('div', { class: 'metrics-layout', 'data-testid': 'metrics-shown' }),
    );
    if (!v.shapes?.length) this.body.appendChild(this.plots(v));
    if (v.incomplete.length) {
      const list = h(
        'ul',
        null,
        ...v.incomplete.map((g) =>
          h(
            'li',
            null,
            l10n.t(
              '{0}: no value for {1}: {2}',
              g.interval_start,
              g.measures.join(', '),
              g.hours.map((x) => `${x.hour} ${x.why}`).join('; '),
            ),
          ),
        ),
      );
      this.body.appendChild(
        collapsible(
          l10n.t('Incomplete intervals ({0}): missing, not 0', v.incomplete.length),
          list,
          false,
          'metrics-incomplete',
        ),
      );
    }
    this.drawInterval();
  }

  /** The map (with geographies) and the table of the interval shown. */
  private drawInterval(): void {
    const v = this.view;
    const host = this.body.querySelector('[data-testid="metrics-shown"]');
    if (!v || !host) return;
    const i = this.interval;
    const shown = this.body.querySelector('[data-testid="metrics-interval-shown"]');
    if (shown) shown.textContent = v.intervals[i];
    clear(host);
    const m = this.measure;
    const measure = v.measures[m];
    if (v.shapes?.length && measure) {
      const placeOf = new Map(v.places.map((p, k) => [p.id, k]));
      const shading: MapShading = {
        measure: measure.name,
        count: measure.count,
        range: v.intervals.flatMap((_, t) => v.places.map((__, p) => metricValue(v, t, p, m))),
        valueOf: (id) => {
          const p = placeOf.get(id);
          return p === undefined ? null : metricValue(v, i, p, m);
        },
      };
      const missing = v.places.filter((_, p) => metricValue(v, i, p, m) === null).length;
      const summary = l10n.t(
        'Map of {0} geographies shaded by {1} in the interval from {2}; {3} without data. The table beside it has every value.',
        v.shapes.length,
        measure.name,
        v.intervals[i],
        missing,
      );
      host.appendChild(geoMapFigure(v.shapes, shading, summary));
    }
    host.appendChild(this.table(v, i));
  }

  private table(v: MetricsMapView, i: number): HTMLElement {
    const head = h(
      'tr',
      null,
      h('th', { scope: 'col' }, l10n.t('Geography')),
      h('th', { scope: 'col' }, 'geography_id'),
      ...v.measures.map((m) => h('th', { scope: 'col', class: 'num', translate: 'no' }, m.name)),
    );
    const rows = v.places.map((place, p) =>
      h(
        'tr',
        { 'data-geography': place.id },
        h('th', { scope: 'row' }, place.name),
        h('td', { translate: 'no', class: 'code-inline' }, place.id),
        ...v.measures.map((m, k) => {
          const value = metricValue(v, i, p, k);
          const kind = value === null ? 'missing' : m.count && value === -1 ? 'suppressed' : 'value';
          return h('td', { class: 'num', 'data-kind': kind }, mapValueText(value, m.count));
        }),
      ),
    );
    return h(
      'table',
      {
        class: 'metrics-table',
        'data-testid': 'metrics-table',
        'aria-label': l10n.t('OMF metrics in the interval from {0}', v.intervals[i]),
      },
      h('thead', null, head),
      h('tbody', null, ...rows),
    );
  }

  /** A plot per measure over the intervals (the whole fleet): a gap where there is no value; -1 (fewer than k) is no bar either, the table says it. */
  private plots(v: MetricsMapView): HTMLElement {
    const box = h('div', { 'data-testid': 'metrics-plots' });
    v.measures.forEach((m, k) => {
      const values = v.intervals.map((_, t) => {
        const value = metricValue(v, t, 0, k);
        return value === null || (m.count && value === -1) ? null : value;
      });
      box.appendChild(
        new HourChart({
          id: `omf-${k}`,
          title: m.name,
          summary: l10n.t('{0} per interval of {1} ({2}), the whole fleet.', m.name, v.interval, v.timezone),
          hours: v.intervals,
          series: [{ name: m.name, cls: 'series-0', values }],
          stacked: false,
          timeHeading: l10n.t('Interval start'),
        }).element,
      );
    });
    return box;
  }
}
