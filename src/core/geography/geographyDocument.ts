/**
 * An MDS Geography document (MDS 2.0 geography/README.md): the `/geographies` answer, the same shape as a
 * `geographies.json` flat file, or one `/geographies/{geography_id}` answer; checked against the official schemas
 * (mds-openapi reference/geography.yaml, through `conformance`), then read into the areas a point can fall in.
 */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import { geographySchemaErrors } from '../conformance';

/** A position of GeoJSON: longitude, latitude (and more numbers, ignored). */
export type Position = readonly number[];
/** A polygon of GeoJSON: its outer ring, then its holes. */
export type PolygonRings = readonly (readonly Position[])[];

/** One geography as the document gives it, with what the assignment needs from it. */
export interface MdsGeography {
  geography_id: string;
  name: string;
  geography_type?: string;
  description?: string;
  published_date: number;
  effective_date?: number;
  retire_date?: number;
  prev_geographies?: string[];
  /** Every polygon of its `geography_json` (Polygon and MultiPolygon features; points and lines cover no area). */
  polygons: PolygonRings[];
  /** When it is live, in ms: from `effective_date` (else `published_date`) until the earliest of its `retire_date` and the start of a geography that names it in `prev_geographies`. */
  liveFromMs: number;
  liveUntilMs: number;
}

/** A document read and checked: its geographies in the document's order. */
export interface GeographySet {
  /** Where it came from (a file path or a URL), for messages. */
  source: string;
  version: string;
  lastUpdated?: number;
  geographies: MdsGeography[];
}

type Feature = { geometry?: { type?: string; coordinates?: unknown } | null };
type RawGeography = Omit<MdsGeography, 'polygons' | 'liveFromMs' | 'liveUntilMs'> & {
  geography_json: { features: Feature[] };
};

/** The polygons of a FeatureCollection's features, a GeometryCollection's members included. */
function polygonsOf(features: readonly Feature[]): PolygonRings[] {
  const out: PolygonRings[] = [];
  const visit = (geometry: { type?: string; coordinates?: unknown; geometries?: unknown } | null | undefined) => {
    if (!geometry) return;
    if (geometry.type === 'Polygon') out.push(geometry.coordinates as PolygonRings);
    else if (geometry.type === 'MultiPolygon') out.push(...(geometry.coordinates as PolygonRings[]));
    else if (geometry.type === 'GeometryCollection' && Array.isArray(geometry.geometries))
      for (const g of geometry.geometries) visit(g as typeof geometry);
  };
  for (const feature of features) visit(feature.geometry);
  // A ring must close and have four positions (RFC 7946, 3.1.6); the schema says so too, but not that it closes.
  return out.filter((rings) => rings.length > 0 && rings.every((ring) => ring.length >= 4));
}

/**
 * Reads the text of a Geography document: JSON, the official schema of `/geographies` (or of one
 * `/geographies/{geography_id}`), and at least one geography with an area. `source` names it in errors.
 */
export function parseGeographyDocument(text: string, source: string): GeographySet {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new MobilityError(
      'GEOGRAPHY_INVALID',
      l10n.t(
        'The geographies at {0} are not JSON ({1}); give an MDS Geography document (geographies.json or the /geographies answer).',
        source,
        (err as Error).message,
      ),
    );
  }
  return geographySetOf(document, source);
}

/** A parsed Geography document checked and read (see {@link parseGeographyDocument}). */
export function geographySetOf(document: unknown, source: string): GeographySet {
  const single =
    typeof document === 'object' && document !== null && 'geography' in document && !('geographies' in document);
  const errors = geographySchemaErrors(document, single ? 'geography' : 'geographies', 5);
  if (errors.length) {
    const where = errors.map((e) => `${e.path} ${e.message}`).join('; ');
    throw new MobilityError(
      'GEOGRAPHY_INVALID',
      l10n.t('The geographies at {0} do not follow the MDS 2.0 Geography schema: {1}.', source, where),
    );
  }
  const doc = document as {
    version: string;
    last_updated?: number;
    geographies?: RawGeography[];
    geography?: RawGeography;
  };
  const raw = single ? [doc.geography as RawGeography] : (doc.geographies ?? []);
  const seen = new Set<string>();
  for (const g of raw) {
    if (seen.has(g.geography_id))
      throw new MobilityError(
        'GEOGRAPHY_INVALID',
        l10n.t(
          'The geographies at {0} name geography_id {1} twice; each geography has its own id.',
          source,
          g.geography_id,
        ),
      );
    seen.add(g.geography_id);
    if (g.retire_date !== undefined && g.retire_date <= (g.effective_date ?? g.published_date)) {
      throw new MobilityError(
        'GEOGRAPHY_INVALID',
        l10n.t(
          'Geography {0} at {1} retires before it is effective; retire_date must be after effective_date.',
          g.geography_id,
          source,
        ),
      );
    }
  }
  // "Geographies referencing others with prev_geographies immediately replace the previous ones."
  const replacedAt = new Map<string, number>();
  for (const g of raw) {
    const start = g.effective_date ?? g.published_date;
    for (const prev of g.prev_geographies ?? [])
      replacedAt.set(prev, Math.min(replacedAt.get(prev) ?? Infinity, start));
  }
  const geographies = raw.map((g): MdsGeography => {
    const { geography_json, ...fields } = g;
    return {
      ...fields,
      polygons: polygonsOf(geography_json.features),
      liveFromMs: g.effective_date ?? g.published_date,
      liveUntilMs: Math.min(g.retire_date ?? Infinity, replacedAt.get(g.geography_id) ?? Infinity),
    };
  });
  if (!geographies.some((g) => g.polygons.length)) {
    throw new MobilityError(
      'GEOGRAPHY_INVALID',
      l10n.t(
        'The geographies at {0} have no Polygon or MultiPolygon: no trip, event or telemetry point can be in one.',
        source,
      ),
    );
  }
  return {
    source,
    version: doc.version,
    ...(doc.last_updated !== undefined ? { lastUpdated: doc.last_updated } : {}),
    geographies,
  };
}
