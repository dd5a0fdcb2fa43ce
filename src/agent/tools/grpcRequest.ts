// send_request over gRPC: a method of the environment's gRPC target (its schema by server reflection or the
// environment's .proto files, as `mobility-api grpc call` reads it), a JSON message, a fresh token per call under the
// environment's audience (REST and gRPC share one, spec 5.3). The answer: the status with its details, the response
// messages (capped), the trailers without secrets, and after a refusal the rule and fix, as for REST.
import * as l10n from '@vscode/l10n';
import type { Credential } from '../../core/auth';
import { MobilityError, ownSecretsMasker } from '../../core/base';
import { normaliseBaseUrl } from '../../core/environment';
import type { Environment } from '../../core/environment';
import type { GrpcCallResult, MetadataView } from '../../core/grpc';
import { refusalExchangeOf } from '../../results/grpc/grpcRefusal';
import { pageErrorView } from '../../results/tokens/errorAdvice';
import type { AgentContext, AgentEnvironment, ToolCall } from '../agentTool';

/** The input properties of a gRPC call. */
export const GRPC_INPUT = {
  grpc_method: {
    type: 'string',
    minLength: 1,
    maxLength: 300,
    description:
      "Instead of an endpoint or path: a gRPC method of the environment's gRPC target, as package.Service/Method (such as mobility.sandbox.v1.VehicleService/GetVehicle), or the method's name alone with grpc_service.",
  },
  grpc_service: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'The service (package.Service) of grpc_method when that is a method name alone.',
  },
  message: {
    type: 'object',
    description: 'The gRPC request message as JSON (proto3 JSON field names); {} when left out.',
  },
  messages: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    items: { type: 'object' },
    description: 'For a client-streaming gRPC method: the request messages, in order (instead of message).',
  },
  deadline_seconds: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 300,
    description: "The gRPC call's deadline; 30 s when left out.",
  },
} as const;

const GRPC_ONLY = ['grpc_service', 'message', 'messages', 'deadline_seconds'] as const;
const REST_ONLY = ['endpoint', 'path', 'query', 'all_pages', 'max_pages'] as const;

/** Whether the input asks for a gRPC call; a clear error when it mixes a gRPC call with a REST request's fields. */
export function isGrpcInput(input: Record<string, unknown>): boolean {
  const grpc = input.grpc_method !== undefined;
  const wrong = grpc
    ? REST_ONLY.filter((k) => input[k] !== undefined)
    : GRPC_ONLY.filter((k) => input[k] !== undefined);
  if (wrong.length && grpc)
    throw new MobilityError(
      'AGENT_INPUT_INVALID',
      l10n.t('A gRPC call (grpc_method) takes no {0}: those are for a REST request.', wrong.join(', ')),
    );
  if (wrong.length)
    throw new MobilityError(
      'AGENT_INPUT_INVALID',
      l10n.t('{0} go with a gRPC call: give grpc_method too (package.Service/Method).', wrong.join(', ')),
    );
  if (input.message !== undefined && input.messages !== undefined)
    throw new MobilityError('AGENT_INPUT_INVALID', l10n.t('Give message or messages, not both.'));
  return grpc;
}

/** `package.Service/Method` from the input: grpc_method whole, or grpc_service with the method's name. */
export function grpcMethodOf(input: Record<string, unknown>): string {
  const method = String(input.grpc_method).trim();
  if (typeof input.grpc_service === 'string') return `${input.grpc_service.trim().replace(/^\//, '')}/${method}`;
  if (!/[/.]/.test(method))
    throw new MobilityError(
      'AGENT_INPUT_INVALID',
      l10n.t(
        '"{0}" is a method name alone: give grpc_method as package.Service/Method, or grpc_service too.',
        method.slice(0, 100),
      ),
    );
  return method.replace(/^\//, '');
}

/** The environment's gRPC target, or an error naming where to set one. */
export function grpcTargetOf(environment: Environment): string {
  if (environment.grpc) return environment.grpc.target;
  throw new MobilityError(
    'GRPC_TARGET_INVALID',
    l10n.t(
      '"{0}" has no gRPC target: start the MCP server with --grpc-target <host:port> (and --plaintext for a server on this computer), or in VS Code set one in mobilityApi.grpc.environments.',
      environment.name,
    ),
  );
}

/** Metadata names whose values are credentials of some kind: their values never reach a model. */
const SECRET_METADATA = /authorization|cookie|token|secret|password|api[-_]?key|session/i;

/** The trailers a model may read: `grpc-status-details-bin` is in `status.details` already; secret-looking values hidden. */
function shownTrailers(trailers: MetadataView): MetadataView {
  const shown: MetadataView = {};
  for (const [name, values] of Object.entries(trailers)) {
    if (name === 'grpc-status-details-bin') continue;
    shown[name] = SECRET_METADATA.test(name) ? values.map(() => '<redacted>') : values;
  }
  return shown;
}

/** One gRPC call of send_request: made, kept in the history, and answered. */
export async function sendGrpcRequest(
  input: Record<string, unknown>,
  context: AgentContext,
  call: ToolCall,
  entry: AgentEnvironment,
  credential: Credential,
  maxItems: number,
): Promise<Record<string, unknown>> {
  const environment = entry.environment;
  const target = grpcTargetOf(environment);
  const method = grpcMethodOf(input);
  if (!context.grpc)
    throw new MobilityError('AGENT_INPUT_INVALID', l10n.t('gRPC calls are not available in this surface.'));
  const messages = Array.isArray(input.messages) ? (input.messages as unknown[]) : [input.message ?? {}];
  call.progress?.(0, undefined, l10n.t('Calling {0} on {1}…', method, target));
  const result = await context.grpc.call(environment, credential, {
    method,
    messages,
    ...(typeof input.deadline_seconds === 'number' ? { deadlineMs: input.deadline_seconds * 1000 } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
    onMessage: (_message, index) => {
      if ((index + 1) % 100 === 0) call.progress?.(index + 1, undefined, l10n.t('{0} messages', index + 1));
    },
  });
  const kept = context.history.add({ environment, credentialType: credential.type, target: method, grpc: result });
  const shown = context.onResult?.(kept);
  return {
    ...grpcAnswer(kept.id, entry, target, result, maxItems, credential.type),
    ...(shown ? { resultsPanelEntry: shown } : {}),
  };
}

/** What send_request answers for a gRPC call; the token it carried hidden wherever the server echoed it. */
function grpcAnswer(
  id: string,
  entry: AgentEnvironment,
  target: string,
  result: GrpcCallResult,
  maxItems: number,
  credentialType: Credential['type'],
) {
  const environment = entry.environment;
  const refusal = refusalExchangeOf(result);
  const error = refusal
    ? pageErrorView(refusal, {
        audience: normaliseBaseUrl(environment.baseUrl, environment.name),
        api: environment.api,
        credentialType,
        now: Date.now(),
      })
    : undefined;
  const answer = {
    result_id: id,
    protocol: 'grpc',
    method: result.method.fullName.replace(/^\//, ''),
    target,
    environment: environment.id,
    stage: environment.stage,
    status: {
      code: result.status.code,
      name: result.status.name,
      message: result.status.message,
      details: result.status.details,
    },
    messageCount: result.messageCount,
    messages: result.messages.slice(0, maxItems),
    messagesShown: Math.min(maxItems, result.messages.length),
    trailers: shownTrailers(result.trailers),
    ...(error
      ? {
          error: {
            rule: error.rule ?? null,
            server: error.mdsError ?? error.message ?? null,
            fix: error.tips,
            cause: error.explanation?.cause ?? null,
          },
        }
      : {}),
    ...(refusal
      ? { next: l10n.t('Call explain_refusal with result_id {0} for the rule broken, the evidence and the fix.', id) }
      : {}),
  };
  const mask = ownSecretsMasker({ tokens: [result.token?.token], kid: result.token?.header.kid });
  return JSON.parse(
    JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'string' ? mask(v) : v)) ?? 'null',
  ) as typeof answer;
}
