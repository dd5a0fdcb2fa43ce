/**
 * The MDS Provider 2.0 shapes of the vehicles endpoints (shared/spec/mds-2.0-vehicles.md), and
 * defensive readers for bodies of unknown shape: they never throw and never trust a field's type.
 */
import { isRecord } from '../../shared/isRecord';

export type VehicleType =
  | 'bicycle'
  | 'bus'
  | 'cargo_bicycle'
  | 'car'
  | 'delivery_robot'
  | 'moped'
  | 'motorcycle'
  | 'scooter_standing'
  | 'scooter_seated'
  | 'truck'
  | 'other';

export type PropulsionType =
  | 'human'
  | 'electric_assist'
  | 'electric'
  | 'combustion'
  | 'combustion_diesel'
  | 'hybrid'
  | 'hydrogen_fuel_cell'
  | 'plug_in_hybrid';

export type VehicleState =
  | 'removed'
  | 'available'
  | 'non_operational'
  | 'reserved'
  | 'on_trip'
  | 'stopped'
  | 'non_contactable'
  | 'missing'
  | 'elsewhere';

export interface MdsLocation {
  lat: number;
  lng: number;
  altitude?: number;
  heading?: number;
  speed?: number;
  horizontal_accuracy?: number;
  vertical_accuracy?: number;
  satellites?: number;
}

export interface MdsVehicle {
  device_id: string;
  provider_id: string;
  data_provider_id?: string;
  vehicle_id: string;
  vehicle_type: VehicleType;
  propulsion_types: PropulsionType[];
  vehicle_attributes?: Record<string, unknown>;
  accessibility_attributes?: unknown[];
  battery_capacity?: number;
  fuel_capacity?: number;
  maximum_speed?: number;
}

export interface MdsEvent {
  event_id: string;
  vehicle_state: VehicleState;
  event_types: string[];
  timestamp: number;
  location: MdsLocation;
  battery_percent?: number;
  fuel_percent?: number;
  trip_ids?: string[];
}

export interface MdsTelemetry {
  telemetry_id: string;
  timestamp: number;
  trip_ids: string[] | null;
  journey_id: string | null;
  location: MdsLocation;
  location_type?: 'street' | 'garage';
  battery_percent?: number;
  fuel_percent?: number;
}

export interface MdsVehicleStatus {
  device_id: string;
  provider_id: string;
  data_provider_id?: string;
  last_event: MdsEvent;
  last_telemetry: MdsTelemetry;
}

export interface MdsLinks {
  first?: string | null;
  last?: string | null;
  prev?: string | null;
  next: string | null;
}

/** `{ error, error_description, error_details }`, the MDS error body. */
export interface MdsErrorBody {
  error: string;
  error_description?: string;
  error_details?: string[];
}

/** The MDS error body in `body`, if it has that shape. */
export function parseMdsError(body: unknown): MdsErrorBody | undefined {
  if (!isRecord(body) || typeof body.error !== 'string') return undefined;
  const result: MdsErrorBody = { error: body.error };
  if (typeof body.error_description === 'string') result.error_description = body.error_description;
  if (Array.isArray(body.error_details))
    result.error_details = body.error_details.filter((d): d is string => typeof d === 'string');
  return result;
}

/** Which array of a listing holds the vehicles. MaaS bodies of the sandbox use `vehicles` too. */
export type VehicleListKey = 'vehicles' | 'vehicles_status';

/** The vehicle array of a listing body and its key, or undefined when the body has none. */
export function vehicleListOf(body: unknown): { key: VehicleListKey; items: unknown[] } | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.vehicles_status)) return { key: 'vehicles_status', items: body.vehicles_status };
  if (Array.isArray(body.vehicles)) return { key: 'vehicles', items: body.vehicles };
  return undefined;
}

/**
 * The top-level keys that hold the items of an answer, most specific first: the MDS 2.0 Provider
 * payloads, then names other APIs commonly use.
 */
export const KNOWN_ITEMS_KEYS = [
  'vehicles_status',
  'vehicles',
  'trips',
  'telemetry',
  'events',
  'stops',
  'data',
  'items',
  'results',
] as const;

/**
 * The items of an answer and the key that holds them: `preferredKey` when it holds an array (the
 * catalogue's key), else the first of `KNOWN_ITEMS_KEYS` that does, else the only top-level
 * array, else the body itself when it is an array (key undefined). Undefined when none applies.
 */
export function itemsOf(
  body: unknown,
  preferredKey?: string,
): { key: string | undefined; items: unknown[] } | undefined {
  if (Array.isArray(body)) return { key: undefined, items: body };
  if (!isRecord(body)) return undefined;
  if (preferredKey !== undefined && Object.hasOwn(body, preferredKey) && Array.isArray(body[preferredKey]))
    return { key: preferredKey, items: body[preferredKey] };
  for (const key of KNOWN_ITEMS_KEYS) {
    if (Object.hasOwn(body, key) && Array.isArray(body[key])) return { key, items: body[key] };
  }
  const arrays = Object.keys(body).filter((key) => Array.isArray(body[key]));
  if (arrays.length === 1) {
    const key = arrays[0];
    return { key, items: body[key] as unknown[] };
  }
  return undefined;
}

/** `links.next` of a listing: a URI, null on the last page, undefined when the body has no links. */
export function nextLinkOf(body: unknown): string | null | undefined {
  if (!isRecord(body) || !isRecord(body.links)) return undefined;
  const next = body.links.next;
  if (typeof next === 'string' && next.trim() !== '') return next;
  return next === undefined ? undefined : null;
}
