// The gRPC client core: schemas (server reflection v1/v1alpha, .proto files with import paths,
// descriptor sets), channels (TLS with the system roots or a CA file, plaintext to loopback only),
// calls of every kind with a fresh token per call (the REST issuer, per-key clock and queue),
// status details (google.rpc.Status), message templates and .proto text for `describe`.
//
// This file is the folder's one door: code outside imports from here only. Nothing here imports
// `vscode`, src/results, src/cli or the shell. @grpc/grpc-js, @grpc/proto-loader and protobufjs
// are imported by this folder alone; the extension must load it lazily (`await import(...)`), never
// from its activation bundle.
export type { GrpcAuth, MetadataEntries } from './callAuth';
export { userMetadata } from './callAuth';
export type { GrpcCallRequest, GrpcCallResult } from './call';
export { callMethod, DEFAULT_DEADLINE_MS } from './call';
export type { GrpcConnection, GrpcTarget } from './connection';
export { isLoopback, openConnection, parseTarget } from './connection';
export { checkMessage, parseMessagesJson } from './messageJson';
export { describeSymbol } from './protoText';
export type { ReflectionVersion } from './reflection';
export { reflectSchema } from './reflection';
export type { GrpcMethodInfo, GrpcSchema, GrpcServiceInfo, SchemaSource } from './schema';
export { findMethod, findType, listServices, loadProtoFiles, loadProtoset } from './schema';
export type { GrpcStatusView, MetadataView } from './status';
export { statusName } from './status';
export { messageTemplate } from './template';
