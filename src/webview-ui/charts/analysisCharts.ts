// A bar chart of values per UTC hour (the analysis view's metrics: vehicles in the PROW by state, trips started and
// ended), drawn as SVG at the width it gets and again when that changes. It is an image with a name that says what it
// shows in words; the same sentence is on the page, the legend is text, and every number is in a table under it,
// so that nothing is only in the picture. An hour without data (null: the harvest lacks it) is a gap, marked apart and
// said "no data" in its tooltip and the table, never drawn as 0. Colours are classes over the theme's variables (results.css).
import * as l10n from '@vscode/l10n';
import { formatCount } from '../../shared/format';
import { RedrawOnResize, h } from '../dom';
import { collapsible } from '../panelContext';
import { niceMax, svgEl } from '../svg';

/** One series: its name (shown), the class that colours it, and a value per hour. */
export interface HourSeries {
  name: string;
  cls: string;
  /** null: no data for the hour (a gap, never 0). */
  values: (number | null)[];
}

export interface HourChartArgs {
  /** Test ids: `chart-<id>`, `chart-<id>-table`. */
  id: string;
  title: string;
  /** What the chart shows, in one or two sentences: its name as an image, and the line under its title. */
  summary: string;
  hours: string[];
  series: HourSeries[];
  /** Stacked bars (parts of one whole per hour) or bars side by side. */
  stacked: boolean;
  /** The heading of the table's first column (default "Hour (UTC)"): intervals in a time zone say so. */
  timeHeading?: string;
}

const HEIGHT = 200;
const PAD = { left: 44, right: 8, top: 10, bottom: 30 };

/** A value of the table and tooltip: the number, or "no data" for a gap. */
export function hourValueText(v: number | null | undefined): string {
  return v === null || v === undefined ? l10n.t('no data') : formatCount(v);
}

/** The hours every series lacks (all null): drawn as gaps. */
export function gapHours(series: readonly HourSeries[], hours: number): boolean[] {
  return Array.from(
    { length: hours },
    (_, i) => series.length > 0 && series.every((s) => s.values[i] === null || s.values[i] === undefined),
  );
}

/** The sum of the values that are there (gaps left out). */
export function sumKnown(values: readonly (number | null)[]): number {
  return values.reduce<number>((a, v) => a + (v ?? 0), 0);
}

/** `11-20 08h`: an hour on the axis. */
function hourLabel(hour: string): string {
  if (hour.length <= 10) return hour.slice(5, 10);
  return l10n.t('{0} {1}h', hour.slice(5, 10), hour.slice(11, 13));
}

export class HourChart {
  readonly element: HTMLElement;
  private readonly plot: HTMLElement;

  constructor(private readonly args: HourChartArgs) {
    this.plot = h('div', { class: 'chart-plot' });
    const legend = h(
      'ul',
      { class: 'chart-legend', 'aria-label': l10n.t('Legend of {0}', args.title) },
      ...args.series.map((s) =>
        h(
          'li',
          null,
          h('span', { class: `swatch ${s.cls}`, 'aria-hidden': 'true' }),
          l10n.t('{0}: {1} in all', s.name, formatCount(sumKnown(s.values))),
        ),
      ),
    );
    const head = h(
      'tr',
      null,
      h('th', { scope: 'col' }, args.timeHeading ?? l10n.t('Hour (UTC)')),
      ...args.series.map((s) => h('th', { scope: 'col', class: 'num' }, s.name)),
      args.stacked ? h('th', { scope: 'col', class: 'num' }, l10n.t('All')) : null,
    );
    const gaps = gapHours(args.series, args.hours.length);
    const rows = args.hours.map((hour, i) =>
      h(
        'tr',
        gaps[i] ? { 'data-gap': 'true' } : null,
        h('th', { scope: 'row', translate: 'no' }, hour),
        ...args.series.map((s) => h('td', { class: 'num' }, hourValueText(s.values[i]))),
        args.stacked
          ? h(
              'td',
              { class: 'num' },
              gaps[i] ? hourValueText(null) : formatCount(args.series.reduce((a, s) => a + (s.values[i] ?? 0), 0)),
            )
          : null,
      ),
    );
    if (gaps.some(Boolean))
      legend.append(
        h(
          'li',
          { 'data-testid': `chart-${args.id}-gaps` },
          h('span', { class: 'swatch chart-gap', 'aria-hidden': 'true' }),
          l10n.t('no data: {0} hours the harvest lacks (not 0)', formatCount(gaps.filter(Boolean).length)),
        ),
      );
    const table = h(
      'table',
      { class: 'chart-table', 'data-testid': `chart-${args.id}-table`, 'aria-label': args.title },
      h('thead', null, head),
      h('tbody', null, ...rows),
    );
    this.element = h(
      'section',
      { class: 'chart', 'data-testid': `chart-${args.id}` },
      h('h3', null, args.title),
      h('p', { class: 'muted', 'data-testid': `chart-${args.id}-summary` }, args.summary),
      this.plot,
      legend,
      collapsible(l10n.t('{0}, hour by hour', args.title), table, false, `chart-${args.id}-numbers`),
    );
    new RedrawOnResize(this.plot, (width) => this.draw(width));
  }

  /** Draws the chart `width` pixels wide. */
  draw(width: number): void {
    const { hours, series, stacked } = this.args;
    const n = Math.max(1, hours.length);
    const totals = hours.map((_, i) =>
      stacked
        ? series.reduce((a, s) => a + (s.values[i] ?? 0), 0)
        : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
    );
    const max = niceMax(Math.max(0, ...totals));
    const innerW = Math.max(10, width - PAD.left - PAD.right);
    const innerH = HEIGHT - PAD.top - PAD.bottom;
    const band = innerW / n;
    const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
    const svg = svgEl('svg', {
      width,
      height: HEIGHT,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      role: 'img',
      'aria-label': this.args.summary,
      'data-testid': `chart-${this.args.id}-svg`,
      focusable: 'false',
    });
    for (const v of [0, max / 2, max]) {
      svg.appendChild(svgEl('line', { class: 'chart-grid', x1: PAD.left, x2: PAD.left + innerW, y1: y(v), y2: y(v) }));
      svg.appendChild(
        svgEl(
          'text',
          { class: 'chart-axis', x: PAD.left - 6, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          formatCount(v),
        ),
      );
    }
    const gap = band > 4 ? 1 : 0;
    const missing = gapHours(series, hours.length);
    hours.forEach((hour, i) => {
      const x0 = PAD.left + i * band;
      if (missing[i])
        svg.appendChild(
          svgEl('rect', {
            class: 'chart-gap',
            'data-gap': hour,
            x: x0 + gap / 2,
            width: Math.max(0.5, band - gap),
            y: PAD.top,
            height: innerH,
          }),
        );
      if (stacked) {
        let base = 0;
        for (const s of series) {
          const v = s.values[i] ?? 0;
          if (v > 0)
            svg.appendChild(
              svgEl('rect', {
                class: `chart-bar ${s.cls}`,
                x: x0 + gap / 2,
                width: Math.max(0.5, band - gap),
                y: y(base + v),
                height: y(base) - y(base + v),
              }),
            );
          base += v;
        }
      } else {
        const w = band / series.length;
        series.forEach((s, k) => {
          const v = s.values[i] ?? 0;
          if (v > 0)
            svg.appendChild(
              svgEl('rect', {
                class: `chart-bar ${s.cls}`,
                x: x0 + k * w + gap / 2,
                width: Math.max(0.5, w - gap),
                y: y(v),
                height: y(0) - y(v),
              }),
            );
        });
      }
      // The hour's numbers on hover.
      const hit = svgEl('rect', { class: 'chart-hit', x: x0, width: band, y: PAD.top, height: innerH });
      hit.appendChild(
        svgEl(
          'title',
          {},
          missing[i]
            ? l10n.t('{0}: no data (the harvest lacks this hour)', hour)
            : `${hour}: ${series.map((s) => `${s.name} ${hourValueText(s.values[i])}`).join(', ')}`,
        ),
      );
      svg.appendChild(hit);
    });
    // Hour labels at least 72 px apart, on whole steps of hours.
    const step = Math.max(1, Math.ceil(72 / band));
    for (let i = 0; i < hours.length; i += step) {
      svg.appendChild(
        svgEl(
          'text',
          { class: 'chart-axis', x: PAD.left + (i + 0.5) * band, y: HEIGHT - PAD.bottom + 14, 'text-anchor': 'middle' },
          hourLabel(hours[i]),
        ),
      );
    }
    svg.appendChild(
      svgEl('line', { class: 'chart-baseline', x1: PAD.left, x2: PAD.left + innerW, y1: y(0), y2: y(0) }),
    );
    this.plot.replaceChildren(svg);
  }
}
