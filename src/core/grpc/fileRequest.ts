// A GRPC request of a `.http` file (resolved by core/http's resolveGrpcFileRequest) as a call: the endpoint it goes
// to and the GrpcCallRequest. Shared by the extension's CodeLens and the CLI; no `http` import (the request's shape
// is written out here), no `vscode`.
import path from 'node:path';
import type { GrpcEndpoint } from '../environment';
import type { GrpcCallRequest } from './call';

/** What a resolved GRPC request of a file holds (core/http's ResolvedGrpcFileRequest). */
export interface GrpcFileRequestParts {
  method: string;
  target: string;
  transport?: 'plaintext' | 'tls';
  metadata: [string, string][];
  authorization?: string;
  messages: Record<string, unknown>[];
  /** As written, relative to the request file. */
  protoFiles: string[];
  importPaths: string[];
}

/** Where a file's GRPC request goes and what it sends. */
export interface GrpcFileCall {
  /**
   * The request's target, with the TLS settings of `environmentEndpoint` unless the target's scheme says
   * (`grpc://`: plaintext, `grpcs://`: TLS); its `proto <` files (absolute) when it has some, else the
   * environment's schema source (reflection, `.proto` files or protoset).
   */
  endpoint: GrpcEndpoint;
  /** True when the schema comes from the request's own `proto <` lines. */
  ownProtos: boolean;
  call: GrpcCallRequest;
}

/**
 * The call of `request`, a GRPC request of a file in `folder` (its `proto <` paths and includeDirs are
 * relative to it). `environmentEndpoint` is the gRPC endpoint of the environment the token is signed for.
 */
export function grpcFileCall(
  request: GrpcFileRequestParts,
  environmentEndpoint: GrpcEndpoint | undefined,
  folder: string,
): GrpcFileCall {
  const endpoint: GrpcEndpoint = { target: request.target };
  const plaintext =
    request.transport === 'plaintext' ? true : request.transport === 'tls' ? false : environmentEndpoint?.plaintext;
  if (plaintext) endpoint.plaintext = true;
  else if (environmentEndpoint?.caFile) endpoint.caFile = environmentEndpoint.caFile;
  const ownProtos = request.protoFiles.length > 0;
  if (ownProtos) {
    endpoint.protoFiles = request.protoFiles.map((f) => path.resolve(folder, f));
    if (request.importPaths.length) endpoint.importPaths = request.importPaths.map((d) => path.resolve(folder, d));
  } else if (environmentEndpoint?.protoFiles?.length) {
    endpoint.protoFiles = environmentEndpoint.protoFiles;
    if (environmentEndpoint.importPaths?.length) endpoint.importPaths = environmentEndpoint.importPaths;
  } else if (environmentEndpoint?.protoset) {
    endpoint.protoset = environmentEndpoint.protoset;
  }
  const metadata: [string, string][] = [...request.metadata];
  if (request.authorization !== undefined) metadata.push(['authorization', request.authorization]);
  const call: GrpcCallRequest = { method: request.method, messages: request.messages };
  if (metadata.length) call.metadata = metadata;
  if (request.authorization !== undefined) call.sendOwnAuthorization = true;
  return { endpoint, ownProtos, call };
}
