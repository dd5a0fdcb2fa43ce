// What an export writes, as chunks of text: the table's rows as CSV, its positions as GeoJSON. The rows are
// the ones the user sees (`queryRows` over the held result, never data from the webview), written a chunk at
// a time so that 100,000 rows never become one string, and every chunk has the result's tokens scrubbed.
import type { DataColumn, DataTableView } from '../../shared/dataTable';
import { cellText } from '../../shared/dataTable';
import { scrub } from '../tokens/tokenPreview';

/** Rows per chunk: a few hundred kilobytes of text. */
export const EXPORT_CHUNK_ROWS = 2000;

/** Characters that make a spreadsheet read a cell as a formula (CSV injection); such cells get a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a cell a spreadsheet would run
 * as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'` so that it stays text.
 * Numbers are written as numbers (a negative number is no formula).
 */
export function csvCell(text: string, isNumber = false): string {
  const safe = !isNumber && FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The value a column exports for `row`: raw numbers and ISO times, not the units and rounding shown. */
function exportCells(column: DataColumn, row: number): { text: string; isNumber: boolean }[] {
  switch (column.type) {
    case 'number': {
      const v = column.values[row];
      return [{ text: Number.isNaN(v) ? '' : String(v), isNumber: true }];
    }
    case 'time': {
      const t = column.values[row];
      return [{ text: Number.isNaN(t) ? '' : new Date(t).toISOString(), isNumber: false }];
    }
    case 'position': {
      const lat = column.lat[row];
      const lng = column.lng[row];
      return [
        { text: Number.isNaN(lat) ? '' : String(lat), isNumber: true },
        { text: Number.isNaN(lng) ? '' : String(lng), isNumber: true },
      ];
    }
    default:
      return [{ text: cellText(column, row), isNumber: false }];
  }
}

function headerCells(column: DataColumn): string[] {
  return column.type === 'position' ? [`${column.label} lat`, `${column.label} lng`] : [column.label];
}

function scrubAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = scrub(out, secret);
  return out;
}

/** The CSV of `rows` of `table` (every column, hidden ones too), in chunks; CRLF line ends, a header line first. */
export function* csvChunks(
  table: DataTableView,
  rows: Uint32Array,
  secrets: readonly string[] = [],
): Generator<string> {
  const columns = table.columns;
  yield scrubAll(
    `${columns
      .flatMap(headerCells)
      .map((h) => csvCell(h))
      .join(',')}\r\n`,
    secrets,
  );
  for (let start = 0; start < rows.length; start += EXPORT_CHUNK_ROWS) {
    const lines: string[] = [];
    const end = Math.min(rows.length, start + EXPORT_CHUNK_ROWS);
    for (let i = start; i < end; i++) {
      const row = rows[i];
      lines.push(
        columns
          .flatMap((c) => exportCells(c, row))
          .map((cell) => csvCell(cell.text, cell.isNumber))
          .join(','),
      );
    }
    yield scrubAll(`${lines.join('\r\n')}\r\n`, secrets);
  }
}

/** The properties of one row's GeoJSON feature: every column but the positions, by label. */
function properties(table: DataTableView, row: number): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const column of table.columns) {
    if (column.type === 'position') continue;
    if (column.type === 'number') out[column.label] = Number.isNaN(column.values[row]) ? null : column.values[row];
    else out[column.label] = exportCells(column, row)[0].text || null;
  }
  return out;
}

/** How many points `rows` have (one per position column with a value). */
export function countPoints(table: DataTableView, rows: Uint32Array): number {
  let n = 0;
  for (const column of table.columns) {
    if (column.type !== 'position') continue;
    for (const row of rows) if (!Number.isNaN(column.lat[row]) && !Number.isNaN(column.lng[row])) n++;
  }
  return n;
}

/**
 * A GeoJSON FeatureCollection (RFC 7946) of `rows`, in chunks: one Point per position of a row (a trip has a
 * start and an end point, told apart by the `position` property), with the row's other columns as properties.
 */
export function* geoJsonChunks(
  table: DataTableView,
  rows: Uint32Array,
  secrets: readonly string[] = [],
): Generator<string> {
  const positions = table.columns.filter((c) => c.type === 'position');
  yield '{"type":"FeatureCollection","features":[\n';
  let first = true;
  for (let start = 0; start < rows.length; start += EXPORT_CHUNK_ROWS) {
    const features: string[] = [];
    const end = Math.min(rows.length, start + EXPORT_CHUNK_ROWS);
    for (let i = start; i < end; i++) {
      const row = rows[i];
      let props: Record<string, string | number | null> | undefined;
      for (const column of positions) {
        const lat = column.lat[row];
        const lng = column.lng[row];
        if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
        props ??= properties(table, row);
        const feature = {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [lng, lat] },
          properties: positions.length > 1 ? { position: column.label, ...props } : props,
        };
        features.push(`${first ? '' : ',\n'}${JSON.stringify(feature)}`);
        first = false;
      }
    }
    if (features.length) yield scrubAll(features.join(''), secrets);
  }
  yield '\n]}\n';
}
