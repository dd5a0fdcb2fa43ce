/**
 * The sandbox's synthetic world: what every vehicle did in every hour, computed lazily per
 * (vehicle, hour) from the seed. Nothing is generated up front; bounded caches keep repeated
 * questions cheap. The answers of the MDS endpoints and the truth tests compare against both come
 * from here.
 */
import type { MdsEventItem, MdsLocation, MdsTelemetryItem, MdsTrip, MdsVehicleStatus } from '../../core/mds';
import type { EpisodeItems } from './episodeDetails';
import { episodeItems, HEARTBEAT_SERIAL } from './episodeDetails';
import type { EpisodePlan, PlannedRide } from './episodePlans';
import { actualEpisode, batteryAt, drawEpisode, EPISODE_REACH_HOURS, HOUR_MS, MINUTE_MS } from './episodePlans';
import type { DataFaultRule, FaultWorld } from '../faults/dataFaults';
import { DataFaults } from '../faults/dataFaults';
import type { FleetVehicle, FleetVehicles } from './fleetVehicles';
import { ZONE_RADIUS_METRES } from './fleetVehicles';
import { locationNear } from './worldGeography';
import { streamOf, unitOf, worldUuid } from './worldRandom';

/**
 * How far back a vehicle's history is searched; every vehicle has a moving service each night, but a stale vehicle (a
 * data fault, faults/staleFaults.ts) misses four of them.
 */
const LOOKBACK_HOURS = 108;
const PLAN_CACHE_LIMIT = 400_000;
const ITEMS_CACHE_LIMIT = 20_000;

/** Where to resume a paged walk through the fleet: the vehicle, and how many of its items were sent. */
export interface FleetCursor {
  vehicle: number;
  skip: number;
}

/** One page of a walk through the fleet. */
export interface FleetPage<T> {
  items: T[];
  /** Where the next page starts, or null after the last vehicle. */
  next: FleetCursor | null;
}

/** The status of a vehicle, as `/vehicles/status` serves it. */
export interface WorldVehicleStatus extends MdsVehicleStatus {
  last_event: MdsEventItem;
  last_telemetry: MdsTelemetryItem;
}

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** The synthetic world of one fleet and seed. */
export class SyntheticWorld {
  private readonly plans = new Map<string, EpisodePlan | null>();
  private readonly details = new Map<string, EpisodeItems>();
  private readonly vehicles = new Map<number, FleetVehicle>();
  private readonly faultyDetails = new Map<string, EpisodeItems>();
  /** The data faults put into this world (`sandbox --data-faults`), or undefined for a clean world. */
  readonly faults?: DataFaults;

  constructor(
    readonly fleet: FleetVehicles,
    dataFaults: readonly DataFaultRule[] = [],
  ) {
    if (dataFaults.length) {
      const view: FaultWorld = {
        seed: fleet.seed,
        size: fleet.size,
        deviceIdAt: (v) => fleet.deviceIdAt(v),
        vehicleIdAt: (v) => fleet.vehicleAt(v).vehicle.vehicle_id,
        episode: (v, h) => this.episode(v, h),
        baseItemsOf: (plan) => this.baseItemsOf(plan),
        baseHeartbeat: (v, h) => this.baseHeartbeat(v, h),
        lastEvent: (v, nowMs) => this.lastEvent(v, nowMs),
        hourItems: (h) => ({
          events: this.eventsIn(h * HOUR_MS, (h + 1) * HOUR_MS),
          trips: this.tripsEndingIn(h * HOUR_MS),
        }),
        lastTelemetry: (v, nowMs) => {
          try {
            return this.lastTelemetry(v, nowMs);
          } catch {
            return undefined;
          }
        },
      };
      this.faults = new DataFaults(dataFaults, view);
    }
  }

  get seed(): number {
    return this.fleet.seed;
  }

  /** Vehicle `index` with its fixed properties (memoised: the world asks for the same ones often). */
  vehicle(index: number): FleetVehicle {
    let found = this.vehicles.get(index);
    if (!found) {
      if (this.vehicles.size > 50_000) this.vehicles.clear();
      found = this.fleet.vehicleAt(index);
      this.vehicles.set(index, found);
    }
    return found;
  }

  private drawn(vehicle: number, hour: number): EpisodePlan | undefined {
    const key = `${vehicle}:${hour}`;
    const cached = this.plans.get(key);
    if (cached !== undefined) return cached ?? undefined;
    if (this.plans.size >= PLAN_CACHE_LIMIT) this.plans.clear();
    const plan = drawEpisode(this.seed, this.vehicle(vehicle), hour);
    this.plans.set(key, plan ?? null);
    return plan;
  }

  /** The episode vehicle `vehicle` really has in `hour` (hours since the epoch), if any. */
  episode(vehicle: number, hour: number): EpisodePlan | undefined {
    const plan = actualEpisode((h) => this.drawn(vehicle, h), hour);
    // An outage or an hour that stays 202 (data faults): nothing happens in it.
    if (plan && !plan.forced && this.faults?.touchesQuietHour(plan.startMs, plan.endMs)) return undefined;
    // A stale vehicle (data faults): nothing of it happens for days.
    if (plan && this.faults?.isSilent(vehicle, hour)) return undefined;
    return plan;
  }

  /** Where the vehicle stands at `ms` when idle: where its latest moving episode ended. */
  positionAt(vehicle: number, ms: number): MdsLocation {
    const hour = hourOf(ms);
    for (let j = hour; j > hour - LOOKBACK_HOURS; j--) {
      const ep = this.episode(vehicle, j);
      if (ep?.endLocation && ep.endMs <= ms) return ep.endLocation;
    }
    return locationNear(streamOf(this.seed, 0x40e, vehicle), this.vehicle(vehicle).zone, ZONE_RADIUS_METRES);
  }

  /** The events, trips and telemetry of an episode, with its data fault if it has one. */
  itemsOf(plan: EpisodePlan): EpisodeItems {
    const base = this.baseItemsOf(plan);
    if (!this.faults) return base;
    const key = `${plan.vehicle}:${plan.hour}`;
    let items = this.faultyDetails.get(key);
    if (!items) {
      if (this.faultyDetails.size >= ITEMS_CACHE_LIMIT) this.faultyDetails.clear();
      items = this.faults.applyToEpisode(plan, base);
      this.faultyDetails.set(key, items);
    }
    return items;
  }

  /** The events, trips and telemetry of an episode, without data faults. */
  baseItemsOf(plan: EpisodePlan): EpisodeItems {
    const key = `${plan.vehicle}:${plan.hour}`;
    let items = this.details.get(key);
    if (!items) {
      if (this.details.size >= ITEMS_CACHE_LIMIT) this.details.clear();
      const start = this.positionAt(plan.vehicle, plan.startMs);
      items = episodeItems(this.seed, this.fleet.providerId, this.vehicle(plan.vehicle), plan, start);
      this.details.set(key, items);
    }
    return items;
  }

  /** Episodes that may have items in [fromMs, toMs), oldest first. */
  private episodesTouching(vehicle: number, fromMs: number, toMs: number): EpisodePlan[] {
    const out: EpisodePlan[] = [];
    for (let j = hourOf(fromMs) - EPISODE_REACH_HOURS; j <= hourOf(toMs - 1); j++) {
      const ep = this.episode(vehicle, j);
      // With data faults an episode may hold a phantom trip up to 85 s after its end.
      if (ep && ep.endMs + (this.faults ? 2 * MINUTE_MS : 0) >= fromMs && ep.startMs < toMs) out.push(ep);
    }
    return out;
  }

  /** The hourly idle telemetry point of a vehicle, when it is idle (between episodes) at that moment. */
  heartbeat(vehicle: number, hour: number): MdsTelemetryItem | undefined {
    const beat = this.baseHeartbeat(vehicle, hour);
    return beat && this.faults ? this.faults.applyToHeartbeat(vehicle, hour, beat, false) : beat;
  }

  /** The hourly idle telemetry point, without data faults. */
  baseHeartbeat(vehicle: number, hour: number): MdsTelemetryItem | undefined {
    if (this.faults?.touchesQuietHour(hour * HOUR_MS, hour * HOUR_MS)) return undefined;
    const t =
      Math.round((hour * HOUR_MS + (3 + unitOf(this.seed, 0x4b, vehicle, hour) * 54) * MINUTE_MS) / 1000) * 1000;
    for (let j = hour - EPISODE_REACH_HOURS; j <= hour; j++) {
      const ep = this.episode(vehicle, j);
      if (ep && t >= ep.startMs - MINUTE_MS && t <= ep.endMs + MINUTE_MS) return undefined;
    }
    const fleetVehicle = this.vehicle(vehicle);
    const at = this.positionAt(vehicle, t);
    const point: MdsTelemetryItem = {
      device_id: fleetVehicle.vehicle.device_id,
      provider_id: this.fleet.providerId,
      telemetry_id: worldUuid(this.seed, 'telemetry', vehicle, hour, HEARTBEAT_SERIAL),
      timestamp: t,
      trip_ids: null,
      journey_id: null,
      location: { lat: at.lat, lng: at.lng, horizontal_accuracy: 5 },
      location_type: 'street',
    };
    if (fleetVehicle.electric) point.battery_percent = batteryAt(this.seed, vehicle, t);
    return point;
  }

  /** A vehicle's trips that ended in [fromMs, toMs). */
  vehicleTrips(vehicle: number, fromMs: number, toMs: number): MdsTrip[] {
    const out: MdsTrip[] = [];
    for (const ep of this.episodesTouching(vehicle, fromMs, toMs)) {
      if (ep.kind !== 'rides') continue;
      for (const trip of this.itemsOf(ep).trips) if (trip.end_time >= fromMs && trip.end_time < toMs) out.push(trip);
    }
    return out;
  }

  /** A vehicle's events in [fromMs, toMs), in time order. */
  vehicleEvents(vehicle: number, fromMs: number, toMs: number): MdsEventItem[] {
    const out: MdsEventItem[] = [];
    for (const ep of this.episodesTouching(vehicle, fromMs, toMs)) {
      for (const e of this.itemsOf(ep).events) if (e.timestamp >= fromMs && e.timestamp < toMs) out.push(e);
    }
    return out;
  }

  /** A vehicle's telemetry in [fromMs, toMs), in time order: episode points and idle heartbeats. */
  vehicleTelemetry(vehicle: number, fromMs: number, toMs: number): MdsTelemetryItem[] {
    const out: MdsTelemetryItem[] = [];
    for (const ep of this.episodesTouching(vehicle, fromMs, toMs)) {
      for (const t of this.itemsOf(ep).telemetry) if (t.timestamp >= fromMs && t.timestamp < toMs) out.push(t);
    }
    for (let h = hourOf(fromMs); h <= hourOf(toMs - 1); h++) {
      const beat = this.heartbeat(vehicle, h);
      // A timestamp sent in seconds (a data fault) is changed once the point is known to lie in the range.
      if (beat && beat.timestamp >= fromMs && beat.timestamp < toMs)
        out.push(this.faults ? this.faults.applyToHeartbeat(vehicle, h, beat, true) : beat);
    }
    return out.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Every trip of the fleet that ended in the UTC hour starting at `hourStartMs` (the truth of `/trips`). */
  tripsEndingIn(hourStartMs: number): MdsTrip[] {
    const out: MdsTrip[] = [];
    for (let v = 0; v < this.fleet.size; v++) out.push(...this.vehicleTrips(v, hourStartMs, hourStartMs + HOUR_MS));
    return out;
  }

  /** How many trips of the fleet ended in the UTC hour starting at `hourStartMs`. */
  countTripsEndingIn(hourStartMs: number): number {
    // Data faults add and remove trips that the plans do not know of.
    if (this.faults) return this.tripsEndingIn(hourStartMs).length;
    let count = 0;
    for (let v = 0; v < this.fleet.size; v++) {
      // Rides end where their plan says; no need to build routes and telemetry to count them.
      for (let j = hourOf(hourStartMs) - EPISODE_REACH_HOURS; j <= hourOf(hourStartMs); j++) {
        const ep = this.episode(v, j);
        if (ep?.kind !== 'rides') continue;
        for (const ride of ep.rides)
          if (!ride.cancelled && ride.endMs >= hourStartMs && ride.endMs < hourStartMs + HOUR_MS) count++;
      }
    }
    return count;
  }

  /** Every event of the fleet in [fromMs, toMs) (the truth of `/events/historical` for one hour). */
  eventsIn(fromMs: number, toMs: number): MdsEventItem[] {
    const out: MdsEventItem[] = [];
    for (let v = 0; v < this.fleet.size; v++) out.push(...this.vehicleEvents(v, fromMs, toMs));
    return out;
  }

  /** One page of a walk through the fleet, vehicle by vehicle, each vehicle's items in time order. */
  page<T>(itemsOf: (vehicle: number) => T[], cursor: FleetCursor, limit: number): FleetPage<T> {
    const items: T[] = [];
    for (let v = cursor.vehicle; v < this.fleet.size; v++) {
      const all = itemsOf(v);
      const from = v === cursor.vehicle ? cursor.skip : 0;
      const room = limit - items.length;
      if (all.length - from > room) {
        items.push(...all.slice(from, from + room));
        return { items, next: { vehicle: v, skip: from + room } };
      }
      items.push(...all.slice(from));
      if (items.length === limit) return { items, next: v + 1 < this.fleet.size ? { vehicle: v + 1, skip: 0 } : null };
    }
    return { items, next: null };
  }

  /**
   * The rides (not cancelled) that started in [fromMs, toMs), each with where it started, from the
   * plans alone: an episode's first ride starts where the vehicle stood, each later one where the
   * ride before it ended (as episodeItems builds the trips).
   */
  ridesStarting(vehicle: number, fromMs: number, toMs: number): (PlannedRide & { from: MdsLocation })[] {
    const out: (PlannedRide & { from: MdsLocation })[] = [];
    for (let j = hourOf(fromMs) - EPISODE_REACH_HOURS; j <= hourOf(toMs - 1); j++) {
      const ep = this.episode(vehicle, j);
      if (
        ep?.kind !== 'rides' ||
        !ep.rides.some((ride) => !ride.cancelled && ride.startMs >= fromMs && ride.startMs < toMs)
      )
        continue;
      let location = this.positionAt(vehicle, ep.startMs);
      for (const ride of ep.rides) {
        if (ride.cancelled) continue;
        if (ride.startMs >= fromMs && ride.startMs < toMs) out.push({ ...ride, from: location });
        location = ride.destination;
      }
    }
    return out;
  }

  /** The latest event of the vehicle at or before `nowMs`. */
  lastEvent(vehicle: number, nowMs: number): MdsEventItem {
    const hour = hourOf(nowMs);
    for (let j = hour; j > hour - LOOKBACK_HOURS; j--) {
      const ep = this.episode(vehicle, j);
      if (!ep || ep.startMs > nowMs) continue;
      const events = this.itemsOf(ep).events.filter((e) => e.timestamp <= nowMs);
      const last = events[events.length - 1];
      if (last) return last;
    }
    throw new Error(
      `vehicle ${vehicle} has no event in the ${LOOKBACK_HOURS} hours before ${new Date(nowMs).toISOString()}`,
    );
  }

  /** The latest telemetry point of the vehicle at or before `nowMs`. */
  lastTelemetry(vehicle: number, nowMs: number): MdsTelemetryItem {
    const hour = hourOf(nowMs);
    for (let j = hour; j > hour - LOOKBACK_HOURS; j--) {
      const points = this.vehicleTelemetry(vehicle, j * HOUR_MS, Math.min((j + 1) * HOUR_MS, nowMs + 1));
      const last = points[points.length - 1];
      if (last) return last;
    }
    throw new Error(
      `vehicle ${vehicle} has no telemetry in the ${LOOKBACK_HOURS} hours before ${new Date(nowMs).toISOString()}`,
    );
  }

  /** The status of the vehicle at `nowMs`: its latest event and latest telemetry in this world. */
  statusAt(vehicle: number, nowMs: number): WorldVehicleStatus {
    const deviceId = this.vehicle(vehicle).vehicle.device_id;
    let lastEvent = this.lastEvent(vehicle, nowMs);
    // A stale status (a data fault): the event before the last one.
    if (this.faults?.snapshot.isStaleStatus(vehicle, nowMs))
      lastEvent = this.lastEvent(vehicle, lastEvent.timestamp - 1);
    if (this.faults) lastEvent = this.faults.snapshot.statusEvent(vehicle, nowMs, lastEvent);
    // A status joined to another device's last point (a data fault).
    const telemetryOf = this.faults?.snapshot.statusTelemetryVehicle(vehicle) ?? vehicle;
    return {
      device_id: deviceId,
      provider_id: this.fleet.providerId,
      last_event: lastEvent,
      last_telemetry: this.lastTelemetry(telemetryOf, nowMs),
    };
  }
}
