/**
 * A deterministic fleet of MDS 2.0 vehicles around Berlin's centre. Every vehicle is computed from
 * (seed, index) alone, so a fleet of any size starts at once, any page costs only its own vehicles,
 * and a device_id leads back to its index without a lookup table.
 */

import type { MdsEvent, MdsLocation, MdsTelemetry, MdsVehicle, MdsVehicleStatus, PropulsionType, VehicleState, VehicleType } from '../core/mdsModels';


/** Everything the fleet knows about one vehicle. */
export interface FleetVehicle {
  vehicle: MdsVehicle;
  status: MdsVehicleStatus;
}

/** Berlin, Alexanderplatz; vehicles spread over a disc of this radius. */
export const FLEET_CENTRE = { lat: 52.5219, lng: 13.4132 } as const;
export const FLEET_RADIUS_METRES = 8000;

/** The largest fleet the device_id scheme supports (indexes are 32-bit). */
export const MAX_FLEET_SIZE = 1_000_000;

/** Small seeded PRNG (mulberry32): fast, 32-bit state, good enough for synthetic data. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes two 32-bit numbers into one well-spread seed. */
function mixSeed(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Inverse of an odd number modulo 2^32 (Newton's iteration doubles the correct bits each step). */
function inverseOdd(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}

const M1 = 0x7feb352d;
const M2 = 0x846ca68b;
const M1_INV = inverseOdd(M1);
const M2_INV = inverseOdd(M2);

/**
 * A bijection on 32-bit numbers (xor-shift by 16 undoes itself, odd multipliers are invertible):
 * it gives each index a random-looking, collision-free first block of its device_id.
 */
function permute(index: number, salt: number): number {
  let x = (index ^ salt) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M1) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M2) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

function unpermute(value: number, salt: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M2_INV) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M1_INV) >>> 0;
  x ^= x >>> 16;
  return (x ^ salt) >>> 0;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** A UUID-v4-shaped string; `first` is its first 32 bits, the rest comes from `random`. */
function uuidFrom(first: number, random: () => number): string {
  const word = () => Math.floor(random() * 4294967296);
  const b = hex8(word());
  const c = hex8(word());
  const d = hex8(word());
  const versioned = `4${b.slice(5, 8)}`;
  const variant = ((parseInt(c[0] ?? '0', 16) & 0x3) | 0x8).toString(16) + c.slice(1, 4);
  return `${hex8(first)}-${b.slice(0, 4)}-${versioned}-${variant}-${c.slice(4, 8)}${d}`;
}

interface TypeProfile {
  type: VehicleType;
  share: number;
  prefix: string;
  propulsion: (random: () => number) => PropulsionType[];
  battery?: number;
  fuel?: number;
  maxSpeed: number;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** The type mix; battery capacities in mAh, speeds in km/h (German limits for scooters and pedelecs). */
const PROFILES: readonly TypeProfile[] = [
  { type: 'scooter_standing', share: 0.58, prefix: 'SCO', propulsion: () => ['electric'], battery: 15300, maxSpeed: 20 },
  { type: 'bicycle', share: 0.17, prefix: 'BIK', propulsion: (random) => (random() < 0.7 ? ['electric_assist'] : ['human']), battery: 11600, maxSpeed: 25 },
  { type: 'moped', share: 0.1, prefix: 'MOP', propulsion: () => ['electric'], battery: 28000, maxSpeed: 45 },
  { type: 'car', share: 0.07, prefix: 'CAR', propulsion: (random) => pick(random, [['electric'], ['electric'], ['hybrid'], ['combustion']]), maxSpeed: 150 },
  { type: 'cargo_bicycle', share: 0.05, prefix: 'CRG', propulsion: () => ['electric_assist'], battery: 17400, maxSpeed: 25 },
  { type: 'scooter_seated', share: 0.03, prefix: 'SCS', propulsion: () => ['electric'], battery: 20000, maxSpeed: 25 },
];

interface StateProfile {
  state: VehicleState;
  share: number;
  events: readonly string[][];
  /** How far back the last event may lie, in minutes. */
  maxAgeMinutes: number;
}

/** Event types that lead into each state (MDS 2.0 `modes/vehicle_states.md`). */
const STATES: readonly StateProfile[] = [
  { state: 'available', share: 0.6, events: [['trip_end'], ['service_start'], ['battery_charged'], ['maintenance_end'], ['reservation_cancel']], maxAgeMinutes: 360 },
  { state: 'on_trip', share: 0.12, events: [['trip_start']], maxAgeMinutes: 40 },
  { state: 'reserved', share: 0.03, events: [['reservation_start']], maxAgeMinutes: 15 },
  { state: 'non_operational', share: 0.1, events: [['battery_low'], ['maintenance'], ['off_hours']], maxAgeMinutes: 720 },
  { state: 'removed', share: 0.06, events: [['maintenance_pick_up'], ['compliance_pick_up'], ['service_end']], maxAgeMinutes: 90 },
  { state: 'non_contactable', share: 0.04, events: [['comms_lost']], maxAgeMinutes: 240 },
  { state: 'missing', share: 0.03, events: [['not_located']], maxAgeMinutes: 90 },
  { state: 'elsewhere', share: 0.02, events: [['trip_leave_jurisdiction']], maxAgeMinutes: 90 },
];

function byShare<T extends { share: number }>(random: () => number, items: readonly T[]): T {
  let r = random();
  for (const item of items) {
    r -= item.share;
    if (r < 0) return item;
  }
  return items[items.length - 1];
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

function locationNear(random: () => number, centre: { lat: number; lng: number }, radiusMetres: number): MdsLocation {
  const r = radiusMetres * Math.sqrt(random());
  const angle = random() * 2 * Math.PI;
  const dLat = (r * Math.cos(angle)) / 111_320;
  const dLng = (r * Math.sin(angle)) / (111_320 * Math.cos((centre.lat * Math.PI) / 180));
  return { lat: round6(centre.lat + dLat), lng: round6(centre.lng + dLng) };
}

/** Options of a fleet. */
export interface FleetOptions {
  size: number;
  seed: number;
  /** Milliseconds since the epoch that the fleet's timestamps are relative to. */
  createdAt: number;
}

/** A fleet of `size` vehicles; vehicle `i` is the same for the same seed, whatever the size. */
export class SyntheticFleet {
  readonly size: number;
  readonly seed: number;
  readonly createdAt: number;
  /** One provider for the whole fleet. */
  readonly providerId: string;
  private readonly salt: number;

  constructor(options: FleetOptions) {
    this.size = options.size;
    this.seed = options.seed >>> 0;
    this.createdAt = Math.floor(options.createdAt);
    this.salt = mixSeed(this.seed, 0x5eed);
    const random = mulberry32(mixSeed(this.seed, 0x9e0));
    this.providerId = uuidFrom(Math.floor(random() * 4294967296), random);
  }

  /** The device_id of vehicle `index`, without building the rest of it. */
  deviceIdAt(index: number): string {
    return uuidFrom(permute(index, this.salt), mulberry32(mixSeed(this.seed, index)));
  }

  /** The index of a device_id in this fleet, or undefined when no vehicle has it. */
  indexOf(deviceId: string): number | undefined {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(deviceId)) return undefined;
    const index = unpermute(parseInt(deviceId.slice(0, 8), 16), this.salt);
    if (index >= this.size) return undefined;
    return this.deviceIdAt(index) === deviceId.toLowerCase() ? index : undefined;
  }

  /** Vehicle `index` (0-based) with its status. */
  at(index: number): FleetVehicle {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) throw new RangeError(`vehicle index ${index} is outside 0..${this.size - 1}`);
    // The device_id consumes the first draws of this stream, so the id and the rest stay in step.
    const random = mulberry32(mixSeed(this.seed, index));
    const deviceId = uuidFrom(permute(index, this.salt), random);
    const profile = byShare(random, PROFILES);
    const propulsion = profile.propulsion(random);
    const electric = propulsion.some((p) => p === 'electric' || p === 'electric_assist' || p === 'hybrid');
    const combustion = propulsion.some((p) => p === 'combustion' || p === 'hybrid');
    const vehicle: MdsVehicle = {
      device_id: deviceId,
      provider_id: this.providerId,
      vehicle_id: `${profile.prefix}-${String(index + 1).padStart(5, '0')}`,
      vehicle_type: profile.type,
      propulsion_types: propulsion,
      maximum_speed: profile.maxSpeed,
    };
    if (profile.type === 'car') {
      if (propulsion[0] === 'electric') vehicle.battery_capacity = pick(random, [120_000, 150_000, 180_000]);
      if (combustion) vehicle.fuel_capacity = pick(random, [40, 45, 50]);
    } else if (electric && profile.battery !== undefined) {
      vehicle.battery_capacity = profile.battery;
    }

    const stateProfile = byShare(random, STATES);
    const state = stateProfile.state;
    const eventAge = Math.floor(random() * stateProfile.maxAgeMinutes * 60_000) + 30_000;
    const eventTime = this.createdAt - eventAge;
    const location = locationNear(random, FLEET_CENTRE, FLEET_RADIUS_METRES);
    let battery: number | undefined;
    if (electric) {
      battery = state === 'non_operational' ? Math.floor(5 + random() * 90) : Math.floor(20 + random() * 81);
    }
    const eventTypes = pick(random, stateProfile.events);
    if (eventTypes[0] === 'battery_low' && electric) battery = Math.floor(3 + random() * 12);
    const fuel = combustion ? Math.floor(10 + random() * 91) : undefined;
    const tripIds = state === 'on_trip' ? [uuidFrom(Math.floor(random() * 4294967296), random)] : null;

    const lastEvent: MdsEvent = {
      event_id: uuidFrom(Math.floor(random() * 4294967296), random),
      vehicle_state: state,
      event_types: eventTypes,
      timestamp: eventTime,
      location,
    };
    if (battery !== undefined) lastEvent.battery_percent = battery;
    if (fuel !== undefined) lastEvent.fuel_percent = fuel;
    if (tripIds) lastEvent.trip_ids = tripIds;

    // Telemetry keeps flowing after the event unless the vehicle stopped reporting.
    const silent = state === 'non_contactable' || state === 'missing' || state === 'removed';
    const telemetryTime = silent ? eventTime : Math.max(eventTime, this.createdAt - Math.floor(random() * 120_000) - 1000);
    const moving = state === 'on_trip';
    const telemetryLocation: MdsLocation = moving ? locationNear(random, location, Math.min(3000, (telemetryTime - eventTime) / 100)) : { lat: location.lat, lng: location.lng };
    telemetryLocation.horizontal_accuracy = Math.round(3 + random() * 12);
    if (moving) {
      telemetryLocation.heading = Math.floor(random() * 360);
      telemetryLocation.speed = Math.round((1 + random() * (profile.maxSpeed / 3.6 - 1)) * 10) / 10;
    }
    const lastTelemetry: MdsTelemetry = {
      telemetry_id: uuidFrom(Math.floor(random() * 4294967296), random),
      timestamp: telemetryTime,
      trip_ids: tripIds,
      journey_id: null,
      location: telemetryLocation,
      location_type: profile.type === 'car' && random() < 0.1 ? 'garage' : 'street',
    };
    if (battery !== undefined) lastTelemetry.battery_percent = moving ? Math.max(1, battery - Math.floor(random() * 5)) : battery;
    if (fuel !== undefined) lastTelemetry.fuel_percent = fuel;

    return { vehicle, status: { device_id: deviceId, provider_id: this.providerId, last_event: lastEvent, last_telemetry: lastTelemetry } };
  }

  /** Vehicles `from` (inclusive) to `to` (exclusive), clamped to the fleet. */
  slice(from: number, to: number): FleetVehicle[] {
    const end = Math.min(to, this.size);
    const out: FleetVehicle[] = [];
    for (let i = Math.max(0, from); i < end; i++) out.push(this.at(i));
    return out;
  }
}
