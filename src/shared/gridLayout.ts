/**
 * How the results table lays out and walks its rows, apart from the DOM: a column's starting width (in
 * characters of the monospace cell font) from its header and values, an identifier shortened in the
 * middle so that its distinguishing end stays visible, and where the row cursor goes on a key press.
 * Pure: no DOM, no Node.
 */
import type { DataColumn } from './dataTable';
import { cellText } from './dataTable';

/** Rows sampled to size a column: spread over the whole table, so 100,000 rows cost as little as 400. */
const SAMPLE_ROWS = 400;
/** Room for the sort mark (" ▼") after a header's name. */
const SORT_MARK_CHARS = 2;
/** A column starts no wider than this (a UUID is 36): wider values are shortened in the middle, the column can be dragged wider. */
const MAX_ID_CHARS = 40;
const MAX_TEXT_CHARS = 32;
const MIN_CHARS = 6;

/** True for a column of identifiers (device, vehicle, trip, journey ids): shown in full when they fit, shortened in the middle when not. */
export function isIdColumn(column: DataColumn): boolean {
  return column.type === 'text' && /id$/i.test(column.id);
}

/** The row indices sampled to size a column: every row up to {@link SAMPLE_ROWS}, else evenly spread ones. */
function sampleRows(count: number): number[] {
  if (count <= SAMPLE_ROWS) return Array.from({ length: count }, (_, i) => i);
  const step = count / SAMPLE_ROWS;
  return Array.from({ length: SAMPLE_ROWS }, (_, i) => Math.floor(i * step));
}

/**
 * How many characters wide a column starts: its full header name with the sort mark, and its longest
 * (sampled) value up to a cap: identifiers up to 40 characters (a UUID fits whole), other text up to 32.
 */
export function columnChars(column: DataColumn, count: number): number {
  let longest = 0;
  for (const row of sampleRows(count)) longest = Math.max(longest, cellText(column, row).length);
  const cap = isIdColumn(column)
    ? MAX_ID_CHARS
    : column.type === 'text' || column.type === 'category'
      ? MAX_TEXT_CHARS
      : Infinity;
  return Math.max(MIN_CHARS, column.label.length + SORT_MARK_CHARS, Math.min(longest, cap));
}

/**
 * `text` in at most `chars` characters: whole when it fits, else its start and its end around "…",
 * with the end kept longer (ids differ at the end: `trip-2026-11-24-000041`, `…-000042`).
 */
export function middleEllipsis(text: string, chars: number): string {
  const room = Math.floor(chars);
  if (text.length <= room) return text;
  if (room <= 1) return '…';
  const keep = room - 1;
  const head = Math.floor(keep / 2);
  const tail = keep - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** A key as the row cursor reads it. */
export interface CursorKey {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
}

/**
 * Where the row cursor goes on `key`: a position in the rows as shown (0-based), or undefined when the
 * key does not move it. `cursor` -1 means no row yet: any move starts at the first row (End at the last).
 * `pageRows` is how many rows the view shows at once.
 */
export function cursorAfterKey(key: CursorKey, cursor: number, rowCount: number, pageRows: number): number | undefined {
  if (rowCount <= 0) return undefined;
  const last = rowCount - 1;
  const page = Math.max(1, Math.floor(pageRows) - 1);
  const clamp = (n: number): number => Math.min(last, Math.max(0, n));
  const start = cursor < 0 ? -1 : clamp(cursor);
  switch (key.key) {
    case 'ArrowDown':
      return start < 0 ? 0 : clamp(start + 1);
    case 'ArrowUp':
      return start < 0 ? 0 : clamp(start - 1);
    case 'PageDown':
      return start < 0 ? 0 : clamp(start + page);
    case 'PageUp':
      return start < 0 ? 0 : clamp(start - page);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return undefined;
  }
}

/** A column width after a resize key (ArrowLeft/ArrowRight; Shift for bigger steps), or undefined for other keys. */
export function widthAfterKey(
  key: { key: string; shiftKey?: boolean },
  width: number,
  minWidth: number,
): number | undefined {
  const step = key.shiftKey ? 64 : 16;
  if (key.key === 'ArrowRight') return width + step;
  if (key.key === 'ArrowLeft') return Math.max(minWidth, width - step);
  return undefined;
}

/**
 * Where a table row's item is: rows follow the pages in order, so row `row` is item `itemIndex` of page
 * `pageIndex`. Undefined past the last page's items.
 */
export function rowPlace(
  itemCounts: readonly number[],
  row: number,
): { pageIndex: number; itemIndex: number } | undefined {
  let first = 0;
  for (let pageIndex = 0; pageIndex < itemCounts.length; pageIndex++) {
    if (row < first + itemCounts[pageIndex]) return row < first ? undefined : { pageIndex, itemIndex: row - first };
    first += itemCounts[pageIndex];
  }
  return undefined;
}

/** Keys of a body that hold a listing's items, as the host's reader looks for them (core `KNOWN_ITEMS_KEYS`). */
const ITEMS_KEYS = ['vehicles_status', 'vehicles', 'trips', 'telemetry', 'events', 'stops', 'data', 'items', 'results'];

/** The JSON Pointer of item `itemIndex` in a page's body: `/trips/41`, `/41` for a body that is an array; '' when the body has no list. */
export function itemPointer(body: unknown, itemIndex: number): string {
  if (Array.isArray(body)) return `/${itemIndex}`;
  if (!body || typeof body !== 'object') return '';
  const record = body as Record<string, unknown>;
  const key =
    ITEMS_KEYS.find((k) => Object.hasOwn(record, k) && Array.isArray(record[k])) ??
    (() => {
      const arrays = Object.keys(record).filter((k) => Array.isArray(record[k]));
      return arrays.length === 1 ? arrays[0] : undefined;
    })();
  return key === undefined ? '' : `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}/${itemIndex}`;
}
