// What the results panels offer: the methods the commands call to show a result, and what the lazily loaded
// bundle (resultsPanel.bundle.ts) offers the controller (resultsController.ts). Types only.
import type * as vscode from 'vscode';
import type { ApiResult, HttpExchange, VehicleListing } from '../../core/http';
import type { DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import type { Environment } from '../../core/environment';
import type { MobilityError } from '../../core/base';
import type { CodeSource } from '../requests/preparedRequests';
import type { HistoryEntryView } from '../../shared/historyViews';
import type { ExportRequest, ExportResultOutcome } from './exportResult';
import type { ComparedToken } from '../../results/tokens/compareView';
import type { RefusalContext } from '../../results/tokens/refusalView';
import type { RequestAssertions } from '../../core/contract';
import type { HarvestDisplay, HarvestDisplayArgs } from './harvestPanel';
import type { CheckReport, QueryAnswer } from '../../core/analysis';
import type { AnalysisFindingView } from '../../shared/analysisViews';
import type { GrpcResultArgs } from './grpcResultArgs';
import type { HeldResult } from './heldResult';

/** What the commands call to show a result. */
export interface ResultsPanelMethods extends vscode.Disposable {
  /** A vehicles request that got an answer (2xx or not). */
  showListing(args: {
    environment: Environment;
    listing: VehicleListing;
    credentialLabel?: string;
    /** The panel's "load next page": the host fetches with a fresh token and appends. */
    loadNextPage?: (nextUrl: string) => Promise<VehicleListing>;
    /** "Copy curl": a ready-to-run command with a FRESH token. */
    curlCommand?: () => Promise<string>;
    /** For a 401/403's explanation: the credential type and the key's shared-clock mark. */
    refusal?: Partial<RefusalContext>;
    /** The request sent, for Copy as Code while this result is shown. */
    codeSource?: CodeSource;
  }): void;
  /**
   * Any request's answer (Send Request, an endpoint of the tree, a request file): its pages, items
   * and outcome. Vehicle items fill the vehicle table; every body shows in the JSON tree and Raw.
   */
  showResult(args: {
    environment: Environment;
    result: ApiResult;
    /** What the result is, for the tab and the header: "Trips · 2025-11-05T13". */
    title: string;
    credentialLabel?: string;
    loadNextPage?: (nextUrl: string) => Promise<ApiResult>;
    curlCommand?: () => Promise<string>;
    /** "Run again": the same request with a fresh token. */
    runAgain?: () => Promise<unknown>;
    /**
     * "Load all pages": every page from `nextUrl` to the last (up to `mobilityApi.request.maxPages`),
     * a fresh token per page; `onPage` reports each page for progress, `signal` cancels (the host
     * keeps what arrived). The panel shows the button next to "Load next page" when this is given.
     */
    loadAllPages?: (
      nextUrl: string,
      onPage: (page: HttpExchange, pageNumber: number) => void,
      signal: AbortSignal,
    ) => Promise<ApiResult>;
    /** The MDS endpoint asked (`trips`, `vehicles_status`…, see mdsEndpoints.ts), for the conformance check; guessed from the body when absent. */
    endpointId?: string;
    /** For a 401/403's explanation: the credential type and the key's shared-clock mark. */
    refusal?: Partial<RefusalContext>;
    /** The request sent, for Copy as Code while this result is shown. */
    codeSource?: CodeSource;
    /** Sent from a request file: its assertions, checked against the answer and listed in the header. */
    assertions?: RequestAssertions;
    /**
     * False: joins the panel's history without bringing the panel to the front (a test run's answers); with no panel
     * open, none opens: the result waits in the history the panel shows when it opens.
     */
    reveal?: boolean;
  }): string;
  /** A gRPC call's answer: status, headers, trailers, timing and each response message. Returns the result's id. */
  showGrpcResult(args: GrpcResultArgs): string;
  /**
   * Shows the result `resultId` of `environmentId`'s panel history again (a test run's link to its answer): the
   * title it is shown with, or why it cannot be.
   */
  showKept(environmentId: string, resultId: string): { ok: true; title: string } | { ok: false; message: string };
  /** The history of `environmentId`'s panel, newest first (empty without a panel). No token: a jti at most. */
  historyOf(environmentId: string): HistoryEntryView[];
  /** A request that failed before an answer (network, TLS, timeout, refused credential...). */
  showRequestError(args: { environment: Environment; error: MobilityError; url?: string }): void;
  /** A decoded token (Generate Token, Decode JWT). `token` is kept host-side only, for "copy token". */
  showToken(args: {
    environment?: Environment;
    token: string;
    decoded: DecodedToken;
    findings: LintFinding[];
    signature?: SignatureCheck;
    source: string;
    /** The user handed the token in (Decode JWT): its kid is shown whole. */ userGiven?: boolean;
  }): void;
  /** Two tokens side by side with the claims that differ marked (Compare Tokens). Texts stay host-side. */
  showComparison(args: { left: ComparedToken; right: ComparedToken; environment?: Environment }): void;
  /** A harvest (Fetch Hours…): its coverage heatmap, updated through the display returned while it runs. */
  showHarvest(args: HarvestDisplayArgs): HarvestDisplay;
  /**
   * A harvest's data-quality report (Analyze Harvest…); `inUse` names the folders a running harvest is still writing;
   * `metrics` are the hourly metrics' rows for the plots; `timeline` reads a finding's device timeline (timelineSql)
   * when the panel asks; `reveal` false leaves the panel where it is (a report restored after a reload). Returns the
   * result's id.
   */
  showAnalysis(args: {
    report: CheckReport;
    inUse: string[];
    metrics?: Record<string, unknown>[];
    timeline?: (finding: AnalysisFindingView) => Promise<QueryAnswer>;
    metricsView?: (resultId: string) => HeldResult['metricsView'];
    reveal?: boolean;
  }): string;
}

/** The active editor tab, as `vscode.window.tabGroups` gives it: its label and its group's column. */
export interface ActiveTab {
  label: string;
  viewColumn: vscode.ViewColumn;
}

/** The panels and what the lazily loaded module offers the controller (see resultsController.ts). */
export interface ResultsPanels extends ResultsPanelMethods {
  /** Takes over a panel VS Code restored after a reload, with the state its webview persisted. */
  restore(webviewPanel: vscode.WebviewPanel, state: unknown): void;
  /** Saves the result of the active panel (or the last one shown) as `request` asks (command `mobilityApi.exportResult`). */
  exportShown(request: ExportRequest): Promise<ExportResultOutcome>;
  /**
   * What the result shown in the active panel was sent from (Copy as Code); undefined when no panel is active or it
   * shows no send. `tab`, the active tab, finds the panel while its own `active` has not caught up yet (the tab moves
   * first, the panel's view state a moment later): the one panel of that title in that column, never a guess among two.
   */
  shownCodeSource(tab?: ActiveTab): CodeSource | undefined;
}
