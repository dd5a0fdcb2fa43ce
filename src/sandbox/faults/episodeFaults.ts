/**
 * The item faults of one episode (`sandbox --data-faults`): which kinds fit an episode's items, what each does to
 * them, and the listing entry that says so. Each changes only its own episode's items, so that it is found by its rule
 * and by no other.
 */
import type { MdsEventItem, MdsLocation, MdsTelemetryItem, MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { HOUR_MS, MINUTE_MS } from '../world/episodePlans';
import { offsetBy } from '../world/worldGeography';
import { worldUuid } from '../world/worldRandom';
import type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
import type { TripFaultKind } from './tripFaults';
import { TRIP_FAULT_KINDS, applyTripFault, describeTripFault, isTripFaultKind } from './tripFaults';

export type EpisodeFaultKind = 'early-start' | 'late-end' | 'never-ended' | 'duplicate' | 'one-point' | 'gap' | 'jump' | 'battery' | 'speed' | 'negative-cost' | 'phantom' | 'bad-transition' | TripFaultKind;
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
const EVENT_SHIFT_MS = 90_000;
/** How far the jump moves a vehicle with no trip (check's teleport threshold is 500 m). */
const JUMP_METRES = 800;
/** A speed no micromobility vehicle reaches, in m/s (check's threshold is 45). */
const IMPLAUSIBLE_SPEED = 60;
/** Telemetry of a gap fault: the points after the first minute and before 7.5 minutes are dropped (a gap of 390 s). */
const GAP_FROM_MS = 60_000;
const GAP_TO_MS = 450_000;
/** Serials of the items a fault adds, far above an episode's own (worldUuid takes serials below 4096). */
const FAULT_SERIAL = 4000;

export const iso = (ms: number) => new Date(ms).toISOString();
const copyEvent = (e: MdsEventItem): MdsEventItem => ({ ...e, location: { ...e.location }, event_types: [...e.event_types], ...(e.trip_ids ? { trip_ids: [...e.trip_ids] } : {}) });
/** How long after a trip_end the bad transition's comms_restored comes. */
const BAD_TRANSITION_DELAY_MS = 30_000;

/** Whether `kind` fits this episode's items, and the listing entry of the fault it would get. */
export function describeEpisodeFault(world: FaultWorld, kind: EpisodeFaultKind, rule: DataFaultRule, episode: EpisodePlan, items: EpisodeItems): { target: string; entry: DataFaultEntry; also?: DataFaultEntry } | undefined {
  const h0 = episode.hour * HOUR_MS;
  const h1 = h0 + HOUR_MS;
  const { events, trips } = items;
  const device = world.deviceIdAt(episode.vehicle);
  const entry = (time: number, detail: string, trip: string | null = null): DataFaultEntry => ({ rule, device_id: device, trip_id: trip, time: iso(time), detail });
  // Trips that begin and end inside the hour, with room for a shift on either side.
  const inHour = trips.filter((t) => t.start_time >= h0 + 2 * MINUTE_MS && t.end_time + 2 * MINUTE_MS < h1);
  const startIndex = (t: MdsTrip) => events.findIndex((e) => e.event_types.includes('trip_start') && e.trip_ids?.[0] === t.trip_id);
  const endIndex = (t: MdsTrip) => events.findIndex((e) => e.event_types.includes('trip_end') && e.trip_ids?.[0] === t.trip_id);
  if (isTripFaultKind(kind)) return describeTripFault(kind, inHour, items, entry);
  switch (kind) {
    case 'early-start': {
      const t = inHour.find((trip) => events[startIndex(trip) - 1]?.event_types[0] !== 'reservation_start');
      return t && { target: t.trip_id, entry: entry(t.start_time, `the trip_start event is ${EVENT_SHIFT_MS / 1000} s before the trip's start_time`, t.trip_id) };
    }
    case 'late-end': {
      const t = inHour[0];
      return t && { target: t.trip_id, entry: entry(t.end_time, `the trip_end event is ${EVENT_SHIFT_MS / 1000} s after the trip's end_time`, t.trip_id) };
    }
    case 'never-ended': {
      // A trip followed by another event of the device in the episode: that event, from on_trip, also breaks the state
      // machine, and is listed as an event-sequence fault of its own (one, as the machine goes on from its state).
      const t = inHour.find((trip) => events[endIndex(trip) + 1] !== undefined);
      const next = t && events[endIndex(t) + 1];
      return t && next && {
        target: t.trip_id,
        entry: entry(t.start_time, 'a trip_start never followed by its trip_end (the trip is missing from /trips too; its next event also breaks the state machine)', t.trip_id),
        also: { rule: 'event-sequence', device_id: device, trip_id: next.trip_ids?.[0] ?? null, time: iso(next.timestamp), detail: `the ${next.event_types.join(', ')} after a trip_start never ended: on_trip -> ${next.vehicle_state} (a consequence of the trip-events fault)` },
      };
    }
    case 'one-point': {
      const t = inHour[0];
      return t && { target: t.trip_id, entry: entry(t.start_time, 'a trip with one telemetry point, its start', t.trip_id) };
    }
    case 'gap': {
      const t = inHour[0];
      return t && { target: t.trip_id, entry: entry(t.start_time + GAP_FROM_MS, `no telemetry for ${(GAP_TO_MS - GAP_FROM_MS) / 1000} s inside the trip`, t.trip_id) };
    }
    case 'negative-cost': {
      const t = inHour.find((trip) => (trip.actual_cost ?? 0) > 0);
      return t && { target: t.trip_id, entry: entry(t.start_time, `a negative actual_cost: ${-(t.actual_cost ?? 0)} (schema finding: below the minimum 0)`, t.trip_id) };
    }
    case 'speed': {
      const t = inHour[0];
      const point = t && items.telemetry.find((p) => p.trip_ids?.[0] === t.trip_id && p.timestamp > t.start_time && p.timestamp < t.end_time);
      return t && point && { target: point.telemetry_id, entry: entry(point.timestamp, `a telemetry speed of ${IMPLAUSIBLE_SPEED} m/s`, t.trip_id) };
    }
    case 'battery': {
      const e = inHour.map((t) => events[startIndex(t)]).find((ev) => ev?.battery_percent !== undefined && ev.battery_percent > 10);
      return e && { target: e.event_id, entry: entry(e.timestamp, `battery_percent ${(e.battery_percent ?? 0) * 10}: per mille, not percent (schema finding: above the maximum 100)`) };
    }
    case 'duplicate': {
      const e = events.find((ev) => ev.timestamp >= h0 && ev.timestamp < h1 - MINUTE_MS);
      return e && { target: e.event_id, entry: entry(e.timestamp, `the event ${e.event_types.join(', ')} sent twice, under two event_ids`) };
    }
    case 'jump': {
      // A trip_start moved away from the event before it (a reservation_start, or the ride before: in the same episode).
      for (const t of inHour) {
        const start = startIndex(t);
        const before = events[start - 1];
        if (start >= 1 && before && before.timestamp >= h0) return { target: t.trip_id, entry: entry(events[start].timestamp, `the trip_start is ${JUMP_METRES} m from the vehicle's last known location, with no trip between`) };
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
          return { target: t.trip_id, entry: entry(endMs + 60_000, 'a phantom trip of 25 s and 15 m', worldUuid(world.seed, 'trip', episode.vehicle, episode.hour, FAULT_SERIAL)) };
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
        if (end?.vehicle_state === 'available' && (!next || next.timestamp > end.timestamp + 2 * BAD_TRANSITION_DELAY_MS)) {
          return { target: t.trip_id, entry: entry(end.timestamp + BAD_TRANSITION_DELAY_MS, 'comms_restored while available, 30 s after a trip_end (the state machine allows it only from non_contactable)') };
        }
      }
      return undefined;
    }
  }
}

/** The items of an episode with the fault `choice` chose for it; `items` (shared, cached) is never changed. */
export function applyEpisodeFault(choice: { kind: EpisodeFaultKind; target: string }, seed: number, plan: EpisodePlan, items: EpisodeItems): EpisodeItems {
  const out: EpisodeItems = { events: [...items.events], telemetry: [...items.telemetry], trips: [...items.trips], endBattery: items.endBattery };
  const tripIndex = out.trips.findIndex((t) => t.trip_id === choice.target);
  const trip = out.trips[tripIndex];
  if (isTripFaultKind(choice.kind)) return applyTripFault(choice.kind, choice.target, out);
  const eventIndex = (types: string, tripId: string) => out.events.findIndex((e) => e.event_types.includes(types) && e.trip_ids?.[0] === tripId);
  const moveEvent = (i: number, change: (e: MdsEventItem) => void) => {
    const e = copyEvent(out.events[i]);
    change(e);
    out.events[i] = e;
  };
  switch (choice.kind) {
    case 'early-start':
      moveEvent(eventIndex('trip_start', choice.target), (e) => (e.timestamp -= EVENT_SHIFT_MS));
      break;
    case 'late-end':
      moveEvent(eventIndex('trip_end', choice.target), (e) => (e.timestamp += EVENT_SHIFT_MS));
      break;
    case 'never-ended':
      out.events.splice(eventIndex('trip_end', choice.target), 1);
      out.trips.splice(tripIndex, 1);
      break;
    case 'one-point': {
      const first = out.telemetry.findIndex((p) => p.trip_ids?.[0] === choice.target);
      out.telemetry = out.telemetry.filter((p, i) => p.trip_ids?.[0] !== choice.target || i === first);
      break;
    }
    case 'gap':
      out.telemetry = out.telemetry.filter((p) => p.trip_ids?.[0] !== choice.target || p.timestamp - trip.start_time <= GAP_FROM_MS || p.timestamp - trip.start_time >= GAP_TO_MS);
      break;
    case 'negative-cost':
      out.trips[tripIndex] = { ...trip, actual_cost: -(trip.actual_cost ?? 0) };
      break;
    case 'speed': {
      const i = out.telemetry.findIndex((p) => p.telemetry_id === choice.target);
      out.telemetry[i] = { ...out.telemetry[i], location: { ...out.telemetry[i].location, speed: IMPLAUSIBLE_SPEED } };
      break;
    }
    case 'battery':
      moveEvent(out.events.findIndex((e) => e.event_id === choice.target), (e) => (e.battery_percent = (e.battery_percent ?? 0) * 10));
      break;
    case 'duplicate': {
      const i = out.events.findIndex((e) => e.event_id === choice.target);
      out.events.splice(i + 1, 0, { ...copyEvent(out.events[i]), event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL) });
      break;
    }
    case 'jump': {
      moveEvent(eventIndex('trip_start', choice.target), (e) => (e.location = offsetBy(e.location, JUMP_METRES, 0)));
      break;
    }
    case 'phantom':
      addPhantomTrip(out, seed, plan, trip, eventIndex('trip_end', choice.target));
      break;
    case 'bad-transition': {
      const end = eventIndex('trip_end', choice.target);
      const restored: MdsEventItem = { ...copyEvent(out.events[end]), event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL), event_types: ['comms_restored'], vehicle_state: 'available', timestamp: out.events[end].timestamp + BAD_TRANSITION_DELAY_MS };
      delete restored.trip_ids;
      out.events.splice(end + 1, 0, restored);
      break;
    }
  }
  return out;
}

/** Adds a phantom trip (25 s, 15 m: an unlock test) a minute after the trip that ends at `endIndex`, with its events and two telemetry points. */
function addPhantomTrip(out: EpisodeItems, seed: number, plan: EpisodePlan, before: MdsTrip, endIndex: number): void {
  const endEvent = out.events[endIndex];
  const tripId = worldUuid(seed, 'trip', plan.vehicle, plan.hour, FAULT_SERIAL);
  const startMs = before.end_time + 60_000;
  const endMs = startMs + 25_000;
  const from: MdsLocation = { lat: endEvent.location.lat, lng: endEvent.location.lng };
  const to = offsetBy(from, 15, 0);
  const event = (serial: number, timestamp: number, state: MdsEventItem['vehicle_state'], type: string, at: MdsLocation): MdsEventItem => ({
    ...copyEvent(endEvent),
    event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL + serial),
    vehicle_state: state,
    event_types: [type],
    timestamp,
    location: { lat: at.lat, lng: at.lng },
    trip_ids: [tripId],
  });
  out.events.splice(endIndex + 1, 0, event(1, startMs, 'on_trip', 'trip_start', from), event(2, endMs, 'available', 'trip_end', to));
  const point = (serial: number, timestamp: number, at: MdsLocation, speed: number): MdsTelemetryItem => {
    const p: MdsTelemetryItem = {
      device_id: endEvent.device_id,
      provider_id: endEvent.provider_id,
      telemetry_id: worldUuid(seed, 'telemetry', plan.vehicle, plan.hour, FAULT_SERIAL + serial),
      timestamp,
      trip_ids: [tripId],
      journey_id: null,
      location: { lat: at.lat, lng: at.lng, heading: 0, speed, horizontal_accuracy: 5 },
      location_type: 'street',
    };
    if (endEvent.battery_percent !== undefined) p.battery_percent = endEvent.battery_percent;
    return p;
  };
  const at = out.telemetry.findIndex((p) => p.timestamp > startMs);
  out.telemetry.splice(at < 0 ? out.telemetry.length : at, 0, point(1, startMs, from, 0.6), point(2, endMs, to, 0));
  const phantom: MdsTrip = { ...before, trip_id: tripId, start_time: startMs, end_time: endMs, start_location: { ...from }, end_location: { lat: to.lat, lng: to.lng }, duration: 25, distance: 15, standard_cost: 125, actual_cost: 125 };
  out.trips.splice(out.trips.indexOf(before) + 1, 0, phantom);
}
