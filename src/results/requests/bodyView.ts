import type { HttpExchange } from '../../core/http';
import type { BodyView } from '../../shared/listingViews';
import { scrubSent, sentMasker } from '../tokens/tokenPreview';
import { maskJsonText } from '../tokens/maskedItems';

/** Raw bodies longer than this are cut in the Raw view (the whole text opens in an editor). */
export const MAX_RAW_CHARS = 1_000_000;

/** The body of one page for the JSON tree and Raw views; Raw is cut at `maxRawChars`. */
export function bodyView(
  page: HttpExchange,
  resultId: string,
  pageIndex: number,
  maxRawChars = MAX_RAW_CHARS,
): BodyView {
  let raw = page.text;
  let reserialised = false;
  if (raw === undefined && page.bodyKind === 'json') {
    raw = JSON.stringify(page.body, null, 2);
    reserialised = true;
  }
  const unmasked = raw ?? '';
  raw = scrubSent(unmasked, page.token);
  const view: BodyView = {
    resultId,
    pageIndex,
    bodyKind: page.bodyKind === 'csv' ? 'text' : page.bodyKind,
    raw: raw.length > maxRawChars ? raw.slice(0, maxRawChars) : raw,
    rawTruncated: raw.length > maxRawChars,
    rawTotalChars: raw.length,
    rawReserialised: reserialised,
  };
  // The JSON tree shows what Raw shows: a key id (or token) of ours echoed in the body masked (walked only when there is one).
  if (page.bodyKind === 'json')
    view.json = raw === unmasked ? page.body : maskJsonText(page.body, sentMasker(page.token));
  return view;
}
