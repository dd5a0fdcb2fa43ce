// One gRPC call of any kind (unary, server streaming, client streaming, bidirectional) with a token
// signed for it. Everything the user gave is checked before the channel is asked to connect and
// before a token is signed; a status other than OK is a result, not an error.
import * as l10n from '@vscode/l10n';
import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { MobilityError } from '../base';
import type { IssuedToken } from '../auth';
import type { GrpcAuth, MetadataEntries } from './callAuth';
import { hasOwnAuthorization, shownMetadata, signCall, userMetadata } from './callAuth';
import type { GrpcConnection } from './connection';
import { decodeMessage, encodeMessage } from './messageJson';
import type { GrpcMethodInfo, GrpcSchema } from './schema';
import { findMethod } from './schema';
import type { GrpcStatusView, MetadataView } from './status';
import { metadataView, statusView } from './status';

export const DEFAULT_DEADLINE_MS = 30_000;

export interface GrpcCallRequest {
  /** `package.Service/Method`. */
  method: string;
  /** The request messages as JSON: one for unary and server-streaming calls, any number for the others. */
  messages: unknown[];
  metadata?: MetadataEntries;
  /** Send the `authorization` entry of `metadata` as written instead of a signed token. */
  sendOwnAuthorization?: boolean;
  /** Default 30 s. */
  deadlineMs?: number;
  /** Aborting cancels the call; the result then has status CANCELLED and the messages received so far. */
  signal?: AbortSignal;
  /** Told of each answer message as it arrives (streams). */
  onMessage?: (message: Record<string, unknown>, index: number) => void;
  /** Told once the call is under way, with the token it carries (to scrub an echo of it from what is shown as it arrives). */
  onStarted?: (started: { method: GrpcMethodInfo; token?: IssuedToken }) => void;
  /**
   * Default true: the result holds every answer message. False: `onMessage` sees each one and the result holds none
   * (`messageCount` counts them), so that a long stream takes no more memory than one message.
   */
  keepMessages?: boolean;
}

/** How a call went, as sent and as answered. */
export interface GrpcCallResult {
  method: GrpcMethodInfo;
  status: GrpcStatusView;
  /** The response headers (initial metadata). */
  headers: MetadataView;
  trailers: MetadataView;
  /** The answer messages; empty when the call was made with `keepMessages: false`. */
  messages: Record<string, unknown>[];
  /** How many answer messages arrived. */
  messageCount: number;
  /** The metadata sent, authorization as `Bearer <redacted>`. */
  requestMetadata: MetadataView;
  /** The token the call carried (a secret: never log or print it; show its claims). Absent with the user's own authorization. */
  token?: IssuedToken;
  /** This computer's clock (ms since the epoch) when the headers or the status arrived. */
  receivedAtMs: number;
  timings: { queuedMs: number; signMs: number; totalMs: number };
}

type AnyCall =
  | grpc.ClientUnaryCall
  | grpc.ClientReadableStream<unknown>
  | grpc.ClientWritableStream<unknown>
  | grpc.ClientDuplexStream<unknown, unknown>;

/** The request messages of `method` encoded, or GRPC_MESSAGE_INVALID naming the message and field. */
function encodeAll(type: protobuf.Type, info: GrpcMethodInfo, messages: unknown[]): Buffer[] {
  if (!info.clientStreaming && messages.length !== 1) {
    throw new MobilityError(
      'GRPC_MESSAGE_INVALID',
      l10n.t('{0} takes one request message, not {1}.', info.fullName.slice(1), messages.length),
    );
  }
  return messages.map((m, i) => encodeMessage(type, m, messages.length > 1 ? `[${i}]` : ''));
}

/**
 * Calls `request.method` on `connection`. Refused before anything is sent: an unknown method, a
 * message that does not fit (GRPC_MESSAGE_INVALID names the field), metadata that cannot be sent,
 * a target that cannot be reached (GRPC_UNREACHABLE, GRPC_TLS). Without `auth` the call must carry
 * the user's own authorization.
 */
export async function callMethod(
  connection: GrpcConnection,
  schema: GrpcSchema,
  auth: GrpcAuth | undefined,
  request: GrpcCallRequest,
): Promise<GrpcCallResult> {
  const t0 = performance.now();
  const { method, info } = findMethod(schema, request.method);
  const inputType = method.resolvedRequestType!;
  const outputType = method.resolvedResponseType!;
  const encoded = encodeAll(inputType, info, request.messages);
  const base = userMetadata(request.metadata ?? [], request.sendOwnAuthorization === true);
  const own = hasOwnAuthorization(base);
  if (!own && !auth)
    throw new MobilityError(
      'NO_CREDENTIAL',
      l10n.t("A call needs a credential to sign its token, and the environment's base URL as its audience."),
    );
  const deadlineMs = request.deadlineMs ?? DEFAULT_DEADLINE_MS;
  await connection.ready(deadlineMs, request.signal);

  const tQueued = performance.now();
  const signed =
    own || !auth
      ? { metadata: base, token: undefined, release: () => undefined }
      : await signCall(auth, base, request.signal);
  const tSigned = performance.now();
  const serialize = (b: Buffer) => b;
  const deserialize = (b: Buffer) => decodeMessage(outputType, b);
  const options: grpc.CallOptions = { deadline: Date.now() + deadlineMs };
  const messages: Record<string, unknown>[] = [];
  const keep = request.keepMessages !== false;
  let count = 0;
  let headers: grpc.Metadata | undefined;
  let receivedAtMs = 0;

  return new Promise<GrpcCallResult>((resolve) => {
    let call: AnyCall;
    const client = connection.client;
    const path = info.fullName;
    const onValue = (err: grpc.ServiceError | null, value?: unknown) => {
      if (!err && value !== undefined) push(value as Record<string, unknown>);
    };
    const push = (value: Record<string, unknown>) => {
      if (keep) messages.push(value);
      request.onMessage?.(value, count++);
    };
    if (!info.clientStreaming && !info.serverStreaming)
      call = client.makeUnaryRequest(path, serialize, deserialize, encoded[0], signed.metadata, options, onValue);
    else if (!info.clientStreaming)
      call = client.makeServerStreamRequest(path, serialize, deserialize, encoded[0], signed.metadata, options);
    else if (!info.serverStreaming)
      call = client.makeClientStreamRequest(path, serialize, deserialize, signed.metadata, options, onValue);
    else call = client.makeBidiStreamRequest(path, serialize, deserialize, signed.metadata, options);

    request.onStarted?.({ method: info, ...(signed.token ? { token: signed.token } : {}) });
    const onAbort = () => call.cancel();
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    call.on('metadata', (metadata: grpc.Metadata) => {
      headers = metadata;
      receivedAtMs = Date.now();
      signed.release();
    });
    if (info.serverStreaming)
      (call as grpc.ClientReadableStream<Record<string, unknown>>).on('data', (value: Record<string, unknown>) =>
        push(value),
      );
    // A stream reports a non-OK status as an error too; the status event below carries it.
    if (info.clientStreaming || info.serverStreaming)
      (call as grpc.ClientReadableStream<unknown>).on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => {
      signed.release();
      request.signal?.removeEventListener('abort', onAbort);
      resolve({
        method: info,
        status: statusView(status, schema.root),
        headers: metadataView(headers),
        trailers: metadataView(status.metadata),
        messages,
        messageCount: count,
        requestMetadata: shownMetadata(signed.metadata),
        ...(signed.token ? { token: signed.token } : {}),
        receivedAtMs: receivedAtMs || Date.now(),
        timings: { queuedMs: tQueued - t0, signMs: tSigned - tQueued, totalMs: performance.now() - tSigned },
      });
    });
    if (info.clientStreaming) {
      const writable = call as grpc.ClientWritableStream<Buffer>;
      for (const message of encoded) writable.write(message);
      writable.end();
    }
  });
}
