/**
 * The harvest notebook (`*.mdsnb`), its pure parts: the file format (JSON: the harvest folder as a path relative to
 * the notebook, and markdown and SQL cells), the starter notebook Open as Notebook writes (metrics queries and one
 * cell per rule holding the rule's own SQL), and a SQL answer's outputs (CSV, a Vega-Lite chart when the answer has
 * a time column and numeric columns). No vscode: the serializer and controller (analysisFeature.ts) wrap these.
 */
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../core/base';
import { csvCell } from '../results/exportWriters';
import type { RulesResult, SqlResult } from './workerProtocol';

/** The notebook type (package.json `notebooks`) and the file's format marker. */
export const NOTEBOOK_TYPE = 'mobilityApi.harvestNotebook';
const FORMAT = 'mobility-api-notebook';

export interface NotebookCellData {
  kind: 'markdown' | 'sql';
  source: string;
}

export interface HarvestNotebookData {
  /** The harvest folder, relative to the notebook file (`/` separators); empty when none is set yet. */
  harvest: string;
  cells: NotebookCellData[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a notebook file; an empty file is an empty notebook. Refuses, saying what to fix, a file that is not one. */
export function parseNotebook(text: string, file: string): HarvestNotebookData {
  if (!text.trim()) return { harvest: '', cells: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new MobilityError('ANALYSIS_NOT_A_HARVEST', l10n.t('{0} is not a harvest notebook: it is not JSON ({1}). Open it as text to fix it, or make a new one with Open as Notebook on a harvest folder.', file, err instanceof Error ? err.message : String(err)));
  }
  if (!isRecord(value) || value.format !== FORMAT || !Array.isArray(value.cells)) {
    throw new MobilityError('ANALYSIS_NOT_A_HARVEST', l10n.t('{0} is not a harvest notebook: it needs "format": "{1}" and a "cells" list.', file, FORMAT));
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const harvest = typeof metadata.harvest === 'string' ? metadata.harvest : '';
  const cells: NotebookCellData[] = value.cells.map((cell, i) => {
    if (!isRecord(cell) || (cell.kind !== 'markdown' && cell.kind !== 'sql') || typeof cell.source !== 'string') {
      throw new MobilityError('ANALYSIS_NOT_A_HARVEST', l10n.t('{0}: cell {1} needs "kind" ("markdown" or "sql") and a "source" text.', file, i + 1));
    }
    return { kind: cell.kind, source: cell.source };
  });
  return { harvest, cells };
}

/** The notebook as its file holds it: stable JSON, one cell per entry, outputs never stored (they are the harvest's). */
export function notebookText(data: HarvestNotebookData): string {
  return `${JSON.stringify({ format: FORMAT, version: 1, metadata: { harvest: data.harvest }, cells: data.cells }, null, 2)}\n`;
}

/** The notebook's `harvest` path for `folder`, relative to the notebook file, with `/`. */
export function relativeHarvestPath(notebookFile: string, folder: string): string {
  const relative = path.relative(path.dirname(notebookFile), folder) || '.';
  return relative.split(path.sep).join('/');
}

/** The harvest folder a notebook names; refuses, saying what to do, a notebook that names none. */
export function harvestFolderOf(notebookFile: string, harvest: string): string {
  if (!harvest.trim()) {
    throw new MobilityError('ANALYSIS_NOT_A_HARVEST', l10n.t('This notebook names no harvest folder. Set "harvest" in its metadata to the folder, relative to the notebook, or make it with Open as Notebook on a harvest folder.'));
  }
  return path.resolve(path.dirname(notebookFile), ...harvest.split('/'));
}

/** What a notebook says when its harvest folder is not where it says. */
export function harvestMovedError(notebookFile: string, harvest: string, folder: string): MobilityError {
  return new MobilityError('ANALYSIS_NOT_A_HARVEST', l10n.t('The harvest folder of {0} is not there: "{1}" (relative to the notebook) is {2}, which does not exist. If the folder has moved, set "harvest" in the notebook\'s metadata to its new place, relative to the notebook.', path.basename(notebookFile), harvest, folder));
}

/** Queries over the views that a starter notebook opens with: the hourly metrics. */
export const METRIC_QUERIES: readonly { title: string; sql: string }[] = [
  {
    title: 'Trips started and ended per hour, with the median and p90 duration (s) and distance (m)',
    sql: `SELECT date_trunc('hour', epoch_ms(start_time)) AS hour,
  count(*) AS trips_started,
  median(duration) AS median_duration_s, quantile_cont(duration, 0.9) AS p90_duration_s,
  median(distance) AS median_distance_m, quantile_cont(distance, 0.9) AS p90_distance_m
FROM trips GROUP BY hour ORDER BY hour`,
  },
  {
    title: 'Events per hour and vehicle state',
    sql: `SELECT date_trunc('hour', epoch_ms(timestamp)) AS hour, vehicle_state, count(*) AS events
FROM events GROUP BY hour, vehicle_state ORDER BY hour, vehicle_state`,
  },
  {
    title: 'Telemetry points per hour',
    sql: `SELECT date_trunc('hour', epoch_ms(timestamp)) AS hour, count(*) AS points
FROM telemetry GROUP BY hour ORDER BY hour`,
  },
  {
    title: 'Trips per vehicle per day',
    sql: `SELECT date_trunc('day', epoch_ms(start_time)) AS day, count(*) / count(DISTINCT device_id) AS trips_per_vehicle
FROM trips GROUP BY day ORDER BY day`,
  },
];

/** The starter notebook of a harvest: a word on the views, the metrics, then one cell per rule with its own SQL. */
export function starterNotebook(rules: RulesResult, harvest: string): HarvestNotebookData {
  const cells: NotebookCellData[] = [
    { kind: 'markdown', source: l10n.t('# Harvest {0}\n\n{1} to {2}. The views `trips`, `events`, `telemetry`, `vehicles` and `vehicles_status` hold the harvest, each item once, typed by the MDS 2.0 models; times are milliseconds since 1970 (`epoch_ms(start_time)` makes one a timestamp). Queries read only: run a cell to see its answer.', harvest, rules.window.start, rules.window.end) },
    { kind: 'markdown', source: l10n.t('## Metrics') },
  ];
  for (const metric of METRIC_QUERIES) cells.push({ kind: 'markdown', source: `### ${metric.title}` }, { kind: 'sql', source: metric.sql });
  cells.push({ kind: 'markdown', source: l10n.t('## Data-quality rules\n\nEach cell holds a rule\'s own SQL as `mobility-api check` runs it, with the thresholds and the harvest\'s window written in: its rows are the rule\'s findings (device_id, trip_id, time in ms, detail).') });
  for (const rule of rules.rules) {
    const heading = `### ${rule.id} (${rule.severity}): ${rule.title}\n\n${l10n.t('Basis: {0}', rule.basis)}`;
    if (rule.sql) cells.push({ kind: 'markdown', source: heading }, { kind: 'sql', source: rule.sql });
    else cells.push({ kind: 'markdown', source: `${heading}\n\n${l10n.t('This rule reads the harvest\'s manifests (hours empty, pending or missing), not the items: `mobility-api check --rule {0}` runs it.', rule.id)}` });
  }
  return { harvest, cells };
}

/** A SQL answer as CSV (RFC 4180; cells a spreadsheet would run as formulas kept as text). */
export function answerCsv(answer: SqlResult): string {
  const lines = [answer.columns.map((c) => csvCell(c.name)).join(',')];
  for (const row of answer.rows) {
    lines.push(answer.columns.map((c) => {
      const v = row[c.name];
      if (v === null || v === undefined) return '';
      if (typeof v === 'number') return csvCell(String(v), true);
      return csvCell(typeof v === 'string' ? v : JSON.stringify(v));
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

const NUMERIC_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/i;
const TIME_TYPE = /^(TIMESTAMP|DATE)/i;
/** MDS times are BIGINT milliseconds: a numeric column with such a name is a time too. */
const TIME_NAME = /(^|_)(time|timestamp|hour|day|date)$/i;
/** Rows a chart carries at most. */
export const CHART_ROWS = 5000;

/** The time column of an answer: a TIMESTAMP or DATE column, else a numeric one named as a time (MDS ms). */
function timeColumnOf(answer: SqlResult): string | undefined {
  return answer.columns.find((c) => TIME_TYPE.test(c.type))?.name ?? answer.columns.find((c) => NUMERIC_TYPE.test(c.type) && TIME_NAME.test(c.name))?.name;
}

/**
 * A Vega-Lite v5 line chart of an answer with a time column and numeric columns (one line per numeric column, or
 * per value of its one text column when it has one, e.g. `vehicle_state`); undefined for any other answer.
 */
export function vegaLiteSpec(answer: SqlResult): Record<string, unknown> | undefined {
  const time = timeColumnOf(answer);
  if (!time) return undefined;
  const numeric = answer.columns.filter((c) => c.name !== time && NUMERIC_TYPE.test(c.type)).map((c) => c.name);
  if (!numeric.length) return undefined;
  const texts = answer.columns.filter((c) => c.name !== time && /^VARCHAR/i.test(c.type)).map((c) => c.name);
  const values = answer.rows.slice(0, CHART_ROWS).map((row) => Object.fromEntries([time, ...numeric, ...texts].map((name) => [name, row[name] ?? null])));
  const base = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', width: 'container', data: { values }, mark: { type: 'line', point: values.length <= 200 } };
  const x = { field: time, type: 'temporal', title: time };
  if (numeric.length === 1 && texts.length === 1) {
    return { ...base, encoding: { x, y: { field: numeric[0], type: 'quantitative' }, color: { field: texts[0], type: 'nominal' } } };
  }
  return { ...base, transform: [{ fold: numeric, as: ['column', 'value'] }], encoding: { x, y: { field: 'value', type: 'quantitative' }, color: { field: 'column', type: 'nominal' } } };
}

/** Rows a cell's text table shows; the CSV and JSON outputs carry every row the engine sent. */
export const TABLE_ROWS = 50;

/** An answer as a plain-text table (fixed width), for the output every notebook shows; values are text only. */
export function answerTextTable(answer: SqlResult): string {
  const shown = answer.rows.slice(0, TABLE_ROWS);
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v)).replace(/[\r\n\t]+/g, ' ').slice(0, 80);
  const grid = [answer.columns.map((c) => c.name), ...shown.map((row) => answer.columns.map((c) => cell(row[c.name])))];
  const widths = answer.columns.map((_, i) => Math.max(...grid.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  const lines = [line(grid[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...grid.slice(1).map(line)];
  const more = answer.total > shown.length ? [l10n.t('({0} of {1} rows; the CSV and JSON outputs hold {2})', shown.length, answer.total, answer.rows.length)] : [l10n.t('({0} rows)', answer.total)];
  return [...lines, ...more].join('\n');
}
