/**
 * A deterministic fleet of MDS 2.0 micromobility vehicles around Berlin's centre, with the world
 * they live in. A vehicle's status at any moment is its latest event and telemetry in that world.
 */
import type { MdsVehicle } from '../../core/mds';
import type { DataFaultRule } from '../faults/dataFaults';
import { FleetVehicles } from './fleetVehicles';
import type { WorldVehicleStatus } from './syntheticWorld';
import { SyntheticWorld } from './syntheticWorld';

export { FLEET_CENTRE, FLEET_RADIUS_METRES } from './worldGeography';
export { MAX_FLEET_SIZE } from './fleetVehicles';

/** A vehicle with its status at the fleet's `createdAt`. */
export interface FleetVehicleWithStatus {
  vehicle: MdsVehicle;
  status: WorldVehicleStatus;
}

/** Options of a fleet. */
export interface FleetOptions {
  size: number;
  seed: number;
  /** Milliseconds since the epoch: the moment `at` and `slice` describe statuses at. */
  createdAt: number;
  /** The rules whose faults the world holds (`sandbox --data-faults`); default none, a clean world. */
  dataFaults?: readonly DataFaultRule[];
}

/** A listing of the fleet (`/vehicles`, `/vehicles/status`): how many entries, and the vehicle at each position. */
export interface FleetListing {
  count: number;
  indexAt: (position: number) => number;
}

/** A fleet of `size` vehicles; vehicle `i` is the same for the same seed, whatever the size. */
export class SyntheticFleet {
  readonly size: number;
  readonly seed: number;
  readonly createdAt: number;
  /** One provider for the whole fleet. */
  readonly providerId: string;
  /** Everything the fleet did, hour by hour. */
  readonly world: SyntheticWorld;
  private readonly vehicles: FleetVehicles;

  constructor(options: FleetOptions) {
    this.vehicles = new FleetVehicles(options.size, options.seed);
    this.size = this.vehicles.size;
    this.seed = this.vehicles.seed;
    this.providerId = this.vehicles.providerId;
    this.createdAt = Math.floor(options.createdAt);
    this.world = new SyntheticWorld(this.vehicles, options.dataFaults);
  }

  /** The entries of `/vehicles` (and gRPC ListVehicles): every vehicle once, unless data faults leave some out or list some twice. */
  vehicleListing(): FleetListing {
    return this.world.faults?.snapshot.vehicleListing() ?? { count: this.size, indexAt: (p) => p };
  }

  /** The entries of `/vehicles/status` (and gRPC ListVehicleStatus): every vehicle once, unless data faults leave some out. */
  statusListing(nowMs: number = this.createdAt): FleetListing {
    return this.world.faults?.snapshot.statusListing(nowMs) ?? { count: this.size, indexAt: (p) => p };
  }

  /** The device_id of vehicle `index`, without building the rest of it. */
  deviceIdAt(index: number): string {
    return this.vehicles.deviceIdAt(index);
  }

  /** The index of a device_id in this fleet, or undefined when no vehicle has it. */
  indexOf(deviceId: string): number | undefined {
    return this.vehicles.indexOf(deviceId);
  }

  /** The index of a device_id that `/vehicles` lists (`/vehicles/{device_id}`, gRPC GetVehicle); data faults leave some out. */
  listedIndexOf(deviceId: string): number | undefined {
    const index = this.indexOf(deviceId);
    return index === undefined || this.world.faults?.snapshot.isUnlisted(index) ? undefined : index;
  }

  /** The index of a device_id that `/vehicles/status` lists at `nowMs` (its `{device_id}` form, gRPC GetVehicleStatus). */
  statusIndexOf(deviceId: string, nowMs: number): number | undefined {
    const index = this.indexOf(deviceId);
    return index === undefined || this.world.faults?.snapshot.isStatusAbsent(index, nowMs) ? undefined : index;
  }

  /** Vehicle `index` (0-based), its fixed properties only. */
  vehicleAt(index: number): MdsVehicle {
    const vehicle = this.world.vehicle(index).vehicle;
    const shared = this.world.faults?.snapshot.sharedVehicleId(index);
    return shared === undefined ? vehicle : { ...vehicle, vehicle_id: shared };
  }

  /** The status of vehicle `index` at `nowMs` (default `createdAt`). */
  statusAt(index: number, nowMs: number = this.createdAt): WorldVehicleStatus {
    return this.world.statusAt(index, nowMs);
  }

  /** Vehicle `index` with its status at `createdAt`. */
  at(index: number): FleetVehicleWithStatus {
    return { vehicle: this.vehicleAt(index), status: this.statusAt(index) };
  }

  /** Vehicles `from` (inclusive) to `to` (exclusive), clamped to the fleet, with statuses at `createdAt`. */
  slice(from: number, to: number): FleetVehicleWithStatus[] {
    const end = Math.min(to, this.size);
    const out: FleetVehicleWithStatus[] = [];
    for (let i = Math.max(0, from); i < end; i++) out.push(this.at(i));
    return out;
  }
}
