/**
 * The MDS items of one episode: its events, its trips and the telemetry along them, given where
 * the vehicle stood when it began. Ids are UUIDs derived from (seed, vehicle, hour, serial).
 */
import type { MdsEventItem, MdsLocation, MdsTelemetryItem, MdsTrip } from '../../core/mds';
import type { EpisodePlan } from './episodePlans';
import { batteryAt } from './episodePlans';
import type { FleetVehicle } from './fleetVehicles';
import { between, distanceMetres, headingDegrees, offsetBy, round6 } from './worldGeography';
import { streamOf, worldUuid } from './worldRandom';

/** Seconds between two telemetry points of a trip. */
export const TRIP_TELEMETRY_INTERVAL_MS = 30_000;
/** Serial of the hourly idle telemetry point in its vehicle-hour; episodes use far fewer serials. */
export const HEARTBEAT_SERIAL = 4095;

/** Everything one episode produced, each list in time order. */
export interface EpisodeItems {
  events: MdsEventItem[];
  telemetry: MdsTelemetryItem[];
  trips: MdsTrip[];
  /** Battery at the end, for electric vehicles. */
  endBattery?: number;
}

interface Route {
  points: MdsLocation[];
  /** Cumulative length at each point, metres. */
  at: number[];
  length: number;
}

/** A route from `a` to `b` bent through one waypoint so that its length is about `target` metres. */
function routeBetween(a: MdsLocation, b: MdsLocation, target: number, side: 1 | -1): Route {
  const straight = distanceMetres(a, b);
  const mid = between(a, b, 0.5);
  let waypoint = mid;
  if (target > straight + 1) {
    const bend = Math.sqrt(Math.max(0, (target / 2) ** 2 - (straight / 2) ** 2));
    // Perpendicular to a-b; when a and b coincide, bend northwards (the ride was a loop).
    const north = straight < 1 ? 1 : (b.lng - a.lng) * Math.cos((a.lat * Math.PI) / 180);
    const east = straight < 1 ? 0 : -(b.lat - a.lat);
    const norm = Math.hypot(north, east) || 1;
    waypoint = offsetBy(mid, (side * bend * north) / norm, (side * bend * east) / norm);
  }
  const points = [a, waypoint, b];
  const first = distanceMetres(a, waypoint);
  const length = first + distanceMetres(waypoint, b);
  return { points, at: [0, first, length], length };
}

/** The point `metres` along the route, and the heading there. */
function alongRoute(route: Route, metres: number): { location: MdsLocation; heading: number } {
  const [a, w, b] = route.points as [MdsLocation, MdsLocation, MdsLocation];
  const first = route.at[1] ?? 0;
  if (metres <= first)
    return {
      location: between(a, w, first === 0 ? 0 : metres / first),
      heading: headingDegrees(a, w.lat === a.lat && w.lng === a.lng ? b : w),
    };
  const second = route.length - first;
  return { location: between(w, b, second === 0 ? 1 : (metres - first) / second), heading: headingDegrees(w, b) };
}

/** Builds the items of `plan` for a vehicle that stood at `start` when the episode began. */
export function episodeItems(
  seed: number,
  providerId: string,
  fleetVehicle: FleetVehicle,
  plan: EpisodePlan,
  start: MdsLocation,
): EpisodeItems {
  const random = streamOf(seed, 0xde, plan.vehicle, plan.hour);
  const deviceId = fleetVehicle.vehicle.device_id;
  const items: EpisodeItems = { events: [], telemetry: [], trips: [] };
  let eventSerial = 0;
  let telemetrySerial = 0;
  let location = start;
  let battery = fleetVehicle.electric ? batteryAt(seed, plan.vehicle, plan.startMs) : undefined;

  const accuracy = () => Math.round((3 + random() * 9) * 10) / 10;
  const point = (
    timestamp: number,
    at: MdsLocation,
    tripIds: string[] | null,
    extra: Partial<MdsLocation> = {},
  ): void => {
    const telemetry: MdsTelemetryItem = {
      device_id: deviceId,
      provider_id: providerId,
      telemetry_id: worldUuid(seed, 'telemetry', plan.vehicle, plan.hour, telemetrySerial++),
      timestamp,
      trip_ids: tripIds,
      journey_id: null,
      location: { lat: at.lat, lng: at.lng, ...extra, horizontal_accuracy: accuracy() },
      location_type: 'street',
    };
    if (battery !== undefined) telemetry.battery_percent = battery;
    items.telemetry.push(telemetry);
  };
  const event = (
    timestamp: number,
    state: MdsEventItem['vehicle_state'],
    types: string[],
    tripIds?: string[],
  ): void => {
    const e: MdsEventItem = {
      device_id: deviceId,
      provider_id: providerId,
      event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, eventSerial++),
      vehicle_state: state,
      event_types: types,
      timestamp,
      location: { lat: location.lat, lng: location.lng },
    };
    if (battery !== undefined) e.battery_percent = battery;
    if (tripIds) e.trip_ids = tripIds;
    items.events.push(e);
  };

  if (plan.kind === 'rides') {
    for (const ride of plan.rides) {
      if (ride.reserveAt !== undefined) {
        event(ride.reserveAt, 'reserved', ['reservation_start']);
        point(ride.reserveAt, location, null);
      }
      if (ride.cancelled) {
        event(ride.startMs, 'available', ['reservation_cancel']);
        point(ride.startMs, location, null);
        continue;
      }
      const tripId = worldUuid(seed, 'trip', plan.vehicle, plan.hour, ride.serial);
      const durationMs = ride.endMs - ride.startMs;
      const route = routeBetween(location, ride.destination, (ride.speed * durationMs) / 1000, ride.side);
      const speed = Math.round((route.length / (durationMs / 1000)) * 10) / 10;
      const startBattery = battery;
      event(ride.startMs, 'on_trip', ['trip_start'], [tripId]);
      for (let t = ride.startMs; ; t = Math.min(t + TRIP_TELEMETRY_INTERVAL_MS, ride.endMs)) {
        const fraction = (t - ride.startMs) / durationMs;
        const { location: at, heading } = alongRoute(route, route.length * fraction);
        if (startBattery !== undefined)
          battery = Math.max(1, Math.round(startBattery - (durationMs * fraction) / 170_000));
        point(t, at, [tripId], t === ride.endMs ? { heading, speed: 0 } : { heading, speed });
        if (t === ride.endMs) break;
      }
      location = { lat: ride.destination.lat, lng: ride.destination.lng };
      event(ride.endMs, 'available', ['trip_end'], [tripId]);
      const minutes = Math.ceil(durationMs / 60_000);
      const trip: MdsTrip = {
        provider_id: providerId,
        device_id: deviceId,
        trip_id: tripId,
        trip_type: ['rider'],
        start_time: ride.startMs,
        end_time: ride.endMs,
        start_location: { lat: route.points[0]?.lat ?? location.lat, lng: route.points[0]?.lng ?? location.lng },
        end_location: { lat: location.lat, lng: location.lng },
        duration: Math.round(durationMs / 1000),
        distance: Math.round(route.length),
        parking_category: random() < 0.9 ? 'curb' : 'corral',
        standard_cost: 100 + 25 * minutes,
        actual_cost: random() < 0.15 ? 50 + 19 * minutes : 100 + 25 * minutes,
        currency: 'EUR',
      };
      items.trips.push(trip);
    }
  } else {
    for (const s of plan.steps) {
      if (s.moveTo) location = { lat: round6(s.moveTo.lat), lng: round6(s.moveTo.lng) };
      if (s.battery !== undefined && battery !== undefined) battery = s.battery;
      event(s.atMs, s.state, s.types);
      if (s.reports) point(s.atMs, location, null);
    }
  }
  items.endBattery = battery;
  return items;
}
