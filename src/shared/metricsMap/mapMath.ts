// The arithmetic of the metrics map, pure (no DOM): a simple projection of GeoJSON longitudes and latitudes onto a
// box of pixels, SVG path data of polygons with their holes, and the class breaks of the legend. A value of a
// measure is one of: a number (coloured by its class), null (missing: the harvest lacks the hours) or, on a count,
// -1 (k-suppressed: fewer than k). Missing and suppressed are classes of their own, never 0.

/** [west, south, east, north] in degrees. */
export type BBox = [number, number, number, number];

/** The box around every position of `polygons` (Infinity-filled when there is none). */
export function bboxOf(polygons: readonly (readonly (readonly (readonly number[])[])[])[]): BBox {
  const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const rings of polygons) {
    for (const ring of rings) {
      for (const [lng, lat] of ring) {
        if (!Number.isFinite(lng) || !Number.isFinite(lat)) continue;
        box[0] = Math.min(box[0], lng);
        box[1] = Math.min(box[1], lat);
        box[2] = Math.max(box[2], lng);
        box[3] = Math.max(box[3], lat);
      }
    }
  }
  return box;
}

/** A projection: longitude and latitude to x and y pixels. */
export type Projection = (lng: number, lat: number) => [number, number];

/**
 * An equirectangular projection centred on the box's middle latitude (x scaled by its cosine, so that a district
 * keeps its shape at a city's scale), fitted into `width` × `height` with `pad` pixels around, north up.
 */
export function fitProjection(box: BBox, width: number, height: number, pad = 8): Projection {
  const midLat = Number.isFinite(box[1]) ? (box[1] + box[3]) / 2 : 0;
  const kx = Math.cos((midLat * Math.PI) / 180);
  const spanX = Math.max((box[2] - box[0]) * kx, 1e-9);
  const spanY = Math.max(box[3] - box[1], 1e-9);
  const scale = Math.min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY);
  const offX = pad + (width - 2 * pad - spanX * scale) / 2;
  const offY = pad + (height - 2 * pad - spanY * scale) / 2;
  return (lng, lat) => [offX + (lng - box[0]) * kx * scale, offY + (box[3] - lat) * scale];
}

/** SVG path data of polygons (each ring a closed subpath; holes cut out with the even-odd rule). */
export function pathData(
  polygons: readonly (readonly (readonly (readonly number[])[])[])[],
  project: Projection,
): string {
  const parts: string[] = [];
  for (const rings of polygons) {
    for (const ring of rings) {
      const points = ring
        .filter(([lng, lat]) => Number.isFinite(lng) && Number.isFinite(lat))
        .map(([lng, lat]) => project(lng, lat));
      if (points.length < 3) continue;
      parts.push(`M${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join('L')}Z`);
    }
  }
  return parts.join('');
}

/** Classes of the legend at most. */
export const MAX_CLASSES = 5;

/** What a value is on the map. */
export type ValueClass = { kind: 'missing' } | { kind: 'suppressed' } | { kind: 'class'; index: number };

/** True when `v` is k-suppressed: -1 on a count (the Metrics API's redaction). */
export const isSuppressed = (v: number | null, count: boolean): boolean => count && v === -1;

/**
 * The upper bounds of at most `n` classes over the values that are numbers (missing and suppressed left out):
 * quantiles, each bound a value that occurs, ascending and distinct. One value gives one class; none gives none.
 */
export function classBreaks(values: readonly (number | null)[], count: boolean, n = MAX_CLASSES): number[] {
  const known = values
    .filter((v): v is number => v !== null && Number.isFinite(v) && !isSuppressed(v, count))
    .sort((a, b) => a - b);
  if (!known.length) return [];
  const bounds: number[] = [];
  for (let k = 1; k <= n; k++) {
    const bound = known[Math.min(known.length - 1, Math.ceil((k / n) * known.length) - 1)];
    if (!bounds.length || bound > bounds[bounds.length - 1]) bounds.push(bound);
  }
  return bounds;
}

/** The class of `v` under `breaks`: missing (null), suppressed (-1 on a count), or the first class whose bound it does not exceed. */
export function classOf(v: number | null, breaks: readonly number[], count: boolean): ValueClass {
  if (v === null || !Number.isFinite(v)) return { kind: 'missing' };
  if (isSuppressed(v, count)) return { kind: 'suppressed' };
  const index = breaks.findIndex((b) => v <= b);
  return { kind: 'class', index: index < 0 ? Math.max(0, breaks.length - 1) : index };
}

/** The range each class covers, for the legend: [low, high] (low of the first class: the least value). */
export function classRanges(
  values: readonly (number | null)[],
  breaks: readonly number[],
  count: boolean,
): [number, number][] {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v) && !isSuppressed(v, count));
  const least = known.length ? Math.min(...known) : 0;
  return breaks.map((b, i) => [i === 0 ? least : breaks[i - 1], b]);
}
