// Conforming MDS 2.0 samples, built from the official text (mobility-data-specification 2.0.2: provider/README.md,
// data-types.md, modes/micromobility.md) and the `examples` of the official schema files (mds-openapi v2.0), for the
// conformance tests. Each function returns a fresh object, so that a test can break one field.

export const PROVIDER_ID = '3c9604d6-b5ee-11e8-96f8-529269fb1459';
export const DEVICE_ID = '0c3a3bc3-8e9c-4ec4-b6a9-4a28b5c8a2d1';
export const TRIP_ID = '9a1a8f5e-4c7b-4d35-8b0e-2b7c9f1d6e34';
const TIMESTAMP = 1681855703000;

/** A uuid that differs per index (for big pages). */
export function uuidOf(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

export function vehicle(deviceId = DEVICE_ID): Record<string, unknown> {
  return {
    device_id: deviceId,
    provider_id: PROVIDER_ID,
    vehicle_id: 'ABC123',
    vehicle_type: 'scooter_standing',
    propulsion_types: ['electric'],
    vehicle_attributes: { year: 2023, make: 'Acme', model: 'S1' },
    battery_capacity: 10000,
    maximum_speed: 25,
  };
}

export function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    device_id: DEVICE_ID,
    provider_id: PROVIDER_ID,
    event_id: '5e2b0f8a-6b1f-4a8e-9d0c-7f3e2a1b4c5d',
    vehicle_state: 'available',
    event_types: ['trip_end'],
    timestamp: TIMESTAMP,
    location: { lat: 47.3769, lng: 8.5417 },
    battery_percent: 80,
    trip_ids: [TRIP_ID],
    ...overrides,
  };
}

export function telemetry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    device_id: DEVICE_ID,
    provider_id: PROVIDER_ID,
    telemetry_id: '7d1e3c2b-0a9f-4e8d-8c7b-6a5f4e3d2c1b',
    timestamp: TIMESTAMP,
    trip_ids: null,
    journey_id: null,
    location: {
      lat: 47.3769,
      lng: 8.5417,
      altitude: 408,
      heading: 90,
      speed: 0,
      horizontal_accuracy: 5,
      satellites: 9,
    },
    location_type: 'street',
    battery_percent: 80,
    ...overrides,
  };
}

export function vehicleStatus(deviceId = DEVICE_ID): Record<string, unknown> {
  return {
    device_id: deviceId,
    provider_id: PROVIDER_ID,
    last_event: { ...event(), device_id: deviceId },
    last_telemetry: { ...telemetry(), device_id: deviceId },
  };
}

export function trip(): Record<string, unknown> {
  return {
    provider_id: PROVIDER_ID,
    device_id: DEVICE_ID,
    trip_id: TRIP_ID,
    trip_type: ['rider'],
    start_time: TIMESTAMP - 600_000,
    end_time: TIMESTAMP,
    start_location: { lat: 47.37, lng: 8.54 },
    end_location: { lat: 47.38, lng: 8.55 },
    duration: 600,
    distance: 1000,
    parking_verification_url: 'https://data.provider.co/parking_verify/1234.jpg',
    standard_cost: 500,
    actual_cost: 520,
    currency: 'USD',
  };
}

/** Pagination links as provider/README.md "Pagination" shows them (last page: next null). */
export function links(): Record<string, unknown> {
  return {
    first: 'https://data.provider.co/vehicles?page=1',
    last: 'https://data.provider.co/vehicles?page=1',
    prev: null,
    next: null,
  };
}

/** `/vehicles` as 2.0.2 shows it: version, vehicles, links (no last_updated or ttl). */
export function vehiclesBody(items = [vehicle()]): Record<string, unknown> {
  return { version: '2.0.2', vehicles: items, links: links() };
}

/** `/vehicles/status`: near realtime, so last_updated and ttl. */
export function vehiclesStatusBody(items = [vehicleStatus()]): Record<string, unknown> {
  return { version: '2.0.2', last_updated: TIMESTAMP, ttl: 30_000, vehicles_status: items, links: links() };
}

/** The September 2019 report of provider/examples.md (first rows). */
export const REPORT_CSV = [
  'provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count',
  '48415839-3e38-4ba5-a557-e45fb4e6a0a3,2019-09-01,P1M,all_riders,44428624-186b-4fc3-a7fb-124f487464a1,scooter,1302,983',
  '48415839-3e38-4ba5-a557-e45fb4e6a0a3,2019-09-01,P1M,low_income,44428624-186b-4fc3-a7fb-124f487464a1,scooter,201,104',
  '48415839-3e38-4ba5-a557-e45fb4e6a0a3,2019-09-01,P1M,low_income,8ad39dc3-005b-4348-9d61-c830c54c161b,bicycle,15,-1',
  '',
].join('\n');
