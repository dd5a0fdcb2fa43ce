// environment: where a request goes and what it asks, independent of how it is sent: an environment (API, stage,
// base URL, which is also the token audience), request paths and query strings, and the headers a request carries.
// Imports only `base`; no transport, no tokens, never `vscode`.

export { appendQuery, checkRequestPath, requestUrl, vehiclesPath, vehiclesUrl } from './apiRequest';
export type { ApiRequest, QueryInput, VehiclesQuery } from './apiRequest';
export {
  API_LABELS,
  audienceOf,
  baseUrlUserInfoProblem,
  hasUserInfo,
  normaliseBaseUrl,
  userInfoProblem,
  withoutTrailingSlashes,
} from './environment';
export { readConfiguredEnvironments } from './configuredEnvironments';
export type { BuiltInEnvironment, EnvironmentSettings } from './configuredEnvironments';
export type { ApiKind, Environment, GrpcEndpoint } from './environment';
export { parseGrpcEndpoint } from './grpcEndpoint';
export { MDS_CSV_ACCEPT, requestHeadersFor, takeUserAuthorization } from './requestHeaders';
export type { UserAuthorization } from './requestHeaders';
