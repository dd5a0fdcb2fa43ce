import type { HttpExchange } from '../../core/http';
import type { BodyView } from '../../shared/listingViews';
import { scrubSent } from '../tokens/tokenPreview';

/** Raw bodies longer than this are cut in the Raw view (the whole text opens in an editor). */
export const MAX_RAW_CHARS = 1_000_000;

/** The body of one page for the JSON tree and Raw views; Raw is cut at `maxRawChars`. */
export function bodyView(page: HttpExchange, resultId: string, pageIndex: number, maxRawChars = MAX_RAW_CHARS): BodyView {
  let raw = page.text;
  let reserialised = false;
  if (raw === undefined && page.bodyKind === 'json') {
    raw = JSON.stringify(page.body, null, 2);
    reserialised = true;
  }
  raw = scrubSent(raw ?? '', page.token);
  const view: BodyView = {
    resultId,
    pageIndex,
    bodyKind: page.bodyKind === 'csv' ? 'text' : page.bodyKind,
    raw: raw.length > maxRawChars ? raw.slice(0, maxRawChars) : raw,
    rawTruncated: raw.length > maxRawChars,
    rawTotalChars: raw.length,
    rawReserialised: reserialised,
  };
  if (page.bodyKind === 'json') view.json = page.body;
  return view;
}
