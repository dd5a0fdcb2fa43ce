/**
 * The harvest notebook (`*.mdsnb`), its pure parts: the file format (JSON: the harvest folder as a path relative to
 * the notebook, and markdown and SQL cells), the starter notebook Open as Notebook writes (metrics queries and one
 * cell per rule holding the rule's own SQL), and a SQL answer's outputs (our renderer's data, CSV, a Vega-Lite chart
 * when the answer has a time column and numeric columns, a text table) and exports. No vscode: the serializer,
 * controller and renderer messaging (analysisFeature.ts) wrap these.
 */
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../../core/base';
import { csvCell } from '../../results/history/exportWriters';
import { answerChart, SQL_ANSWER_MIME } from '../../shared/sqlAnswer';
import type { SqlAnswerData } from '../../shared/sqlAnswer';
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
    throw new MobilityError(
      'ANALYSIS_NOT_A_HARVEST',
      l10n.t(
        '{0} is not a harvest notebook: it is not JSON ({1}). Open it as text to fix it, or make a new one with Open as Notebook on a harvest folder.',
        file,
        err instanceof Error ? err.message : String(err),
      ),
    );
  }
  if (!isRecord(value) || value.format !== FORMAT || !Array.isArray(value.cells)) {
    throw new MobilityError(
      'ANALYSIS_NOT_A_HARVEST',
      l10n.t('{0} is not a harvest notebook: it needs "format": "{1}" and a "cells" list.', file, FORMAT),
    );
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const harvest = typeof metadata.harvest === 'string' ? metadata.harvest : '';
  const cells: NotebookCellData[] = value.cells.map((cell, i) => {
    if (!isRecord(cell) || (cell.kind !== 'markdown' && cell.kind !== 'sql') || typeof cell.source !== 'string') {
      throw new MobilityError(
        'ANALYSIS_NOT_A_HARVEST',
        l10n.t('{0}: cell {1} needs "kind" ("markdown" or "sql") and a "source" text.', file, i + 1),
      );
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
    throw new MobilityError(
      'ANALYSIS_NOT_A_HARVEST',
      l10n.t(
        'This notebook names no harvest folder. Set "harvest" in its metadata to the folder, relative to the notebook, or make it with Open as Notebook on a harvest folder.',
      ),
    );
  }
  return path.resolve(path.dirname(notebookFile), ...harvest.split('/'));
}

/** What a notebook says when its harvest folder is not where it says. */
export function harvestMovedError(notebookFile: string, harvest: string, folder: string): MobilityError {
  return new MobilityError(
    'ANALYSIS_NOT_A_HARVEST',
    l10n.t(
      'The harvest folder of {0} is not there: "{1}" (relative to the notebook) is {2}, which does not exist. If the folder has moved, set "harvest" in the notebook\'s metadata to its new place, relative to the notebook.',
      path.basename(notebookFile),
      harvest,
      folder,
    ),
  );
}

/** The starter notebook of a harvest: a word on the views, the metrics, then one cell per rule with its own SQL. */
export function starterNotebook(rules: RulesResult, harvest: string): HarvestNotebookData {
  const cells: NotebookCellData[] = [
    {
      kind: 'markdown',
      source: l10n.t(
        '# Harvest {0}\n\n{1} to {2}. The views `trips`, `events`, `telemetry`, `vehicles` and `vehicles_status` hold the harvest, each item once, typed by the MDS 2.0 models; times are milliseconds since 1970 (`epoch_ms(start_time)` makes one a timestamp). Queries read only: run a cell to see its answer.',
        harvest,
        rules.window.start,
        rules.window.end,
      ),
    },
    {
      kind: 'markdown',
      source: l10n.t(
        "## Metrics\n\nThe queries `mobility-api metrics` runs, with the harvest's window written in (milliseconds since 1970): change them here to ask something else.",
      ),
    },
    {
      kind: 'markdown',
      source: l10n.t(
        "### Per hour\n\nVehicles in the public right-of-way at the hour's end, by state (each device's last event before it); trips started and ended; the median and 90th percentile of the duration (s) and distance (m) of the trips ended; telemetry points.",
      ),
    },
    { kind: 'sql', source: rules.metrics.hours },
    {
      kind: 'markdown',
      source: l10n.t(
        '### Per day\n\nTrips started, vehicles in the public right-of-way at the end of at least one hour of the day, and trips per vehicle.',
      ),
    },
    { kind: 'sql', source: rules.metrics.days },
    {
      kind: 'markdown',
      source: l10n.t(
        "## Data-quality rules\n\nEach cell holds a rule's own SQL as `mobility-api check` runs it, with the thresholds and the harvest's window written in: its rows are the rule's findings: device_id, trip_id, time (UTC) and detail, the columns named and the time (milliseconds in the rule) shown as a timestamp by the SELECT around it.",
      ),
    },
  ];
  for (const rule of rules.rules) {
    const heading = `### ${rule.code} (${rule.severity}): ${rule.title}\n\n${l10n.t('Basis: {0}', rule.basis)}`;
    if (rule.sql) cells.push({ kind: 'markdown', source: heading }, { kind: 'sql', source: findingsQuery(rule.sql) });
    else
      cells.push({
        kind: 'markdown',
        source: `${heading}\n\n${l10n.t("This rule reads the harvest's manifests (hours empty, pending or missing), not the items: `mobility-api check --rule {0}` runs it.", rule.code)}`,
      });
  }
  return { harvest, cells };
}

/**
 * A rule's SQL as a notebook cell runs it: inside a SELECT that names its four columns (the rule's own first SELECT
 * may leave one unnamed, e.g. `format(…)`) and turns its time, in milliseconds, into a timestamp, in time order.
 */
export function findingsQuery(ruleSql: string): string {
  return `SELECT device_id, trip_id, epoch_ms(CAST("time" AS BIGINT)) AS "time", detail\nFROM (\n${ruleSql.trim()}\n) AS finding(device_id, trip_id, "time", detail)\nORDER BY "time", device_id`;
}

/** A SQL answer as CSV (RFC 4180; cells a spreadsheet would run as formulas kept as text). */
export function answerCsv(answer: SqlResult): string {
  const data = sqlAnswerData(answer);
  return answerCsvOf(data.columns, data.rows);
}

function answerCsvOf(columns: SqlAnswerData['columns'], rows: unknown[][]): string {
  const lines = [columns.map((c) => csvCell(c.name)).join(',')];
  for (const row of rows) {
    lines.push(
      columns
        .map((_, i) => {
          const v = row[i];
          if (v === null || v === undefined) return '';
          if (typeof v === 'number') return csvCell(String(v), true);
          return csvCell(typeof v === 'string' ? v : JSON.stringify(v));
        })
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A worker's answer (rows as objects) as a cell's output carries it: rows as arrays, in the columns' order. */
export function sqlAnswerData(answer: SqlResult): SqlAnswerData {
  return {
    columns: answer.columns,
    rows: answer.rows.map((row) => answer.columns.map((c) => row[c.name] ?? null)),
    total: answer.total,
    ...(answer.shapes ? { shapes: answer.shapes } : {}),
  };
}

/**
 * A Vega-Lite v5 line chart of an answer with a time column and numeric columns (one line per numeric column, or
 * per value of its one text column when it has one, e.g. `vehicle_state`); undefined for any other answer. The
 * same lines as the renderer's chart ({@link answerChart}), for other renderers.
 */
export function vegaLiteSpec(answer: SqlResult): Record<string, unknown> | undefined {
  const chart = answerChart(sqlAnswerData(answer));
  if (!chart) return undefined;
  const values = chart.series.flatMap((s) =>
    s.points.map(([time, value]) => ({ time: new Date(time).toISOString(), series: s.name, value })),
  );
  const points = chart.series.reduce((n, s) => Math.max(n, s.points.length), 0);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: 'container',
    data: { values },
    mark: { type: 'line', point: points <= 200 },
    encoding: {
      x: { field: 'time', type: 'temporal', title: chart.time },
      y: { field: 'value', type: 'quantitative', title: chart.group ? chart.values[0] : null },
      color: { field: 'series', type: 'nominal', title: chart.group ?? null },
    },
  };
}

/** One form of a cell's output: its mime type and its data, JSON or text. */
export type OutputForm = { mime: string; json: unknown } | { mime: string; text: string };

/**
 * A cell's output in every form, ours first (the renderer's table and chart: VS Code shows the first form a renderer
 * takes, and sorts mime types it does not know before text/plain), then for other renderers a Vega-Lite chart (when
 * the answer has a time column and numeric columns), the CSV, and a text table. "Change Presentation" picks another.
 */
export function answerOutputForms(answer: SqlResult): OutputForm[] {
  const spec = vegaLiteSpec(answer);
  return [
    { mime: SQL_ANSWER_MIME, json: sqlAnswerData(answer) },
    ...(spec ? [{ mime: 'application/vnd.vegalite.v5+json', json: spec }] : []),
    { mime: 'text/csv', text: answerCsv(answer) },
    { mime: 'text/plain', text: answerTextTable(answer) },
  ];
}

/** The file an export of the renderer writes: the rows as CSV, or as JSON (an array of objects, one per row). */
export function exportFileText(format: 'csv' | 'json', columns: SqlAnswerData['columns'], rows: unknown[][]): string {
  if (format === 'csv') return answerCsvOf(columns, rows);
  return `${JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null]))),
    null,
    2,
  )}\n`;
}

/** Rows a cell's text table shows; the table of our renderer and the CSV carry every row the engine sent. */
export const TABLE_ROWS = 50;

/** An answer as a plain-text table (fixed width), for the output every notebook shows; values are text only. */
export function answerTextTable(answer: SqlResult): string {
  const shown = answer.rows.slice(0, TABLE_ROWS);
  const cell = (v: unknown) =>
    (v === null || v === undefined
      ? ''
      : typeof v === 'string'
        ? v
        : typeof v === 'number'
          ? String(v)
          : JSON.stringify(v)
    )
      .replace(/[\r\n\t]+/g, ' ')
      .slice(0, 80);
  const grid = [answer.columns.map((c) => c.name), ...shown.map((row) => answer.columns.map((c) => cell(row[c.name])))];
  const widths = answer.columns.map((_, i) => Math.max(...grid.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const lines = [line(grid[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...grid.slice(1).map(line)];
  const more =
    answer.total > shown.length
      ? [l10n.t('({0} of {1} rows; the table and the CSV hold {2})', shown.length, answer.total, answer.rows.length)]
      : [l10n.t('({0} rows)', answer.total)];
  return [...lines, ...more].join('\n');
}
