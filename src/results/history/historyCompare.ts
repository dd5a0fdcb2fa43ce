// Two results of the history side by side: status, timing, item counts, the response headers that differ, and which
// items (matched by id) were added, removed or changed from the older result to the newer one.
import type { DataColumn, DataTableView } from '../../shared/dataTable';
import { cellText, columnHasValues } from '../../shared/dataTable';
import type { CompareSideView, HeaderDiffView, HistoryCompareView, ItemDiffView } from '../../shared/historyViews';
import type { ListingResultView } from '../../shared/listingViews';
import { historyEntryOf } from './historyEntry';
import { tableOfView } from '../requests/resultView';

/** How many ids each list of added, removed and changed items names (the counts are always complete). */
export const COMPARE_IDS_SHOWN = 50;
/** How many differing headers are listed. */
const HEADERS_SHOWN = 50;

/** The columns that name an item, most specific first: a trip's id before the vehicle it was made with. */
const ID_COLUMNS = ['tripId', 'eventId', 'telemetryId', 'stopId', 'deviceId', 'vehicleId'];

function sideOf(view: ListingResultView): CompareSideView {
  const entry = historyEntryOf(view, true);
  const table = tableOfView(view);
  const side: CompareSideView = {
    id: view.id,
    title: view.title,
    method: entry.method,
    path: entry.path,
    createdAt: view.createdAt,
    totalMs: view.pages.reduce((sum, p) => sum + p.response.timings.totalMs, 0),
    pageCount: view.pages.length,
    itemCount: table.count,
    noun: view.noun ?? table.noun,
  };
  if (entry.status !== undefined) {
    side.status = entry.status;
    side.statusText = entry.statusText;
  }
  if (entry.grpc) side.grpc = entry.grpc;
  if (entry.jti) side.jti = entry.jti;
  return side;
}

/** The first page's response headers that differ, by name (case-insensitive), in the order first seen. */
function headerDiffs(left: ListingResultView, right: ListingResultView): HeaderDiffView[] {
  const read = (view: ListingResultView) => {
    const map = new Map<string, { name: string; value: string }>();
    for (const h of view.pages[0]?.response.headers ?? [])
      map.set(h.name.toLowerCase(), { name: h.name, value: h.value });
    return map;
  };
  const a = read(left);
  const b = read(right);
  const diffs: HeaderDiffView[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const l = a.get(key);
    const r = b.get(key);
    if (l?.value === r?.value) continue;
    const diff: HeaderDiffView = { name: (l ?? r)?.name ?? key };
    if (l) diff.left = l.value;
    if (r) diff.right = r.value;
    diffs.push(diff);
  }
  return diffs.slice(0, HEADERS_SHOWN);
}

function idColumnOf(table: DataTableView): DataColumn | undefined {
  for (const id of ID_COLUMNS) {
    const column = table.columns.find((c) => c.id === id && c.type === 'text');
    if (column) return column;
  }
  return undefined;
}

/** Each item's id and the text of its cells in `columns`, by id (the first item of an id wins; items without an id are left out). */
function rowsById(table: DataTableView, idColumn: DataColumn, columns: DataColumn[]): Map<string, string> {
  const rows = new Map<string, string>();
  for (let row = 0; row < table.count; row++) {
    const id = cellText(idColumn, row);
    if (!id || rows.has(id)) continue;
    rows.set(id, columns.map((c) => cellText(c, row)).join('\u0001'));
  }
  return rows;
}

/** Which items were added, removed or changed from `older` to `newer`: matched by their id column, compared by the columns that have values in both. */
export function itemDiff(older: DataTableView, newer: DataTableView): ItemDiffView {
  const oldId = idColumnOf(older);
  const newId = idColumnOf(newer);
  const none: ItemDiffView = {
    comparable: false,
    added: [],
    removed: [],
    changed: [],
    addedCount: 0,
    removedCount: 0,
    changedCount: 0,
    sameCount: 0,
  };
  if (!oldId || !newId || oldId.id !== newId.id) return none;
  // Only what both answers tell: a column empty on one side (no battery in /vehicles) would mark every item changed.
  const shared = older.columns.filter(
    (c) => columnHasValues(c) && newer.columns.some((n) => n.id === c.id && n.type === c.type && columnHasValues(n)),
  );
  const pick = (table: DataTableView) => shared.map((c) => table.columns.find((x) => x.id === c.id) as DataColumn);
  const before = rowsById(older, oldId, pick(older));
  const after = rowsById(newer, newId, pick(newer));
  const diff: ItemDiffView = { ...none, comparable: true, idLabel: newId.label };
  for (const [id, cells] of after) {
    const was = before.get(id);
    if (was === undefined) {
      diff.addedCount++;
      if (diff.added.length < COMPARE_IDS_SHOWN) diff.added.push(id);
    } else if (was !== cells) {
      diff.changedCount++;
      if (diff.changed.length < COMPARE_IDS_SHOWN) diff.changed.push(id);
    } else {
      diff.sameCount++;
    }
  }
  for (const id of before.keys()) {
    if (after.has(id)) continue;
    diff.removedCount++;
    if (diff.removed.length < COMPARE_IDS_SHOWN) diff.removed.push(id);
  }
  return diff;
}

/** Two results side by side, the older on the left whichever order they were picked in. */
export function compareHistoryResults(a: ListingResultView, b: ListingResultView): HistoryCompareView {
  const [older, newer] = a.createdAt <= b.createdAt ? [a, b] : [b, a];
  return {
    left: sideOf(older),
    right: sideOf(newer),
    headers: headerDiffs(older, newer),
    items: itemDiff(tableOfView(older), tableOfView(newer)),
  };
}
