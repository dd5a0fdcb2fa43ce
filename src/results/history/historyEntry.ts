// What the history shows of a result, and the token facts of its header line: both read from the result's view,
// never from the raw token (the view holds the decoded claims only).
import type { HistoryEntryView, TokenFactsView } from '../../shared/historyViews';
import type { ListingResultView, PageView, RequestErrorResultView } from '../../shared/listingViews';

/** The path and query of `url`, without scheme and host; the text itself when it does not parse. */
export function pathOf(url: string | undefined): string {
  if (!url) return '';
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** The `jti`, `iat` and `exp` of the token sent with `page`, when it carried a decodable one. */
export function tokenFactsOf(page: PageView | undefined): TokenFactsView | undefined {
  const token = page?.token;
  if (!page || !token) return undefined;
  const facts: TokenFactsView = { pageNumber: page.index + 1 };
  const jti = token.payload.jti;
  if (typeof jti === 'string' && jti) facts.jti = jti;
  else if (typeof jti === 'number') facts.jti = String(jti);
  if (token.iat) facts.iat = token.iat.iso;
  if (token.exp) facts.exp = token.exp.iso;
  return facts;
}

/** The history entry of a send: its endpoint and path, time, status and the token behind it. */
export function historyEntryOf(view: ListingResultView | RequestErrorResultView, kept: boolean): HistoryEntryView {
  const base = {
    id: view.id,
    title: view.title,
    environmentName: view.environment.name,
    createdAt: view.createdAt,
    line: view.summary.line,
    kept,
  };
  if (view.kind === 'requestError') return { ...base, kind: 'requestError', method: 'GET', path: pathOf(view.url) };
  const first = view.pages[0];
  const last = view.pages.at(-1);
  const entry: HistoryEntryView = {
    ...base,
    kind: 'listing',
    method: first?.request.method ?? 'GET',
    path: pathOf(first?.url ?? view.summary.url),
  };
  if (view.grpc) entry.grpc = { status: view.grpc.status.name, ok: view.grpc.status.ok };
  else if (last) {
    entry.status = last.response.status;
    entry.statusText = last.response.statusText;
  }
  const jti = tokenFactsOf(first)?.jti;
  if (jti) entry.jti = jti;
  return entry;
}
