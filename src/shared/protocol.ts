/**
 * The typed messages between the results panel's host (src/vscode/panel/resultsPanel.ts, built as resultsPanel.bundle.ts) and its browser
 * bundle (src/webview-ui/), their guards, and the state the webview persists. Imported by both bundles, so it holds
 * types, constants and pure guards only. The webview says `ready` before the host posts anything. The view models the
 * messages carry are in the *Views.ts files beside it, one per feature (listing, token, conformance, harvest).
 *
 * No view model ever holds a raw bearer token: the host keeps tokens and copies them to the
 * clipboard itself when the webview asks with a result id.
 */
import type { AnalysisFindingRef, AnalysisResultView, AnalysisTimelineView } from './analysisViews';
import type { DataTableView, TableQuery } from './dataTable';
import type { ConformanceView } from './conformanceViews';
import type { HarvestHeatmapView, HarvestHourView, HarvestResultView } from './harvestViews';
import type { HistoryCompareView, HistoryEntryView } from './historyViews';
import type {
  BodyView,
  ErrorView,
  ExportFormat,
  ListingResultView,
  PageView,
  RequestErrorResultView,
} from './listingViews';
import type { EnvironmentView, HarvestOrigin, ResultSummary } from './resultSummary';
import type { CompareResultView, TokenResultView } from './tokenViews';
import type { VehicleColumns } from './vehicleColumns';
import type { MetricsViewAnswer, MetricsViewRequest } from './metricsMap/metricsMapViews';
import { parseMetricsViewRequest } from './metricsMap/metricsMapViews';

/** The `viewType` of the results panel (manifest: `onWebviewPanel:mobilityApi.results`). */
export const RESULTS_VIEW_TYPE = 'mobilityApi.results';

/** Bumped when the persisted panel state changes shape; older states are then ignored. */
export const PERSISTED_STATE_VERSION = 1;

/** Longest id, URL or label a webview message may carry; anything longer is not ours. */
const MAX_FIELD_CHARS = 4096;

/** Every result the panel shows. */
export type ResultView =
  | ListingResultView
  | RequestErrorResultView
  | TokenResultView
  | CompareResultView
  | HarvestResultView
  | AnalysisResultView;

/** UI choices persisted in webview state so they survive hiding and reloads. */
export interface PanelUiState {
  bodyView?: 'table' | 'tree' | 'raw' | 'plot';
  sortColumn?: string;
  sortDescending?: boolean;
  filter?: string;
  stateFilter?: string;
  pageIndex?: number;
  /** The data-quality report's finding whose device timeline is open. */
  timeline?: AnalysisFindingRef;
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
  | { type: 'restore'; panelKey: string; summary?: ResultSummary; analysis?: AnalysisRestore }
  | {
      type: 'pagesAppended';
      resultId: string;
      pages: PageView[];
      vehicles: VehicleColumns;
      nextUrl?: string;
      stoppedBecause?: string;
      canLoadNext: boolean;
      canLoadAll?: boolean;
      error?: ErrorView;
      table?: DataTableView;
      summaryLine?: string;
    }
  /** The result's MDS conformance, checked after the result was shown (the validator takes a moment on 100,000 items). */
  | { type: 'conformance'; resultId: string; conformance: ConformanceView }
  | {
      type: 'busy';
      resultId: string;
      action: 'loadNextPage' | 'copyCurl' | 'copyGrpcurl' | 'runAgain' | 'export';
      busy: boolean;
    }
  | { type: 'body'; body: BodyView }
  | { type: 'notice'; level: 'info' | 'error'; text: string }
  /** A harvest moved on: the whole heatmap again (a month is 720 small cells), and whether it still runs. */
  | {
      type: 'harvestProgress';
      resultId: string;
      heatmap: HarvestHeatmapView;
      running: boolean;
      stopped?: string;
      step?: string;
      summaryLine: string;
    }
  /** The items of the hour the user chose, read by the host from the hour's file. */
  | { type: 'harvestHour'; resultId: string; hour: HarvestHourView }
  /** The panel's history of this session's sends, newest first, and which one is shown (see results/resultHistory.ts). */
  | { type: 'history'; entries: HistoryEntryView[]; shownId?: string }
  /** Two history entries side by side, as the webview asked with `compareHistory`. */
  | { type: 'historyCompare'; compare: HistoryCompareView }
  /** A finding's device timeline, as the webview asked with `analysisTimeline` (or why there is none). */
  | { type: 'analysisTimeline'; timeline: AnalysisTimelineView }
  /** The Metrics view's OMF metrics (per geography when loaded), or an export's or computation's outcome. */
  | { type: 'metricsView'; answer: MetricsViewAnswer };

/** A data-quality report restored after a reload: analysed again now, or why that failed. */
export type AnalysisRestore = { state: 'running' } | { state: 'failed'; problem: string };

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'copyToken'; resultId: string; pageIndex?: number }
  /** Copies a token's payload as JSON; `pageIndex` 1 is the right-hand token of a comparison. */
  | { type: 'copyPayload'; resultId: string; pageIndex?: number }
  | { type: 'copyCurl'; resultId: string; pageIndex?: number }
  /** "Copy as grpcurl": the host builds the command with a fresh token and copies it; the webview never sees it. */
  | { type: 'copyGrpcurl'; resultId: string }
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
  | { type: 'fetchHours'; resultId: string }
  /** "Analyze Harvest…" from a harvest's view: the host runs the command on its folder. */
  | { type: 'analyzeHarvest'; resultId: string }
  /** Show an earlier result of the history again. */
  | { type: 'showHistoryEntry'; resultId: string }
  /** Send the request of a history entry again (one that keeps its summary only): a new result. */
  | { type: 'runHistoryEntryAgain'; resultId: string }
  /** Compare two results of the history. */
  | { type: 'compareHistory'; leftId: string; rightId: string }
  /** The device timeline of finding `index` of rule `rule` in the data-quality report `resultId`. */
  | { type: 'analysisTimeline'; resultId: string; rule: string; index: number }
  /** Analyze Harvest… again on the report's folder (a restored report's button, the report's own). */
  | { type: 'analyzeAgain' }
  /** The Metrics view of a data-quality report: compute, export what is shown, choose geographies. */
  | { type: 'metricsView'; resultId: string; request: MetricsViewRequest };

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
      case 'analyzeAgain':
        return { type };
      case 'metricsView': {
        const request = parseMetricsViewRequest(value.request);
        return isShortString(resultId) && request ? { type, resultId, request } : undefined;
      }
      case 'analysisTimeline':
        return isShortString(resultId) && isShortString(value.rule) && isPageIndex(value.index)
          ? { type, resultId, rule: value.rule, index: value.index }
          : undefined;
      case 'loadNextPage':
      case 'loadAllPages':
      case 'fetchHours':
      case 'analyzeHarvest':
      case 'copyGrpcurl':
      case 'showHistoryEntry':
      case 'runHistoryEntryAgain':
        return isShortString(resultId) ? { type, resultId } : undefined;
      case 'compareHistory':
        return isShortString(value.leftId) && isShortString(value.rightId) && value.leftId !== value.rightId
          ? { type, leftId: value.leftId, rightId: value.rightId }
          : undefined;
      case 'showHarvestHour':
        return isShortString(resultId) && typeof value.hour === 'string' && HOUR_KEY.test(value.hour)
          ? { type, resultId, hour: value.hour }
          : undefined;
      case 'copyToken':
      case 'copyPayload':
      case 'copyCurl':
        if (!isShortString(resultId)) return undefined;
        if (pageIndex === undefined) return { type, resultId };
        return isPageIndex(pageIndex) ? { type, resultId, pageIndex } : undefined;
      case 'export': {
        const format = value.format;
        if (!isShortString(resultId) || (format !== 'csv' && format !== 'geojson' && format !== 'raw'))
          return undefined;
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

const HOST_MESSAGE_TYPES: ReadonlySet<string> = new Set([
  'show',
  'restore',
  'pagesAppended',
  'busy',
  'body',
  'notice',
  'conformance',
  'harvestProgress',
  'harvestHour',
  'history',
  'historyCompare',
  'analysisTimeline',
  'metricsView',
]);

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
    if (!isRecord(value) || value.version !== PERSISTED_STATE_VERSION || !isShortString(value.panelKey))
      return undefined;
    const ui: PanelUiState = {};
    if (isRecord(value.ui)) {
      const u = value.ui;
      if (typeof u.bodyView === 'string' && BODY_VIEWS.has(u.bodyView))
        ui.bodyView = u.bodyView as PanelUiState['bodyView'];
      if (isShortString(u.sortColumn)) ui.sortColumn = u.sortColumn;
      if (typeof u.sortDescending === 'boolean') ui.sortDescending = u.sortDescending;
      if (typeof u.filter === 'string' && u.filter.length <= MAX_FIELD_CHARS) ui.filter = u.filter;
      if (isShortString(u.stateFilter)) ui.stateFilter = u.stateFilter;
      if (isPageIndex(u.pageIndex)) ui.pageIndex = u.pageIndex;
      if (isRecord(u.timeline) && isShortString(u.timeline.rule) && isPageIndex(u.timeline.index))
        ui.timeline = { rule: u.timeline.rule, index: u.timeline.index };
    }
    const state: PersistedPanelState = { version: PERSISTED_STATE_VERSION, panelKey: value.panelKey, ui };
    const s = value.summary;
    if (
      isRecord(s) &&
      (s.kind === 'listing' ||
        s.kind === 'requestError' ||
        s.kind === 'token' ||
        s.kind === 'compare' ||
        s.kind === 'harvest' ||
        s.kind === 'analysis') &&
      typeof s.title === 'string' &&
      typeof s.line === 'string'
    ) {
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
      if (s.kind === 'analysis' && isRecord(s.analysis) && isShortString(s.analysis.folder))
        summary.analysis = { folder: s.analysis.folder };
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
  if (
    !isShortString(e.id) ||
    !isShortString(e.name) ||
    (e.api !== 'mds' && e.api !== 'maas') ||
    typeof e.apiLabel !== 'string' ||
    typeof e.stage !== 'string' ||
    typeof e.baseUrl !== 'string'
  )
    return undefined;
  if (
    !isShortString(value.endpoint) ||
    !isShortString(value.outDir) ||
    typeof value.from !== 'string' ||
    !HOUR_KEY.test(value.from) ||
    typeof value.to !== 'string' ||
    !HOUR_KEY.test(value.to)
  )
    return undefined;
  const environment: EnvironmentView = {
    id: e.id,
    name: e.name,
    api: e.api,
    apiLabel: e.apiLabel.slice(0, MAX_FIELD_CHARS),
    stage: e.stage.slice(0, MAX_FIELD_CHARS),
    baseUrl: e.baseUrl.slice(0, MAX_FIELD_CHARS),
  };
  return { environment, endpoint: value.endpoint, outDir: value.outDir, from: value.from, to: value.to };
}
