/**
 * The city of the synthetic world (Berlin) in space and time: positions on a disc around the
 * centre, its districts (world/cityDistricts.ts), distances, and the local clock that shapes busy afternoons and quiet nights and that
 * monthly reports count in (MDS data-types.md, Reports: "the agency's local time zone").
 */
import type { MdsLocation } from '../../core/mds';
import { districtGeographies, districtIndex } from './cityDistricts';

/** Berlin, Alexanderplatz; vehicles live within a disc of this radius. */
export const FLEET_CENTRE = { lat: 52.5219, lng: 13.4132 } as const;
export const FLEET_RADIUS_METRES = 8000;
/** The agency's time zone. */
export const CITY_TIME_ZONE = 'Europe/Berlin';

const METRES_PER_DEGREE = 111_320;

/** One area of the agency's Geography API (MDS geography/README.md): what monthly reports count trips by. */
export interface CityGeography {
  geography_id: string;
  name: string;
}

/** The agency's geographies: ten districts of Berlin (world/cityDistricts.ts), which tile the fleet's area. */
export const CITY_GEOGRAPHIES: readonly CityGeography[] = districtGeographies().map(({ geography_id, name }) => ({
  geography_id,
  name,
}));

/** The geographies a point lies in (reports count a trip in each geography it starts in): one, or two on a border. */
export function geographiesOf(location: { lat: number; lng: number }): CityGeography[] {
  return districtIndex()
    .containing(location.lng, location.lat)
    .map((i) => CITY_GEOGRAPHIES[i]);
}

/** The first geography a point lies in. */
export function geographyOf(location: { lat: number; lng: number }): CityGeography {
  const [first] = geographiesOf(location);
  if (!first) throw new Error(`${location.lat},${location.lng} lies outside the sandbox's districts`);
  return first;
}

export const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/** A point uniformly spread over a disc. */
export function locationNear(
  random: () => number,
  centre: { lat: number; lng: number },
  radiusMetres: number,
): MdsLocation {
  const r = radiusMetres * Math.sqrt(random());
  const angle = random() * 2 * Math.PI;
  return offsetBy(centre, r * Math.cos(angle), r * Math.sin(angle));
}

/** `centre` moved `north` and `east` metres. */
export function offsetBy(centre: { lat: number; lng: number }, north: number, east: number): MdsLocation {
  const dLat = north / METRES_PER_DEGREE;
  const dLng = east / (METRES_PER_DEGREE * Math.cos((centre.lat * Math.PI) / 180));
  return { lat: round6(centre.lat + dLat), lng: round6(centre.lng + dLng) };
}

/** Distance in metres (equirectangular: exact enough within one city). */
export function distanceMetres(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const north = (b.lat - a.lat) * METRES_PER_DEGREE;
  const east = (b.lng - a.lng) * METRES_PER_DEGREE * Math.cos((((a.lat + b.lat) / 2) * Math.PI) / 180);
  return Math.hypot(north, east);
}

/** Heading in degrees clockwise from north, from `a` towards `b`. */
export function headingDegrees(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const north = b.lat - a.lat;
  const east = (b.lng - a.lng) * Math.cos((a.lat * Math.PI) / 180);
  const deg = (Math.atan2(east, north) * 180) / Math.PI;
  return Math.round(((deg + 360) % 360) * 10) / 10;
}

/** The point a fraction `f` of the way from `a` to `b`. */
export function between(a: { lat: number; lng: number }, b: { lat: number; lng: number }, f: number): MdsLocation {
  return { lat: round6(a.lat + (b.lat - a.lat) * f), lng: round6(a.lng + (b.lng - a.lng) * f) };
}

const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: CITY_TIME_ZONE, timeZoneName: 'longOffset' });
const offsetCache = new Map<number, number>();

/** The city's offset from UTC at `ms`, in ms (Berlin: one hour in winter, two in summer). */
export function cityOffsetMs(ms: number): number {
  const hourIndex = Math.floor(ms / 3_600_000);
  const cached = offsetCache.get(hourIndex);
  if (cached !== undefined) return cached;
  const name =
    offsetFormat.formatToParts(new Date(hourIndex * 3_600_000)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  const offset = match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) * 60_000 : 0;
  // Offsets change twice a year; hours are few, but a long-running sandbox must not grow forever.
  if (offsetCache.size > 20_000) offsetCache.clear();
  offsetCache.set(hourIndex, offset);
  return offset;
}

/** The local hour of day (0..23) at `ms`. */
export function cityHourOf(ms: number): number {
  return new Date(ms + cityOffsetMs(ms)).getUTCHours();
}

/** The local day of week (0 Sunday .. 6 Saturday) at `ms`. */
export function cityWeekdayOf(ms: number): number {
  return new Date(ms + cityOffsetMs(ms)).getUTCDay();
}

/** The instant local midnight starts the first day of `year`-`month` (month 1..12). */
export function cityMonthStart(year: number, month: number): number {
  const wall = Date.UTC(year, month - 1, 1);
  // The offset just before local midnight is the one in force at it (changes happen at 02:00/03:00).
  return wall - cityOffsetMs(wall - 12 * 3_600_000);
}
