// The view models of a request's answer: its pages (request, response, error), the vehicle or resource table,
// and a request that got no answer; the body of one page as the JSON tree and Raw views read it.
import type { ErrorCode } from './errorCodes';
import type { DataTableView } from './dataTable';
import { remapCodes } from './dataTableBuild';
import type { ConformanceView } from './conformanceViews';
import type { GrpcCallView } from './grpcViews';
import type { TokenFactsView } from './historyViews';
import type { EnvironmentView, ResultSummary } from './resultSummary';
import type { TokenView } from './tokenViews';
import type { VehicleColumns } from './vehicleColumns';

export type { HeaderView } from './headerView';
import type { HeaderView } from './headerView';
import type { AssertionResultView } from './contractViews';

export interface RequestView {
  method: string;
  url: string;
  headers: HeaderView[];
  /** The token shortened to its first 10 and last 6 characters, when the request carried one. */
  tokenPreview?: string;
  /** The curl command with `$TOKEN` in place of the token; "Copy curl" puts a fresh one in. */
  curlPreview: string;
}

export interface TimingsView {
  queuedMs: number;
  signMs: number;
  ttfbMs: number;
  totalMs: number;
}

export interface ResponseView {
  status: number;
  statusText: string;
  ok: boolean;
  contentType: string;
  bytes: number;
  timings: TimingsView;
  headers: HeaderView[];
  redirectedFrom?: string[];
  bodyKind: 'json' | 'text' | 'empty';
  bodyProblem?: string;
}

/** A failure as the user reads it: what happened, what the server said, and what to try next. */
export interface ErrorView {
  title: string;
  /** `MobilityError` code for failures before an answer (HTTP_TIMEOUT…). */
  code?: ErrorCode;
  status?: number;
  statusText?: string;
  /** What the HTTP status means in plain words. */
  statusMeaning?: string;
  message?: string;
  mdsError?: { error: string; description?: string; details: string[] };
  /** The sandbox's `rule: <id>` / `spec:` / `requirement:` details, when present. */
  rule?: { id: string; spec?: string; requirement?: string };
  /** Further `name: value` facts from the error details (kid, hint…). */
  facts: { name: string; value: string }[];
  tips: string[];
  /** For 401 and 403: the likely cause in one line, then the evidence (see results/refusalView.ts). */
  explanation?: RefusalExplanationView;
}

/** Why a server refused a request: the likely cause, the rule it is when known, and the evidence. */
export interface RefusalExplanationView {
  cause: string;
  /** The sandbox rule id (`rule: <id>`) of the cause, when one is known. */
  causeRule?: string;
  evidence: { label: string; detail: string; verdict: 'ok' | 'problem' | 'unknown' }[];
}

/** One page of a listing: its own request, token, response and error. */
export interface PageView {
  index: number;
  url: string;
  request: RequestView;
  token?: TokenView;
  response: ResponseView;
  itemCount: number;
  error?: ErrorView;
}

/** Which body shape the vehicle table was read from. */
export type ListingShape = 'mds-vehicles' | 'mds-status' | 'maas' | 'unknown';

export interface ListingResultView {
  kind: 'listing';
  id: string;
  title: string;
  createdAt: number;
  environment: EnvironmentView;
  credentialLabel?: string;
  shape: ListingShape;
  pages: PageView[];
  vehicles: VehicleColumns;
  nextUrl?: string;
  stoppedBecause?: string;
  canLoadNext: boolean;
  /** "Load all pages" next to "Load next page": the host follows every next page, with progress and Cancel. */
  canLoadAll?: boolean;
  canCopyCurl: boolean;
  /** The first failed page's error, shown above everything else. */
  error?: ErrorView;
  /** Set when this computer's clock differs from the server's Date header by more than a few seconds: what, how much, what to do. */
  clockNotice?: string;
  summary: ResultSummary;
  /** The table of a resource other than vehicles (trips, events, telemetry, stops, a report CSV); vehicles are in `vehicles`. */
  table?: DataTableView;
  /** How the request ended (ApiResult.outcome), when known. */
  outcome?: 'items' | 'empty' | 'body' | 'not_processed' | 'not_found' | 'error';
  /** What the items are called: ['trip', 'trips']. */
  noun?: [string, string];
  /** MDS conformance: absent until checked (it follows in a `conformance` message), or when the result is not MDS. */
  conformance?: ConformanceView;
  /** The table's rows, positions and the raw body can be saved (the host holds them). */
  canExport?: boolean;
  /** An hour endpoint (trips, telemetry, historical events): the panel offers "Fetch hours…" for a range. */
  canFetchHours?: boolean;
  /** The `jti`, `iat` and `exp` of the first page's token, for the header line. */
  tokenFacts?: TokenFactsView;
  /** A gRPC call's answer: its one page holds the messages; this says how the call went (see grpcViews.ts). */
  grpc?: GrpcCallView;
  /** After a send from a request file: each of the request's assertions, passed or failed (contractViews.ts). */
  assertions?: AssertionResultView[];
}

/** What an export saves: the table's rows as CSV, its positions as GeoJSON, or a page's body as received. */
export type ExportFormat = 'csv' | 'geojson' | 'raw';

export interface RequestErrorResultView {
  kind: 'requestError';
  id: string;
  title: string;
  createdAt: number;
  environment: EnvironmentView;
  url?: string;
  error: ErrorView;
  summary: ResultSummary;
}

/** The body of one page, sent when the webview opens the JSON tree or Raw view of that page. */
export interface BodyView {
  resultId: string;
  pageIndex: number;
  bodyKind: 'json' | 'text' | 'empty';
  json?: unknown;
  raw: string;
  /** Raw was cut to this many characters of `rawTotalChars` to keep the view responsive. */
  rawTruncated: boolean;
  rawTotalChars: number;
  /** Raw was re-serialised from the parsed body, because the received text was too large to keep. */
  rawReserialised: boolean;
}

/** `a` followed by `b`, with `b`'s category codes mapped into `a`'s name lists. Neither input changes. */
export function concatVehicleColumns(a: VehicleColumns, b: VehicleColumns): VehicleColumns {
  const n = a.count + b.count;
  const floats = (x: Float64Array, y: Float64Array): Float64Array => {
    const out = new Float64Array(n);
    out.set(x.subarray(0, a.count), 0);
    out.set(y.subarray(0, b.count), a.count);
    return out;
  };
  const type = remapCodes(
    n,
    { codes: a.typeCode, names: a.typeNames },
    a.count,
    { codes: b.typeCode, names: b.typeNames },
    b.count,
  );
  const propulsion = remapCodes(
    n,
    { codes: a.propulsionCode, names: a.propulsionNames },
    a.count,
    { codes: b.propulsionCode, names: b.propulsionNames },
    b.count,
  );
  const state = remapCodes(
    n,
    { codes: a.stateCode, names: a.stateNames },
    a.count,
    { codes: b.stateCode, names: b.stateNames },
    b.count,
  );
  return {
    count: n,
    deviceId: a.deviceId.concat(b.deviceId),
    vehicleId: a.vehicleId.concat(b.vehicleId),
    providerId: a.providerId.concat(b.providerId),
    typeCode: type.codes,
    typeNames: type.names,
    propulsionCode: propulsion.codes,
    propulsionNames: propulsion.names,
    stateCode: state.codes,
    stateNames: state.names,
    battery: floats(a.battery, b.battery),
    lastEvent: floats(a.lastEvent, b.lastEvent),
    lat: floats(a.lat, b.lat),
    lng: floats(a.lng, b.lng),
  };
}
