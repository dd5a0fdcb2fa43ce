/**
 * The vehicles of the synthetic fleet: identity and the properties that do not change. Every
 * vehicle is computed from (seed, index) alone, so a fleet of any size starts at once, any page
 * costs only its own vehicles, and a device_id leads back to its index without a lookup table.
 */
import type { MdsLocation, MdsVehicle, PropulsionType, VehicleType } from '../../core/mds';
import { FLEET_CENTRE, FLEET_RADIUS_METRES, locationNear } from './worldGeography';
import { mixSeed, mulberry32, permute, unpermute, uuidFrom } from './worldRandom';

/** The largest fleet the device_id scheme supports (indexes are 32-bit). */
export const MAX_FLEET_SIZE = 1_000_000;

/** How far from its home spot a vehicle is parked and ridden, in metres. */
export const ZONE_RADIUS_METRES = 1200;

/** A vehicle with what the world needs to move it. */
export interface FleetVehicle {
  index: number;
  vehicle: MdsVehicle;
  /** Whether it reports battery_percent. */
  electric: boolean;
  /** Riding speeds in m/s, slowest and fastest. */
  speedRange: readonly [number, number];
  /** The centre of the neighbourhood it lives in; its parking spots lie within ZONE_RADIUS_METRES. */
  zone: MdsLocation;
}

interface TypeProfile {
  type: VehicleType;
  share: number;
  prefix: string;
  propulsion: (random: () => number) => PropulsionType[];
  battery?: number;
  maxSpeed: number;
  speedRange: readonly [number, number];
}

/**
 * The type mix of one micromobility provider (MDS: one provider_id, one mode; cars belong to
 * car share). Battery capacities in mAh, speeds in km/h (German limits for scooters and pedelecs).
 */
const PROFILES: readonly TypeProfile[] = [
  {
    type: 'scooter_standing',
    share: 0.62,
    prefix: 'SCO',
    propulsion: () => ['electric'],
    battery: 15300,
    maxSpeed: 20,
    speedRange: [2.8, 5.2],
  },
  {
    type: 'bicycle',
    share: 0.18,
    prefix: 'BIK',
    propulsion: (random) => (random() < 0.7 ? ['electric_assist'] : ['human']),
    battery: 11600,
    maxSpeed: 25,
    speedRange: [3, 5.5],
  },
  {
    type: 'moped',
    share: 0.1,
    prefix: 'MOP',
    propulsion: () => ['electric'],
    battery: 28000,
    maxSpeed: 45,
    speedRange: [4.5, 8],
  },
  {
    type: 'cargo_bicycle',
    share: 0.06,
    prefix: 'CRG',
    propulsion: () => ['electric_assist'],
    battery: 17400,
    maxSpeed: 25,
    speedRange: [2.5, 4.5],
  },
  {
    type: 'scooter_seated',
    share: 0.04,
    prefix: 'SCS',
    propulsion: () => ['electric'],
    battery: 20000,
    maxSpeed: 25,
    speedRange: [3, 5.5],
  },
];

/** The vehicle types of the fleet, in a fixed order (reports list them in this order). */
export const FLEET_VEHICLE_TYPES: readonly VehicleType[] = PROFILES.map((p) => p.type);

function byShare<T extends { share: number }>(random: () => number, items: readonly T[]): T {
  let r = random();
  for (const item of items) {
    r -= item.share;
    if (r < 0) return item;
  }
  return items[items.length - 1];
}

const DEVICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The identities and fixed properties of `size` vehicles; vehicle `i` is the same for the same seed, whatever the size. */
export class FleetVehicles {
  readonly size: number;
  readonly seed: number;
  /** One provider for the whole fleet. */
  readonly providerId: string;
  private readonly salt: number;

  constructor(size: number, seed: number) {
    this.size = size;
    this.seed = seed >>> 0;
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
    if (!DEVICE_ID.test(deviceId)) return undefined;
    const index = unpermute(parseInt(deviceId.slice(0, 8), 16), this.salt);
    if (index >= this.size) return undefined;
    return this.deviceIdAt(index) === deviceId.toLowerCase() ? index : undefined;
  }

  /** Vehicle `index` (0-based). */
  vehicleAt(index: number): FleetVehicle {
    if (!Number.isInteger(index) || index < 0 || index >= this.size)
      throw new RangeError(`vehicle index ${index} is outside 0..${this.size - 1}`);
    // The device_id consumes the first draws of this stream, so the id and the rest stay in step.
    const random = mulberry32(mixSeed(this.seed, index));
    const deviceId = uuidFrom(permute(index, this.salt), random);
    const profile = byShare(random, PROFILES);
    const propulsion = profile.propulsion(random);
    const electric = propulsion.some((p) => p === 'electric' || p === 'electric_assist');
    const vehicle: MdsVehicle = {
      device_id: deviceId,
      provider_id: this.providerId,
      vehicle_id: `${profile.prefix}-${String(index + 1).padStart(5, '0')}`,
      vehicle_type: profile.type,
      propulsion_types: propulsion,
      maximum_speed: profile.maxSpeed,
    };
    if (electric && profile.battery !== undefined) vehicle.battery_capacity = profile.battery;
    const zone = locationNear(random, FLEET_CENTRE, FLEET_RADIUS_METRES - ZONE_RADIUS_METRES);
    return { index, vehicle, electric, speedRange: profile.speedRange, zone };
  }
}
