// A line chart of a SQL answer over time (the harvest notebook's output): one line per series of answerChart, an
// SVG built element by element with numbers and text only (names go in as text nodes, never markup), coloured by
// the theme's chart colours, with a legend below and the same lines named for screen readers.
import * as l10n from '@vscode/l10n';
import type { AnswerChart } from '../../shared/sqlAnswer';
import { formatTime } from '../../shared/dataTable';
import { localNumber } from '../../shared/l10n';
import { h } from '../dom';
import { svgEl } from '../svg';

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 64;
const RIGHT = 12;
const TOP = 10;
const BOTTOM = 26;
/** Series drawn at most (the legend says how many more there are). */
const MAX_SERIES = 8;

/** One line drawn: the series whose points it draws (several when they are the same at every point). */
interface Line {
  names: string[];
  points: [number, number][];
}

/**
 * The lines worth drawing: a series that is zero at every point is named, not drawn (a flat line at 0 among others
 * says nothing and hides what it lies on); series with the same points are one line named after each, so that none
 * lies hidden under another; at most MAX_SERIES lines, the others named.
 */
export function chartLines(chart: AnswerChart): { lines: Line[]; zero: string[]; notDrawn: string[] } {
  const zero: string[] = [];
  const all: Line[] = [];
  const byPoints = new Map<string, Line>();
  for (const s of chart.series) {
    if (!s.points.length) continue;
    if (s.points.every(([, v]) => v === 0)) {
      zero.push(s.name);
      continue;
    }
    const key = JSON.stringify(s.points);
    const same = byPoints.get(key);
    if (same) {
      same.names.push(s.name);
      continue;
    }
    const line = { names: [s.name], points: s.points };
    byPoints.set(key, line);
    all.push(line);
  }
  return { lines: all.slice(0, MAX_SERIES), zero, notDrawn: all.slice(MAX_SERIES).flatMap((l) => l.names) };
}

/** The chart and its legend, or undefined when there is nothing to draw. */
export function lineChart(chart: AnswerChart): HTMLElement | undefined {
  const { lines: series, zero, notDrawn } = chartLines(chart);
  if (!series.length) return undefined;
  // Loops, not Math.min(...points): a spread of tens of thousands of arguments can overflow the stack.
  let [x0, x1, y0, y1] = [Infinity, -Infinity, 0, -Infinity];
  for (const s of series) {
    for (const [t, v] of s.points) {
      x0 = Math.min(x0, t);
      x1 = Math.max(x1, t);
      y0 = Math.min(y0, v);
      y1 = Math.max(y1, v);
    }
  }
  if (y1 <= y0) y1 = y0 + 1;
  const x = (t: number) =>
    LEFT + (x1 === x0 ? (WIDTH - LEFT - RIGHT) / 2 : ((t - x0) / (x1 - x0)) * (WIDTH - LEFT - RIGHT));
  const y = (v: number) => HEIGHT - BOTTOM - ((v - y0) / (y1 - y0)) * (HEIGHT - TOP - BOTTOM);
  const title = chart.group
    ? l10n.t('{0} over {1}, one line per {2}', chart.values[0], chart.time, chart.group)
    : l10n.t('{0} over {1}', chart.values.join(', '), chart.time);
  const root = svgEl('svg', {
    class: 'mae-chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-label': title,
    'data-testid': 'sql-chart',
  });
  root.append(
    svgEl('line', { class: 'axis', x1: LEFT, y1: HEIGHT - BOTTOM, x2: WIDTH - RIGHT, y2: HEIGHT - BOTTOM }),
    svgEl('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: HEIGHT - BOTTOM }),
    svgEl('text', { x: LEFT - 6, y: TOP + 8, 'text-anchor': 'end' }, localNumber(y1)),
    svgEl('text', { x: LEFT - 6, y: HEIGHT - BOTTOM, 'text-anchor': 'end' }, localNumber(y0)),
    svgEl('text', { x: LEFT, y: HEIGHT - 8, 'text-anchor': 'start' }, formatTime(x0)),
    svgEl('text', { x: WIDTH - RIGHT, y: HEIGHT - 8, 'text-anchor': 'end' }, formatTime(x1)),
  );
  series.forEach((s, i) => {
    const line = svgEl('polyline', {
      class: `mae-series-${i}`,
      points: s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' '),
      'data-series': i,
    });
    line.append(svgEl('title', {}, s.names.join(' = ')));
    root.append(line);
  });
  const legend = h(
    'ul',
    { class: 'mae-legend', 'aria-label': l10n.t('Lines of the chart') },
    ...series.map((s, i) =>
      h(
        'li',
        null,
        h('span', { class: `swatch mae-series-${i}`, 'aria-hidden': 'true' }),
        h('span', { translate: 'no' }, s.names.join(' = ')),
        s.names.length > 1 ? h('span', { class: 'muted' }, ' ', l10n.t('(the same at every point: one line)')) : null,
      ),
    ),
  );
  if (zero.length)
    legend.append(
      h(
        'li',
        { class: 'muted', 'data-testid': 'chart-zero' },
        l10n.t('Zero at every point, not drawn: {0}', zero.join(', ')),
      ),
    );
  if (notDrawn.length)
    legend.append(
      h(
        'li',
        { class: 'muted', 'data-testid': 'chart-more' },
        l10n.t('{0} more not drawn: {1}', notDrawn.length, notDrawn.join(', ')),
      ),
    );
  const figure = h('div', { class: 'mae-figure' });
  figure.append(root, legend);
  return figure;
}
