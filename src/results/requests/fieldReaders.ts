// Tolerant field readers shared by the item readers: a field of the wrong type reads as '' or NaN,
// never as an exception, and a string from a server is cut to a length a table cell can hold.
import { isRecord } from '../../shared/isRecord';

/** Longest text a cell keeps: a 10 MB id is a hostile server, not something to show or export whole. */
export const MAX_CELL_CHARS = 1024;

/** A string or finite number as text ('' otherwise), at most MAX_CELL_CHARS characters. */
export function readText(value: unknown): string {
  const text =
    typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
}

/** A finite number, NaN otherwise. */
export function readNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : NaN;
}

/** Milliseconds from a number (ms) or an ISO date string, NaN otherwise. */
export function readTime(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.length <= 64) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? NaN : t;
  }
  return NaN;
}

/** A list of strings (`event_types`, `trip_ids`) as `a, b`; a lone string is taken as is. */
export function readList(value: unknown, maxItems = 20): string {
  if (!Array.isArray(value)) return readText(value);
  const parts: string[] = [];
  for (const v of value.slice(0, maxItems)) {
    const text = readText(v);
    if (text) parts.push(text);
  }
  return readText(`${parts.join(', ')}${value.length > maxItems ? ', …' : ''}`);
}

/** A WGS 84 position (`{ lat, lng }`, also `lon`), NaN for both when absent or out of range. */
export function readPosition(value: unknown): { lat: number; lng: number } {
  if (!isRecord(value)) return { lat: NaN, lng: NaN };
  const lat = readNumber(value.lat);
  const lng = readNumber(value.lng ?? value.lon);
  return lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180 ? { lat, lng } : { lat: NaN, lng: NaN };
}

/** The sum of a count per vehicle type (`{ scooter_standing: 3, bicycle: 1 }`), NaN when none is given. */
export function readTypeCounts(value: unknown): number {
  if (!isRecord(value)) return readNumber(value);
  let sum = NaN;
  for (const v of Object.values(value)) {
    const n = readNumber(v);
    if (!Number.isNaN(n)) sum = Number.isNaN(sum) ? n : sum + n;
  }
  return sum;
}
