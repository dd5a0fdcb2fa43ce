// What the Metrics view's exports write, from the view the host holds (never data from the webview): the table of
// one interval (place × measure) as CSV, and the geographies coloured by one measure as GeoJSON, each place's values
// of that interval in its properties. Missing stays empty (CSV) or null (GeoJSON), k-suppressed stays -1 with a
// property saying so: neither becomes 0. Names and ids are data: CSV-escaped (and kept text, never a formula).
import type { MetricsMapView } from '../../shared/metricsMap/metricsMapViews';
import { metricValue } from '../../shared/metricsMap/metricsMapViews';
import { classBreaks, classOf } from '../../shared/metricsMap/mapMath';
import { csvCell } from '../history/exportWriters';

/** The CSV of interval `i`: interval_start, geography_id, name, then each measure; CRLF line ends. */
export function metricsCsv(view: MetricsMapView, i: number): string {
  const header = ['interval_start', 'geography_id', 'name', ...view.measures.map((m) => m.name)];
  const lines = [header.map((h) => csvCell(h)).join(',')];
  view.places.forEach((place, p) => {
    const cells = [csvCell(view.intervals[i] ?? ''), csvCell(place.id), csvCell(place.name)];
    view.measures.forEach((_, m) => {
      const v = metricValue(view, i, p, m);
      cells.push(v === null ? '' : csvCell(String(v), true));
    });
    lines.push(cells.join(','));
  });
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The GeoJSON of interval `i`: a Feature per geography with a polygon (MultiPolygon), its id and name, every
 * measure's value (null when missing), `k_suppressed` (the measures at -1 below k) and `class` (of measure `m`, as the
 * legend: "missing", "suppressed" or the class number from 1), coloured as the map shows it. Undefined without geographies.
 */
export function metricsGeoJson(view: MetricsMapView, i: number, m: number): string | undefined {
  if (!view.shapes?.length) return undefined;
  const measure = view.measures[m];
  const all = view.intervals.flatMap((_, t) => view.places.map((__, p) => metricValue(view, t, p, m)));
  const breaks = measure ? classBreaks(all, measure.count) : [];
  const placeIndex = new Map(view.places.map((p, k) => [p.id, k]));
  const features = view.shapes.map((shape) => {
    const p = placeIndex.get(shape.id);
    const values = Object.fromEntries(
      view.measures.map((mm, k) => [mm.name, p === undefined ? null : metricValue(view, i, p, k)]),
    );
    const own = p === undefined ? null : metricValue(view, i, p, m);
    const c = measure ? classOf(own, breaks, measure.count) : { kind: 'missing' as const };
    return {
      type: 'Feature',
      properties: {
        geography_id: shape.id,
        name: shape.name,
        interval_start: view.intervals[i] ?? null,
        ...values,
        k_suppressed: view.measures
          .filter((mm, k) => mm.count && p !== undefined && metricValue(view, i, p, k) === -1)
          .map((mm) => mm.name),
        class: c.kind === 'class' ? c.index + 1 : c.kind,
      },
      geometry: { type: 'MultiPolygon', coordinates: shape.polygons },
    };
  });
  return `${JSON.stringify({ type: 'FeatureCollection', properties: { interval: view.interval, timezone: view.timezone, k_value: view.k, measure: measure?.name ?? null }, features })}\n`;
}
