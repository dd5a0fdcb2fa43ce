import type { GrpcCallResult, GrpcMethodInfo, MetadataView } from '../../core/grpc';
import type { IssuedToken } from '../../core/auth';
import { scrubSent, sentMasker } from '../../results/tokens/tokenPreview';
import type { CliIo } from '../support/cliIo';
import { fromServer } from '../support/output';

const STATUS_DETAILS = 'grpc-status-details-bin';

/**
 * A JSON.stringify replacer that hides our own secrets (the call's token, the kid) wherever the server echoes them,
 * without copying the value: each string masked by value, never by shape, so that the server's own values come out as
 * they were sent; an object copied only when one of its keys holds such an echo. A stream's messages go through it one
 * by one.
 */
function safeReplacer(mask: (text: string) => string): (key: string, value: unknown) => unknown {
  return (_key, value) => {
    if (typeof value === 'string') return mask(value);
    if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.keys(value).some((k) => mask(k) !== k)
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), v]));
    }
    return value;
  };
}

/**
 * A value of the server's (a message, a status detail) with our own secrets hidden in every string and key (see
 * `safeReplacer`). Iterative, so that no depth and no length of a value can overflow the stack.
 */
export function safeValue(value: unknown, token: IssuedToken | undefined): unknown {
  return JSON.parse(JSON.stringify(value, safeReplacer(sentMasker(token))) ?? 'null') as unknown;
}

/** One line of server text, as `fromServer` prints it, with the call's own token and kid scrubbed first. */
export function grpcServerLine(result: Pick<GrpcCallResult, 'token'>, text: string, max: number): string {
  return fromServer(scrubSent(text, result.token), max);
}

/** The `grpc-status-details-bin` trailer decoded (a google.rpc.Status), as shown instead of its base64. */
function decodedStatusDetails(result: GrpcCallResult): Record<string, unknown> | undefined {
  const { rpcStatus, details } = result.status;
  return rpcStatus
    ? { '@type': 'google.rpc.Status', code: rpcStatus.code, message: rpcStatus.message, details }
    : undefined;
}

/** Metadata as JSON, each value redacted whole; `grpc-status-details-bin` decoded. */
function metadataJson(result: GrpcCallResult, metadata: MetadataView): Record<string, unknown[]> {
  const decoded = decodedStatusDetails(result);
  return Object.fromEntries(
    Object.entries(metadata).map(([name, values]) => [
      name,
      name === STATUS_DETAILS && decoded
        ? [safeValue(decoded, result.token)]
        : values.map((v) => safeValue(v, result.token)),
    ]),
  );
}

function metadataLines(result: GrpcCallResult, title: string, metadata: MetadataView): string[] {
  const entries = Object.entries(metadata);
  if (!entries.length) return [];
  const decoded = decodedStatusDetails(result);
  return [
    title,
    ...entries.flatMap(([name, values]) =>
      name === STATUS_DETAILS && decoded
        ? [`  ${name}: ${JSON.stringify(safeValue(decoded, result.token))}`]
        : values.map((v) => `  ${name}: ${grpcServerLine(result, v, 300)}`),
    ),
  ];
}

/** `grpc call --json` after the messages: the count, status, headers, trailers and the claims of the token sent (never the token). */
export function grpcResultSummaryJson(result: GrpcCallResult): Record<string, unknown> {
  return {
    messageCount: result.messageCount,
    // Every string of it, the details' and rpcStatus's too, redacted: a server may echo the kid anywhere.
    status: safeValue(result.status, result.token),
    headers: metadataJson(result, result.headers),
    trailers: metadataJson(result, result.trailers),
    token: result.token ? result.token.claims : null,
  };
}

/** The human output of `grpc call` after the messages: the status, headers, the count, trailers and the token's claims. */
export function formatGrpcSummary(result: GrpcCallResult): string {
  const { status } = result;
  const lines = [
    `${result.method.fullName}  ${status.name}${status.message ? `: ${grpcServerLine(result, status.message, 500)}` : ''}`,
  ];
  for (const detail of status.details) lines.push(`  detail ${JSON.stringify(safeValue(detail, result.token))}`);
  lines.push(...metadataLines(result, 'Headers', result.headers));
  const count = result.messageCount;
  lines.push(`${count} ${count === 1 ? 'message' : 'messages'}`);
  lines.push(...metadataLines(result, 'Trailers', result.trailers));
  const claims = result.token?.claims;
  if (claims)
    lines.push(`Token: jti ${claims.jti}, iat ${claims.iat}, exp ${claims.exp}, aud ${JSON.stringify(claims.aud)}`);
  else lines.push('Token: none signed (the call carried your own authorization)');
  return lines.join('\n');
}

/**
 * Prints a call as it goes: each answer message the moment it arrives (so that a stream of any length takes the memory of
 * one message), then the summary. With `json`, one JSON document written as it goes:
 * `{"messages": [...], "messageCount", "status", "headers", "trailers", "token"}`.
 */
export class CallPrinter {
  private replacer = safeReplacer(sentMasker(undefined));
  private count = 0;
  private opened = false;

  constructor(
    private readonly io: CliIo,
    private readonly json: boolean,
  ) {}

  /** Text as it is, without a line break where the terminal's output allows (a JSON document written piece by piece). */
  private write(text: string): void {
    if (this.io.write) this.io.write(text);
    else this.io.out(text);
  }

  started(started: { method: GrpcMethodInfo; token?: IssuedToken }): void {
    this.replacer = safeReplacer(sentMasker(started.token));
  }

  message(message: Record<string, unknown>): void {
    const text = JSON.stringify(message, this.replacer, 2);
    if (!this.json) {
      this.count++;
      this.io.out(text);
      return;
    }
    this.open();
    this.write(`${this.count++ ? ',' : ''}\n    ${text.replace(/\n/g, '\n    ')}`);
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.write('{\n  "messages": [');
  }

  /** How many answer messages were printed. */
  get printed(): number {
    return this.count;
  }

  /** Ends a `--json` document of a call that ended without a result (interrupted before its status): the messages and their count. */
  end(): void {
    if (!this.json) return;
    this.open();
    this.write(`${this.count ? '\n  ' : ''}],\n  "messageCount": ${this.count}\n}\n`);
  }

  finish(result: GrpcCallResult): void {
    if (!this.json) {
      this.io.out(formatGrpcSummary(result));
      return;
    }
    this.open();
    const tail = JSON.stringify(grpcResultSummaryJson(result), null, 2).slice(1);
    this.write(`${this.count ? '\n  ' : ''}],${tail}\n`);
  }
}
