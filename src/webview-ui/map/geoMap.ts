// The map of the metrics, one renderer for the results panel's Metrics view and the harvest notebook's map output:
// the geographies' polygons drawn as SVG paths from their GeoJSON with a simple projection (mapMath.ts), no tiles and
// nothing fetched, each shaded by the class of its value, with a legend in text. Missing (null) and k-suppressed (-1
// on a count) have classes of their own, never the colour of 0. Names and ids are data: set as text (a <title>, the
// legend), never markup. Colours are classes over the theme's variables (map.css).
import * as l10n from '@vscode/l10n';
import { localNumber } from '../../shared/l10n';
import type { GeoShapeView } from '../../shared/metricsMap/metricsMapViews';
import type { ValueClass } from '../../shared/metricsMap/mapMath';
import {
  bboxOf,
  classBreaks,
  classOf,
  classRanges,
  fitProjection,
  isSuppressed,
  pathData,
} from '../../shared/metricsMap/mapMath';
import { h } from '../dom';
import { svgEl } from '../svg';

/** How the map is shaded: the measure's name, whether it is a count (-1: suppressed), and each geography's value. */
export interface MapShading {
  measure: string;
  count: boolean;
  /** The values the classes are drawn from (every interval's, so that the colours mean the same over the slider). */
  range: readonly (number | null)[];
  valueOf(id: string): number | null;
}

/** A value in words: the number, "no data" (null), or "fewer than k" (-1 on a count). */
export function mapValueText(v: number | null, count: boolean): string {
  if (v === null) return l10n.t('no data');
  if (isSuppressed(v, count)) return l10n.t('fewer than k (-1)');
  return localNumber(v);
}

/** The CSS class of a value's class. */
export function classCss(c: ValueClass): string {
  return c.kind === 'class' ? `map-c${c.index}` : `map-${c.kind}`;
}

const swatch = (cls: string) => {
  const svg = svgEl('svg', {
    class: 'map-swatch',
    width: 14,
    height: 14,
    viewBox: '0 0 14 14',
    'aria-hidden': 'true',
    focusable: 'false',
  });
  svg.appendChild(svgEl('rect', { class: `map-area ${cls}`, x: 1, y: 1, width: 12, height: 12 }));
  return svg;
};

/** The map: an SVG image `width` × `height` named by `summary`, a path per geography with its name and value as its tooltip. */
export function geoMapSvg(
  shapes: readonly GeoShapeView[],
  shading: MapShading,
  summary: string,
  width = 480,
  height = 360,
): SVGElement {
  const breaks = classBreaks(shading.range, shading.count);
  const project = fitProjection(bboxOf(shapes.flatMap((s) => s.polygons)), width, height);
  const svg = svgEl('svg', {
    class: 'geo-map',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': summary,
    'data-testid': 'geo-map',
    focusable: 'false',
  });
  for (const shape of shapes) {
    const v = shading.valueOf(shape.id);
    const c = classOf(v, breaks, shading.count);
    const path = svgEl('path', {
      class: `map-area ${classCss(c)}`,
      d: pathData(shape.polygons, project),
      'data-geography': shape.id,
      'data-class': c.kind === 'class' ? String(c.index) : c.kind,
    });
    path.appendChild(
      svgEl('title', {}, `${shape.name} (${shape.id}): ${shading.measure} ${mapValueText(v, shading.count)}`),
    );
    svg.appendChild(path);
  }
  return svg;
}

/** The legend: each class with its range, then "no data" and "fewer than k" (always listed, so a reader knows the marks). */
export function mapLegend(shading: MapShading): HTMLElement {
  const breaks = classBreaks(shading.range, shading.count);
  const ranges = classRanges(shading.range, breaks, shading.count);
  const items = ranges.map(([lo, hi], i) =>
    h(
      'li',
      { 'data-class': i },
      swatch(`map-c${i}`),
      i === 0
        ? lo === hi
          ? localNumber(hi)
          : l10n.t('{0} to {1}', localNumber(lo), localNumber(hi))
        : l10n.t('over {0} to {1}', localNumber(lo), localNumber(hi)),
    ),
  );
  return h(
    'ul',
    {
      class: 'map-legend',
      'data-testid': 'map-legend',
      'aria-label': l10n.t('Legend of the map: {0}', shading.measure),
    },
    ...items,
    h(
      'li',
      { 'data-class': 'missing' },
      swatch('map-missing'),
      l10n.t('no data (the harvest lacks the hours, or the measure has no value)'),
    ),
    shading.count
      ? h(
          'li',
          { 'data-class': 'suppressed' },
          swatch('map-suppressed'),
          l10n.t('fewer than k: suppressed (-1), not 0'),
        )
      : null,
  );
}

/** The map and its legend in one figure. */
export function geoMapFigure(shapes: readonly GeoShapeView[], shading: MapShading, summary: string): HTMLElement {
  return h('figure', { class: 'map-figure' }, geoMapSvg(shapes, shading, summary), mapLegend(shading));
}
