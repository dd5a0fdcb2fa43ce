import * as l10n from '@vscode/l10n';
import type { Credential } from '../auth';
import type { ApiRequest, Environment } from '../environment';
import type { KeyRequestQueue } from '../clock';
import { normaliseBaseUrl, requestHeadersFor, requestUrl, vehiclesPath } from '../environment';
import { MobilityError } from '../base';
import { describeFetchError, tooLarge } from './fetchErrors';
import type { BuildRequestOptions, EndpointRequest, ParameterValues, VehicleListKey } from '../mds';
import { buildEndpointRequest, itemsOf, nextLinkOf } from '../mds';
import { KeyedQueue } from '../clock';
import { TokenIssuer } from '../auth';
import type { ApiResult, HttpExchange, ListOptions, PagingOptions, RequestOptions, VehicleListing } from './exchange';
import { interpretBody, KEEP_TEXT_BYTES, outcomeOf, parseRetryAfter } from './exchange';
import { isEmpty, originOf, parseHttpDate, parseUrl } from './clientParsing';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_MAX_PAGES = 1000;
const MAX_REDIRECTS = 5;
/** An http(s) URL with its authority: the same URL whatever the base (`http:x` without slashes is relative). */
const ABSOLUTE_HTTP = /^https?:\/\//i;

export interface ApiClientOptions {
  issuer?: TokenIssuer;
  /** Orders the requests of one key from signing until their response headers; default in-process. */
  queue?: KeyRequestQueue;
  timeoutMs?: number;
  maxBytes?: number;
  userAgent?: string;
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
  /** The headers of a request that adds none, per API (see `headersFor`). */
  private readonly plainHeaders = new Map<string, Readonly<Record<string, string>>>();

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
  async get(
    url: string,
    environment: Environment,
    credential: Credential,
    options: RequestOptions = {},
  ): Promise<HttpExchange> {
    const origin = originOf(normaliseBaseUrl(environment.baseUrl, environment.name));
    // Before anything is signed: a header that cannot be sent fails here, not after signing.
    const headers = this.headersFor(environment, options.headers);
    return this.getWith(url, origin, headers, environment, credential, options);
  }

  /** `get` with the origin and the headers (all but Authorization) already worked out, once per request rather than per page. */
  private async getWith(
    url: string,
    origin: string,
    headers: Readonly<Record<string, string>>,
    environment: Environment,
    credential: Credential,
    options: RequestOptions,
  ): Promise<HttpExchange> {
    const redirectedFrom: string[] = [];
    let current = url;
    for (;;) {
      const exchange = await this.once(current, headers, environment, credential, options);
      const location = exchange.responseHeaders['location'];
      if (exchange.status < 300 || exchange.status >= 400 || !location || exchange.status === 304) {
        if (redirectedFrom.length) exchange.redirectedFrom = redirectedFrom;
        return exchange;
      }
      const target = new URL(location, current);
      if (target.origin !== origin) {
        throw new MobilityError(
          'HTTP_REDIRECT_CROSS_ORIGIN',
          l10n.t(
            "The server answered {0} and redirected to {1}, another origin than {2}. The token is not sent there; if you trust that address, use it as the environment's base URL.",
            exchange.status,
            target.origin,
            origin,
          ),
        );
      }
      redirectedFrom.push(current);
      if (redirectedFrom.length > MAX_REDIRECTS) {
        throw new MobilityError(
          'HTTP_NETWORK',
          l10n.t(
            "More than {0} redirects starting at {1}; stopped. Check the environment's base URL.",
            MAX_REDIRECTS,
            url,
          ),
        );
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
  async request(
    environment: Environment,
    credential: Credential,
    request: ApiRequest,
    options: PagingOptions = {},
  ): Promise<ApiResult> {
    const origin = originOf(normaliseBaseUrl(environment.baseUrl, environment.name));
    const url = requestUrl(environment, request.path, request.query);
    const first = options.from ?? url;
    // Most often `first` is the URL just built under the base URL, which the prefix shows without parsing it again.
    if (!first.startsWith(`${origin}/`) && parseUrl(first)?.origin !== origin) {
      throw new MobilityError(
        'HTTP_REDIRECT_CROSS_ORIGIN',
        l10n.t(
          'The page {0} is not on the origin of the environment ({1}); the token is not sent there.',
          first,
          origin,
        ),
      );
    }
    const headers = this.headersFor(environment, request.headers);
    const pageOptions: RequestOptions = {
      signal: options.signal,
      lifetimeSeconds: options.lifetimeSeconds,
      headers: request.headers,
      authorization: options.authorization,
    };
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    const result: ApiResult = { outcome: 'empty', url: first, pages: [], items: [] };
    let itemsFound = false;
    let current = first;
    let keptText = 0;
    for (;;) {
      const page = await this.getWith(current, origin, headers, environment, credential, pageOptions);
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
      // An absolute link (the usual kind) is read without the page's URL: one parse, not two.
      const nextUrl = parseUrl(next, ABSOLUTE_HTTP.test(next) ? undefined : page.url);
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
  async listVehicles(
    environment: Environment,
    credential: Credential,
    options: ListOptions = {},
  ): Promise<VehicleListing> {
    const itemsKey: VehicleListKey = options.query?.status ? 'vehicles_status' : 'vehicles';
    const result = await this.request(
      environment,
      credential,
      { path: vehiclesPath(environment, options.query), itemsKey },
      options,
    );
    const listing: VehicleListing = { pages: result.pages, items: result.items, outcome: result.outcome };
    if (result.itemsKey === 'vehicles' || result.itemsKey === 'vehicles_status') listing.listKey = result.itemsKey;
    if (result.nextUrl !== undefined) listing.nextUrl = result.nextUrl;
    if (result.stoppedBecause !== undefined) listing.stoppedBecause = result.stoppedBecause;
    return listing;
  }

  /**
   * `requestHeadersFor`, kept for an environment without headers of its own and a request without extra ones (what
   * nearly every request is): then the headers depend on the API alone. One object per API, never changed (once copies it).
   */
  private headersFor(
    environment: Environment,
    extra: Record<string, string> | undefined,
  ): Readonly<Record<string, string>> {
    if (!isEmpty(environment.headers) || !isEmpty(extra)) return requestHeadersFor(environment, extra, this.userAgent);
    let headers = this.plainHeaders.get(environment.api);
    if (!headers) {
      headers = Object.freeze(requestHeadersFor(environment, undefined, this.userAgent));
      this.plainHeaders.set(environment.api, headers);
    }
    return headers;
  }

  private async once(
    url: string,
    baseHeaders: Readonly<Record<string, string>>,
    environment: Environment,
    credential: Credential,
    options: RequestOptions,
  ): Promise<HttpExchange> {
    const t0 = performance.now();
    const release = await this.queue.acquire(credential.kid, options.signal);
    let released = false;
    const releaseOnce = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      const tQueued = performance.now();
      const token =
        options.authorization === undefined
          ? await this.issuer.issue(credential, environment, {
              signal: options.signal,
              lifetimeSeconds: options.lifetimeSeconds,
            })
          : undefined;
      const tSigned = performance.now();
      const headers: Record<string, string> = {
        ...baseHeaders,
        Authorization: token ? `Bearer ${token.token}` : (options.authorization ?? ''),
      };
      // The timeout covers the answer and its body, from here. A timer cleared when the exchange ends, rather than
      // AbortSignal.timeout, whose timer and finalizer stay behind every request until the timeout has passed.
      const timeout = new AbortController();
      timer = setTimeout(
        () => timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        this.timeoutMs,
      );
      timer.unref();
      const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
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
      // Headers yields each Set-Cookie apart (a comma cannot join them: their dates hold commas): one per line, all kept.
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 1) responseHeaders['set-cookie'] = cookies.join('\n');
      // Read from the copy: each Headers.get lower-cases and looks the name up again.
      const contentType = responseHeaders['content-type'] ?? '';
      const raw = await this.readBody(response, responseHeaders, url, options.signal);
      const tDone = performance.now();
      const exchange: HttpExchange = {
        url,
        method: 'GET',
        requestHeaders: { ...baseHeaders, Authorization: 'Bearer <redacted>' },
        status: response.status,
        statusText: response.statusText,
        ok: response.ok,
        responseHeaders,
        contentType,
        body: undefined,
        bodyKind: 'empty',
        bytes: raw.byteLength,
        timings: {
          queuedMs: tQueued - t0,
          signMs: tSigned - tQueued,
          ttfbMs: tHeaders - tSigned,
          totalMs: tDone - tSigned,
        },
        receivedAtMs,
      };
      if (token) exchange.token = token;
      const serverDateMs = parseHttpDate(responseHeaders['date']);
      if (serverDateMs !== undefined) exchange.serverDateMs = serverDateMs;
      const retryAfter = parseRetryAfter(responseHeaders['retry-after'], Date.now());
      if (retryAfter !== undefined) exchange.retryAfterSeconds = retryAfter;
      interpretBody(exchange, raw);
      return exchange;
    } finally {
      clearTimeout(timer);
      releaseOnce();
    }
  }

  private async readBody(
    response: Response,
    responseHeaders: Readonly<Record<string, string>>,
    url: string,
    userSignal: AbortSignal | undefined,
  ): Promise<Uint8Array> {
    const length = responseHeaders['content-length'];
    const declared = Number(length ?? null);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(url, this.maxBytes, declared);
    }
    if (!response.body) return new Uint8Array(0);
    // An uncompressed body of a declared size within the cap is read in one piece (undici refuses a
    // body that does not match its Content-Length); otherwise chunks are counted as they arrive.
    const encoding = responseHeaders['content-encoding'];
    if (Number.isFinite(declared) && length !== undefined && (!encoding || encoding === 'identity')) {
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
