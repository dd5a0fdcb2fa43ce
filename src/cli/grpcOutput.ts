import type { GrpcCallResult, MetadataView } from '../core/grpc';
import { redactSecrets } from '../core/base';
import { scrubSent } from '../results/tokenPreview';
import { fromServer } from './output';

/**
 * Server text of `result`, safe to print: the call's own token shortened and its kid masked wherever the server echoes
 * them (a key id is a secret, spec 5.7, whatever its shape: a service account's is 40 hex digits), then anything else
 * secret-shaped redacted.
 */
export function grpcServerText(result: GrpcCallResult, text: string): string {
  return redactSecrets(scrubSent(text, result.token));
}

/**
 * `grpc call --json`: status, headers, trailers, the answer messages and the claims of the token
 * sent (never the token). Server text passes through `grpcServerText`: an echo server may send the
 * token or its kid back.
 */
export function grpcResultJson(result: GrpcCallResult): Record<string, unknown> {
  const safe = (value: unknown): unknown => JSON.parse(grpcServerText(result, JSON.stringify(value))) as unknown;
  return {
    status: safe(result.status),
    headers: safe(result.headers),
    trailers: safe(result.trailers),
    messages: safe(result.messages),
    token: result.token ? result.token.claims : null,
  };
}

/** One line of server text, as `fromServer` prints it, with the call's own token and kid scrubbed first. */
export function grpcServerLine(result: GrpcCallResult, text: string, max: number): string {
  return fromServer(scrubSent(text, result.token), max);
}

function metadataLines(result: GrpcCallResult, title: string, metadata: MetadataView): string[] {
  const entries = Object.entries(metadata);
  if (!entries.length) return [];
  return [title, ...entries.flatMap(([name, values]) => values.map((v) => `  ${name}: ${grpcServerLine(result, v, 300)}`))];
}

/** The human output of `grpc call`: the status, headers, each message as JSON, trailers and the token's claims. */
export function formatGrpcResult(result: GrpcCallResult): string {
  const { status } = result;
  const lines = [`${result.method.fullName}  ${status.name}${status.message ? `: ${grpcServerLine(result, status.message, 500)}` : ''}`];
  for (const detail of status.details) lines.push(`  detail ${grpcServerText(result, JSON.stringify(detail))}`);
  lines.push(...metadataLines(result, 'Headers', result.headers));
  const count = result.messages.length;
  lines.push(`${count} ${count === 1 ? 'message' : 'messages'}`);
  for (const message of result.messages) lines.push(grpcServerText(result, JSON.stringify(message, null, 2)));
  lines.push(...metadataLines(result, 'Trailers', result.trailers));
  const claims = result.token?.claims;
  if (claims) lines.push(`Token: jti ${claims.jti}, iat ${claims.iat}, exp ${claims.exp}, aud ${JSON.stringify(claims.aud)}`);
  else lines.push('Token: none signed (the call carried your own authorization)');
  return lines.join('\n');
}
