/**
 * The late hour of issue 39's publication-late rule (`sandbox --data-faults`): each day the hour of 22 h Berlin is
 * processed 30 h after it ended. MDS 2.0.2 (data-types.md, Events and Trips) has `publication_time` as when an item
 * "became available" through its endpoint, and provider/README.md answers 202 for "hours that are in the past but for
 * which data is not yet available": so until then the hour's endpoints answer 202, and afterwards its events and trips
 * carry that publication_time, 30 h after the hour (more than check's publicationP95Hours, 24 h).
 *
 * No episode crosses the hour's edges (as around the outage and 202 hours), so that the hours around it stay whole
 * while it is not published; what happens inside it is served whole once it is.
 */
import type { MdsEventItem, MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import { HOUR_MS } from '../world/episodePlans';
import { cityHourOf } from '../world/worldGeography';
import type { DataFaultEntry } from './faultRules';

const LATE_LOCAL_HOUR = 22;
/** How long after the hour ended its items are published. */
const LATE_MS = 30 * HOUR_MS;
/** check's pendingHours. */
const PENDING_MS = 24 * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();

export const isLateHour = (hour: number): boolean => cityHourOf(hour * HOUR_MS) === LATE_LOCAL_HOUR;
export const publishedAt = (hour: number): number => (hour + 1) * HOUR_MS + LATE_MS;

/** Whether an episode from `startMs` to `endMs` crosses the edge of a late hour. */
export function crossesLateHour(startMs: number, endMs: number): boolean {
  const first = Math.floor(startMs / HOUR_MS);
  const last = Math.floor(endMs / HOUR_MS);
  for (let h = first; h <= last; h++) if (isLateHour(h) && (first !== h || last !== h)) return true;
  return false;
}

/** The items of an episode of a late hour, with their publication_time. */
export function stampLate(hour: number, items: EpisodeItems): EpisodeItems {
  const at = publishedAt(hour);
  return {
    ...items,
    events: items.events.map((e) => ({ ...e, publication_time: at }) as MdsEventItem),
    trips: items.trips.map((t) => ({ ...t, publication_time: at }) as MdsTrip),
  };
}

/**
 * The entries of a late hour a harvest asking at `nowMs` meets: once published, publication-late for its events and
 * trips (at the hour, on the device of the earliest item, whose latency is the largest); before, the hour stays 202
 * (hour-coverage, and hour-pending-long from 24 h after it ended), and publication-late says when it can be seen.
 */
export function lateHourEntries(
  hour: number,
  nowMs: number,
  items: { events: MdsEventItem[]; trips: MdsTrip[] },
): DataFaultEntry[] {
  const start = iso(hour * HOUR_MS);
  const at = publishedAt(hour);
  const end = (hour + 1) * HOUR_MS;
  if (nowMs < end) return [];
  const entry = (what: string, device: string | null, trip: string | null): DataFaultEntry => ({
    rule: 'publication-late',
    device_id: device,
    trip_id: trip,
    time: start,
    detail: `${what} of this hour are published at ${iso(at)}, ${LATE_MS / HOUR_MS} h after it ended (the hour answers 202 until then)`,
  });
  const first = [...items.events].sort((a, b) => a.timestamp - b.timestamp)[0];
  const firstTrip = [...items.trips].sort((a, b) => a.end_time - b.end_time)[0];
  const late = [
    ...(first ? [entry('the events', first.device_id, first.trip_ids?.[0] ?? null)] : []),
    ...(firstTrip ? [entry('the trips', firstTrip.device_id, firstTrip.trip_id)] : []),
  ];
  if (nowMs >= at) return late;
  const out: DataFaultEntry[] = [
    {
      rule: 'hour-coverage',
      device_id: null,
      trip_id: null,
      time: start,
      detail: `an hour published late: /trips, /events/historical and /telemetry answer 202 for it until ${iso(at)} (the publication-late fault)`,
    },
    ...late.map((e) => ({
      ...e,
      unseen: `the hour is published at ${iso(at)}: a harvest before then gets 202 for it`,
    })),
  ];
  if (nowMs - end > PENDING_MS)
    out.push({
      rule: 'hour-pending-long',
      device_id: null,
      trip_id: null,
      time: start,
      detail: `an hour published late still answers 202 ${((nowMs - end) / HOUR_MS).toFixed(1)} h after it ended (the publication-late fault)`,
    });
  return out;
}
