/**
 * A SQL answer of the harvest notebook as its renderer receives it (the output of mime type {@link SQL_ANSWER_MIME}):
 * the columns with DuckDB's types and the rows as arrays. Both sides read it here: the host writes it, the chart's
 * series and the Vega-Lite spec come from {@link answerChart}, and the renderer shows it as the results table
 * ({@link sqlAnswerTable}) and posts the rows it shows to the host to export ({@link parseExportAnswerMessage}).
 * Pure: no DOM, no Node.
 */
import type { DataColumn, DataTableView } from './dataTable';
import { isRecord } from './isRecord';
import type { GeoShapeView } from './metricsMap/metricsMapViews';

/** Our output's mime type: package.json's `notebookRenderer` renders it. */
export const SQL_ANSWER_MIME = 'application/vnd.mobility-api.sql-answer+json';

export interface SqlAnswerColumn {
  name: string;
  /** DuckDB's type name: `BIGINT`, `VARCHAR`, `TIMESTAMP`, `STRUCT(...)`. */
  type: string;
}

/** What a SQL cell's output carries: the rows the engine sent (at most 100,000) and how many the query gave. */
export interface SqlAnswerData {
  columns: SqlAnswerColumn[];
  rows: unknown[][];
  total: number;
  /** The geographies' polygons, for a map of an answer with a `geography_id` column (src/shared/metricsMap/answerMap.ts). */
  shapes?: GeoShapeView[];
}

/** The output data as the renderer reads it, checked: undefined when it is not one. */
export function parseSqlAnswer(value: unknown): SqlAnswerData | undefined {
  if (
    !isRecord(value) ||
    !Array.isArray(value.columns) ||
    !Array.isArray(value.rows) ||
    typeof value.total !== 'number'
  )
    return undefined;
  if (!value.columns.every((c) => isRecord(c) && typeof c.name === 'string' && typeof c.type === 'string'))
    return undefined;
  if (!value.rows.every(Array.isArray)) return undefined;
  const shapes = Array.isArray(value.shapes)
    ? value.shapes.filter(
        (s): s is GeoShapeView =>
          isRecord(s) && typeof s.id === 'string' && typeof s.name === 'string' && Array.isArray(s.polygons),
      )
    : [];
  return {
    columns: value.columns as SqlAnswerColumn[],
    rows: value.rows as unknown[][],
    total: value.total,
    ...(shapes.length ? { shapes } : {}),
  };
}

const NUMERIC_TYPE =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/i;
const TIME_TYPE = /^(TIMESTAMP|DATE)/i;
/** MDS times are BIGINT milliseconds, and the metrics write hours as text (`2026-11-20T08`): such a name is a time too. */
const TIME_NAME = /(^|_)(time|timestamp|hour|day|date)$/i;
/** `2026-11-20`, `2026-11-20T08`, `2026-11-20 08:15:00`, with or without seconds' fractions and a Z. */
const TIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?)?(?:Z|[+-]00(?::?00)?)?$/;

/** True for a numeric DuckDB type. */
export function isNumericType(type: string): boolean {
  return NUMERIC_TYPE.test(type);
}

/** `2026-11-20T08` (and the other {@link TIME_TEXT} forms) as ms since 1970, UTC; NaN for other text. */
export function timeTextMs(text: string): number {
  const m = TIME_TEXT.exec(text);
  if (!m) return NaN;
  const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0'] = m;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms.padEnd(3, '0')));
}

/** How a column's values become a time axis, or undefined when it is none. */
function timeReader(answer: SqlAnswerData, index: number): ((value: unknown) => number) | undefined {
  const column = answer.columns[index];
  if (TIME_TYPE.test(column.type))
    return (v) => (typeof v === 'string' ? timeTextMs(v) || Date.parse(v) : typeof v === 'number' ? v : NaN);
  if (!TIME_NAME.test(column.name)) return undefined;
  if (isNumericType(column.type)) return (v) => (typeof v === 'number' ? v : NaN);
  if (/^VARCHAR/i.test(column.type)) {
    const first = answer.rows.find((r) => r[index] !== null && r[index] !== undefined)?.[index];
    if (typeof first === 'string' && !Number.isNaN(timeTextMs(first)))
      return (v) => (typeof v === 'string' ? timeTextMs(v) : NaN);
  }
  return undefined;
}

/** Rows a chart carries at most. */
export const CHART_ROWS = 5000;

/** One line of a chart: its name and its points, time (ms) and value, in time order. */
export interface ChartSeries {
  name: string;
  points: [number, number][];
}

/**
 * The chart of an answer with a time column and numeric columns: one line per numeric column, or, when it has one
 * numeric column and one text column (e.g. `vehicle_state`), one line per value of that text column. Undefined for
 * any other answer. `time` is the time column's name, `values` the numeric ones', `group` the text one's.
 */
export interface AnswerChart {
  time: string;
  values: string[];
  group?: string;
  series: ChartSeries[];
}

export function answerChart(answer: SqlAnswerData): AnswerChart | undefined {
  let timeIndex = -1;
  let readTime: ((value: unknown) => number) | undefined;
  // A TIMESTAMP or DATE column first, then one named as a time.
  for (const pass of [true, false]) {
    for (let i = 0; i < answer.columns.length && !readTime; i++) {
      if (TIME_TYPE.test(answer.columns[i].type) !== pass) continue;
      readTime = timeReader(answer, i);
      if (readTime) timeIndex = i;
    }
  }
  if (!readTime) return undefined;
  const numeric = answer.columns
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => i !== timeIndex && isNumericType(c.type));
  if (!numeric.length) return undefined;
  const texts = answer.columns
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => i !== timeIndex && /^VARCHAR/i.test(c.type));
  const rows = answer.rows.slice(0, CHART_ROWS);
  const value = (v: unknown) => (typeof v === 'number' ? v : NaN);
  const byName = new Map<string, [number, number][]>();
  const add = (name: string, x: number, y: number) => {
    if (Number.isNaN(x) || Number.isNaN(y)) return;
    let points = byName.get(name);
    if (!points) byName.set(name, (points = []));
    points.push([x, y]);
  };
  const time = readTime;
  const grouped = numeric.length === 1 && texts.length === 1;
  for (const row of rows) {
    const x = time(row[timeIndex]);
    if (grouped) add(valueText(row[texts[0].i]), x, value(row[numeric[0].i]));
    else for (const { c, i } of numeric) add(c.name, x, value(row[i]));
  }
  const series = [...byName].map(([name, points]) => ({ name, points: points.sort((a, b) => a[0] - b[0]) }));
  return {
    time: answer.columns[timeIndex].name,
    values: numeric.map(({ c }) => c.name),
    ...(grouped ? { group: texts[0].c.name } : {}),
    series,
  };
}

/** A cell's value as the table shows it and as text exports write it: JSON for structs and lists. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Unique column ids for the table (`name`, then `name#2` for a name given twice). */
function columnIds(columns: SqlAnswerColumn[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    return n === 1 ? c.name : `${c.name}#${n}`;
  });
}

/**
 * The answer as the results table's model: numbers as numbers (sorted as numbers), TIMESTAMP and DATE as times,
 * everything else as text (structs and lists as JSON). A numeric column holding a value that is not a JavaScript
 * number (a BIGINT beyond 2^53, sent as text) is text too, so that no digit is lost.
 */
export function sqlAnswerTable(answer: SqlAnswerData): DataTableView {
  const count = answer.rows.length;
  const ids = columnIds(answer.columns);
  const columns = answer.columns.map((c, i): DataColumn => {
    const id = ids[i];
    const label = c.name;
    const values = answer.rows.map((r) => r[i]);
    if (isNumericType(c.type) && values.every((v) => v === null || v === undefined || typeof v === 'number')) {
      return { id, label, type: 'number', values: Float64Array.from(values, (v) => (typeof v === 'number' ? v : NaN)) };
    }
    if (TIME_TYPE.test(c.type) && values.every((v) => v === null || v === undefined || typeof v === 'string')) {
      const times = Float64Array.from(values, (v) => (typeof v === 'string' ? Date.parse(v) : NaN));
      if (times.every((t, r) => !Number.isNaN(t) || values[r] === null || values[r] === undefined))
        return { id, label, type: 'time', values: times };
    }
    return { id, label, type: 'text', values: values.map(valueText) };
  });
  return { resource: 'sql', noun: ['row', 'rows'], count, columns };
}

/** The rows at `order` (the table's rows as shown: sorted and filtered), for an export. */
export function rowsInOrder(answer: SqlAnswerData, order: ArrayLike<number>): unknown[][] {
  return Array.from(order, (i) => answer.rows[i]);
}

/** The renderer's request to save rows: the host asks where and writes the file. */
export interface ExportAnswerMessage {
  type: 'exportSqlAnswer';
  format: 'csv' | 'json';
  columns: SqlAnswerColumn[];
  rows: unknown[][];
}

/** The renderer's message, checked field by field; undefined for anything else. */
export function parseExportAnswerMessage(value: unknown): ExportAnswerMessage | undefined {
  if (!isRecord(value) || value.type !== 'exportSqlAnswer' || (value.format !== 'csv' && value.format !== 'json'))
    return undefined;
  const answer = parseSqlAnswer({
    columns: value.columns,
    rows: value.rows,
    total: Array.isArray(value.rows) ? value.rows.length : 0,
  });
  if (!answer || !answer.rows.every((r) => r.length === answer.columns.length)) return undefined;
  return { type: 'exportSqlAnswer', format: value.format, columns: answer.columns, rows: answer.rows };
}

/** The host's answer to an export: the file's name when saved, nothing when the user cancelled, or why it failed. */
export type ExportAnswerResult = { type: 'exportedSqlAnswer'; saved?: string; error?: string };
