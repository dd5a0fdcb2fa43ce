// grpc: the gRPC transport beside http: channels (TLS, custom CA, plaintext on loopback), schemas from server
// reflection (v1, then v1alpha), .proto files or descriptor sets, message templates, and calls of every kind with a
// fresh token in the `authorization` metadata of each call (same issuer and per-key clock as REST), status details.
// Imports `base`, `environment`, `clock`, `auth` and `mds`; never `http`, never `vscode`.

export { callMethod } from './call';
export type { GrpcCallRequest, GrpcCallResult } from './call';
export { userMetadata } from './callAuth';
export type { GrpcAuth, MetadataEntries } from './callAuth';
export { openConnection } from './connection';
export type { GrpcConnection, GrpcTarget } from './connection';
export { grpcFileCall } from './fileRequest';
export type { GrpcFileCall, GrpcFileRequestParts } from './fileRequest';
export { encodeMessage, parseMessagesJson } from './messageJson';
export { describeSymbol } from './protoText';
export { reflectionWantsAuth, reflectSchema } from './reflection';
export {
  descriptorFileNames,
  findMethod,
  findType,
  listServices,
  loadProtoFiles,
  loadProtoset,
  methodCodeShape,
  protosetOf,
  schemaFromProtoset,
} from './schema';
export type { GrpcMethodInfo, GrpcSchema, GrpcServiceInfo, MethodCodeShape, SchemaSource } from './schema';
export { GrpcSessions } from './session';
export type { GrpcServiceListing } from './session';
export type { GrpcStatusView, MetadataView } from './status';
export { messageTemplate } from './template';
