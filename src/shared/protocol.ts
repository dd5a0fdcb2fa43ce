/**
 * The typed messages between the results panel's host (src/webview/resultsPanel.ts, resultsPanels.ts) and its browser
 * bundle (src/webview-ui/), and the view models they carry. Imported by both bundles, so it holds
 * types, constants and pure guards only. The webview says `ready` before the host posts anything.
 *
 * No view model ever holds a raw bearer token: the host keeps tokens and copies them to the
 * clipboard itself when the webview asks with a result id.
 */

/** The `viewType` of the results panel (manifest: `onWebviewPanel:mobilityApi.results`). */
import type { ErrorCode } from './errorCodes';
import type { DataTableView, TableQuery } from './dataTable';
import { remapCodes } from './dataTable';

export const RESULTS_VIEW_TYPE = 'mobilityApi.results';

/** Bumped when the persisted panel state changes shape; older states are then ignored. */
export const PERSISTED_STATE_VERSION = 1;

/** Longest id, URL or label a webview message may carry; anything longer is not ours. */
const MAX_FIELD_CHARS = 4096;

// ---------------------------------------------------------------------------------------------
// View models
// ---------------------------------------------------------------------------------------------

export interface EnvironmentView {
  id: string;
  name: string;
  api: 'mds' | 'maas';
  apiLabel: string;
  stage: string;
  baseUrl: string;
}

export interface HeaderView {
  name: string;
  value: string;
  /** True for `Authorization`: the value is the shortened token, never the token. */
  secret?: boolean;
}

export interface RequestView {
  method: string;
  url: string;
  headers: HeaderView[];
  /** The token shortened to its first 10 and last 6 characters, when the request carried one. */
  tokenPreview?: string;
  /** The curl command with `$TOKEN` in place of the token; "Copy curl" puts a fresh one in. */
  curlPreview: string;
}

export interface TimeView {
  seconds: number;
  iso: string;
}

export interface FindingView {
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  rule: string;
}

export type SignatureView = { state: 'verified' } | { state: 'failed'; reason: string } | { state: 'unchecked' };

export interface TokenView {
  /** Where the token comes from: "Generated for MDS staging", "Sent with page 1". */
  source: string;
  /** First 10 and last 6 characters. */
  preview: string;
  length: number;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  iat?: TimeView;
  nbf?: TimeView;
  exp?: TimeView;
  lifetimeSeconds?: number;
  findings: FindingView[];
  signature: SignatureView;
  /** The host holds the token and copies it on request. */
  canCopy: boolean;
  /** The token was already sent; a server that enforces spec 5.1 rule 4 refuses it again. */
  alreadyUsed: boolean;
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

/**
 * The vehicle table, column by column: strings for ids, small-integer codes into a name list for
 * categorical columns (0 is "none"), and typed arrays (NaN for "none") for numbers. Columns clone
 * cheaply in one message and sort and filter without touching objects.
 */
export interface VehicleColumns {
  count: number;
  deviceId: string[];
  vehicleId: string[];
  providerId: string[];
  typeCode: Uint16Array;
  typeNames: string[];
  propulsionCode: Uint16Array;
  propulsionNames: string[];
  stateCode: Uint16Array;
  stateNames: string[];
  battery: Float64Array;
  /** Last event (or report) time, ms since the epoch. */
  lastEvent: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
}

/** What is persisted (webview state) and shown after a reload: no rows, no token. */
export interface ResultSummary {
  kind: ResultView['kind'];
  title: string;
  /** One line: "200 OK · 1,000 vehicles · 2 pages". */
  line: string;
  createdAt: number;
  environmentId?: string;
  environmentName?: string;
  /** A listing can be fetched again with a fresh token (command `mobilityApi.listVehicles` or `.vehicleStatus`). */
  canRunAgain: boolean;
  /** Which listing "Run again" asks for. */
  rerun?: 'vehicles' | 'status';
  url?: string;
  /** A harvest's folder and range: after a reload the host reads the folder's manifest and shows the heatmap again. */
  harvest?: HarvestOrigin;
}

/** Where a harvest's heatmap comes from: its environment (as shown), endpoint, folder and range of UTC hours. */
export interface HarvestOrigin {
  environment: EnvironmentView;
  /** `trips`, `telemetry` or `events_historical` (the host checks it). */
  endpoint: string;
  outDir: string;
  /** First and last hour, `YYYY-MM-DDTHH`. */
  from: string;
  to: string;
}

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
}

/** One example of a conformance rule: where (a JSON Pointer into page `pageIndex`'s body) and the value found. */
export interface ConformanceExampleView {
  pageIndex: number;
  path: string;
  value: string;
}

/** Every finding of one rule, as the panel lists it. */
export interface ConformanceRuleView {
  keyword: string;
  message: string;
  /** JSON Pointer with array indices as `*`. */
  where: string;
  count: number;
  /** Set when a known bug of the official schema causes these findings, not the provider. */
  schemaBug?: string;
  examples: ConformanceExampleView[];
}

/** The MDS 2.0 conformance of a result, as the panel shows it. */
export type ConformanceView =
  | { state: 'checking' }
  | { state: 'off' }
  | { state: 'notMds' }
  | {
    state: 'checked';
    conforms: boolean;
    /** `vehicles_status`, `trips`… */
    endpoint: string;
    mode: string;
    /** "openmobilityfoundation/mds-openapi v2.0 (fae69cb)". */
    schemaSource: string;
    itemsChecked: number;
    itemsWithFindings: number;
    findingCount: number;
    omittedFindings: number;
    rules: ConformanceRuleView[];
    schemaBugs: ConformanceRuleView[];
  };

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

export interface TokenResultView {
  kind: 'token';
  id: string;
  title: string;
  createdAt: number;
  environment?: EnvironmentView;
  token: TokenView;
  summary: ResultSummary;
}

/** One claim (or header parameter) of two compared tokens. Values are JSON text; absent is undefined. */
export interface ClaimDiffView {
  part: 'header' | 'payload';
  name: string;
  left?: string;
  right?: string;
  state: 'same' | 'different' | 'onlyLeft' | 'onlyRight';
  /** Why this difference can decide "one works, the other not", when it can. */
  note?: string;
}

/** Two tokens side by side: "why does this one work and that one not". */
export interface CompareResultView {
  kind: 'compare';
  id: string;
  title: string;
  createdAt: number;
  environment?: EnvironmentView;
  left: TokenView;
  right: TokenView;
  claims: ClaimDiffView[];
  /** How many rows differ. */
  differences: number;
  summary: ResultSummary;
}

/**
 * How one hour of a harvest stands, as the heatmap colours it: the manifest's statuses, then
 * `not_fetched` (in the range, not tried yet), `fetching` (the hour in flight) and `outside` (a cell
 * of the first or last day that is not in the range).
 */
export type HeatmapCellState = 'items' | 'empty' | 'not_found' | 'pending' | 'failed' | 'not_fetched' | 'fetching' | 'outside';

/** One hour of the heatmap. */
export interface HeatmapCellView {
  /** `YYYY-MM-DDTHH`. */
  hour: string;
  state: HeatmapCellState;
  /** What the cell shows: the item count, `0`, `404`, `202`, `500`… */
  text: string;
  /** The hour and its outcome in one sentence: the accessible name. */
  label: string;
  /** The hour's detail (status, items, bytes, attempts, time), one fact a line: the hover. */
  detail: string;
  /** Items or empty: clicking shows the hour's items. */
  canShow: boolean;
}

/** One day (a row of 24 UTC hours). */
export interface HeatmapDayView {
  /** `YYYY-MM-DD`. */
  day: string;
  cells: HeatmapCellView[];
}

/** The coverage of a harvest: days × 24 UTC hours, the legend with counts, and one summary line. */
export interface HarvestHeatmapView {
  days: HeatmapDayView[];
  legend: { state: Exclude<HeatmapCellState, 'outside'>; label: string; count: number }[];
  /** Items in the done hours of the range. */
  items: number;
  /** "38 hours: 30 with items (1,234 trips), 3 empty, 2 not found (404)…". */
  line: string;
}

/** The items of one harvested hour, as the harvest view shows them under the heatmap. */
export interface HarvestHourView {
  hour: string;
  /** "2025-11-04T13: 53 trips (48.2 KB)" or why there are none. */
  line: string;
  /** The hour's items in the resource's table (absent when the hour has none to show). */
  table?: DataTableView;
}

/** A harvest (Fetch Hours…) of an hour endpoint into a folder: its coverage, live while it runs. */
export interface HarvestResultView {
  kind: 'harvest';
  id: string;
  title: string;
  createdAt: number;
  environment: EnvironmentView;
  /** `trips`, `telemetry` or `events_historical`. */
  endpoint: string;
  outDir: string;
  from: string;
  to: string;
  running: boolean;
  /** Why the harvest ended early (Cancel, a refusal, the disk), once it has. */
  stopped?: string;
  heatmap: HarvestHeatmapView;
  /** The hour whose items are shown, when one was chosen. */
  hour?: HarvestHourView;
  summary: ResultSummary;
}

export type ResultView = ListingResultView | RequestErrorResultView | TokenResultView | CompareResultView | HarvestResultView;

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

/** UI choices persisted in webview state so they survive hiding and reloads. */
export interface PanelUiState {
  bodyView?: 'table' | 'tree' | 'raw' | 'plot';
  sortColumn?: string;
  sortDescending?: boolean;
  filter?: string;
  stateFilter?: string;
  pageIndex?: number;
}

/** What the webview stores with `setState` and the serializer receives after a reload. */
export interface PersistedPanelState {
  version: typeof PERSISTED_STATE_VERSION;
  panelKey: string;
  summary?: ResultSummary;
  ui: PanelUiState;
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

export type HostMessage =
  /** `panelKey` names the panel (one per environment); the webview persists it for the serializer. */
  | { type: 'show'; panelKey: string; result: ResultView }
  /** After a reload, when the host no longer holds the result: the persisted summary, with "Run again". */
  | { type: 'restore'; panelKey: string; summary?: ResultSummary }
  | { type: 'pagesAppended'; resultId: string; pages: PageView[]; vehicles: VehicleColumns; nextUrl?: string; stoppedBecause?: string; canLoadNext: boolean; canLoadAll?: boolean; error?: ErrorView; table?: DataTableView; summaryLine?: string }
  /** The result's MDS conformance, checked after the result was shown (the validator takes a moment on 100,000 items). */
  | { type: 'conformance'; resultId: string; conformance: ConformanceView }
  | { type: 'busy'; resultId: string; action: 'loadNextPage' | 'copyCurl' | 'runAgain' | 'export'; busy: boolean }
  | { type: 'body'; body: BodyView }
  | { type: 'notice'; level: 'info' | 'error'; text: string }
  /** A harvest moved on: the whole heatmap again (a month is 720 small cells), and whether it still runs. */
  | { type: 'harvestProgress'; resultId: string; heatmap: HarvestHeatmapView; running: boolean; stopped?: string; summaryLine: string }
  /** The items of the hour the user chose, read by the host from the hour's file. */
  | { type: 'harvestHour'; resultId: string; hour: HarvestHourView };

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'copyToken'; resultId: string; pageIndex?: number }
  /** Copies a token's payload as JSON; `pageIndex` 1 is the right-hand token of a comparison. */
  | { type: 'copyPayload'; resultId: string; pageIndex?: number }
  | { type: 'copyCurl'; resultId: string; pageIndex?: number }
  | { type: 'loadNextPage'; resultId: string }
  | { type: 'loadAllPages'; resultId: string }
  | { type: 'requestBody'; resultId: string; pageIndex: number }
  | { type: 'openInEditor'; resultId: string; pageIndex: number }
  | { type: 'runAgain' }
  /** Save the table's rows (as filtered and sorted by `query`) or a page's body; the host rebuilds the rows itself. */
  | { type: 'export'; resultId: string; format: ExportFormat; query: TableQuery; pageIndex?: number }
  /** Show the items of one hour of a harvest (`YYYY-MM-DDTHH`). */
  | { type: 'showHarvestHour'; resultId: string; hour: string }
  /** "Fetch hours…" from a result of an hour endpoint: the host runs the command for its environment and endpoint. */
  | { type: 'fetchHours'; resultId: string };

/** `YYYY-MM-DDTHH`, the shape of an hour key (the host checks the hour against its harvest). */
const HOUR_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_FIELD_CHARS;
}

function isPageIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1_000_000;
}

/**
 * The message the webview sent, checked field by field, or undefined for anything else. A webview
 * runs response data, so the host treats its messages as untrusted input: never throws, never
 * passes unknown fields on.
 */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  try {
    if (!isRecord(value) || typeof value.type !== 'string') return undefined;
    const { type, resultId, pageIndex } = value;
    switch (type) {
      case 'ready':
      case 'runAgain':
        return { type };
      case 'loadNextPage':
      case 'loadAllPages':
      case 'fetchHours':
        return isShortString(resultId) ? { type, resultId } : undefined;
      case 'showHarvestHour':
        return isShortString(resultId) && typeof value.hour === 'string' && HOUR_KEY.test(value.hour) ? { type, resultId, hour: value.hour } : undefined;
      case 'copyToken':
      case 'copyPayload':
      case 'copyCurl':
        if (!isShortString(resultId)) return undefined;
        if (pageIndex === undefined) return { type, resultId };
        return isPageIndex(pageIndex) ? { type, resultId, pageIndex } : undefined;
      case 'export': {
        const format = value.format;
        if (!isShortString(resultId) || (format !== 'csv' && format !== 'geojson' && format !== 'raw')) return undefined;
        if (pageIndex !== undefined && !isPageIndex(pageIndex)) return undefined;
        const message: WebviewMessage = { type, resultId, format, query: parseTableQuery(value.query) };
        if (pageIndex !== undefined) message.pageIndex = pageIndex;
        return message;
      }
      case 'requestBody':
      case 'openInEditor':
        return isShortString(resultId) && isPageIndex(pageIndex) ? { type, resultId, pageIndex } : undefined;
      default:
        return undefined;
    }
  } catch {
    // A getter or proxy that throws is not a message of ours either.
    return undefined;
  }
}

/** A table query from the webview, field by field; anything else is dropped. */
export function parseTableQuery(value: unknown): TableQuery {
  const query: TableQuery = {};
  if (!isRecord(value)) return query;
  if (typeof value.filter === 'string' && value.filter.length <= MAX_FIELD_CHARS) query.filter = value.filter;
  if (typeof value.group === 'string' && value.group.length <= MAX_FIELD_CHARS) query.group = value.group;
  if (isShortString(value.sortColumn)) query.sortColumn = value.sortColumn;
  if (typeof value.sortDescending === 'boolean') query.sortDescending = value.sortDescending;
  return query;
}

const HOST_MESSAGE_TYPES: ReadonlySet<string> = new Set(['show', 'restore', 'pagesAppended', 'busy', 'body', 'notice', 'conformance', 'harvestProgress', 'harvestHour']);

/** True when `value` looks like a host message (the webview ignores other `message` events). */
export function isHostMessage(value: unknown): value is HostMessage {
  try {
    return isRecord(value) && typeof value.type === 'string' && HOST_MESSAGE_TYPES.has(value.type);
  } catch {
    return false;
  }
}

const BODY_VIEWS: ReadonlySet<string> = new Set(['table', 'tree', 'raw', 'plot']);

/** The persisted state the serializer received, checked, or undefined when it is not ours or outdated. */
export function parsePersistedState(value: unknown): PersistedPanelState | undefined {
  try {
    if (!isRecord(value) || value.version !== PERSISTED_STATE_VERSION || !isShortString(value.panelKey)) return undefined;
    const ui: PanelUiState = {};
    if (isRecord(value.ui)) {
      const u = value.ui;
      if (typeof u.bodyView === 'string' && BODY_VIEWS.has(u.bodyView)) ui.bodyView = u.bodyView as PanelUiState['bodyView'];
      if (isShortString(u.sortColumn)) ui.sortColumn = u.sortColumn;
      if (typeof u.sortDescending === 'boolean') ui.sortDescending = u.sortDescending;
      if (typeof u.filter === 'string' && u.filter.length <= MAX_FIELD_CHARS) ui.filter = u.filter;
      if (isShortString(u.stateFilter)) ui.stateFilter = u.stateFilter;
      if (isPageIndex(u.pageIndex)) ui.pageIndex = u.pageIndex;
    }
    const state: PersistedPanelState = { version: PERSISTED_STATE_VERSION, panelKey: value.panelKey, ui };
    const s = value.summary;
    if (isRecord(s) && (s.kind === 'listing' || s.kind === 'requestError' || s.kind === 'token' || s.kind === 'compare' || s.kind === 'harvest') && typeof s.title === 'string' && typeof s.line === 'string') {
      const summary: ResultSummary = {
        kind: s.kind,
        title: s.title.slice(0, MAX_FIELD_CHARS),
        line: s.line.slice(0, MAX_FIELD_CHARS),
        createdAt: typeof s.createdAt === 'number' && Number.isFinite(s.createdAt) ? s.createdAt : 0,
        canRunAgain: s.canRunAgain === true,
      };
      if (isShortString(s.environmentId)) summary.environmentId = s.environmentId;
      if (isShortString(s.environmentName)) summary.environmentName = s.environmentName;
      if (isShortString(s.url)) summary.url = s.url;
      if (s.rerun === 'vehicles' || s.rerun === 'status') summary.rerun = s.rerun;
      const harvest = s.kind === 'harvest' ? parseHarvestOrigin(s.harvest) : undefined;
      if (harvest) summary.harvest = harvest;
      state.summary = summary;
    }
    return state;
  } catch {
    return undefined;
  }
}

/** A persisted harvest origin, checked field by field, or undefined. */
function parseHarvestOrigin(value: unknown): HarvestOrigin | undefined {
  if (!isRecord(value) || !isRecord(value.environment)) return undefined;
  const e = value.environment;
  if (!isShortString(e.id) || !isShortString(e.name) || (e.api !== 'mds' && e.api !== 'maas') || typeof e.apiLabel !== 'string' || typeof e.stage !== 'string' || typeof e.baseUrl !== 'string') return undefined;
  if (!isShortString(value.endpoint) || !isShortString(value.outDir) || typeof value.from !== 'string' || !HOUR_KEY.test(value.from) || typeof value.to !== 'string' || !HOUR_KEY.test(value.to)) return undefined;
  const environment: EnvironmentView = { id: e.id, name: e.name, api: e.api, apiLabel: e.apiLabel.slice(0, MAX_FIELD_CHARS), stage: e.stage.slice(0, MAX_FIELD_CHARS), baseUrl: e.baseUrl.slice(0, MAX_FIELD_CHARS) };
  return { environment, endpoint: value.endpoint, outDir: value.outDir, from: value.from, to: value.to };
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
  const type = remapCodes(n, { codes: a.typeCode, names: a.typeNames }, a.count, { codes: b.typeCode, names: b.typeNames }, b.count);
  const propulsion = remapCodes(n, { codes: a.propulsionCode, names: a.propulsionNames }, a.count, { codes: b.propulsionCode, names: b.propulsionNames }, b.count);
  const state = remapCodes(n, { codes: a.stateCode, names: a.stateNames }, a.count, { codes: b.stateCode, names: b.stateNames }, b.count);
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
