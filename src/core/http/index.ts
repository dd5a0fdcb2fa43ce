// http: sending REST requests: the client for any GET with a fresh token per request and page, body and error
// interpretation, fetch errors in words, CSV bodies, `.http` request files
// (GET and GRPC requests, as text: no `grpc` import) and curl / grpcurl command lines.
// Imports `base`, `environment`, `clock`, `auth` and `mds`; never `vscode`, never `grpc`.

export { ApiClient } from './apiClient';
export { curlCommand } from './curlCommand';
export { GRPCURL_TOKEN_VARIABLE, grpcurlCommand } from './grpcurlCommand';
export type { GrpcurlCall, GrpcurlToken } from './grpcurlCommand';
export { outcomeOf } from './exchange';
export type { ApiResult, HttpExchange, RequestOutcome, VehicleListing } from './exchange';
export { parseRequestFile } from './requestFile';
export { expandFileText, resolveFileRequest, resolveGrpcFileRequest } from './requestFileResolve';
export { findFileRequest, listFileRequests } from './requestFileLookup';
export type { AssertionLine, FileRequest, RequestFile } from './requestFile';
export type { ResolvedFileRequest } from './requestFileResolve';
export { grpcRequestText } from './requestFileGrpc';
export type { RefusedLine } from './requestFileScripts';
export type { GrpcFileParts, ProtoImport, ResolvedGrpcFileRequest } from './requestFileGrpc';
