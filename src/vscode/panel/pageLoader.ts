// "Load next page" and "Load all pages" of a result shown in a results panel: the host fetches with a fresh token
// per page, appends the pages to the held result and its view, and posts only what is new.
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { ListingResultView } from '../../shared/listingViews';
import { concatVehicleColumns } from '../../shared/listingViews';
import type { HostMessage } from '../../shared/protocol';
import { concatDataTables } from '../../shared/dataTableBuild';
import { itemsOnAnyPage, listingOf, resourceTableOf, summaryOf } from '../../results/requests/resultView';
import { itemsOnPage, listingLine, pageView } from '../../results/requests/listingView';
import { vehicleColumns } from '../../results/requests/vehicleReader';
import { pagesMasker } from '../../results/tokens/tokenPreview';
import { maskTableText, maskVehicleText } from '../../results/tokens/maskedItems';
import type { HeldResult, NextPages } from './heldResult';

/** What the loader needs of its panel. */
export interface PagePort {
  post(message: HostMessage): void;
  /** True while `held` is the result the panel shows. */
  isShown(held: HeldResult): boolean;
  /** Validates the appended pages when the result's conformance was checked (see conformanceCheck.ts). */
  recheck(held: HeldResult, offset: number): void;
  /** The panel's title, for the progress notification. */
  title(): string;
}

/** Fetches the next page of `held` (or, with `fetchAll`, every next page) and appends it. */
export async function loadNextPage(
  held: HeldResult,
  port: PagePort,
  fetchAll?: (nextUrl: string) => Promise<NextPages>,
): Promise<void> {
  const fetchPages = fetchAll ?? held.loadNext;
  if (held.view.kind !== 'listing' || !fetchPages || !held.environment || held.loading) return;
  const view: ListingResultView = held.view;
  const resultId = view.id;
  const nextUrl = view.nextUrl;
  if (!nextUrl) return;
  held.loading = true;
  port.post({ type: 'busy', resultId, action: 'loadNextPage', busy: true });
  try {
    const fetched = await fetchPages(nextUrl);
    if (!port.isShown(held)) return;
    const { listing: more, result: moreResult } = fetched;
    const now = Date.now();
    const offset = held.pages.length;
    const pages = more.pages.map((p, i) =>
      pageView(
        p,
        offset + i,
        held.environment as Environment,
        now,
        moreResult ? itemsOnAnyPage(p, moreResult.itemsKey) : itemsOnPage(p),
      ),
    );
    // A key id of ours echoed in the items is masked in the cells (maskedTables.ts), as on the first page.
    const mask = pagesMasker(more.pages);
    const vehicles = maskVehicleText(vehicleColumns(more.items), mask);
    const resource = moreResult && view.table ? resourceTableOf(moreResult) : undefined;
    const moreTable = resource ? maskTableText(resource, mask) : undefined;
    if (moreTable && view.table) view.table = concatDataTables(view.table, moreTable);
    held.pages.push(...more.pages);
    held.tokens.push(...more.pages.map((p) => p.token?.token ?? ''));
    view.pages.push(...pages);
    view.vehicles = concatVehicleColumns(view.vehicles, vehicles);
    view.nextUrl = more.nextUrl;
    view.stoppedBecause = more.stoppedBecause;
    view.canLoadNext = !!more.nextUrl;
    view.canLoadAll = !!more.nextUrl && !!held.loadAllResult;
    const error = pages.find((p) => p.error)?.error;
    if (error && !view.error) view.error = error;
    const last = view.pages.at(-1)?.response;
    if (moreResult) {
      view.outcome = moreResult.outcome;
      view.summary.line = summaryOf(view, moreResult);
    } else {
      view.summary.line = listingLine({
        status: last?.status,
        statusText: last?.statusText,
        itemCount: view.vehicles.count,
        pageCount: view.pages.length,
        moreExist: !!more.nextUrl,
      });
    }
    const message: HostMessage = {
      type: 'pagesAppended',
      resultId,
      pages,
      vehicles,
      nextUrl: more.nextUrl,
      stoppedBecause: more.stoppedBecause,
      canLoadNext: view.canLoadNext,
      canLoadAll: view.canLoadAll,
      error,
      summaryLine: view.summary.line,
    };
    if (moreTable) message.table = moreTable;
    port.post(message);
    port.recheck(held, offset);
  } finally {
    held.loading = false;
    port.post({ type: 'busy', resultId, action: 'loadNextPage', busy: false });
  }
}

/**
 * "Load all pages": every next page up to the page limit, a fresh token each, with progress and
 * Cancel in a notification; Cancel keeps what arrived (the pages are appended as one batch).
 */
export async function loadAllPages(held: HeldResult, port: PagePort): Promise<void> {
  const loadAll = held.loadAllResult;
  if (!loadAll) return;
  await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Loading every page of {0}', port.title()),
      cancellable: true,
    },
    (progress, cancel) => {
      const abort = new AbortController();
      cancel.onCancellationRequested(() => abort.abort());
      return loadNextPage(held, port, async (nextUrl) => {
        const result = await loadAll(nextUrl, (_page, n) => progress.report({ message: `page ${n}` }), abort.signal);
        return { listing: listingOf(result), result };
      });
    },
  );
}
