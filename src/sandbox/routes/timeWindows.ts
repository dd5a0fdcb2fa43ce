/**
 * The time rules of the MDS 2.0 Provider endpoints (provider/README.md): which hours an hour
 * endpoint serves and how it answers the others, and the window of `/events/recent`.
 */
import type { MdsHourEndpointId } from '../../core/mds';
import { HOUR_MS, UTC_HOUR_FORMAT, floorToUtcHour, formatUtcHour, parseUtcHour } from '../../core/mds';
import type { Reply } from './mdsResponses';
import { errorReply } from './mdsResponses';

const DAY_MS = 24 * HOUR_MS;
/** `/events/recent` reaches back at most two weeks (provider/README.md, Recent Events). */
export const RECENT_EVENTS_MAX_AGE_MS = 14 * DAY_MS;

/** The hour parameter of each hour endpoint. */
export const HOUR_PARAMETER: Readonly<Record<MdsHourEndpointId, string>> = {
  trips: 'end_time',
  telemetry: 'telemetry_time',
  events_historical: 'event_time',
};

/** The first moment the world serves: midnight UTC, `historyDays` days before the day of `nowMs`. */
export function worldStartMs(nowMs: number, historyDays: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - historyDays * DAY_MS;
}

/** A parsed hour request, or the reply that ends it. */
export type HourRequest = { ok: true; hourMs: number; hour: string } | { ok: false; reply: Reply };

/** Reads the hour parameter: 400 when it is missing or not a real UTC hour. */
export function readHour(endpoint: MdsHourEndpointId, query: URLSearchParams): HourRequest {
  const name = HOUR_PARAMETER[endpoint];
  const text = query.get(name);
  if (text === null || text === '') {
    return {
      ok: false,
      reply: errorReply(
        400,
        'missing_param',
        `The query parameter ${name} is required: the UTC hour to serve, ${UTC_HOUR_FORMAT}.`,
        [name],
      ),
    };
  }
  const hourMs = parseUtcHour(text);
  if (hourMs === undefined) {
    return {
      ok: false,
      reply: errorReply(
        400,
        'bad_param',
        `${name} is ${JSON.stringify(text.slice(0, 40))}, which is not a UTC hour; write ${UTC_HOUR_FORMAT}.`,
        [`${name}: ${text.slice(0, 40)}`],
      ),
    };
  }
  return { ok: true, hourMs, hour: formatUtcHour(hourMs) };
}

/**
 * Whether the world has processed `hourMs` at `nowMs`: undefined when it has (answer 200, even
 * with an empty list), else the reply: 202 for the current hour, 404 for a future hour or one
 * before the provider operated (provider/README.md, Trips - Responses).
 */
export function hourAvailability(
  endpoint: MdsHourEndpointId,
  hour: string,
  hourMs: number,
  nowMs: number,
  startMs: number,
): Reply | undefined {
  const name = HOUR_PARAMETER[endpoint];
  const current = floorToUtcHour(nowMs);
  if (hourMs > current) {
    return errorReply(
      404,
      'not_found',
      `${name} ${hour} is not in the past yet; the latest complete hour is ${formatUtcHour(current - HOUR_MS)}.`,
      [`${name}: ${hour}`, `now: ${new Date(nowMs).toISOString()}`],
    );
  }
  if (hourMs === current) {
    const retryAfter = Math.max(1, Math.ceil((current + HOUR_MS - nowMs) / 1000));
    return errorReply(
      202,
      'not_ready',
      `${name} ${hour} is the current hour; it is processed once it has ended. Retry after ${retryAfter} s.`,
      [`${name}: ${hour}`, `retry after: ${retryAfter} s`],
      { 'Retry-After': String(retryAfter) },
    );
  }
  if (hourMs < startMs) {
    return errorReply(
      404,
      'not_found',
      `${name} ${hour} is before the provider operated; the first hour served is ${formatUtcHour(startMs)}.`,
      [`${name}: ${hour}`, `first hour: ${formatUtcHour(startMs)}`],
    );
  }
  return undefined;
}

/** A parsed `/events/recent` window [startMs, endMs), clamped to now, or the reply that ends it. */
export type RecentWindow = { ok: true; startMs: number; endMs: number } | { ok: false; reply: Reply };

const MS_TEXT = /^\d{1,15}$/;

/** Reads `start_time` and `end_time` (ms since the epoch) of `/events/recent`. */
export function readRecentWindow(query: URLSearchParams, nowMs: number): RecentWindow {
  const missing = ['start_time', 'end_time'].filter((name) => !query.get(name));
  if (missing.length > 0) {
    return {
      ok: false,
      reply: errorReply(
        400,
        'missing_param',
        `/events/recent needs ${missing.join(' and ')}: milliseconds since the epoch, at most two weeks back.`,
        missing,
      ),
    };
  }
  const values: number[] = [];
  for (const name of ['start_time', 'end_time']) {
    const text = query.get(name) ?? '';
    if (!MS_TEXT.test(text)) {
      return {
        ok: false,
        reply: errorReply(
          400,
          'bad_param',
          `${name} is ${JSON.stringify(text.slice(0, 40))}; write milliseconds since the epoch, such as ${nowMs - HOUR_MS}.`,
          [`${name}: ${text.slice(0, 40)}`],
        ),
      };
    }
    values.push(Number(text));
  }
  const [startMs, endMs] = values as [number, number];
  if (endMs < startMs) {
    return {
      ok: false,
      reply: errorReply(400, 'bad_param', `end_time ${endMs} is before start_time ${startMs}.`, [
        `start_time: ${startMs}`,
        `end_time: ${endMs}`,
      ]),
    };
  }
  const oldest = nowMs - RECENT_EVENTS_MAX_AGE_MS;
  if (startMs < oldest) {
    return {
      ok: false,
      reply: errorReply(
        400,
        'bad_param',
        `start_time ${startMs} (${new Date(startMs).toISOString()}) is more than two weeks before now; /events/recent reaches back to ${oldest} (${new Date(oldest).toISOString()}). Use /events/historical for older hours.`,
        [`start_time: ${startMs}`, `oldest allowed: ${oldest}`],
      ),
    };
  }
  // Events after now have not happened yet.
  return { ok: true, startMs, endMs: Math.min(endMs, nowMs + 1) };
}
