// mds: the MDS 2.0 Provider API as data: endpoint ids, the endpoint catalogue with parameters and defaults,
// response models and item readers, UTC hours, and requests built from the catalogue (as plain request descriptions).
// Imports `base` and `environment` only: it never sends (no http, no grpc), never `vscode`.

export { catalogueOf } from './mdsCatalogue';
export type { CatalogueEndpoint, EndpointParameter } from './catalogueEndpoint';
export { MDS_ENDPOINT_IDS, MDS_HOUR_ENDPOINTS, isMdsEndpointId } from './mdsEndpoints';
export type { MdsEndpointId, MdsHourEndpointId } from './mdsEndpoints';
export { MDS_REPORT_COLUMNS, MDS_SPECIAL_GROUP_TYPES } from './mdsItems';
export type { MdsEventItem, MdsReportRow, MdsStop, MdsTelemetryItem, MdsTrip, VehicleTypeCounts } from './mdsItems';
export { itemsOf, nextLinkOf, parseMdsError, vehicleListOf } from './mdsModels';
export type {
  MdsErrorBody,
  MdsLocation,
  MdsVehicle,
  MdsVehicleStatus,
  PropulsionType,
  VehicleListKey,
  VehicleState,
  VehicleType,
} from './mdsModels';
export { buildEndpointRequest, checkEndpointValues, endpointDefaults, findEndpoint, freeRequest } from './mdsRequests';
export type { BuildRequestOptions, EndpointRequest, ParameterValues } from './mdsRequests';
export { PARAMETER_FORMATS, checkParameterValue } from './parameterFormats';
export {
  HOUR_MS,
  UTC_HOUR_FORMAT,
  floorToUtcHour,
  formatUtcHour,
  lastCompleteUtcHour,
  parseUtcHour,
  utcHoursBetween,
} from './utcHour';
