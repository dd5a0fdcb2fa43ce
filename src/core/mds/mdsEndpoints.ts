/**
 * The MDS 2.0 Provider endpoints by a stable id. The catalogue, the conformance validator, the
 * sandbox and the harvest all name endpoints by these ids, so that one list holds them together.
 */
export const MDS_ENDPOINT_IDS = [
  'vehicles',
  'vehicle',
  'vehicles_status',
  'vehicle_status',
  'trips',
  'telemetry',
  'events_historical',
  'events_recent',
  'stops',
  'stop',
  'reports',
] as const;

/** One MDS 2.0 Provider endpoint (see `MDS_ENDPOINT_IDS`). */
export type MdsEndpointId = (typeof MDS_ENDPOINT_IDS)[number];

/** The endpoints that serve one UTC hour per request (`YYYY-MM-DDTHH`). */
export const MDS_HOUR_ENDPOINTS = ['trips', 'telemetry', 'events_historical'] as const;

/** One of the hour endpoints. */
export type MdsHourEndpointId = (typeof MDS_HOUR_ENDPOINTS)[number];

/** True when `id` names an MDS endpoint. */
export function isMdsEndpointId(id: string): id is MdsEndpointId {
  return (MDS_ENDPOINT_IDS as readonly string[]).includes(id);
}
