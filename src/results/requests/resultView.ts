// The panel's view of any request's answer (Send Request, an endpoint of the tree, a request file): the
// pages as for a vehicle listing, plus the table of the resource it holds and a summary line that names
// that resource and says how the request ended ("48 trips · 1 page", "not processed yet (202) — retry
// after 120 s", "404 Not Found: no data for that hour").
import * as l10n from '@vscode/l10n';
import type { ApiResult, HttpExchange, RequestOutcome, VehicleListing } from '../../core/http';
import type { Environment } from '../../core/environment';
import { itemsOf } from '../../core/mds';
import type { DataTableView } from '../../shared/dataTable';
import { vehicleDataTable } from '../../shared/dataTableBuild';
import { nounText, plural } from '../../shared/format';
import type { ListingResultView } from '../../shared/listingViews';
import { isRecord } from '../../shared/isRecord';
import { listingView } from './listingView';
import { csvTable, eventTable, stopTable, telemetryTable, tripTable } from './resourceReaders';
import type { RefusalContext } from '../tokens/refusalView';
import { pagesMasker } from '../tokens/tokenPreview';
import { maskTableText } from '../tokens/maskedItems';

const NOUNS: Record<string, [string, string]> = {
  vehicles: ['vehicle', 'vehicles'],
  vehicles_status: ['vehicle status', 'vehicle statuses'],
  trips: ['trip', 'trips'],
  events: ['event', 'events'],
  telemetry: ['telemetry point', 'telemetry points'],
  stops: ['stop', 'stops'],
};

/** An `ApiResult` as the listing view reads it: vehicle items go to the vehicle table. */
export function listingOf(result: ApiResult): VehicleListing {
  const listKey = result.itemsKey === 'vehicles' || result.itemsKey === 'vehicles_status' ? result.itemsKey : undefined;
  const listing: VehicleListing = { pages: result.pages, items: listKey ? result.items : [], outcome: result.outcome };
  if (listKey) listing.listKey = listKey;
  if (result.nextUrl) listing.nextUrl = result.nextUrl;
  if (result.stoppedBecause) listing.stoppedBecause = result.stoppedBecause;
  return listing;
}

/** The table of a result that is not vehicles: trips, events, telemetry, stops or a CSV; undefined for any other body. */
export function resourceTableOf(
  result: Pick<ApiResult, 'items' | 'itemsKey' | 'columns' | 'pages'>,
): DataTableView | undefined {
  if (result.columns && result.pages.some((p) => p.bodyKind === 'csv')) return csvTable(result.columns, result.items);
  switch (result.itemsKey) {
    case 'trips':
      return tripTable(result.items);
    case 'events':
      return eventTable(result.items);
    case 'telemetry':
      return telemetryTable(result.items);
    case 'stops':
      return stopTable(result.items);
    default:
      return undefined;
  }
}

/** The table the panel shows for `view`: its resource table, or its vehicles. */
export function tableOfView(view: ListingResultView): DataTableView {
  return (
    view.table ??
    vehicleDataTable(
      view.vehicles,
      view.shape === 'mds-status' ? 'vehicles_status' : view.shape === 'maas' ? 'maas_vehicles' : 'vehicles',
    )
  );
}

/** How many items one page holds, for any resource (the page table's count). */
export function itemsOnAnyPage(page: HttpExchange, itemsKey: string | undefined): number {
  if (page.bodyKind === 'csv') return page.rows?.length ?? 0;
  if (!isRecord(page.body) && !Array.isArray(page.body)) return 0;
  return itemsOf(page.body, itemsKey)?.items.length ?? 0;
}

/** True for a request of one UTC hour (trips, telemetry, historical events). */
export function isHourRequest(url: string | undefined): boolean {
  return !!url && /[?&](end_time|event_time|telemetry_time)=/.test(url);
}

/** The one-line summary of any result, by how it ended. */
export function resultLine(args: {
  outcome: RequestOutcome | undefined;
  status?: number;
  statusText?: string;
  noun: [string, string];
  itemCount: number;
  pageCount: number;
  moreExist: boolean;
  retryAfterSeconds?: number;
  hourly: boolean;
  errorText?: string;
}): string {
  const status = args.status === undefined ? l10n.t('no answer') : `${args.status} ${args.statusText ?? ''}`.trim();
  const pages = plural(args.pageCount, 'page');
  switch (args.outcome) {
    case 'not_processed':
      return args.retryAfterSeconds !== undefined
        ? l10n.t('not processed yet ({0}) — retry after {1} s', args.status ?? 202, args.retryAfterSeconds)
        : l10n.t('not processed yet ({0}) — try again later', args.status ?? 202);
    case 'not_found':
      return `${status}: ${args.hourly ? l10n.t('no data for that hour') : (args.errorText ?? l10n.t('nothing at that address'))}`;
    case 'empty':
      return `${args.status ?? 200} · ${args.hourly ? l10n.t('no {0} in this hour', nounText(args.noun[1])) : l10n.t('no {0}', nounText(args.noun[1]))}`;
    case 'body':
      return `${status} · ${pages}`;
    case 'error':
      return `${status}${args.errorText ? `: ${args.errorText}` : ''}${args.itemCount ? ` · ${l10n.t('{0} before it', plural(args.itemCount, ...args.noun))}` : ''}`;
    default:
      return `${status} · ${plural(args.itemCount, ...args.noun)}${args.moreExist ? l10n.t(' so far') : ''} · ${pages}`;
  }
}

/** The noun of a result's items. */
export function nounOf(itemsKey: string | undefined, table: DataTableView | undefined): [string, string] {
  return table?.noun ?? NOUNS[itemsKey ?? ''] ?? ['item', 'items'];
}

/** The whole view of any request's answer. `now` is ms. */
export function resultView(args: {
  id: string;
  environment: Environment;
  result: ApiResult;
  title: string;
  credentialLabel?: string;
  canLoadNext: boolean;
  canCopyCurl: boolean;
  canRunAgain: boolean;
  now: number;
  /** What the caller knows about a refusal: the credential type, the key's shared-clock mark. */
  refusal?: Partial<RefusalContext>;
}): ListingResultView {
  const { result } = args;
  const view = listingView({
    id: args.id,
    environment: args.environment,
    listing: listingOf(result),
    credentialLabel: args.credentialLabel,
    canLoadNext: args.canLoadNext,
    canCopyCurl: args.canCopyCurl,
    now: args.now,
    refusal: args.refusal,
  });
  const table = resourceTableOf(result);
  // A key id (or token) of ours that the server echoed in the items is masked in the cells, as in the body.
  if (table) view.table = maskTableText(table, pagesMasker(result.pages));
  view.pages.forEach((page, i) => (page.itemCount = itemsOnAnyPage(result.pages[i], result.itemsKey)));
  view.title = args.title;
  view.outcome = result.outcome;
  const noun = nounOf(result.itemsKey, table);
  view.noun = noun;
  view.summary.title = args.title;
  view.summary.canRunAgain = args.canRunAgain;
  view.summary.line = summaryOf(view, result);
  return view;
}

/** The summary line of `view` (after pages were appended too). */
export function summaryOf(view: ListingResultView, result: Pick<ApiResult, 'outcome' | 'retryAfterSeconds'>): string {
  const last = view.pages.at(-1);
  const itemCount = view.table ? view.table.count : view.vehicles.count;
  return resultLine({
    outcome: result.outcome,
    status: last?.response.status,
    statusText: last?.response.statusText,
    noun: view.noun ?? ['vehicle', 'vehicles'],
    itemCount,
    pageCount: view.pages.length,
    moreExist: !!view.nextUrl,
    retryAfterSeconds: result.retryAfterSeconds,
    hourly: isHourRequest(view.summary.url),
    errorText: last?.error?.mdsError?.description ?? last?.error?.mdsError?.error,
  });
}
