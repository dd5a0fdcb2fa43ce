// Why a gRPC call was refused (UNAUTHENTICATED or PERMISSION_DENIED), explained exactly as a REST
// 401 or 403 is: the call is shown to the same doctor (`explainRefusal`) as the exchange it
// stands for. A rule the server names is read from a google.rpc.ErrorInfo detail (its `reason`,
// or `metadata.rule`) or from `rule: <id>` in the status message.
import type { HttpExchange } from '../../core/http';
import type { GrpcCallResult } from '../../core/grpc';
import { isRecord } from '../../shared/isRecord';
import type { RefusalContext, RefusalExplanation } from '../tokens/refusalView';
import { explainRefusal } from '../tokens/refusalView';

const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;

/** The `rule: <id>` lines a refused call carries, for the doctor to read as a REST error's details. */
function ruleLines(result: GrpcCallResult): string[] {
  const lines: string[] = [];
  for (const detail of result.status.details) {
    if (!String(detail['@type']).endsWith('/google.rpc.ErrorInfo')) continue;
    const metadata = isRecord(detail.metadata) ? detail.metadata : {};
    for (const value of [metadata.rule, detail.reason])
      if (typeof value === 'string' && value) lines.push(`rule: ${value.toLowerCase()}`);
  }
  const named = /\brule:\s*([a-z_]+)/i.exec(result.status.message);
  if (named) lines.push(`rule: ${named[1]}`);
  return lines;
}

/** The HTTP exchange a refused call stands for: 401 for UNAUTHENTICATED, 403 for PERMISSION_DENIED. */
export function refusalExchangeOf(result: GrpcCallResult): HttpExchange | undefined {
  const status =
    result.status.code === UNAUTHENTICATED ? 401 : result.status.code === PERMISSION_DENIED ? 403 : undefined;
  if (status === undefined) return undefined;
  const flat = (view: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(view).map(([k, v]) => [k, v.join(', ')]));
  const responseHeaders = { ...flat(result.trailers), ...flat(result.headers) };
  const serverDateMs = Date.parse(responseHeaders.date ?? '');
  return {
    url: result.method.fullName,
    method: 'GET',
    requestHeaders: flat(result.requestMetadata),
    ...(result.token ? { token: result.token } : {}),
    status,
    statusText: result.status.name,
    ok: false,
    responseHeaders,
    contentType: 'application/grpc',
    body: undefined,
    bodyKind: 'empty',
    bytes: 0,
    timings: {
      queuedMs: result.timings.queuedMs,
      signMs: result.timings.signMs,
      ttfbMs: result.timings.totalMs,
      totalMs: result.timings.totalMs,
    },
    mdsError: {
      error: result.status.name,
      ...(result.status.message ? { error_description: result.status.message } : {}),
      error_details: ruleLines(result),
    },
    receivedAtMs: result.receivedAtMs,
    ...(Number.isNaN(serverDateMs) ? {} : { serverDateMs }),
  };
}

/** Why the call was refused, or undefined when its status is neither UNAUTHENTICATED nor PERMISSION_DENIED. */
export function explainGrpcRefusal(
  result: GrpcCallResult,
  context: RefusalContext = {},
): RefusalExplanation | undefined {
  const exchange = refusalExchangeOf(result);
  return exchange ? explainRefusal(exchange, context) : undefined;
}
