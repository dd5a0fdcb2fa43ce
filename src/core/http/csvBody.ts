type CsvParse = typeof import('csv-parse/sync');

/** csv-parse, required when the first CSV answer is read: activation does not set it up for the JSON answers most requests get. */
let csv: CsvParse | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const csvParse = (): CsvParse => (csv ??= require('csv-parse/sync') as CsvParse);

/** A CSV answer read into rows: the header's column names, and one record per line keyed by them. */
export interface CsvTable {
  columns: string[];
  rows: Record<string, string>[];
}

/** True for the CSV media types: `text/vnd.mds+csv` (MDS reports), `text/csv`, `application/csv`. */
export function isCsvContentType(contentType: string): boolean {
  // Every CSV type names csv: the usual JSON answer is told without splitting and lower-casing its type.
  if (!/csv/i.test(contentType)) return false;
  const type = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return type === 'text/csv' || type === 'application/csv' || /^text\/[a-z0-9.-]+\+csv$/.test(type);
}

/**
 * Reads CSV text with csv-parse (RFC 4180: quoted fields, embedded commas and line breaks, a BOM).
 * The first line is the header. Throws csv-parse's error, which names the line, when a record has
 * another number of fields than the header or a quote is not closed.
 */
export function parseCsv(text: string): CsvTable {
  const records: string[][] = csvParse().parse(text, { bom: true, skip_empty_lines: true });
  const [header, ...lines] = records;
  if (!header) return { columns: [], rows: [] };
  // fromEntries defines own properties, so a column named "__proto__" stays a column.
  const rows = lines.map((fields) => Object.fromEntries(header.map((name, i) => [name, fields[i] ?? ''])));
  return { columns: header, rows };
}
