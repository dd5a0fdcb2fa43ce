/**
 * UTC hours as MDS 2.0 writes them in `end_time`, `telemetry_time` and `event_time`:
 * `YYYY-MM-DDTHH` (data-types.md, "ISO 8601 day and hour"). One hour is the unit of the hour
 * endpoints and of harvesting.
 */

const HOUR_MS = 3_600_000;
const UTC_HOUR = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/;

/** The format, as shown to users in messages. */
export const UTC_HOUR_FORMAT = 'YYYY-MM-DDTHH (UTC), for example 2024-11-05T14';

/**
 * The start of the hour in ms since the epoch, or undefined when `text` is not a real UTC hour
 * (wrong shape, month 13, 30 February, hour 24...).
 */
export function parseUtcHour(text: string): number | undefined {
  const match = UTC_HOUR.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour] = match.slice(1).map(Number) as [number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour);
  const back = new Date(ms);
  // Date.UTC rolls 30 February over into March: refuse instead of guessing.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return undefined;
  return ms;
}

/** `YYYY-MM-DDTHH` of the UTC hour that contains `ms`. */
export function formatUtcHour(ms: number): string {
  return new Date(floorToUtcHour(ms)).toISOString().slice(0, 13);
}

/** The start of the UTC hour that contains `ms`. */
export function floorToUtcHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** The last hour that has ended at `nowMs`: the hour before the current one. */
export function lastCompleteUtcHour(nowMs: number): string {
  return formatUtcHour(floorToUtcHour(nowMs) - HOUR_MS);
}

/**
 * Every hour from `from` to `to`, both included, as `YYYY-MM-DDTHH`. Empty when `to` is before
 * `from`. Callers parse and check both ends first.
 */
export function utcHoursBetween(fromMs: number, toMs: number): string[] {
  const hours: string[] = [];
  for (let t = floorToUtcHour(fromMs); t <= toMs; t += HOUR_MS) hours.push(formatUtcHour(t));
  return hours;
}

export { HOUR_MS };
