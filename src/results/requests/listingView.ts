// The view of a listing (pages, table columns, first error) and of a request that got no answer.
import type { ErrorCode } from '../../shared/errorCodes';
import * as l10n from '@vscode/l10n';
import type { HttpExchange, VehicleListing } from '../../core/http';
import { clockSkewOf } from '../../core/clock';
import type { Environment } from '../../core/environment';
import { normaliseBaseUrl } from '../../core/environment';
import type {
  HeaderView,
  ListingResultView,
  PageView,
  RequestErrorResultView,
  RequestView,
  ResponseView,
} from '../../shared/listingViews';
import type { ResultSummary } from '../../shared/resultSummary';
import { isRecord } from '../../shared/isRecord';
import { buildCurlCommand, environmentView } from './environmentView';
import { tokenFactsOf } from '../history/historyEntry';
import { mobilityErrorView, pageErrorView } from '../tokens/errorAdvice';
import { plural } from '../../shared/format';
import type { RefusalContext } from '../tokens/refusalView';
import { pagesMasker, scrubSent, shortenToken } from '../tokens/tokenPreview';
import { maskVehicleText } from '../tokens/maskedItems';
import { pageTokenView } from '../tokens/tokenView';
import { listingShape, vehicleColumns } from './vehicleReader';

function requestView(page: HttpExchange): RequestView {
  const raw = page.token?.token;
  const tokenPreview = raw ? shortenToken(raw) : undefined;
  const headers: HeaderView[] = Object.entries(page.requestHeaders).map(([name, value]) => {
    if (/^authorization$/i.test(name))
      return { name, value: tokenPreview ? `Bearer ${tokenPreview}` : l10n.t('Bearer <redacted>'), secret: true };
    return { name, value: scrubSent(value, page.token) };
  });
  return {
    method: page.method,
    url: page.url,
    headers,
    tokenPreview,
    curlPreview: buildCurlCommand(page.url, page.requestHeaders, '$TOKEN'),
  };
}

function responseView(page: HttpExchange): ResponseView {
  const view: ResponseView = {
    status: page.status,
    statusText: page.statusText,
    ok: page.ok,
    contentType: page.contentType,
    bytes: page.bytes,
    timings: { ...page.timings },
    headers: Object.entries(page.responseHeaders).map(([name, value]) => ({
      name,
      value: scrubSent(value, page.token),
    })),
    // The panel has no CSV view yet: a CSV body is shown as its text.
    bodyKind: page.bodyKind === 'csv' ? 'text' : page.bodyKind,
  };
  if (page.redirectedFrom?.length) view.redirectedFrom = [...page.redirectedFrom];
  if (page.bodyProblem) view.bodyProblem = page.bodyProblem;
  return view;
}

/** What the environment tells about a refusal: the audience it expects (its base URL) and the API. */
export function refusalContextOf(env: Environment, now: number, extra: Partial<RefusalContext> = {}): RefusalContext {
  let audience: string | undefined;
  try {
    audience = normaliseBaseUrl(env.baseUrl, env.name);
  } catch {
    // A base URL that does not parse got no answer to explain; leave the audience unknown.
  }
  return { audience, api: env.api, now, ...extra };
}

/** The view of page `index` (0-based) of a listing; `refusal` adds what the caller knows (credential type, the key's shared-clock mark). */
export function pageView(
  page: HttpExchange,
  index: number,
  env: Environment,
  now: number,
  itemCount: number,
  refusal?: Partial<RefusalContext>,
): PageView {
  const view: PageView = {
    index,
    url: page.url,
    request: requestView(page),
    response: responseView(page),
    itemCount,
  };
  const token = pageTokenView(page, index + 1, env, now);
  if (token) view.token = token;
  const error = pageErrorView(page, refusalContextOf(env, now, refusal));
  if (error) view.error = error;
  return view;
}

/** How many items one page of a listing holds (the panel's page table and the CLI count the same way). */
export function itemsOnPage(page: HttpExchange): number {
  if (!isRecord(page.body)) return 0;
  const list = Array.isArray(page.body.vehicles_status) ? page.body.vehicles_status : page.body.vehicles;
  return Array.isArray(list) ? list.length : 0;
}

/** The one-line summary of a listing, as the panel and the CLI show it: `200 OK · 500 vehicles · 5 pages`. */
export function listingLine(args: {
  status?: number;
  statusText?: string;
  itemCount: number;
  pageCount: number;
  moreExist: boolean;
  noun?: [string, string];
}): string {
  const status = args.status === undefined ? l10n.t('no answer') : `${args.status} ${args.statusText ?? ''}`.trim();
  const [one, many] = args.noun ?? ['vehicle', 'vehicles'];
  return `${status} · ${plural(args.itemCount, one, many)}${args.moreExist ? l10n.t(' so far') : ''} · ${plural(args.pageCount, 'page')}`;
}

/** The whole view of a vehicles listing: pages, table columns, first error. `now` is ms. */
export function listingView(args: {
  id: string;
  environment: Environment;
  listing: VehicleListing;
  credentialLabel?: string;
  canLoadNext: boolean;
  canCopyCurl: boolean;
  now: number;
  pageOffset?: number;
  /** What the caller knows about a refusal beyond the environment: the credential type, the key's shared-clock mark. */
  refusal?: Partial<RefusalContext>;
}): ListingResultView {
  const { environment: env, listing } = args;
  const offset = args.pageOffset ?? 0;
  const pages = listing.pages.map((p, i) => pageView(p, offset + i, env, args.now, itemsOnPage(p), args.refusal));
  const shape = listingShape(listing.listKey, listing.items, env.api);
  const what = shape === 'mds-status' ? l10n.t('Vehicle status') : l10n.t('Vehicles');
  const title = `${what} · ${env.name}`;
  const vehicles = maskVehicleText(vehicleColumns(listing.items), pagesMasker(listing.pages));
  const summary: ResultSummary = {
    kind: 'listing',
    title,
    line: listingLine({
      status: pages.at(-1)?.response.status,
      statusText: pages.at(-1)?.response.statusText,
      itemCount: vehicles.count,
      pageCount: pages.length,
      moreExist: !!listing.nextUrl,
    }),
    createdAt: args.now,
    environmentId: env.id,
    environmentName: env.name,
    canRunAgain: true,
    rerun:
      shape === 'mds-status' || /\/vehicles\/status(\/|\?|$)/.test(listing.pages[0]?.url ?? '') ? 'status' : 'vehicles',
    url: listing.pages[0]?.url,
  };
  const view: ListingResultView = {
    kind: 'listing',
    id: args.id,
    title,
    createdAt: args.now,
    environment: environmentView(env),
    shape,
    pages,
    vehicles,
    canLoadNext: args.canLoadNext && !!listing.nextUrl,
    canCopyCurl: args.canCopyCurl,
    summary,
  };
  if (args.credentialLabel) view.credentialLabel = args.credentialLabel;
  if (listing.nextUrl) view.nextUrl = listing.nextUrl;
  if (listing.stoppedBecause) view.stoppedBecause = listing.stoppedBecause;
  const failed = pages.find((p) => p.error);
  if (failed?.error) view.error = failed.error;
  const lastPage = listing.pages.at(-1);
  const skew = lastPage ? clockSkewOf(lastPage) : undefined;
  if (skew) view.clockNotice = skew.message;
  const tokenFacts = tokenFactsOf(pages[0]);
  if (tokenFacts) view.tokenFacts = tokenFacts;
  return view;
}

/** The view of a request that failed before an answer. */
export function requestErrorView(args: {
  id: string;
  environment: Environment;
  error: { code?: ErrorCode; message: string };
  url?: string;
  now: number;
}): RequestErrorResultView {
  const error = mobilityErrorView(args.error);
  const title = l10n.t('Request failed · {0}', args.environment.name);
  const view: RequestErrorResultView = {
    kind: 'requestError',
    id: args.id,
    title,
    createdAt: args.now,
    environment: environmentView(args.environment),
    error,
    summary: {
      kind: 'requestError',
      title,
      line: `${error.code ?? l10n.t('Error')}: ${args.error.message}`,
      createdAt: args.now,
      environmentId: args.environment.id,
      environmentName: args.environment.name,
      canRunAgain: true,
      rerun: args.url && /\/vehicles\/status(\/|\?|$)/.test(args.url) ? 'status' : 'vehicles',
    },
  };
  if (args.url) {
    view.url = args.url;
    view.summary.url = args.url;
  }
  return view;
}
