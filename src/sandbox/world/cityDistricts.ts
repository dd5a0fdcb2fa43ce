/**
 * The agency's geographies of the synthetic world: ten districts (Bezirke) of Berlin around the fleet's area, drawn by
 * hand as simplified polygons that share their borders, so that together they tile the frame around the fleet's disc
 * (13.28–13.55 E, 52.44–52.60 N) and every point of it lies in one district (a point on a border, in both). Served by
 * the Geography API (`/geographies`, MDS 2.0 geography/README.md) and counted over by the monthly reports.
 */
import type { GeographySet } from '../../core/geography';
import { GeographyIndex, geographySetOf } from '../../core/geography';

type Corner = readonly [number, number];

/** The shared corners (longitude, latitude): each border is written once and walked by both districts. */
const V = {
  NW: [13.28, 52.6],
  NE: [13.55, 52.6],
  SE: [13.55, 52.44],
  SW: [13.28, 52.44],
  A: [13.28, 52.54],
  B: [13.345, 52.545],
  C: [13.38, 52.565],
  D: [13.37, 52.6],
  E: [13.425, 52.528],
  F: [13.47, 52.525],
  G: [13.49, 52.6],
  H: [13.49, 52.495],
  I: [13.55, 52.47],
  J: [13.445, 52.49],
  K: [13.41, 52.485],
  L: [13.445, 52.44],
  M: [13.4, 52.44],
  N: [13.37, 52.5],
  O: [13.345, 52.505],
  P: [13.33, 52.44],
  Q: [13.33, 52.46],
  R: [13.28, 52.465],
  T: [13.43, 52.51],
  U: [13.395, 52.503],
} as const satisfies Record<string, Corner>;

type CornerName = keyof typeof V;

/** When the districts were published and took effect: before any world the sandbox serves (2024-01-01, UTC). */
export const DISTRICTS_PUBLISHED_MS = Date.UTC(2024, 0, 1);

/** The districts: id, name and outline (the corners in order; the ring is closed when served). */
const DISTRICTS: readonly { id: string; name: string; ring: readonly CornerName[] }[] = [
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d01', name: 'Mitte', ring: ['B', 'O', 'N', 'U', 'T', 'E', 'C'] },
  {
    id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d02',
    name: 'Friedrichshain-Kreuzberg',
    ring: ['E', 'T', 'U', 'N', 'K', 'J', 'H', 'F'],
  },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d03', name: 'Pankow', ring: ['D', 'C', 'E', 'F', 'G'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d04', name: 'Lichtenberg', ring: ['G', 'F', 'H', 'I', 'NE'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d05', name: 'Treptow-Köpenick', ring: ['H', 'J', 'L', 'SE', 'I'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d06', name: 'Neukölln', ring: ['J', 'K', 'M', 'L'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d07', name: 'Tempelhof-Schöneberg', ring: ['O', 'Q', 'P', 'M', 'K', 'N'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d08', name: 'Charlottenburg-Wilmersdorf', ring: ['A', 'R', 'Q', 'O', 'B'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d09', name: 'Reinickendorf', ring: ['NW', 'A', 'B', 'C', 'D'] },
  { id: '3f0d3c1e-5b1a-4d55-9a3e-6c1f1a0b2d0a', name: 'Steglitz-Zehlendorf', ring: ['R', 'SW', 'P', 'Q'] },
];

/** One geography of the Geography API, as served (MDS 2.0 geography/README.md, Geography Fields). */
export interface DistrictGeography {
  name: string;
  description: string;
  geography_type: string;
  geography_id: string;
  geography_json: {
    type: 'FeatureCollection';
    features: {
      type: 'Feature';
      properties: { name: string };
      geometry: { type: 'Polygon'; coordinates: number[][][] };
    }[];
  };
  published_date: number;
  effective_date: number;
}

/** The districts as the Geography API serves them; the outer ring counter-clockwise (RFC 7946, 3.1.6). */
export function districtGeographies(): DistrictGeography[] {
  return DISTRICTS.map(({ id, name, ring }) => {
    const corners = ring.map((c) => [...V[c]]);
    // The rings above run clockwise (seen with north up): reversed, they follow the right-hand rule.
    const coordinates = [[...corners, corners[0]].reverse()];
    return {
      name,
      description: `${name}, a district (Bezirk) of Berlin: a simplified outline for the sandbox`,
      geography_type: 'borough',
      geography_id: id,
      geography_json: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: { name }, geometry: { type: 'Polygon', coordinates } }],
      },
      published_date: DISTRICTS_PUBLISHED_MS,
      effective_date: DISTRICTS_PUBLISHED_MS,
    };
  });
}

let index: GeographyIndex | undefined;

/** The districts read as a client reads them (the same core), for counting the world's trips over them. */
export function districtIndex(): GeographyIndex {
  if (!index) {
    const set: GeographySet = geographySetOf(
      { version: '2.0.0', last_updated: DISTRICTS_PUBLISHED_MS, geographies: districtGeographies() },
      'sandbox districts',
    );
    index = new GeographyIndex(set);
  }
  return index;
}
