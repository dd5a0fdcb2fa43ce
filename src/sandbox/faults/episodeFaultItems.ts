/**
 * What each item fault of an episode (episodeFaults.ts) does to the episode's items: a trip event moved, an event sent
 * twice, telemetry thinned, values in other units, a phantom trip added, a transition the state machine forbids.
 */
import type { MdsEventItem, MdsLocation, MdsTelemetryItem, MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { offsetBy } from '../world/worldGeography';
import { worldUuid } from '../world/worldRandom';
import type { EpisodeFaultKind } from './episodeFaults';
import {
  BAD_TRANSITION_DELAY_MS,
  EVENT_SHIFT_MS,
  FAULT_SERIAL,
  GAP_FROM_MS,
  GAP_TO_MS,
  IMPLAUSIBLE_SPEED,
  JUMP_METRES,
} from './episodeFaults';
import { applyTripFault, isTripFaultKind } from './tripFaults';

/** A copy of an event that a fault can change without changing the shared, cached one. */
const copyEvent = (e: MdsEventItem): MdsEventItem => ({
  ...e,
  location: { ...e.location },
  event_types: [...e.event_types],
  ...(e.trip_ids ? { trip_ids: [...e.trip_ids] } : {}),
});

/** The items of an episode with the fault `choice` chose for it; `items` (shared, cached) is never changed. */
export function applyEpisodeFault(
  choice: { kind: EpisodeFaultKind; target: string },
  seed: number,
  plan: EpisodePlan,
  items: EpisodeItems,
): EpisodeItems {
  const out: EpisodeItems = {
    events: [...items.events],
    telemetry: [...items.telemetry],
    trips: [...items.trips],
    endBattery: items.endBattery,
  };
  const tripIndex = out.trips.findIndex((t) => t.trip_id === choice.target);
  const trip = out.trips[tripIndex];
  if (isTripFaultKind(choice.kind)) return applyTripFault(choice.kind, choice.target, out);
  const eventIndex = (types: string, tripId: string) =>
    out.events.findIndex((e) => e.event_types.includes(types) && e.trip_ids?.[0] === tripId);
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
      out.telemetry = out.telemetry.filter(
        (p) =>
          p.trip_ids?.[0] !== choice.target ||
          p.timestamp - trip.start_time <= GAP_FROM_MS ||
          p.timestamp - trip.start_time >= GAP_TO_MS,
      );
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
      moveEvent(
        out.events.findIndex((e) => e.event_id === choice.target),
        (e) => (e.battery_percent = (e.battery_percent ?? 0) * 10),
      );
      break;
    case 'duplicate': {
      const i = out.events.findIndex((e) => e.event_id === choice.target);
      out.events.splice(i + 1, 0, {
        ...copyEvent(out.events[i]),
        event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL),
      });
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
      const restored: MdsEventItem = {
        ...copyEvent(out.events[end]),
        event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL),
        event_types: ['comms_restored'],
        vehicle_state: 'available',
        timestamp: out.events[end].timestamp + BAD_TRANSITION_DELAY_MS,
      };
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
  const event = (
    serial: number,
    timestamp: number,
    state: MdsEventItem['vehicle_state'],
    type: string,
    at: MdsLocation,
  ): MdsEventItem => ({
    ...copyEvent(endEvent),
    event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL + serial),
    vehicle_state: state,
    event_types: [type],
    timestamp,
    location: { lat: at.lat, lng: at.lng },
    trip_ids: [tripId],
  });
  out.events.splice(
    endIndex + 1,
    0,
    event(1, startMs, 'on_trip', 'trip_start', from),
    event(2, endMs, 'available', 'trip_end', to),
  );
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
  const phantom: MdsTrip = {
    ...before,
    trip_id: tripId,
    start_time: startMs,
    end_time: endMs,
    start_location: { ...from },
    end_location: { lat: to.lat, lng: to.lng },
    duration: 25,
    distance: 15,
    standard_cost: 125,
    actual_cost: 125,
  };
  out.trips.splice(out.trips.indexOf(before) + 1, 0, phantom);
}
