import { formatUtcHour, HOUR_MS, parseUtcHour, UTC_HOUR_FORMAT } from '../../core/mds';
import type { Reply } from '../routes/mdsResponses';
import { errorReply, JSON_CONTENT_TYPE } from '../routes/mdsResponses';
import { worldStartMs } from '../routes/timeWindows';
import type { SyntheticFleet } from '../world/syntheticFleet';

/** Where the sandbox lists the data faults of its world (`?from=<hour>&to=<hour>`). */
export const DATA_FAULTS_PATH = '/_sandbox/data-faults';
/** The most hours one data-faults listing covers (31 days). */
const DATA_FAULTS_MAX_HOURS = 744;

/** `GET /_sandbox/data-faults?from=<hour>&to=<hour>`: the data faults of those hours (both included), and of the snapshot now. */
export function dataFaultsReply(
  query: URLSearchParams,
  world: { fleet: SyntheticFleet; now: () => number; historyDays: number },
): Reply {
  const { fleet, now, historyDays } = world;
  const hours: number[] = [];
  for (const name of ['from', 'to']) {
    const text = query.get(name);
    if (text === null || text === '') {
      return errorReply(
        400,
        'missing_param',
        `${DATA_FAULTS_PATH} needs from and to: the first and last UTC hour to list, ${UTC_HOUR_FORMAT}, such as ?from=${formatUtcHour(now() - 7 * HOUR_MS)}&to=${formatUtcHour(now() - 2 * HOUR_MS)}.`,
        [name],
      );
    }
    const ms = parseUtcHour(text);
    if (ms === undefined)
      return errorReply(
        400,
        'bad_param',
        `${name} is ${JSON.stringify(text.slice(0, 40))}, which is not a UTC hour; write ${UTC_HOUR_FORMAT}, such as ${formatUtcHour(now() - 2 * HOUR_MS)}.`,
        [`${name}: ${text.slice(0, 40)}`],
      );
    hours.push(ms / HOUR_MS);
  }
  const [from, to] = hours as [number, number];
  if (to < from)
    return errorReply(
      400,
      'bad_param',
      `to ${formatUtcHour(to * HOUR_MS)} is before from ${formatUtcHour(from * HOUR_MS)}; give the earlier hour as from.`,
      [`from: ${formatUtcHour(from * HOUR_MS)}`, `to: ${formatUtcHour(to * HOUR_MS)}`],
    );
  if (to - from + 1 > DATA_FAULTS_MAX_HOURS)
    return errorReply(
      400,
      'bad_param',
      `from ${formatUtcHour(from * HOUR_MS)} to ${formatUtcHour(to * HOUR_MS)} is ${to - from + 1} hours; list at most ${DATA_FAULTS_MAX_HOURS} (31 days) at a time.`,
      [`hours: ${to - from + 1}`],
    );
  const nowMs = now();
  // Only hours the world serves: from its first hour to the current one.
  const first = Math.max(from, worldStartMs(nowMs, historyDays) / HOUR_MS);
  const last = Math.min(to, Math.floor(nowMs / HOUR_MS));
  return { status: 200, contentType: JSON_CONTENT_TYPE, body: fleet.world.faults?.list(first, last, nowMs) ?? [] };
}
