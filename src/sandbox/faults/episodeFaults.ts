/**
 * The item faults of one episode (`sandbox --data-faults`): which kinds fit an episode's items and the listing entry
 * that says what each does to them (episodeFaultItems.ts does it). Each changes only its own episode's items, so that
 * it is found by its rule and by no other.
 */
import type { MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { HOUR_MS, MINUTE_MS } from '../world/episodePlans';
import { worldUuid } from '../world/worldRandom';
import type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
import type { TripFaultKind } from './tripFaults';
import { TRIP_FAULT_KINDS, describeTripFault, isTripFaultKind } from './tripFaults';

export type EpisodeFaultKind =
  | 'early-start'
  | 'late-end'
  | 'never-ended'
  | 'duplicate'
  | 'one-point'
  | 'gap'
  | 'jump'
  | 'battery'
  | 'speed'
  | 'negative-cost'
  | 'phantom'
  | 'bad-transition'
  | TripFaultKind;
export type BeatFaultKind = 'seconds' | 'swapped' | 'drift';

export const EPISODE_KINDS: readonly (readonly [EpisodeFaultKind, DataFaultRule])[] = [
  ['jump', 'teleport'],
  ['phantom', 'phantom-trips'],
  ['early-start', 'trip-events'],
  ['late-end', 'trip-events'],
  ['never-ended', 'trip-events'],
  ['duplicate', 'duplicate-events'],
  ['one-point', 'telemetry-gaps'],
  ['gap', 'telemetry-gaps'],
  ['battery', 'units'],
  ['speed', 'units'],
  ['negative-cost', 'units'],
  ...TRIP_FAULT_KINDS,
  // Last: it fits most episodes with a trip, so it takes a vehicle the others left.
  ['bad-transition', 'event-sequence'],
];
export const BEAT_KINDS: readonly (readonly [BeatFaultKind, DataFaultRule])[] = [
  ['seconds', 'units'],
  ['swapped', 'units'],
  ['drift', 'idle-drift'],
];

/** How far a trip event is moved from its trip's time (check allows 60 s; episodes keep 120 s apart). */
export const EVENT_SHIFT_MS = 90_000;
/** How far the jump moves a vehicle with no trip (check's teleport threshold is 500 m). */
export const JUMP_METRES = 800;
/** A speed no micromobility vehicle reaches, in m/s (check's threshold is 45). */
export const IMPLAUSIBLE_SPEED = 60;
/** Telemetry of a gap fault: the points after the first minute and before 7.5 minutes are dropped (a gap of 390 s). */
export const GAP_FROM_MS = 60_000;
export const GAP_TO_MS = 450_000;
/** Serials of the items a fault adds, far above an episode's own (worldUuid takes serials below 4096). */
export const FAULT_SERIAL = 4000;

export const iso = (ms: number) => new Date(ms).toISOString();
/** How long after a trip_end the bad transition's comms_restored comes. */
export const BAD_TRANSITION_DELAY_MS = 30_000;

/** Whether `kind` fits this episode's items, and the listing entry of the fault it would get. */
export function describeEpisodeFault(
  world: FaultWorld,
  kind: EpisodeFaultKind,
  rule: DataFaultRule,
  episode: EpisodePlan,
  items: EpisodeItems,
): { target: string; entry: DataFaultEntry; also?: DataFaultEntry } | undefined {
  const h0 = episode.hour * HOUR_MS;
  const h1 = h0 + HOUR_MS;
  const { events, trips } = items;
  const device = world.deviceIdAt(episode.vehicle);
  const entry = (time: number, detail: string, trip: string | null = null): DataFaultEntry => ({
    rule,
    device_id: device,
    trip_id: trip,
    time: iso(time),
    detail,
  });
  // Trips that begin and end inside the hour, with room for a shift on either side.
  const inHour = trips.filter((t) => t.start_time >= h0 + 2 * MINUTE_MS && t.end_time + 2 * MINUTE_MS < h1);
  const startIndex = (t: MdsTrip) =>
    events.findIndex((e) => e.event_types.includes('trip_start') && e.trip_ids?.[0] === t.trip_id);
  const endIndex = (t: MdsTrip) =>
    events.findIndex((e) => e.event_types.includes('trip_end') && e.trip_ids?.[0] === t.trip_id);
  if (isTripFaultKind(kind)) return describeTripFault(kind, inHour, items, entry);
  switch (kind) {
    case 'early-start': {
      const t = inHour.find((trip) => events[startIndex(trip) - 1]?.event_types[0] !== 'reservation_start');
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.start_time,
            `the trip_start event is ${EVENT_SHIFT_MS / 1000} s before the trip's start_time`,
            t.trip_id,
          ),
        }
      );
    }
    case 'late-end': {
      const t = inHour[0];
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.end_time,
            `the trip_end event is ${EVENT_SHIFT_MS / 1000} s after the trip's end_time`,
            t.trip_id,
          ),
        }
      );
    }
    case 'never-ended': {
      // A trip followed by another event of the device in the episode: that event, from on_trip, also breaks the state
      // machine, and is listed as an event-sequence fault of its own (one, as the machine goes on from its state).
      const t = inHour.find((trip) => events[endIndex(trip) + 1] !== undefined);
      const next = t && events[endIndex(t) + 1];
      return (
        t &&
        next && {
          target: t.trip_id,
          entry: entry(
            t.start_time,
            'a trip_start never followed by its trip_end (the trip is missing from /trips too; its next event also breaks the state machine)',
            t.trip_id,
          ),
          also: {
            rule: 'event-sequence',
            device_id: device,
            trip_id: next.trip_ids?.[0] ?? null,
            time: iso(next.timestamp),
            detail: `the ${next.event_types.join(', ')} after a trip_start never ended: on_trip -> ${next.vehicle_state} (a consequence of the trip-events fault)`,
          },
        }
      );
    }
    case 'one-point': {
      const t = inHour[0];
      return (
        t && { target: t.trip_id, entry: entry(t.start_time, 'a trip with one telemetry point, its start', t.trip_id) }
      );
    }
    case 'gap': {
      const t = inHour[0];
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.start_time + GAP_FROM_MS,
            `no telemetry for ${(GAP_TO_MS - GAP_FROM_MS) / 1000} s inside the trip`,
            t.trip_id,
          ),
        }
      );
    }
    case 'negative-cost': {
      const t = inHour.find((trip) => (trip.actual_cost ?? 0) > 0);
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.start_time,
            `a negative actual_cost: ${-(t.actual_cost ?? 0)} (schema finding: below the minimum 0)`,
            t.trip_id,
          ),
        }
      );
    }
    case 'speed': {
      const t = inHour[0];
      const point =
        t &&
        items.telemetry.find(
          (p) => p.trip_ids?.[0] === t.trip_id && p.timestamp > t.start_time && p.timestamp < t.end_time,
        );
      return (
        t &&
        point && {
          target: point.telemetry_id,
          entry: entry(point.timestamp, `a telemetry speed of ${IMPLAUSIBLE_SPEED} m/s`, t.trip_id),
        }
      );
    }
    case 'battery': {
      const e = inHour
        .map((t) => events[startIndex(t)])
        .find((ev) => ev?.battery_percent !== undefined && ev.battery_percent > 10);
      return (
        e && {
          target: e.event_id,
          entry: entry(
            e.timestamp,
            `battery_percent ${(e.battery_percent ?? 0) * 10}: per mille, not percent (schema finding: above the maximum 100)`,
          ),
        }
      );
    }
    case 'duplicate': {
      const e = events.find((ev) => ev.timestamp >= h0 && ev.timestamp < h1 - MINUTE_MS);
      return (
        e && {
          target: e.event_id,
          entry: entry(e.timestamp, `the event ${e.event_types.join(', ')} sent twice, under two event_ids`),
        }
      );
    }
    case 'jump': {
      // A trip_start moved away from the event before it (a reservation_start, or the ride before: in the same episode).
      for (const t of inHour) {
        const start = startIndex(t);
        const before = events[start - 1];
        if (start >= 1 && before && before.timestamp >= h0)
          return {
            target: t.trip_id,
            entry: entry(
              events[start].timestamp,
              `the trip_start is ${JUMP_METRES} m from the vehicle's last known location, with no trip between`,
            ),
          };
      }
      return undefined;
    }
    case 'phantom': {
      for (const t of trips) {
        const end = endIndex(t);
        const next = events[end + 1];
        const endMs = t.end_time;
        // After the episode's last trip too: the next episode starts at least two minutes after this one ends.
        if (end >= 0 && (!next || next.timestamp >= endMs + 150_000) && endMs >= h0 && endMs + 100_000 < h1) {
          return {
            target: t.trip_id,
            entry: entry(
              endMs + 60_000,
              'a phantom trip of 25 s and 15 m',
              worldUuid(world.seed, 'trip', episode.vehicle, episode.hour, FAULT_SERIAL),
            ),
          };
        }
      }
      return undefined;
    }
    case 'bad-transition': {
      // A comms_restored added 30 s after a trip_end that leaves the vehicle available: the trip_end is in the same hour,
      // so any harvest holding the hour holds the state it leaves; the vehicle's next event comes later, from available.
      for (const t of inHour) {
        const end = events[endIndex(t)];
        const next = events[endIndex(t) + 1];
        if (
          end?.vehicle_state === 'available' &&
          (!next || next.timestamp > end.timestamp + 2 * BAD_TRANSITION_DELAY_MS)
        ) {
          return {
            target: t.trip_id,
            entry: entry(
              end.timestamp + BAD_TRANSITION_DELAY_MS,
              'comms_restored while available, 30 s after a trip_end (the state machine allows it only from non_contactable)',
            ),
          };
        }
      }
      return undefined;
    }
  }
}
