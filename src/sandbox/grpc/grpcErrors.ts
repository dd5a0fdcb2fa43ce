/**
 * The errors the sandbox's gRPC side answers with: a status code, a message that says what to fix,
 * and for refused tokens a `google.rpc.Status` in `grpc-status-details-bin` whose `ErrorInfo`
 * names the broken rule (encoded by protobufjs from the vendored google/rpc protos).
 */
import * as grpc from '@grpc/grpc-js';
import { loadSync } from 'protobufjs';
import type { Type } from 'protobufjs';
import type { TokenRefusal } from '../auth/tokenVerifier';
import { STATUS_PROTO_FILES, protoFile } from './protoFiles';

/** The ErrorInfo domain of the sandbox's refusals. */
export const ERROR_INFO_DOMAIN = 'sandbox.mobility-api-explorer';
export const ERROR_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.ErrorInfo';

/** An error a handler hands to grpc-js: it becomes the call's status and trailers. */
export type GrpcError = grpc.ServerErrorResponse & { code: grpc.status; details: string };

let statusTypes: { status: Type; errorInfo: Type } | undefined;

function types(): { status: Type; errorInfo: Type } {
  if (!statusTypes) {
    const root = loadSync(STATUS_PROTO_FILES.map((f) => protoFile(f)));
    statusTypes = { status: root.lookupType('google.rpc.Status'), errorInfo: root.lookupType('google.rpc.ErrorInfo') };
  }
  return statusTypes;
}

/** An error with a status code and message, and optionally trailers. */
export function grpcError(code: grpc.status, details: string, metadata = new grpc.Metadata()): GrpcError {
  return Object.assign(new Error(details), { code, details, metadata });
}

/**
 * UNAUTHENTICATED for a refused token: the message is `<rule>: <description>` as the REST side's
 * WWW-Authenticate error_description, and the details carry an ErrorInfo with reason = the rule id
 * in upper case and metadata `rule`, `spec` and `requirement`.
 */
export function unauthenticated(refusal: TokenRefusal): GrpcError {
  const message = `${refusal.rule}: ${refusal.description}`;
  const { status, errorInfo } = types();
  const requirement = refusal.details.find((d) => d.startsWith('requirement: '))?.slice('requirement: '.length) ?? '';
  const info = errorInfo
    .encode(
      errorInfo.fromObject({
        reason: refusal.rule.toUpperCase(),
        domain: ERROR_INFO_DOMAIN,
        metadata: { rule: refusal.rule, spec: refusal.spec, requirement },
      }),
    )
    .finish();
  const details = status
    .encode(
      status.fromObject({
        code: grpc.status.UNAUTHENTICATED,
        message,
        details: [{ type_url: ERROR_INFO_TYPE_URL, value: info }],
      }),
    )
    .finish();
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(details));
  return grpcError(grpc.status.UNAUTHENTICATED, message, metadata);
}

/** The name of a status code, such as `NOT_FOUND`. */
export function statusName(code: grpc.status): string {
  return grpc.status[code] ?? String(code);
}
