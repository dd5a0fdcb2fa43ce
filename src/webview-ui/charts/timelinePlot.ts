// A device's timeline on a time axis, as SVG drawn at the width it gets: one lane per kind of row (trips as bars from
// their start to their end, events as dots in their vehicle state's colour, telemetry as small dots), the rows the
// finding names ringed, and a line at the finding's time. It is an image whose name says what it shows; the table
// beside it (the same rows, by keyboard) is its text. Colours are classes over the theme's variables (results.css).
import * as l10n from '@vscode/l10n';
import type { AnalysisTimelineView } from '../../shared/analysisViews';
import { cellText, columnById } from '../../shared/dataTable';
import { RedrawOnResize, h } from '../dom';
import { stateClass } from '../grid/gridRows';
import { svgEl } from '../svg';

const LANE = 34;
const PAD = { left: 96, right: 14, top: 18, bottom: 34 };
const MINUTE = 60_000;
/** Tick steps of the time axis, the first that leaves ~100 px between labels. */
const STEPS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  60 * MINUTE,
  2 * 60 * MINUTE,
  6 * 60 * MINUTE,
  12 * 60 * MINUTE,
  24 * 60 * MINUTE,
];

export class TimelinePlot {
  readonly element: HTMLElement;
  private readonly plot: HTMLElement;
  private view: AnalysisTimelineView | undefined;
  private readonly redraw: RedrawOnResize;

  constructor() {
    this.plot = h('div', { class: 'chart-plot' });
    this.element = h(
      'div',
      { class: 'timeline-plot', 'data-testid': 'timeline-plot' },
      this.plot,
      h(
        'ul',
        { class: 'chart-legend', 'aria-label': l10n.t('Legend of the timeline') },
        h(
          'li',
          null,
          h('span', { class: 'swatch tl-trip', 'aria-hidden': 'true' }),
          l10n.t('trip, from its start to its end'),
        ),
        h(
          'li',
          null,
          h('span', { class: 'swatch round state-available', 'aria-hidden': 'true' }),
          l10n.t("event, in its vehicle state's colour"),
        ),
        h(
          'li',
          null,
          h('span', { class: 'swatch round tl-telemetry', 'aria-hidden': 'true' }),
          l10n.t('telemetry point'),
        ),
        h(
          'li',
          null,
          h('span', { class: 'swatch round tl-ring', 'aria-hidden': 'true' }),
          l10n.t('named by the finding'),
        ),
        h(
          'li',
          null,
          h('span', { class: 'swatch tl-finding-line', 'aria-hidden': 'true' }),
          l10n.t("the finding's time"),
        ),
      ),
    );
    this.redraw = new RedrawOnResize(this.plot, (width) => this.draw(width));
  }

  setData(view: AnalysisTimelineView): void {
    this.view = view;
    this.redraw.schedule(true);
  }

  private draw(width: number): void {
    const view = this.view;
    const table = view?.table;
    if (!view || !table) return;
    const time = columnById(table, 'time');
    const until = columnById(table, 'end_time');
    const kind = columnById(table, 'kind');
    const state = columnById(table, 'vehicle_state');
    const kinds = view.kinds;
    if (time?.type !== 'time' || until?.type !== 'time' || !kinds) return;
    const findingTime = view.finding.time ? Date.parse(view.finding.time) : NaN;
    let t0 = Infinity;
    let t1 = -Infinity;
    for (const values of [time.values, until.values]) {
      for (const t of values) {
        if (Number.isNaN(t)) continue;
        t0 = Math.min(t0, t);
        t1 = Math.max(t1, t);
      }
    }
    if (!Number.isNaN(findingTime)) {
      t0 = Math.min(t0, findingTime);
      t1 = Math.max(t1, findingTime);
    }
    if (!Number.isFinite(t0)) return;
    if (t1 - t0 < 2 * MINUTE) {
      t0 -= MINUTE;
      t1 += MINUTE;
    }
    const lanes = [l10n.t('Trips'), l10n.t('Events'), l10n.t('Telemetry')];
    const height = PAD.top + lanes.length * LANE + PAD.bottom;
    const innerW = Math.max(10, width - PAD.left - PAD.right);
    const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * innerW;
    const laneY = (k: number) => PAD.top + k * LANE + LANE / 2;
    const svg = svgEl('svg', {
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': l10n.t('Timeline plot. {0}', view.line),
      'data-testid': 'timeline-svg',
      focusable: 'false',
    });
    lanes.forEach((name, k) => {
      svg.appendChild(
        svgEl('line', { class: 'chart-grid', x1: PAD.left, x2: PAD.left + innerW, y1: laneY(k), y2: laneY(k) }),
      );
      svg.appendChild(
        svgEl(
          'text',
          { class: 'chart-axis', x: PAD.left - 8, y: laneY(k), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          name,
        ),
      );
    });
    const step = STEPS.find((s) => (innerW * s) / (t1 - t0) >= 100) ?? STEPS[STEPS.length - 1];
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const label = new Date(t).toISOString();
      svg.appendChild(svgEl('line', { class: 'chart-grid', x1: x(t), x2: x(t), y1: PAD.top, y2: height - PAD.bottom }));
      // A label at the right edge ends there rather than past it.
      const anchor = x(t) > width - 24 ? 'end' : 'middle';
      svg.appendChild(
        svgEl(
          'text',
          {
            class: 'chart-axis',
            x: anchor === 'end' ? width - 2 : x(t),
            y: height - PAD.bottom + 14,
            'text-anchor': anchor,
          },
          step >= 24 * 60 * MINUTE ? label.slice(0, 10) : label.slice(11, 16),
        ),
      );
    }
    svg.appendChild(
      svgEl(
        'text',
        { class: 'chart-axis', x: PAD.left, y: height - 4, 'text-anchor': 'start' },
        l10n.t(
          'UTC, {0} to {1}',
          new Date(t0).toISOString().slice(0, 16).replace('T', ' '),
          new Date(t1).toISOString().slice(0, 16).replace('T', ' '),
        ),
      ),
    );
    if (!Number.isNaN(findingTime)) {
      svg.appendChild(
        svgEl('line', {
          class: 'tl-finding-line',
          x1: x(findingTime),
          x2: x(findingTime),
          y1: PAD.top - 6,
          y2: height - PAD.bottom,
        }),
      );
    }
    // Telemetry first, then events, then trips' bars, and the rings last, so that nothing covers a marked row.
    const order = [2, 1, 0];
    const rings: SVGElement[] = [];
    for (const lane of order) {
      for (let row = 0; row < table.count; row++) {
        if (kinds[row] !== lane) continue;
        const start = time.values[row];
        if (Number.isNaN(start)) continue;
        const title = svgEl(
          'title',
          {},
          [cellText(time, row), kind ? cellText(kind, row) : '', state ? cellText(state, row) : '']
            .filter(Boolean)
            .join(' · '),
        );
        const marked = view.marked?.[row] === 1;
        let mark: SVGElement;
        if (lane === 0) {
          const end = Number.isNaN(until.values[row]) ? start : until.values[row];
          mark = svgEl('rect', {
            class: `tl-trip${marked ? ' tl-marked' : ''}`,
            x: x(start),
            width: Math.max(2, x(end) - x(start)),
            y: laneY(0) - 7,
            height: 14,
          });
        } else if (lane === 1) {
          mark = svgEl('circle', {
            class: `tl-event ${stateClass(state ? cellText(state, row) : '')}`,
            cx: x(start),
            cy: laneY(1),
            r: 4.5,
          });
        } else {
          mark = svgEl('circle', { class: 'tl-telemetry', cx: x(start), cy: laneY(2), r: 2.5 });
        }
        mark.appendChild(title);
        svg.appendChild(mark);
        if (marked && lane !== 0)
          rings.push(svgEl('circle', { class: 'tl-ring', cx: x(start), cy: laneY(lane), r: 7.5, 'data-row': row }));
      }
    }
    for (const ring of rings) svg.appendChild(ring);
    this.plot.replaceChildren(svg);
    this.element.setAttribute(
      'data-marked',
      String(
        rings.length + (view.marked ? [...view.marked].filter((m, row) => m === 1 && kinds[row] === 0).length : 0),
      ),
    );
  }
}
