/**
 * MDS 2.0 Provider items beyond the vehicles endpoints, as the sandbox serves them
 * (mds-openapi `models/trip.yaml`, `event.yaml`, `telemetry.yaml`, `stop.yaml`, `report.yaml`).
 * Only the fields the sandbox fills are typed; the schemas allow more.
 */
import type { MdsEvent, MdsLocation, MdsTelemetry, VehicleType } from './mdsModels';

/** An event as `/events/*` and `last_event` carry it: the vehicle and provider are required. */
export interface MdsEventItem extends MdsEvent {
  device_id: string;
  provider_id: string;
}

/** A telemetry point as `/telemetry` and `last_telemetry` carry it. */
export interface MdsTelemetryItem extends MdsTelemetry {
  device_id: string;
  provider_id: string;
}

/** A trip of `/trips` (micromobility mode: `trip_type` holds at most one of rider, rebalance, maintenance). */
export interface MdsTrip {
  provider_id: string;
  device_id: string;
  trip_id: string;
  trip_type?: ('rider' | 'rebalance' | 'maintenance')[];
  start_time: number;
  end_time: number;
  start_location: MdsLocation;
  end_location: MdsLocation;
  /** Seconds. */
  duration: number;
  /** Metres. */
  distance: number;
  parking_category?: 'corral' | 'curb' | 'rack' | 'other_valid' | 'invalid';
  standard_cost?: number;
  actual_cost?: number;
  currency?: string;
}

/** Vehicle counts keyed by vehicle type. */
export type VehicleTypeCounts = Partial<Record<VehicleType, number>>;

/** A stop of `/stops` (beta in MDS 2.0). */
export interface MdsStop {
  stop_id: string;
  name: string;
  last_updated: number;
  location: MdsLocation;
  status: { is_installed: boolean; is_renting: boolean; is_returning: boolean };
  capacity: VehicleTypeCounts;
  num_vehicles_available: VehicleTypeCounts;
  num_vehicles_disabled: VehicleTypeCounts;
  num_places_available?: VehicleTypeCounts;
  provider_id?: string;
  short_name?: string;
  address?: string;
  post_code?: string;
  rental_methods?: string[];
}

/** The columns of an MDS report CSV, in order (data-types.md, Reports). */
export const MDS_REPORT_COLUMNS = [
  'provider_id',
  'start_date',
  'duration',
  'special_group_type',
  'geography_id',
  'vehicle_type',
  'trip_count',
  'rider_count',
] as const;

/** The special group types of MDS 2.0 reports. */
export const MDS_SPECIAL_GROUP_TYPES = ['low_income', 'adaptive_scooter', 'all_riders'] as const;

/** One row of a monthly report; counts below 10 are written -1 (k-anonymity). */
export interface MdsReportRow {
  provider_id: string;
  /** `YYYY-MM-DD`, the first day of the month. */
  start_date: string;
  duration: 'P1M';
  special_group_type: (typeof MDS_SPECIAL_GROUP_TYPES)[number];
  /** Null when the agency has no /geography: the counts cover the whole operating area. */
  geography_id: string | null;
  vehicle_type: VehicleType;
  trip_count: number;
  rider_count: number;
}
