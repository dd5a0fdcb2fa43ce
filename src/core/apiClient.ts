import * as l10n from '@vscode/l10n';
import type { Credential } from './credential';
import { isCsvContentType, parseCsv } from './csvBody';
import type { Environment, QueryInput, VehiclesQuery } from './environment';
import { normaliseBaseUrl, requestUrl, vehiclesPath } from './environment';
import { errorMessage, MobilityError } from './errors';
import { describeFetchError, tooLarge } from './fetchErrors';
import type { BuildRequestOptions, EndpointRequest, ParameterValues } from './mdsRequests';
import { buildEndpointRequest } from './mdsRequests';
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from './jsonDepth';
import { KeyedQueue } from './keyedQueue';
import type { MdsErrorBody, VehicleListKey } from './mdsModels';
import { itemsOf, nextLinkOf, parseMdsError } from './mdsModels';
import { requestHeadersFor } from './requestHeaders';
import type { IssuedToken } from './tokenIssuer';
import { TokenIssuer } from './tokenIssuer';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_MAX_PAGES = 1000;
/**
 * Response text is kept for the raw view up to this size, for one response and for all pages of a
 * listing together; beyond it JSON bodies keep only the parsed value (a 100-page listing would
 * otherwise hold its JSON twice).
 */
const KEEP_TEXT_BYTES = 2 * 1024 * 1024;
const UTF8 = new TextDecoder('utf-8');
const MAX_REDIRECTS = 5;

/**
 * Serialises requests per key id: `acquire` resolves once the key is free and returns the release.
 * The default (`KeyedQueue`) orders requests inside one process; a cross-process implementation
 * can order them across every process that signs with the same key.
 */
export interface KeyRequestQueue {
  acquire(keyId: string, signal?: AbortSignal): Promise<() => void>;
}

export interface ApiClientOptions {
  issuer?: TokenIssuer;
  /** Orders the requests of one key from signing until their response headers; default in-process. */
  queue?: KeyRequestQueue;
  timeoutMs?: number;
  maxBytes?: number;
  userAgent?: string;
}

/** One GET with its fresh token, as sent and as answered. */
export interface HttpExchange {
  url: string;
  method: 'GET';
  /** Request headers as sent, except `Authorization`, which is shown as `Bearer <redacted>`. */
  requestHeaders: Record<string, string>;
  /** The token this request carried (a secret: copy on request only, never log). */
  /** Absent when the request carried an Authorization of the user's own (`RequestOptions.authorization`). */
  token?: IssuedToken;
  status: number;
  statusText: string;
  ok: boolean;
  responseHeaders: Record<string, string>;
  contentType: string;
  /** Parsed JSON, the CSV rows, the text when the body is neither, or undefined when empty. */
  body: unknown;
  bodyKind: 'json' | 'csv' | 'text' | 'empty';
  /** CSV answers (`text/vnd.mds+csv`, `text/csv`): the header's column names. */
  columns?: string[];
  /** CSV answers: one record per line, keyed by column name (the same array as `body`). */
  rows?: Record<string, string>[];
  /** The body as received, for the raw view: kept up to 2 MB (for a listing, 2 MB over all pages), and always when not JSON or CSV. */
  text?: string;
  /** Set when a JSON or CSV content type carried a body that does not parse. */
  bodyProblem?: string;
  bytes: number;
  timings: { queuedMs: number; signMs: number; ttfbMs: number; totalMs: number };
  mdsError?: MdsErrorBody;
  /**
   * Seconds the server asks the client to wait before trying again (`Retry-After`, as seconds or
   * as an HTTP date), when it sent one that can be read.
   */
  retryAfterSeconds?: number;
  redirectedFrom?: string[];
  /** The server's `Date` header in ms since the epoch (whole seconds), when it sent a readable one. */
  serverDateMs?: number;
  /** This computer's clock (ms since the epoch) when the response headers arrived, to compare with `serverDateMs`. */
  receivedAtMs?: number;
}

/**
 * How a request ended, so that front ends never infer it from status codes and bodies:
 * - `items`: a 2xx answer with at least one item (or CSV row);
 * - `empty`: a 2xx answer with none: an empty list, a CSV header only, or no body (an hour
 *   processed with no data is this, not `not_found`);
 * - `body`: a 2xx answer in which no item list was found (see `body`);
 * - `not_processed`: 202 Accepted, "this hour is not processed yet": try again after `retryAfterSeconds`;
 * - `not_found`: 404 (an hour in the future or before operations, an unknown id or path);
 * - `error`: any other answer (3xx without a usable redirect, 4xx, 5xx).
 * The last page decides; items of earlier pages are kept.
 */
export type RequestOutcome = 'items' | 'empty' | 'body' | 'not_processed' | 'not_found' | 'error';

/** Any GET on an environment: a path under its base URL, a query and extra headers. */
export interface ApiRequest {
  /**
   * Relative to the base URL (`/trips`, `vehicles/status`, may carry a query), or an absolute URL
   * under the base URL. Anything that leaves the base URL is refused (PATH_INVALID).
   */
  path: string;
  /** Appended after any query in `path`. */
  query?: QueryInput;
  /** Over the environment's headers; Authorization, Content-Type, Host and Content-Length are ours. */
  headers?: Record<string, string>;
  /** The key of the answer that holds the items (from the catalogue); detected when absent or missing. */
  itemsKey?: string;
  /** The catalogue endpoint this request was built from, when it was. */
  endpointId?: string;
}

/** The answer to an `ApiRequest`: every page fetched, the items of all of them, and how it ended. */
export interface ApiResult {
  outcome: RequestOutcome;
  /** The first URL asked for (with its query). */
  url: string;
  pages: HttpExchange[];
  /** Items of every page fetched, in order; for a CSV answer, its rows. */
  items: unknown[];
  /** The key that held the items (undefined for CSV, for a body that is itself a list, or when none was found). */
  itemsKey?: string;
  /** CSV answers: the column names. */
  columns?: string[];
  /** The next page's URL when more pages exist and were not fetched (page limit, or `allPages` off). */
  nextUrl?: string;
  /** Why fetching stopped before the last page, or why the answer is not a success, when it is not. */
  stoppedBecause?: string;
  /** For `not_processed` (and any answer that sent one): the `Retry-After` of the last page, in seconds. */
  retryAfterSeconds?: number;
}

export interface VehicleListing {
  pages: HttpExchange[];
  /** Vehicles of every page fetched, in order. */
  items: unknown[];
  listKey?: VehicleListKey;
  /** The next page's URL when more pages exist and were not fetched (page limit, or `allPages` off). */
  nextUrl?: string;
  /** Why fetching stopped before the last page, when it did. */
  stoppedBecause?: string;
  /** How the listing ended; always set by `ApiClient.listVehicles`. */
  outcome?: RequestOutcome;
}

export interface RequestOptions {
  signal?: AbortSignal;
  lifetimeSeconds?: number;
  /** Extra request headers over the environment's (see `requestHeadersFor`). */
  headers?: Record<string, string>;
  /**
   * An Authorization header of the user's own, asked for on purpose (`--send-authorization-as-is`,
   * `# @authorization as-is`; see `takeUserAuthorization`), sent as written instead of a freshly signed token. A server that enforces spec 5.1 rule 4 refuses it the second time.
   */
  authorization?: string;
}

/** Pagination of `ApiClient.request`. */
export interface PagingOptions extends Omit<RequestOptions, 'headers'> {
  /** Start at this page URL (a `links.next` of an earlier answer, same origin) instead of the request's URL. */
  from?: string;
  /** Follow `links.next` until the last page (or `maxPages`); otherwise stop after the first page. */
  allPages?: boolean;
  maxPages?: number;
  /** Called after each page, e.g. for progress. */
  onPage?: (page: HttpExchange, pageNumber: number) => void;
}

export interface ListOptions extends PagingOptions {
  query?: VehiclesQuery;
}

/**
 * Sends GET requests of spec 4 on any path of an environment: `Content-Type: application/json` and
 * a fresh bearer token for every request and every page. Requests on one key are serialised up to
 * their response headers, so a server enforcing spec 5.1 rule 6 sees their `iat`s in order.
 */
export class ApiClient {
  readonly issuer: TokenIssuer;
  private readonly queue: KeyRequestQueue;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly userAgent: string;

  constructor(options: ApiClientOptions = {}) {
    this.issuer = options.issuer ?? new TokenIssuer();
    this.queue = options.queue ?? new KeyedQueue();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.userAgent = options.userAgent ?? 'mobility-api-explorer';
  }

  /**
   * GET one URL of the environment with a fresh token, following same-origin redirects (each with a
   * fresh token). Non-2xx answers are results, not errors.
   */
  async get(url: string, environment: Environment, credential: Credential, options: RequestOptions = {}): Promise<HttpExchange> {
    const origin = new URL(normaliseBaseUrl(environment.baseUrl, environment.name)).origin;
    // Before anything is signed: a header that cannot be sent fails here, not after signing.
    requestHeadersFor(environment, options.headers, this.userAgent);
    const redirectedFrom: string[] = [];
    let current = url;
    for (;;) {
      const exchange = await this.once(current, environment, credential, options);
      const location = exchange.responseHeaders['location'];
      if (exchange.status < 300 || exchange.status >= 400 || !location || exchange.status === 304) {
        if (redirectedFrom.length) exchange.redirectedFrom = redirectedFrom;
        return exchange;
      }
      const target = new URL(location, current);
      if (target.origin !== origin) {
        throw new MobilityError(
          'HTTP_REDIRECT_CROSS_ORIGIN',
          l10n.t('The server answered {0} and redirected to {1}, another origin than {2}. The token is not sent there; if you trust that address, use it as the environment\'s base URL.', exchange.status, target.origin, origin),
        );
      }
      redirectedFrom.push(current);
      if (redirectedFrom.length > MAX_REDIRECTS) {
        throw new MobilityError('HTTP_NETWORK', l10n.t('More than {0} redirects starting at {1}; stopped. Check the environment\'s base URL.', MAX_REDIRECTS, url));
      }
      current = target.href;
    }
  }

  /**
   * Any GET on the environment: `request.path` under the base URL with `request.query`, a fresh
   * token per request and per page, following `links.next` (same origin only) when `allPages` is
   * set. A bad path or header is refused before anything is signed. Non-2xx answers are results
   * (see `ApiResult.outcome`); network failures, size and redirect refusals are thrown.
   */
  async request(environment: Environment, credential: Credential, request: ApiRequest, options: PagingOptions = {}): Promise<ApiResult> {
    const base = normaliseBaseUrl(environment.baseUrl, environment.name);
    const origin = new URL(base).origin;
    const url = requestUrl(environment, request.path, request.query);
    const first = options.from ?? url;
    if (!URL.canParse(first) || new URL(first).origin !== origin) {
      throw new MobilityError('HTTP_REDIRECT_CROSS_ORIGIN', l10n.t('The page {0} is not on the origin of the environment ({1}); the token is not sent there.', first, origin));
    }
    requestHeadersFor(environment, request.headers, this.userAgent);
    const pageOptions: RequestOptions = { signal: options.signal, lifetimeSeconds: options.lifetimeSeconds, headers: request.headers, authorization: options.authorization };
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    const result: ApiResult = { outcome: 'empty', url: first, pages: [], items: [] };
    let itemsFound = false;
    let current = first;
    let keptText = 0;
    for (;;) {
      const page = await this.get(current, environment, credential, pageOptions);
      result.pages.push(page);
      options.onPage?.(page, result.pages.length);
      if (!page.ok || page.status === 202) {
        result.stoppedBecause = `page ${result.pages.length} answered ${page.status} ${page.statusText}`.trim();
        break;
      }
      keptText += page.text?.length ?? 0;
      if (keptText > KEEP_TEXT_BYTES && (page.bodyKind === 'json' || page.bodyKind === 'csv')) delete page.text;
      if (page.bodyKind === 'csv') {
        itemsFound = true;
        result.columns ??= page.columns;
        for (const row of page.rows ?? []) result.items.push(row);
      } else {
        const list = itemsOf(page.body, result.itemsKey ?? request.itemsKey);
        if (list) {
          itemsFound = true;
          result.itemsKey ??= list.key;
          for (const item of list.items) result.items.push(item);
        }
      }
      const next = nextLinkOf(page.body);
      if (!next) break;
      const nextUrl = URL.canParse(next, page.url) ? new URL(next, page.url) : undefined;
      if (!nextUrl) {
        result.stoppedBecause = `the next page link ${JSON.stringify(next)} is not a URL`;
        break;
      }
      if (nextUrl.origin !== origin) {
        result.nextUrl = nextUrl.href;
        result.stoppedBecause = `the next page link points to another origin (${nextUrl.origin}); the token is not sent there`;
        break;
      }
      if (!options.allPages) {
        result.nextUrl = nextUrl.href;
        break;
      }
      if (result.pages.length >= maxPages) {
        result.nextUrl = nextUrl.href;
        result.stoppedBecause = `the page limit of ${maxPages} ${maxPages === 1 ? 'page' : 'pages'} was reached`;
        break;
      }
      current = nextUrl.href;
    }
    const last = result.pages[result.pages.length - 1];
    result.outcome = outcomeOf(last, itemsFound, result.items.length);
    if (last.retryAfterSeconds !== undefined) result.retryAfterSeconds = last.retryAfterSeconds;
    return result;
  }

  /**
   * Endpoint `endpointId` of the catalogue of the environment's API with `values`: every value is
   * checked and defaults filled (PARAMETER_* errors) before anything is signed, then sent with
   * `request`. The result says which request was built (defaults included).
   */
  async requestEndpoint(
    environment: Environment,
    credential: Credential,
    endpointId: string,
    values: ParameterValues = {},
    options: PagingOptions & BuildRequestOptions = {},
  ): Promise<ApiResult & { request: EndpointRequest }> {
    const request = buildEndpointRequest(environment.api, endpointId, values, options);
    return { ...(await this.request(environment, credential, request, options)), request };
  }

  /** The vehicles listing (`/vehicles`, `/vehicles/status`, or MaaS `/v1alpha2/vehicles`), page after page: one use of `request`. */
  async listVehicles(environment: Environment, credential: Credential, options: ListOptions = {}): Promise<VehicleListing> {
    const itemsKey: VehicleListKey = options.query?.status ? 'vehicles_status' : 'vehicles';
    const result = await this.request(environment, credential, { path: vehiclesPath(environment, options.query), itemsKey }, options);
    const listing: VehicleListing = { pages: result.pages, items: result.items, outcome: result.outcome };
    if (result.itemsKey === 'vehicles' || result.itemsKey === 'vehicles_status') listing.listKey = result.itemsKey;
    if (result.nextUrl !== undefined) listing.nextUrl = result.nextUrl;
    if (result.stoppedBecause !== undefined) listing.stoppedBecause = result.stoppedBecause;
    return listing;
  }

  private async once(url: string, environment: Environment, credential: Credential, options: RequestOptions): Promise<HttpExchange> {
    const t0 = performance.now();
    const release = await this.queue.acquire(credential.kid, options.signal);
    let released = false;
    const releaseOnce = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    try {
      const tQueued = performance.now();
      const token = options.authorization === undefined ? await this.issuer.issue(credential, environment, { signal: options.signal, lifetimeSeconds: options.lifetimeSeconds }) : undefined;
      const tSigned = performance.now();
      const headers: Record<string, string> = { ...requestHeadersFor(environment, options.headers, this.userAgent), Authorization: token ? `Bearer ${token.token}` : (options.authorization ?? '') };
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
      } catch (err) {
        throw describeFetchError(err, url, options.signal, this.timeoutMs);
      }
      const tHeaders = performance.now();
      const receivedAtMs = Date.now();
      releaseOnce();
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => (responseHeaders[name] = value));
      const contentType = response.headers.get('content-type') ?? '';
      const raw = await this.readBody(response, url, options.signal);
      const tDone = performance.now();
      const exchange: HttpExchange = {
        url,
        method: 'GET',
        requestHeaders: { ...headers, Authorization: 'Bearer <redacted>' },
        ...(token ? { token } : {}),
        status: response.status,
        statusText: response.statusText,
        ok: response.ok,
        responseHeaders,
        contentType,
        body: undefined,
        bodyKind: 'empty',
        bytes: raw.byteLength,
        timings: { queuedMs: tQueued - t0, signMs: tSigned - tQueued, ttfbMs: tHeaders - tSigned, totalMs: tDone - tSigned },
        receivedAtMs,
      };
      const serverDateMs = Date.parse(response.headers.get('date') ?? '');
      if (!Number.isNaN(serverDateMs)) exchange.serverDateMs = serverDateMs;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      if (retryAfter !== undefined) exchange.retryAfterSeconds = retryAfter;
      interpretBody(exchange, raw);
      return exchange;
    } finally {
      releaseOnce();
    }
  }

  private async readBody(response: Response, url: string, userSignal: AbortSignal | undefined): Promise<Uint8Array> {
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(url, this.maxBytes, declared);
    }
    if (!response.body) return new Uint8Array(0);
    // An uncompressed body of a declared size within the cap is read in one piece (undici refuses a
    // body that does not match its Content-Length); otherwise chunks are counted as they arrive.
    const encoding = response.headers.get('content-encoding');
    if (Number.isFinite(declared) && response.headers.has('content-length') && (!encoding || encoding === 'identity')) {
      try {
        return new Uint8Array(await response.arrayBuffer());
      } catch (err) {
        throw describeFetchError(err, url, userSignal, this.timeoutMs, true);
      }
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      // Counting decoded bytes as they arrive also stops gzip bombs at the cap.
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.byteLength;
        if (total > this.maxBytes) {
          await response.body.cancel().catch(() => undefined);
          throw tooLarge(url, this.maxBytes);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof MobilityError) throw err;
      throw describeFetchError(err, url, userSignal, this.timeoutMs, true);
    }
    return Buffer.concat(chunks, total);
  }
}

/**
 * Fills `body`, `bodyKind`, `text`, `bodyProblem`, `mdsError` and, for CSV, `columns` and `rows` of
 * an exchange from the raw body bytes and its `contentType` and `ok`. Never throws, whatever the
 * bytes (exported for tests).
 */
export function interpretBody(exchange: HttpExchange, raw: Uint8Array): void {
  if (raw.byteLength === 0) return;
  const text = UTF8.decode(raw);
  if (isCsvContentType(exchange.contentType)) {
    try {
      const table = parseCsv(text);
      exchange.body = table.rows;
      exchange.bodyKind = 'csv';
      exchange.columns = table.columns;
      exchange.rows = table.rows;
      if (raw.byteLength <= KEEP_TEXT_BYTES) exchange.text = text;
      return;
    } catch (err) {
      // Kept as text, like any body that is not what it declares (the tail of this function).
      exchange.bodyProblem = `The body is declared as CSV but does not parse: ${errorMessage(err)}`;
    }
  }
  const looksJson = /\bjson\b|\+json/i.test(exchange.contentType) || (!exchange.contentType && /^\s*[[{]/.test(text));
  if (looksJson && jsonNestsDeeperThan(text)) {
    // It would parse, but rendering or serialising it later would overflow the stack.
    exchange.bodyProblem = `The body is declared as JSON but nests lists or objects more than ${MAX_JSON_DEPTH} levels deep, so it is kept as text and not parsed.`;
  } else if (looksJson) {
    try {
      exchange.body = JSON.parse(text) as unknown;
      exchange.bodyKind = 'json';
      if (raw.byteLength <= KEEP_TEXT_BYTES) exchange.text = text;
      exchange.mdsError = exchange.ok ? undefined : parseMdsError(exchange.body);
      return;
    } catch (err) {
      exchange.bodyProblem = `The body is declared as JSON but does not parse: ${errorMessage(err)}`;
    }
  }
  exchange.body = text;
  exchange.text = text;
  exchange.bodyKind = 'text';
}

/** The outcome of a request whose last page is `last` (see `RequestOutcome`). */
export function outcomeOf(last: HttpExchange, itemsFound: boolean, itemCount: number): RequestOutcome {
  if (last.status === 202) return 'not_processed';
  if (last.status === 404) return 'not_found';
  if (!last.ok) return 'error';
  if (itemCount > 0) return 'items';
  if (itemsFound || last.bodyKind === 'empty') return 'empty';
  return 'body';
}

/**
 * `Retry-After` in seconds from `nowMs`: delta-seconds, or an HTTP date (0 when it has passed).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
