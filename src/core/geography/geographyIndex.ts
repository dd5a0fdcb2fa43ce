/**
 * Which geographies contain a point: an R-tree of the polygons' bounding boxes (flatbush), then the exact test of
 * each candidate polygon with its holes (point-in-polygon-hao, which counts a point on an edge as on the edge). A point
 * on a boundary belongs to the geographies on both sides, as GeoJSON's "contains" of the boundary usually does.
 */
import Flatbush from 'flatbush';
import pointInPolygon from 'point-in-polygon-hao';
import type { GeographySet, MdsGeography, PolygonRings } from './geographyDocument';

/** Points remembered with their geographies: parked vehicles report one position again and again. */
const CACHE_LIMIT = 200_000;
const NONE: readonly number[] = [];

/** The polygons of a set of geographies, indexed for point queries. */
export class GeographyIndex {
  readonly geographies: readonly MdsGeography[];
  private readonly tree: Flatbush | undefined;
  /** The geography (its index in `geographies`) and the rings of each polygon of the tree, by the tree's item index. */
  private readonly owners: number[] = [];
  private readonly rings: number[][][][] = [];
  private readonly cache = new Map<string, readonly number[]>();

  constructor(set: GeographySet) {
    this.geographies = set.geographies;
    const count = set.geographies.reduce((n, g) => n + g.polygons.length, 0);
    if (!count) return;
    const tree = new Flatbush(count);
    set.geographies.forEach((g, geography) => {
      for (const polygon of g.polygons) {
        const [minX, minY, maxX, maxY] = boundsOf(polygon);
        tree.add(minX, minY, maxX, maxY);
        this.owners.push(geography);
        this.rings.push(polygon as number[][][]);
      }
    });
    tree.finish();
    this.tree = tree;
  }

  /** The indices (in `geographies`) of the geographies whose area contains the point, whatever the time. */
  containing(lng: number, lat: number): readonly number[] {
    if (!this.tree || !Number.isFinite(lng) || !Number.isFinite(lat)) return NONE;
    const key = `${lng},${lat}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const found: number[] = [];
    for (const item of this.tree.search(lng, lat, lng, lat)) {
      const geography = this.owners[item];
      if (found.includes(geography)) continue;
      // true inside, 0 on an edge, false outside.
      if (pointInPolygon([lng, lat], this.rings[item]) !== false) found.push(geography);
    }
    const result = found.length ? found.sort((a, b) => a - b) : NONE;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, result);
    return result;
  }

  /** The geographies live at `timeMs` (effective, not retired nor replaced) that contain the point. */
  containingAt(lng: number, lat: number, timeMs: number): readonly number[] {
    const found = this.containing(lng, lat);
    if (!found.length) return found;
    return found.filter((i) => {
      const g = this.geographies[i];
      return timeMs >= g.liveFromMs && timeMs < g.liveUntilMs;
    });
  }
}

function boundsOf(polygon: PolygonRings): [number, number, number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  // The outer ring bounds the polygon; holes lie inside it.
  for (const [x, y] of polygon[0]) {
    if (x < minX) minX = x;
    if (y < minY) minY = y;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  return [minX, minY, maxX, maxY];
}
