// One reader for vehicle-like items (MDS `vehicles`, MDS `vehicles_status`, MaaS listing items):
// the panel's table and the CLI's rows read every field through `readVehicle`, so both show the
// same values (the battery of a status item comes from `last_telemetry` in both, for example).
import { isRecord } from '../../shared/isRecord';
import type { ListingShape } from '../../shared/listingViews';
import type { VehicleColumns } from '../../shared/vehicleColumns';

/** What one vehicle-like item shows. Missing or malformed fields are '' or NaN, never an exception. */
export interface VehicleReading {
  deviceId: string;
  vehicleId: string;
  providerId: string;
  vehicleType: string;
  /** `electric, human`. */
  propulsion: string;
  state: string;
  /** 0..100, NaN when not given. */
  batteryPercent: number;
  /** ms since the epoch of the last event (or telemetry, or report), NaN when not given. */
  lastEventMs: number;
  /** NaN when no valid position is given. */
  lat: number;
  lng: number;
}

function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : NaN;
}

/** Milliseconds from a number (ms) or an ISO date string, NaN otherwise. */
function timeMs(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? NaN : t;
  }
  return NaN;
}

function firstNumber(...values: unknown[]): number {
  for (const v of values) {
    const n = num(v);
    if (!Number.isNaN(n)) return n;
  }
  return NaN;
}

function firstTime(...values: unknown[]): number {
  for (const v of values) {
    const t = timeMs(v);
    if (!Number.isNaN(t)) return t;
  }
  return NaN;
}

/**
 * Reads one item of any of the vehicle shapes. Each field is taken where any shape keeps it, the
 * most recent source first: `last_telemetry`, then `last_event`, then the item itself.
 */
export function readVehicle(item: unknown): VehicleReading {
  const v = isRecord(item) ? item : {};
  const event = isRecord(v.last_event) ? v.last_event : undefined;
  const telemetry = isRecord(v.last_telemetry) ? v.last_telemetry : undefined;
  const location = [telemetry?.location, event?.location, v.location].find(isRecord);
  const lat = num(location?.lat);
  const lng = num(location?.lng ?? location?.lon);
  const valid = lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180;
  return {
    deviceId: str(v.device_id) || str(v.id),
    vehicleId: str(v.vehicle_id),
    providerId: str(v.provider_id),
    vehicleType: str(v.vehicle_type),
    propulsion: Array.isArray(v.propulsion_types)
      ? v.propulsion_types.map(str).filter(Boolean).join(', ')
      : str(v.propulsion_types),
    state: str(event?.vehicle_state) || str(v.state) || str(v.vehicle_state),
    batteryPercent: firstNumber(telemetry?.battery_percent, event?.battery_percent, v.battery_percent),
    lastEventMs: firstTime(event?.timestamp, telemetry?.timestamp, v.last_reported ?? v.last_updated),
    lat: valid ? lat : NaN,
    lng: valid ? lng : NaN,
  };
}

/** The most codes a column holds (they are stored in a Uint16Array). */
export const MAX_CODES = 0xffff;
/** Where names go once a column has seen more distinct names than fit. */
export const OTHER_NAME = '(other)';

/**
 * Interns categorical strings as small integers; code 0 is the empty value. The last code is kept
 * for `(other)`: a server that sends more distinct names than fit gets them grouped, not a crash.
 */
export class CodeBook {
  readonly names: string[] = [''];
  private readonly codes = new Map<string, number>([['', 0]]);

  code(name: string): number {
    const known = this.codes.get(name);
    if (known !== undefined) return known;
    const interned = this.names.length < MAX_CODES - 1 ? name : OTHER_NAME;
    const existing = this.codes.get(interned);
    if (existing !== undefined) return existing;
    const c = this.names.length;
    this.names.push(interned);
    this.codes.set(interned, c);
    return c;
  }
}

/** Which shape the items have, for labels: every shape is read by the same tolerant reader. */
export function listingShape(
  listKey: string | undefined,
  items: readonly unknown[],
  api: 'mds' | 'maas',
): ListingShape {
  if (listKey === 'vehicles_status') return 'mds-status';
  const first = items.find(isRecord);
  if (api === 'maas' || (first && 'id' in first && 'state' in first && !('device_id' in first))) return 'maas';
  if (listKey === 'vehicles' || (first && 'device_id' in first)) return 'mds-vehicles';
  return 'unknown';
}

/** The vehicle table's columns, each item read by `readVehicle`. */
export function vehicleColumns(items: readonly unknown[]): VehicleColumns {
  const n = items.length;
  const types = new CodeBook();
  const propulsions = new CodeBook();
  const states = new CodeBook();
  const cols: VehicleColumns = {
    count: n,
    deviceId: new Array<string>(n),
    vehicleId: new Array<string>(n),
    providerId: new Array<string>(n),
    typeCode: new Uint16Array(n),
    typeNames: types.names,
    propulsionCode: new Uint16Array(n),
    propulsionNames: propulsions.names,
    stateCode: new Uint16Array(n),
    stateNames: states.names,
    battery: new Float64Array(n),
    lastEvent: new Float64Array(n),
    lat: new Float64Array(n),
    lng: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const r = readVehicle(items[i]);
    cols.deviceId[i] = r.deviceId;
    cols.vehicleId[i] = r.vehicleId;
    cols.providerId[i] = r.providerId;
    cols.typeCode[i] = types.code(r.vehicleType);
    cols.propulsionCode[i] = propulsions.code(r.propulsion);
    cols.stateCode[i] = states.code(r.state);
    cols.battery[i] = r.batteryPercent;
    cols.lastEvent[i] = r.lastEventMs;
    cols.lat[i] = r.lat;
    cols.lng[i] = r.lng;
  }
  return cols;
}
