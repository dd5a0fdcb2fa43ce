// One HTTP exchange as the client saw it (request, answer, timing, the token's decoded view), the result of a request
// over all its pages, how an answer's body is read (JSON, CSV or text, with size and nesting guards) and what a
// request's outcome is.
import { isCsvContentType, parseCsv } from './csvBody';
import type { VehiclesQuery } from '../environment';
import { errorMessage, MAX_JSON_DEPTH, valueNestsDeeperThan } from '../base';
import type { MdsErrorBody, VehicleListKey } from '../mds';
import { parseMdsError } from '../mds';
import type { IssuedToken } from '../auth';

/**
 * Response text is kept for the raw view up to this size, for one response and for all pages of a
 * listing together; beyond it JSON bodies keep only the parsed value (a 100-page listing would
 * otherwise hold its JSON twice).
 */
export const KEEP_TEXT_BYTES = 2 * 1024 * 1024;
const UTF8 = new TextDecoder('utf-8');

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
  if (looksJson) {
    let value: unknown;
    let parsed = false;
    try {
      value = JSON.parse(text) as unknown;
      parsed = true;
    } catch (err) {
      exchange.bodyProblem = `The body is declared as JSON but does not parse: ${errorMessage(err)}`;
    }
    // JSON.parse copes with any depth, but rendering or serialising the value later would overflow the
    // stack. Checked on the value: a walk of it costs a twentieth of JSON.parse, a scan of the text as much again.
    if (parsed && valueNestsDeeperThan(value)) {
      exchange.bodyProblem = `The body is declared as JSON but nests lists or objects more than ${MAX_JSON_DEPTH} levels deep, so it is kept as text.`;
    } else if (parsed) {
      exchange.body = value;
      exchange.bodyKind = 'json';
      if (raw.byteLength <= KEEP_TEXT_BYTES) exchange.text = text;
      exchange.mdsError = exchange.ok ? undefined : parseMdsError(exchange.body);
      return;
    }
  }
  exchange.body = text;
  exchange.text = text;
  exchange.bodyKind = 'text';
  // The MDS and MaaS APIs answer in JSON (or CSV): a successful answer in anything else is said, never read as no items.
  if (exchange.ok && !exchange.bodyProblem) exchange.bodyProblem = notJson(exchange.contentType, text);
}

/** Why a successful answer's body is no answer of these APIs: `The body is not JSON: text/html, "<!doctype html>…"`. */
function notJson(contentType: string, text: string): string {
  const start = text.trim().replace(/\s+/g, ' ');
  const shown = start.length > 60 ? `${start.slice(0, 60)}…` : start;
  return `The body is not JSON: ${contentType ? `its content type is ${contentType}` : 'it has no content type'}, and it starts with ${JSON.stringify(shown)}.`;
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
