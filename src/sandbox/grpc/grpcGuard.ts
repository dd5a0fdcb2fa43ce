/**
 * The token check of every gRPC call: the `authorization` metadata is verified by the sandbox's
 * TokenVerifier (the same one as REST, so a jti used over REST is spent for gRPC too) with the
 * environment's base URL as the audience (spec 5.3), before the handler runs.
 */
import * as grpc from '@grpc/grpc-js';
import type { AuthRuleId } from '../../core/auth';
import { maskKeyId } from '../../core/base';
import type { ApiKind } from '../../core/environment';
import type { TokenCheck, TokenVerifier } from '../auth/tokenVerifier';
import type { GrpcError } from './grpcErrors';
import { grpcError, statusName, unauthenticated } from './grpcErrors';

/** One answered gRPC call, for logs. Holds no token and never a whole kid. */
export interface GrpcCallLog {
  protocol: 'grpc';
  /** The sandbox environment's id, such as `mds-staging`. */
  environment: string;
  /** The method path, such as `/mobility.sandbox.v1.VehicleService/ListVehicles`. */
  method: string;
  /** The status code's name, such as `OK` or `UNAUTHENTICATED`. */
  status: string;
  /** For UNAUTHENTICATED: the broken rule. */
  rule?: AuthRuleId;
  /** The kid of the token when it had one, masked (`ab12…f9c0`) as the REST log masks it: a key id is a secret (spec 5.7). */
  kid?: string;
  /** For errors: the message sent to the client, with the kid masked. */
  description?: string;
  /** For streams: how many messages were sent. */
  items?: number;
}

/** What the gRPC side needs of a sandbox environment (its `SandboxEnvironment`). */
export interface GrpcEnvironment {
  id: string;
  api: ApiKind;
  /** The REST base URL: the audience of gRPC calls too (spec 5.3). */
  baseUrl: string;
}

/** What the calls of one environment are checked against. */
export interface CallGuard {
  environment: GrpcEnvironment;
  /** Undefined: every call is accepted (the sandbox's verifyTokens: false). */
  verifier?: TokenVerifier;
  log: (entry: Omit<GrpcCallLog, 'protocol' | 'environment'>) => void;
  /** Told of every token check (the client grade counts gRPC calls as it counts REST requests). */
  checked?: (method: string, authorization: string | undefined, check: TokenCheck) => void;
}

/** Checks the call's token; resolves to the error to answer with, or undefined when the call may proceed. */
export async function admit(guard: CallGuard, method: string, metadata: grpc.Metadata): Promise<GrpcError | undefined> {
  if (!guard.verifier) return undefined;
  const values = metadata.get('authorization');
  if (values.length > 1) {
    const error = grpcError(
      grpc.status.INVALID_ARGUMENT,
      `The call has ${values.length} authorization metadata values; send exactly one, "authorization: Bearer <JWT>".`,
    );
    guard.log({ method, status: statusName(error.code), description: error.details });
    return error;
  }
  const value = values[0];
  const authorization = typeof value === 'string' ? value : undefined;
  const check = await guard.verifier.verify(authorization, {
    api: guard.environment.api,
    audience: guard.environment.baseUrl,
  });
  guard.checked?.(method, authorization, check);
  if (check.ok) return undefined;
  const error = unauthenticated(check.refusal);
  const { kid, rule } = check.refusal;
  const masked = kid === undefined ? undefined : maskKeyId(kid);
  const description = kid && masked ? error.details.split(kid).join(masked) : error.details;
  guard.log({ method, status: statusName(error.code), rule, ...(masked ? { kid: masked } : {}), description });
  return error;
}

/**
 * The implementation of `definition` with every handler behind the token check. Unary, server
 * streaming and bidirectional methods only (the sandbox has no client streaming). With
 * `logSuccess`, a call that passes is logged as OK when its stream ends (for handlers that do not
 * log themselves, such as reflection's).
 */
export function guardService(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  guard: CallGuard,
  logSuccess: boolean,
): grpc.UntypedServiceImplementation {
  const guarded: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler = implementation[name] as ((...args: unknown[]) => void) | undefined;
    if (!handler) continue;
    if (method.requestStream && !method.responseStream)
      throw new Error(`${method.path}: client streaming is not supported by the sandbox's guard`);
    if (!method.requestStream && !method.responseStream) {
      guarded[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        void admit(guard, method.path, call.metadata).then((error) =>
          error ? callback(error) : handler(call, callback),
        );
      };
      continue;
    }
    guarded[name] = (call: grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>) => {
      void admit(guard, method.path, call.metadata).then((error) => {
        if (error) {
          call.emit('error', error);
          return;
        }
        if (logSuccess)
          (call as NodeJS.EventEmitter).once('finish', () => guard.log({ method: method.path, status: 'OK' }));
        handler(call);
      });
    };
  }
  return guarded;
}
