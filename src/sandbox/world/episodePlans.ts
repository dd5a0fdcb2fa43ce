/**
 * What each vehicle does in each hour, decided from (seed, vehicle, hour) alone.
 *
 * A vehicle is `available` between "episodes"; an episode starts in one hour, runs through allowed
 * MDS micromobility transitions (modes/micromobility.md, models/modes/micromobility/event.yaml)
 * and ends `available` again, at most RIDES_MAX_MS + SERVICE_MAX_MS later, so it reaches no further than two hours past its own.
 * Every vehicle has one service episode each night (rebalance or a pick-up for maintenance or
 * charging), which always happens and always moves it; other episodes (rides, or small in-place
 * incidents) happen with a probability that follows the city's day, and are dropped when they
 * would overlap a neighbour. Whether an episode happens therefore needs only its own plan and
 * those of the two hours around it, never a walk through history.
 */
import type { MdsLocation, VehicleState } from '../../core/mds';
import type { FleetVehicle } from './fleetVehicles';
import { ZONE_RADIUS_METRES } from './fleetVehicles';
import { cityHourOf, cityWeekdayOf, locationNear } from './worldGeography';
import { hashOf, streamOf, unitOf } from './worldRandom';

export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;
/** Episodes of hour k may still run in hours k+1 and k+2, never later. */
export const EPISODE_REACH_HOURS = 2;
/** The least idle time between two episodes of one vehicle. */
const GAP_MS = 2 * MINUTE_MS;

/** Chance that a vehicle starts an episode in a given local hour (0..23): quiet nights, busy afternoons. */
const RATE_BY_LOCAL_HOUR: readonly number[] = [
  0.03, 0.015, 0.01, 0.008, 0.008, 0.02, 0.05, 0.1, 0.13, 0.1, 0.09, 0.1, 0.12, 0.13, 0.14, 0.16, 0.19, 0.22, 0.21,
  0.17, 0.13, 0.1, 0.07, 0.05,
];

export type EpisodeKind =
  'rides' | 'rebalance' | 'maintenance_pickup' | 'charge_pickup' | 'swap' | 'comms' | 'missing' | 'check';

/** One ride (or a reservation that was cancelled instead). Times are whole seconds in ms. */
export interface PlannedRide {
  serial: number;
  /** When a reservation came first. */
  reserveAt?: number;
  /** The reservation was cancelled at `startMs` and no trip happened. */
  cancelled: boolean;
  startMs: number;
  endMs: number;
  destination: MdsLocation;
  /** Mean speed in m/s; the route is bent until its length fits the duration at this speed. */
  speed: number;
  /** Which side the route bends to. */
  side: 1 | -1;
}

/** One state change of a service episode. */
export interface PlannedStep {
  atMs: number;
  state: VehicleState;
  types: string[];
  /** The vehicle is put down here (drop-off at another spot). */
  moveTo?: MdsLocation;
  /** Battery level set by this step (charged or swapped to 100, or low). */
  battery?: number;
  /** Whether the vehicle sends a telemetry point with this event (not when it has lost contact). */
  reports: boolean;
}

/** The plan of one episode; details (ids, routes, telemetry) are derived from it. */
export interface EpisodePlan {
  vehicle: number;
  hour: number;
  kind: EpisodeKind;
  forced: boolean;
  startMs: number;
  endMs: number;
  rides: PlannedRide[];
  steps: PlannedStep[];
  /** Where the vehicle stands afterwards, when the episode moved it; undefined when it stayed put. */
  endLocation?: MdsLocation;
}

const sec = (ms: number) => Math.round(ms / 1000) * 1000;

/** The UTC hour of day (1..3, night in Berlin) of vehicle `v`'s service on day `day` (days since the epoch). */
export function serviceHourOfDay(seed: number, vehicle: number, day: number): number {
  return 1 + (hashOf(seed, 0xf0, vehicle, day) % 3);
}

/** Whether hour `hour` (hours since the epoch) is vehicle `v`'s nightly service hour. */
export function isServiceHour(seed: number, vehicle: number, hour: number): boolean {
  const day = Math.floor(hour / 24);
  return hour - day * 24 === serviceHourOfDay(seed, vehicle, day);
}

/** The start of the latest service hour at or before `hour`. */
export function lastServiceHour(seed: number, vehicle: number, hour: number): number {
  const day = Math.floor(hour / 24);
  const today = day * 24 + serviceHourOfDay(seed, vehicle, day);
  return today <= hour ? today : (day - 1) * 24 + serviceHourOfDay(seed, vehicle, day - 1);
}

/** The chance that a vehicle starts an optional episode in `hour`. */
export function episodeRate(hour: number): number {
  const ms = hour * HOUR_MS;
  const weekday = cityWeekdayOf(ms);
  const weekend = weekday === 0 || weekday === 6 ? 0.85 : 1;
  return (RATE_BY_LOCAL_HOUR[cityHourOf(ms)] ?? 0.05) * weekend;
}

/** Whether an optional episode is drawn in this hour (before overlaps are resolved). */
export function hasOptionalDraw(seed: number, vehicle: number, hour: number): boolean {
  return !isServiceHour(seed, vehicle, hour) && unitOf(seed, 0xa1, vehicle, hour) < episodeRate(hour);
}

/** Battery level of an electric vehicle at `ms`: full after the nightly service, then slowly draining. */
export function batteryAt(seed: number, vehicle: number, ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  const since = (ms - lastServiceHour(seed, vehicle, hour) * HOUR_MS) / HOUR_MS;
  return Math.max(22, Math.min(100, Math.round(100 - 3.2 * since)));
}

/** A parking spot of the vehicle, from a stream of the plan. */
function spotIn(random: () => number, fleetVehicle: FleetVehicle): MdsLocation {
  return locationNear(random, fleetVehicle.zone, ZONE_RADIUS_METRES);
}

function between(random: () => number, lo: number, hi: number): number {
  return lo + random() * (hi - lo);
}

function planRides(plan: EpisodePlan, random: () => number, fleetVehicle: FleetVehicle): void {
  let t = plan.startMs;
  let serial = 0;
  let moved = false;
  let destination: MdsLocation | undefined;
  do {
    const ride: PlannedRide = {
      serial,
      cancelled: false,
      startMs: t,
      endMs: t,
      destination: { lat: 0, lng: 0 },
      speed: 0,
      side: random() < 0.5 ? 1 : -1,
    };
    if (random() < 0.2) {
      ride.reserveAt = t;
      t = sec(t + between(random, 1, 8) * MINUTE_MS);
      ride.startMs = t;
      ride.cancelled = random() < 0.2;
    }
    // Drawn even for a cancelled ride, so the draws stay in step.
    const durationMs = sec(between(random, 9, 28) * MINUTE_MS);
    ride.destination = spotIn(random, fleetVehicle);
    ride.speed = between(random, fleetVehicle.speedRange[0], fleetVehicle.speedRange[1]);
    if (ride.cancelled) {
      ride.endMs = t;
    } else {
      ride.endMs = t + durationMs;
      t = ride.endMs;
      moved = true;
      destination = ride.destination;
    }
    plan.rides.push(ride);
    serial += 1;
    t = sec(t + between(random, 3, 15) * MINUTE_MS);
  } while (t - plan.startMs < HOUR_MS && random() < 0.35);
  const last = plan.rides[plan.rides.length - 1];
  plan.endMs = last.endMs;
  if (moved) plan.endLocation = destination;
}

function step(atMs: number, state: VehicleState, types: string[], extra: Partial<PlannedStep> = {}): PlannedStep {
  return { atMs: sec(atMs), state, types, reports: true, ...extra };
}

function planService(plan: EpisodePlan, random: () => number, fleetVehicle: FleetVehicle): void {
  const s = plan.startMs;
  const later = (from: number, lo: number, hi: number) => sec(from + between(random, lo, hi) * MINUTE_MS);
  const steps = plan.steps;
  switch (plan.kind) {
    case 'rebalance': {
      const drop = later(s, 20, 70);
      plan.endLocation = spotIn(random, fleetVehicle);
      steps.push(
        step(s, 'removed', ['rebalance_pick_up']),
        step(drop, 'available', ['provider_drop_off'], { moveTo: plan.endLocation, battery: 100 }),
      );
      break;
    }
    case 'maintenance_pickup':
    case 'charge_pickup': {
      const pick = later(s, 5, 25);
      const drop = later(pick, 30, 70);
      plan.endLocation = spotIn(random, fleetVehicle);
      const first =
        plan.kind === 'charge_pickup'
          ? step(s, 'non_operational', ['battery_low'], { battery: 8 + Math.floor(random() * 7) })
          : step(s, 'non_operational', ['maintenance']);
      steps.push(
        first,
        step(pick, 'removed', ['maintenance_pick_up']),
        step(drop, 'available', ['provider_drop_off'], { moveTo: plan.endLocation, battery: 100 }),
      );
      break;
    }
    case 'swap':
      steps.push(
        step(s, 'non_operational', ['battery_low'], { battery: 6 + Math.floor(random() * 9) }),
        step(later(s, 10, 45), 'available', ['battery_charged'], { battery: 100 }),
      );
      break;
    case 'comms':
      steps.push(
        step(s, 'non_contactable', ['comms_lost'], { reports: false }),
        step(later(s, 5, 60), 'available', ['comms_restored']),
      );
      break;
    case 'missing': {
      const lost = later(s, 10, 30);
      steps.push(
        step(s, 'non_contactable', ['comms_lost'], { reports: false }),
        step(lost, 'missing', ['not_located'], { reports: false }),
        step(later(lost, 10, 40), 'available', ['located']),
      );
      break;
    }
    case 'check':
      steps.push(step(s, 'non_operational', ['maintenance']), step(later(s, 15, 50), 'available', ['maintenance']));
      break;
    case 'rides':
      break;
  }
  plan.endMs = steps[steps.length - 1]?.atMs ?? s;
}

/**
 * The plan of the episode vehicle `v` would have in `hour`, if any is drawn (nightly service, or
 * an optional one), before overlaps with neighbours are resolved.
 */
export function drawEpisode(seed: number, fleetVehicle: FleetVehicle, hour: number): EpisodePlan | undefined {
  const v = fleetVehicle.index;
  const forced = isServiceHour(seed, v, hour);
  if (!forced && !hasOptionalDraw(seed, v, hour)) return undefined;
  const random = streamOf(seed, 0xe9, v, hour);
  const startMs = sec(hour * HOUR_MS + random() * (forced ? 50 : 58) * MINUTE_MS);
  let kind: EpisodeKind;
  const k = random();
  if (forced) {
    kind = k < 0.6 ? 'rebalance' : k < 0.85 || !fleetVehicle.electric ? 'maintenance_pickup' : 'charge_pickup';
  } else if (k < 0.93) {
    kind = 'rides';
  } else {
    const s = random();
    kind = s < 0.35 ? (fleetVehicle.electric ? 'swap' : 'check') : s < 0.6 ? 'comms' : s < 0.7 ? 'missing' : 'check';
  }
  const plan: EpisodePlan = { vehicle: v, hour, kind, forced, startMs, endMs: startMs, rides: [], steps: [] };
  if (kind === 'rides') planRides(plan, random, fleetVehicle);
  else planService(plan, random, fleetVehicle);
  return plan;
}

/** Draws plans, memoised by the caller (the world keeps a bounded cache). */
export type PlanSource = (hour: number) => EpisodePlan | undefined;

/**
 * The episode that really happens in `hour`: a nightly service always; an optional episode only
 * when it keeps GAP_MS clear of every episode drawn in the two hours before and of the nightly
 * service in the two hours after. Dropping on a conservative test keeps this local: no decision
 * depends on another decision.
 */
export function actualEpisode(draw: PlanSource, hour: number): EpisodePlan | undefined {
  const plan = draw(hour);
  if (!plan || plan.forced) return plan;
  for (let j = hour - EPISODE_REACH_HOURS; j < hour; j++) {
    const before = draw(j);
    if (before && before.endMs + GAP_MS > plan.startMs) return undefined;
  }
  for (let j = hour + 1; j <= hour + EPISODE_REACH_HOURS; j++) {
    const after = draw(j);
    if (after?.forced && plan.endMs + GAP_MS > after.startMs) return undefined;
  }
  return plan;
}
