// One result as the host holds it: the view the webview gets, and what must never reach the webview (tokens, raw
// pages), with the callbacks its buttons run. `heldSend` is the one builder of a send's held result, for a vehicle
// listing (showListing) and any request's answer (showResult) alike.
import type { ApiResult, HttpExchange, VehicleListing } from '../../core/http';
import type { Environment } from '../../core/environment';
import type { ListingResultView } from '../../shared/listingViews';
import type { AnalysisFindingRef, AnalysisTimelineView } from '../../shared/analysisViews';
import type { ResultView } from '../../shared/protocol';
import type { MetricsViewAnswer, MetricsViewRequest } from '../../shared/metricsMap/metricsMapViews';
import type { CodeSource } from '../requests/preparedRequests';
import type { HarvestSession } from './harvestPanel';

/** The pages "Load next page" brought: as a vehicle listing, and as the answer of any request when it was one. */
export interface NextPages {
  listing: VehicleListing;
  result?: ApiResult;
}

/** Follows every next page from `nextUrl`; `onPage` reports each page, `signal` cancels and keeps what arrived. */
export type LoadAllPages = (
  nextUrl: string,
  onPage: (page: HttpExchange, pageNumber: number) => void,
  signal: AbortSignal,
) => Promise<ApiResult>;

/** One result as the host holds it: the view, and what must never reach the webview. */
export interface HeldResult {
  view: ResultView;
  /** Raw tokens by page index (a token result has one, at 0). */
  tokens: string[];
  pages: HttpExchange[];
  environment?: Environment;
  /** "Load next page": one more page with a fresh token. */
  loadNext?: (nextUrl: string) => Promise<NextPages>;
  loadAllResult?: LoadAllPages;
  curlCommand?: () => Promise<string>;
  /** A gRPC call's "Copy as grpcurl": a command with a fresh token, copied by the host. */
  grpcurlCommand?: () => Promise<string>;
  runAgain?: () => Promise<unknown>;
  /** What Copy as Code writes a program of while this result is shown. */
  codeSource?: CodeSource;
  loading?: boolean;
  /** The MDS endpoint for the conformance check (undefined: guessed from the body). */
  endpointId?: string;
  /** A harvest's view: its heatmap and the hour shown. */
  harvest?: HarvestSession;
  /** The tab title it was shown with, to show it again from the history. */
  title?: string;
  /** A data-quality report's: the device timeline of one of its findings (undefined for a finding without a device). */
  timeline?: (ref: AnalysisFindingRef) => Promise<AnalysisTimelineView | undefined>;
  /** A data-quality report's Metrics view: the OMF metrics, their exports, the geographies (vscode/analysis/metricsViewHost.ts). */
  metricsView?: (request: MetricsViewRequest) => Promise<MetricsViewAnswer>;
}

/** Where a send's pages came from and what its buttons can do again. */
export interface SendSource {
  environment: Environment;
  pages: readonly HttpExchange[];
  loadNext?: (nextUrl: string) => Promise<NextPages>;
  loadAll?: LoadAllPages;
  curlCommand?: () => Promise<string>;
  runAgain?: () => Promise<unknown>;
  endpointId?: string;
  codeSource?: CodeSource;
}

/** The held result of a send (a listing or any request's answer): its view, its pages and the tokens they carried. */
export function heldSend(view: ListingResultView, source: SendSource): HeldResult {
  view.canExport = true;
  const held: HeldResult = {
    view,
    tokens: source.pages.map((p) => p.token?.token ?? ''),
    pages: [...source.pages],
    environment: source.environment,
  };
  if (source.loadNext) held.loadNext = source.loadNext;
  if (source.loadAll) held.loadAllResult = source.loadAll;
  if (source.curlCommand) held.curlCommand = source.curlCommand;
  if (source.runAgain) held.runAgain = source.runAgain;
  if (source.endpointId) held.endpointId = source.endpointId;
  if (source.codeSource) held.codeSource = source.codeSource;
  return held;
}

/** The hour a request of an hour endpoint asked for (`?end_time=2025-11-05T13`), if any. */
export function hourOf(url: string | undefined): string | undefined {
  const match = url ? /[?&](?:end_time|event_time|telemetry_time)=(\d{4}-\d{2}-\d{2}T\d{2})(?:&|$)/.exec(url) : null;
  return match?.[1];
}

/** The decoded payload a "Copy payload" button refers to: a page's token, the token, or a side of a comparison. */
export function payloadOf(view: ResultView | undefined, index: number): Record<string, unknown> | undefined {
  switch (view?.kind) {
    case 'token':
      return view.token.payload;
    case 'compare':
      return index === 1 ? view.right.payload : view.left.payload;
    case 'listing':
      return view.pages[index]?.token?.payload;
    default:
      return undefined;
  }
}
