import type { Credential } from './credential';
import type { Environment, VehiclesQuery } from './environment';
import { normaliseBaseUrl, vehiclesUrl } from './environment';
import { MobilityError } from './errors';
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from './jsonDepth';
import { KeyedQueue } from './keyedQueue';
import type { MdsErrorBody, VehicleListKey } from './mdsModels';
import { nextLinkOf, parseMdsError, vehicleListOf } from './mdsModels';
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
  token: IssuedToken;
  status: number;
  statusText: string;
  ok: boolean;
  responseHeaders: Record<string, string>;
  contentType: string;
  /** Parsed JSON, or the text when the body is not JSON, or undefined when empty. */
  body: unknown;
  bodyKind: 'json' | 'text' | 'empty';
  /** The body as received, for the raw view: kept up to 2 MB (for a listing, 2 MB over all pages), and always when not JSON. */
  text?: string;
  /** Set when a JSON content type carried a body that does not parse. */
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
}

export interface RequestOptions {
  signal?: AbortSignal;
  lifetimeSeconds?: number;
}

export interface ListOptions extends RequestOptions {
  query?: VehiclesQuery;
  /** Start at this page URL (a `links.next` from an earlier listing) instead of the first page. */
  from?: string;
  allPages?: boolean;
  maxPages?: number;
  /** Called after each page, e.g. for progress. */
  onPage?: (page: HttpExchange, pageNumber: number) => void;
}

/**
 * Sends the vehicles requests of spec 4: GET with `Content-Type: application/json` and a fresh
 * bearer token for every request and every page. Requests on one key are serialised up to their
 * response headers, so a server enforcing spec 5.1 rule 6 sees their `iat`s in order.
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

  /** GET one URL of the environment with a fresh token. Non-2xx answers are results, not errors. */
  async get(url: string, environment: Environment, credential: Credential, options: RequestOptions = {}): Promise<HttpExchange> {
    const origin = new URL(normaliseBaseUrl(environment.baseUrl, environment.name)).origin;
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
          `The server answered ${exchange.status} and redirected to ${target.origin}, another origin than ${origin}. The token is not sent there; if you trust that address, use it as the environment's base URL.`,
        );
      }
      redirectedFrom.push(current);
      if (redirectedFrom.length > MAX_REDIRECTS) {
        throw new MobilityError('HTTP_NETWORK', `More than ${MAX_REDIRECTS} redirects starting at ${url}; stopped. Check the environment's base URL.`);
      }
      current = target.href;
    }
  }

  /** The vehicles listing (`/vehicles`, `/vehicles/status`, or MaaS `/v1alpha2/vehicles`), page after page. */
  async listVehicles(environment: Environment, credential: Credential, options: ListOptions = {}): Promise<VehicleListing> {
    const origin = new URL(vehiclesUrl(environment, options.query)).origin;
    const first = options.from ?? vehiclesUrl(environment, options.query);
    if (new URL(first).origin !== origin) {
      throw new MobilityError('HTTP_REDIRECT_CROSS_ORIGIN', `The page ${first} is on another origin than the environment (${origin}); the token is not sent there.`);
    }
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    const listing: VehicleListing = { pages: [], items: [] };
    let url = first;
    let keptText = 0;
    for (;;) {
      const page = await this.get(url, environment, credential, options);
      listing.pages.push(page);
      options.onPage?.(page, listing.pages.length);
      if (!page.ok) {
        listing.stoppedBecause = `page ${listing.pages.length} answered ${page.status} ${page.statusText}`.trim();
        break;
      }
      keptText += page.text?.length ?? 0;
      if (keptText > KEEP_TEXT_BYTES && page.bodyKind === 'json') delete page.text;
      const list = vehicleListOf(page.body);
      if (list) {
        listing.listKey ??= list.key;
        for (const item of list.items) listing.items.push(item);
      }
      const next = nextLinkOf(page.body);
      if (!next) break;
      const nextUrl = new URL(next, page.url);
      if (nextUrl.origin !== origin) {
        listing.nextUrl = nextUrl.href;
        listing.stoppedBecause = `the next page link points to another origin (${nextUrl.origin}); the token is not sent there`;
        break;
      }
      if (!options.allPages) {
        listing.nextUrl = nextUrl.href;
        break;
      }
      if (listing.pages.length >= maxPages) {
        listing.nextUrl = nextUrl.href;
        listing.stoppedBecause = `the page limit of ${maxPages} pages was reached`;
        break;
      }
      url = nextUrl.href;
    }
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
      const token = await this.issuer.issue(credential, environment, { signal: options.signal, lifetimeSeconds: options.lifetimeSeconds });
      const tSigned = performance.now();
      const headers: Record<string, string> = {
        'User-Agent': this.userAgent,
        ...sanitiseHeaders(environment.headers),
        'Content-Type': 'application/json',
        Authorization: `Bearer ${token.token}`,
      };
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
      } catch (err) {
        throw describeFetchError(err, url, options.signal, this.timeoutMs);
      }
      const tHeaders = performance.now();
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
        token,
        status: response.status,
        statusText: response.statusText,
        ok: response.ok,
        responseHeaders,
        contentType,
        body: undefined,
        bodyKind: 'empty',
        bytes: raw.byteLength,
        timings: { queuedMs: tQueued - t0, signMs: tSigned - tQueued, ttfbMs: tHeaders - tSigned, totalMs: tDone - tSigned },
      };
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
 * Fills `body`, `bodyKind`, `text`, `bodyProblem` and `mdsError` of an exchange from the raw body
 * bytes and its `contentType` and `ok`. Never throws, whatever the bytes (exported for tests).
 */
export function interpretBody(exchange: HttpExchange, raw: Uint8Array): void {
  if (raw.byteLength === 0) return;
  const text = UTF8.decode(raw);
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
      exchange.bodyProblem = `The body is declared as JSON but does not parse: ${(err as Error).message}`;
    }
  }
  exchange.body = text;
  exchange.text = text;
  exchange.bodyKind = 'text';
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

function sanitiseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // The token is always our own; a configured Authorization header would leak or clash.
    if (/^(authorization|content-type|host|content-length)$/i.test(name)) continue;
    if (typeof value === 'string') result[name] = value;
  }
  return result;
}

function tooLarge(url: string, maxBytes: number, declared?: number): MobilityError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new MobilityError(
    'HTTP_TOO_LARGE',
    `The response of ${url} is larger than the ${mb(maxBytes)} limit${declared ? ` (it declares ${mb(declared)})` : ''}; reading stopped. Raise the size limit, or ask for fewer vehicles per page.`,
  );
}

/** Turns a fetch failure into one clear message. Never includes request headers (they hold the token). */
export function describeFetchError(err: unknown, url: string, userSignal: AbortSignal | undefined, timeoutMs: number, duringBody = false): MobilityError {
  if (err instanceof MobilityError) return err;
  const host = safeHost(url);
  if (userSignal?.aborted) return new MobilityError('HTTP_ABORTED', `The request to ${host} was cancelled.`, { cause: err });
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || (e?.name === 'AbortError' && !userSignal?.aborted)) {
    return new MobilityError('HTTP_TIMEOUT', `${host} did not answer within ${formatTimeout(timeoutMs)}${duringBody ? ' (the body stopped arriving)' : ''}. Check that the server is up, or raise the timeout.`, { cause: err });
  }
  const code = e?.cause?.code ?? (err as { code?: string })?.code ?? '';
  const detail = e?.cause?.message ?? e?.message ?? String(err);
  switch (code) {
    case 'ECONNREFUSED':
      return new MobilityError('HTTP_CONNECTION_REFUSED', `Nothing accepts connections at ${host} (connection refused). Check the base URL and that the server (or the local sandbox) is running.`, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new MobilityError('HTTP_DNS', `The host name in ${host} cannot be resolved (${code}). Check the base URL for typos and your network or VPN.`, { cause: err });
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} is not trusted (${code}: self-signed or from an unknown authority). If it is your own test server, add its CA through NODE_EXTRA_CA_CERTS; otherwise do not send credentials there.`, { cause: err });
    case 'CERT_HAS_EXPIRED':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} has expired (${code}). The server's operator must renew it.`, { cause: err });
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} is for another host name (${code}). Check the base URL's host name.`, { cause: err });
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return new MobilityError('HTTP_NETWORK', `The connection to ${host} was closed ${duringBody ? 'while the body was arriving' : 'before an answer came'} (${code}). Try again; if it persists, the server or a proxy drops the request.`, { cause: err });
    default:
      if (/certificate|tls|ssl/i.test(detail)) return new MobilityError('HTTP_TLS', `TLS with ${host} failed: ${detail}`, { cause: err });
      return new MobilityError('HTTP_NETWORK', `The request to ${host} failed${code ? ` (${code})` : ''}: ${detail}`, { cause: err });
  }
}

/** "30 s", or "300 ms" for a timeout under a second (which "0 s" would misstate). */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

function safeHost(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}
