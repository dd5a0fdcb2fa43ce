// The panel's view of a gRPC call's answer: a listing whose pages hold the call's messages (the body is
// `{"messages": [...]}` for a stream, cut into pages of GRPC_MESSAGES_PER_PAGE so that the JSON tree and Raw views
// get one part at a time as REST pages do; the message itself for a unary answer), so that the table, JSON, Raw, Positions and
// export work as for a REST body; and the call's own section: status, google.rpc.Status details, headers,
// trailers, the metadata sent and the timing. A stream of vehicle-like messages fills the vehicle table read by
// the same reader as REST vehicles. The token the call carried stays with the caller: the view has its decoded
// claims only (the token view), and every server text is scrubbed of it.
import * as l10n from '@vscode/l10n';
import type { HttpExchange } from '../../core/http';
import type { GrpcCallResult, MetadataView } from '../../core/grpc';
import type { Environment } from '../../core/environment';
import type { GrpcCallView } from '../../shared/grpcViews';
import type { ErrorView, HeaderView, ListingResultView, PageView } from '../../shared/listingViews';
import { plural } from '../../shared/format';
import { isRecord } from '../../shared/isRecord';
import { environmentView } from '../requests/environmentView';
import { pageErrorView } from '../tokens/errorAdvice';
import { refusalExchangeOf } from './grpcRefusal';
import { tokenFactsOf } from '../history/historyEntry';
import type { RefusalContext } from '../tokens/refusalView';
import { refusalContextOf } from '../requests/listingView';
import { scrubSent, sentMasker, shortenToken } from '../tokens/tokenPreview';
import { maskVehicleText } from '../tokens/maskedItems';
import type { SentToken } from '../tokens/tokenPreview';
import { pageTokenView } from '../tokens/tokenView';
import { listingShape, vehicleColumns } from '../requests/vehicleReader';

/** What each status code means, in plain words (grpc/doc/statuscodes.md). */
const CODE_MEANINGS = (): Record<number, string> => ({
  0: l10n.t('The call succeeded.'),
  1: l10n.t('The call was cancelled, usually by the caller.'),
  2: l10n.t('The server failed with an error it did not classify.'),
  3: l10n.t('The server did not accept the request message (a field or its value).'),
  4: l10n.t('The deadline passed before the call completed.'),
  5: l10n.t('The thing asked for does not exist.'),
  6: l10n.t('The thing to create exists already.'),
  7: l10n.t('The token was accepted, but this credential may not call this method.'),
  8: l10n.t('The server is out of a resource (a quota, or a rate limit).'),
  9: l10n.t('The server is not in a state to run this call.'),
  10: l10n.t('The call was aborted, usually by a conflict on the server.'),
  11: l10n.t('A value was outside its valid range.'),
  12: l10n.t('The server does not implement this method.'),
  13: l10n.t('The server failed internally; the request may be fine.'),
  14: l10n.t('The server could not be reached or is down for now.'),
  15: l10n.t('Data was lost or corrupted.'),
  16: l10n.t('The server refused the bearer token.'),
});

const CODE_TIPS = (): Record<number, string> => ({
  3: l10n.t("Compare the request message with the method's message template (the details may name the field)."),
  4: l10n.t("Raise the call's deadline, or ask for less data per call."),
  5: l10n.t('Check the ids in the request message.'),
  8: l10n.t('Wait before the next call; call less often.'),
  12: l10n.t('Check the method name and that the target serves this service (list its services).'),
  13: l10n.t('Try again later; if it persists, send the provider the call time and the status details.'),
  14: l10n.t('Check that the server is up and that the target (host:port), TLS or plaintext, are right.'),
});

/** `unary`, `server streaming`… */
function kindOf(method: GrpcCallResult['method']): string {
  if (method.clientStreaming && method.serverStreaming) return l10n.t('bidirectional streaming');
  if (method.serverStreaming) return l10n.t('server streaming');
  if (method.clientStreaming) return l10n.t('client streaming');
  return l10n.t('unary');
}

/** Metadata as header rows, one per value, server text scrubbed of the token sent. */
function metadataRows(metadata: MetadataView, sent: SentToken | undefined): HeaderView[] {
  return Object.entries(metadata).flatMap(([name, values]) =>
    values.map((value) => ({ name, value: scrubSent(value, sent) })),
  );
}

/** The metadata sent: `authorization` as the shortened token (REST shows its Authorization header so). */
function sentRows(metadata: MetadataView, sent: SentToken | undefined): HeaderView[] {
  const preview = sent ? shortenToken(sent.token) : undefined;
  return Object.entries(metadata).flatMap(([name, values]) =>
    values.map((value) =>
      /^authorization$/i.test(name)
        ? { name, value: preview ? `Bearer ${preview}` : l10n.t('Bearer <redacted>'), secret: true }
        : { name, value: scrubSent(value, sent) },
    ),
  );
}

/** JSON from a server with the token sent shortened wherever it appears. */
function scrubJson<T>(value: T, sent: SentToken | undefined): T {
  if (!sent) return value;
  const text = JSON.stringify(value);
  const scrubbed = scrubSent(text, sent);
  return scrubbed === text ? value : (JSON.parse(scrubbed) as T);
}

/** The error of a call that did not end OK; UNAUTHENTICATED and PERMISSION_DENIED are explained as a REST 401/403. */
function grpcErrorView(
  result: GrpcCallResult,
  sent: SentToken | undefined,
  context: RefusalContext,
): ErrorView | undefined {
  const { status } = result;
  if (status.code === 0) return undefined;
  const refused = refusalExchangeOf(result);
  const base = refused ? pageErrorView(refused, context) : undefined;
  // The rule shows once: a server may name it in a detail's reason, its metadata and the message alike.
  const facts = (base?.facts ?? []).filter(
    (f) => !(f.name.toLowerCase() === 'rule' && f.value.toLowerCase() === base?.rule?.id.toLowerCase()),
  );
  const view: ErrorView = { title: `${status.name} (${status.code})`, facts, tips: base?.tips ?? [] };
  const meaning = CODE_MEANINGS()[status.code];
  if (meaning) view.statusMeaning = meaning;
  if (status.message) view.message = scrubSent(status.message, sent);
  if (base?.rule) view.rule = base.rule;
  if (base?.explanation) view.explanation = base.explanation;
  const tip = CODE_TIPS()[status.code];
  if (tip) view.tips.push(tip);
  if (!refused && status.details.length) view.tips.push(l10n.t('The status details below say more.'));
  if (view.tips.length === 0)
    view.tips.push(l10n.t('Look at the status details and trailers below for what the server expects.'));
  return view;
}

/** Fields that hold a time in ms since the epoch (MDS names them so); int64 in the .proto, decimal text in proto3 JSON. */
const MS_FIELD = /^(timestamp|last_reported|last_updated|[a-z_]*_time)$/;
const INT_TEXT = /^-?\d{1,16}$/;

/**
 * `message` with its int64 times as numbers, as REST sends them, so the table reads them as REST's: a copy only
 * where something changed (nested messages too, two levels down), the message itself otherwise.
 */
export function normaliseGrpcTimes(message: unknown, depth = 0): unknown {
  if (!isRecord(message)) return message;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(message)) {
    const value = message[key];
    let next = value;
    if (typeof value === 'string' && MS_FIELD.test(key) && INT_TEXT.test(value)) next = Number(value);
    else if (depth < 2 && isRecord(value)) next = normaliseGrpcTimes(value, depth + 1);
    if (next !== value) {
      out ??= { ...message };
      out[key] = next;
    }
  }
  return out ?? message;
}

/** The key that names the messages as the vehicle reader knows them, when they are vehicle-like. */
function vehicleListKey(first: unknown, api: Environment['api']): 'vehicles' | 'vehicles_status' | undefined {
  if (!isRecord(first)) return undefined;
  if (isRecord(first.last_event) || isRecord(first.last_telemetry)) return 'vehicles_status';
  if ('device_id' in first || 'vehicle_id' in first) return 'vehicles';
  if ('id' in first && ('state' in first || api === 'maas')) return 'vehicles';
  return undefined;
}

/** How many messages of a stream one page of the JSON tree and Raw views holds (a REST page holds up to 1,000 items too). */
export const GRPC_MESSAGES_PER_PAGE = 1000;

/**
 * The call's pages, as the host holds them for the JSON tree, Raw, "Open in editor" and "Save body": a stream's
 * messages by GRPC_MESSAGES_PER_PAGE as `{"messages": [...]}` (one page when there are none), the one answer of
 * any other call as itself. Each page carries the call's token, for scrubbing what is shown or saved.
 */
export function grpcPagesOf(result: GrpcCallResult, target: string): HttpExchange[] {
  const flat = (view: MetadataView) => Object.fromEntries(Object.entries(view).map(([k, v]) => [k, v.join(', ')]));
  const ok = result.status.code === 0;
  const base: HttpExchange = {
    url: `grpc://${target}${result.method.fullName}`,
    method: 'GET',
    requestHeaders: flat(result.requestMetadata),
    status: ok ? 200 : (refusalExchangeOf(result)?.status ?? 502),
    statusText: result.status.name,
    ok,
    responseHeaders: { ...flat(result.headers), ...flat(result.trailers) },
    contentType: result.headers['content-type']?.[0] ?? 'application/grpc',
    body: undefined,
    bodyKind: 'empty',
    bytes: 0,
    timings: {
      queuedMs: result.timings.queuedMs,
      signMs: result.timings.signMs,
      ttfbMs: result.timings.totalMs,
      totalMs: result.timings.totalMs,
    },
    receivedAtMs: result.receivedAtMs,
  };
  if (result.token) base.token = result.token;
  const bodies: unknown[] = [];
  if (!result.method.serverStreaming) bodies.push(result.messages[0]);
  else if (result.messages.length <= GRPC_MESSAGES_PER_PAGE) bodies.push({ messages: result.messages });
  else
    for (let i = 0; i < result.messages.length; i += GRPC_MESSAGES_PER_PAGE)
      bodies.push({ messages: result.messages.slice(i, i + GRPC_MESSAGES_PER_PAGE) });
  return bodies.map((body) => ({ ...base, body, bodyKind: body === undefined ? 'empty' : 'json' }));
}

/** The one-line summary: `OK · 1,000 vehicles · 12 ms`, `UNAUTHENTICATED: token expired`. */
export function grpcSummaryLine(
  status: { name: string; message: string; code: number },
  count: number,
  noun: [string, string],
): string {
  if (status.code !== 0)
    return `${status.name}${status.message ? `: ${status.message}` : ''}${count ? ` · ${l10n.t('{0} before it', plural(count, ...noun))}` : ''}`;
  return `${status.name} · ${plural(count, ...noun)}`;
}

/** What `showGrpcResult` passes on. */
export interface GrpcViewArgs {
  id: string;
  environment: Environment;
  result: GrpcCallResult;
  title: string;
  target: string;
  credentialLabel?: string;
  canRunAgain: boolean;
  canCopyGrpcurl: boolean;
  now: number;
  refusal?: Partial<RefusalContext>;
}

/** How many messages a page holds: a stream's part, or the one answer. */
function messagesOn(page: HttpExchange, streamed: boolean): number {
  if (!streamed) return page.body === undefined ? 0 : 1;
  return isRecord(page.body) && Array.isArray(page.body.messages) ? page.body.messages.length : 0;
}

/** The whole view of a gRPC call's answer, and the pages the host keeps for its body. `now` is ms. */
export function grpcResultView(args: GrpcViewArgs): { view: ListingResultView; pages: HttpExchange[] } {
  const { result, environment: env } = args;
  const pages = grpcPagesOf(result, args.target);
  const page = pages[0];
  const sent: SentToken | undefined = result.token;
  const listKey = vehicleListKey(result.messages[0], env.api);
  // int64 fields arrive as decimal text (proto3 JSON): the table reads the times as numbers, as REST sends them.
  const items = listKey ? result.messages.map((m) => normaliseGrpcTimes(m)) : [];
  const vehicles = maskVehicleText(vehicleColumns(items), sentMasker(sent));
  const shape = listKey ? listingShape(listKey, items, env.api) : 'unknown';
  const noun: [string, string] =
    listKey === 'vehicles_status'
      ? ['vehicle status', 'vehicle statuses']
      : listKey
        ? ['vehicle', 'vehicles']
        : ['message', 'messages'];
  const count = listKey ? vehicles.count : result.messages.length;
  const ok = result.status.code === 0;
  const context = { ...refusalContextOf(env, args.now, args.refusal) };
  const error = grpcErrorView(result, sent, context);
  const grpc: GrpcCallView = {
    target: args.target,
    method: result.method.fullName,
    kind: kindOf(result.method),
    inputType: result.method.inputType,
    outputType: result.method.outputType,
    status: {
      code: result.status.code,
      name: result.status.name,
      message: scrubSent(result.status.message, sent),
      ok,
      meaning: CODE_MEANINGS()[result.status.code] ?? '',
    },
    details: scrubJson(result.status.details, sent),
    headers: metadataRows(result.headers, sent),
    trailers: metadataRows(result.trailers, sent),
    requestMetadata: sentRows(result.requestMetadata, sent),
    timings: { ...result.timings },
    messageCount: result.messages.length,
    streamed: result.method.serverStreaming,
    canRunAgain: args.canRunAgain,
    canCopyGrpcurl: args.canCopyGrpcurl,
  };
  // Every page shares the call's request and response; the first carries the token and the error.
  const request: PageView['request'] = {
    method: 'GRPC',
    url: `${args.target}${result.method.fullName}`,
    headers: grpc.requestMetadata,
    curlPreview: '',
  };
  const response: PageView['response'] = {
    status: result.status.code,
    statusText: result.status.name,
    ok,
    contentType: page.contentType,
    bytes: 0,
    timings: { ...page.timings },
    headers: [...grpc.headers, ...grpc.trailers],
    bodyKind: page.bodyKind === 'json' ? 'json' : 'empty',
  };
  const pageViews: PageView[] = pages.map((p, index) => ({
    index,
    url: p.url,
    request,
    response,
    itemCount: messagesOn(p, result.method.serverStreaming),
  }));
  const pageView = pageViews[0];
  if (sent) request.tokenPreview = shortenToken(sent.token);
  const token = pageTokenView(page, 1, env, args.now, l10n.t('Sent with the call'));
  if (token) pageView.token = token;
  if (error) pageView.error = error;
  const line = grpcSummaryLine(grpc.status, count, noun);
  const view: ListingResultView = {
    kind: 'listing',
    id: args.id,
    title: args.title,
    createdAt: args.now,
    environment: environmentView(env),
    shape,
    pages: pageViews,
    vehicles,
    canLoadNext: false,
    canCopyCurl: false,
    outcome: !ok ? 'error' : count === 0 ? 'empty' : listKey ? 'items' : 'body',
    noun,
    // The MDS schemas describe REST bodies: a gRPC answer is not checked against them.
    conformance: { state: 'notMds' },
    // The host keeps the call's page: its table and body can be saved.
    canExport: true,
    summary: {
      kind: 'listing',
      title: args.title,
      line,
      createdAt: args.now,
      environmentId: env.id,
      environmentName: env.name,
      // After a reload the call cannot be made again from the summary (its message is not kept).
      canRunAgain: false,
      url: page.url,
    },
    grpc,
  };
  if (args.credentialLabel) view.credentialLabel = args.credentialLabel;
  if (error) view.error = error;
  const facts = tokenFactsOf(pageView);
  if (facts) view.tokenFacts = facts;
  return { view, pages };
}
