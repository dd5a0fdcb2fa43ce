// How a call ended: the status code by name, the message, and the `grpc-status-details-bin`
// trailer decoded as google.rpc.Status with its details unpacked when their type is known.
import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { statusProtos } from './bundledProtos';
import { decodeMessage } from './messageJson';

/** The status of a call as shown: `details` are the google.rpc.Status details, each with its `@type`. */
export interface GrpcStatusView {
  code: number;
  /** `OK`, `UNAUTHENTICATED`, … */
  name: string;
  message: string;
  details: Record<string, unknown>[];
  /** The code and message of the `grpc-status-details-bin` trailer (a google.rpc.Status), when it came and decoded. */
  rpcStatus?: { code: number; message: string };
}

/** Metadata as JSON: each name with its values; binary (`-bin`) values as base64. */
export type MetadataView = Record<string, string[]>;

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** The name of a status code (`UNAUTHENTICATED` for 16), or `CODE_<n>` for one gRPC does not define. */
export function statusName(code: number): string {
  const name = (grpc.status as unknown as Record<number, string | undefined>)[code];
  return typeof name === 'string' ? name : `CODE_${code}`;
}

export function metadataView(metadata: grpc.Metadata | undefined): MetadataView {
  const out: MetadataView = {};
  for (const [name, values] of Object.entries(metadata?.toJSON() ?? {})) {
    out[name] = values.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : String(v)));
  }
  return out;
}

/** A type that can unpack an Any of `typeUrl` (`type.googleapis.com/google.rpc.ErrorInfo`), if one is known. */
function typeOfUrl(typeUrl: string, roots: protobuf.Root[]): protobuf.Type | undefined {
  const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
  for (const root of roots) {
    const found = root.lookup(name);
    if (found instanceof protobuf.Type) return found;
  }
  return undefined;
}

/**
 * The details of a `grpc-status-details-bin` trailer: each Any unpacked when its type is a
 * google.rpc error detail or in `schema`, else kept as `{ "@type", "value": base64 }`. Undefined
 * when the trailer is absent or does not decode as google.rpc.Status.
 */
export function decodeStatusDetails(
  trailers: grpc.Metadata | undefined,
  schema?: protobuf.Root,
): { code: number; message: string; details: Record<string, unknown>[] } | undefined {
  const raw = trailers?.get(STATUS_DETAILS_KEY)[0];
  if (!Buffer.isBuffer(raw)) return undefined;
  const root = statusProtos();
  const statusType = root.lookupType('google.rpc.Status');
  let status: protobuf.Message & {
    code?: number;
    message?: string;
    details?: { type_url: string; value: Uint8Array }[];
  };
  try {
    status = statusType.decode(raw);
  } catch {
    return undefined;
  }
  const roots = schema ? [root, schema] : [root];
  const details = (status.details ?? []).map((any) => {
    const type = typeOfUrl(any.type_url, roots);
    if (type) {
      try {
        return { '@type': any.type_url, ...decodeMessage(type, any.value) };
      } catch {
        // Shown as bytes below.
      }
    }
    return { '@type': any.type_url, value: Buffer.from(any.value).toString('base64') };
  });
  return { code: status.code ?? 0, message: status.message ?? '', details };
}

/** The status as shown, from the call's status event and its trailers. */
export function statusView(
  status: { code: number; details: string; metadata?: grpc.Metadata },
  schema?: protobuf.Root,
): GrpcStatusView {
  const decoded = decodeStatusDetails(status.metadata, schema);
  return {
    code: status.code,
    name: statusName(status.code),
    message: status.details,
    details: decoded?.details ?? [],
    ...(decoded ? { rpcStatus: { code: decoded.code, message: decoded.message } } : {}),
  };
}
