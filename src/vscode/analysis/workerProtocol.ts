/**
 * The messages between the extension host and the analysis worker (a child process that holds DuckDB, so that a
 * native crash never takes the extension host down). JSON over Node's IPC channel: each request carries an id, and
 * the worker answers each one once, with its result or with an error's code and message (never a stack).
 * Types and pure guards only; no vscode.
 */
import type { CheckReport } from '../../core/analysis';
import type { OmfMetricsReport } from '../../core/metrics';
import type { GeoShapeView } from '../../shared/metricsMap/metricsMapViews';

/** Rows a SQL answer carries at most (the rest is counted, not sent). */
export const MAX_SQL_ROWS = 100_000;

/** What the host asks. */
export type WorkerRequest =
  /** The data-quality report of a harvest folder (`mobility-api check --json`'s shape), plus the parts still written. */
  | { id: number; op: 'check'; folder: string; rules?: string[]; thresholds?: string[]; metrics?: boolean }
  /** One read-only query over the folder's views. */
  | { id: number; op: 'sql'; folder: string; sql: string; maxRows?: number; geographies?: string }
  /** What a starter notebook needs: the folder's rules with their own SQL, its window, and the metrics' SQL. */
  | { id: number; op: 'rules'; folder: string; thresholds?: string[] }
  /** A device's timeline around a finding (core/analysis timelineSql): its trips, events and telemetry in time order. */
  | { id: number; op: 'timeline'; folder: string; device: string; trip?: string; time?: number }
  /** The OMF metrics (core/metrics), per geography with `geographies` (a Geography document's file or URL). */
  | {
      id: number;
      op: 'omfMetrics';
      folder: string;
      measures: string[];
      interval: string;
      timeZone: string;
      geographies?: string;
    };

/** A request before the client gives it an id. */
export type WorkerCall = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** What the worker answers. */
export type WorkerAnswer =
  { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { code: string; message: string } };

/** A SQL answer as the worker sends it. */
export interface SqlResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  /** Rows the query gave; more than `rows.length` when cut at `maxRows`. */
  total: number;
  /** The geographies' polygons, when the session has geographies and the answer has a `geography_id` column (the notebook's map). */
  shapes?: GeoShapeView[];
}

/** The check's answer: the report (`mobility-api check --json`'s shape), the parts a harvest still writes, and with `metrics` the hourly metrics' rows. */
export type CheckResult = CheckReport & { inUse: string[]; metrics?: Record<string, unknown>[] };

/** The OMF metrics' answer: the report, and the geographies (id, name, polygons) when they were given. */
export interface OmfMetricsResult {
  report: OmfMetricsReport;
  geographies?: { source: string; list: { geography_id: string; name: string; polygons: GeoShapeView['polygons'] }[] };
}

/** One rule as the starter notebook shows it. */
export interface RuleSql {
  code: string;
  id: string;
  title: string;
  severity: 'error' | 'warning' | 'info';
  basis: string;
  /** The rule's own query over the views (thresholds and window written in), or undefined for a rule read from the manifests. */
  sql?: string;
}

/** The rules of a folder, with the window they were written for, and the metrics queries (`mobility-api metrics`' own SQL). */
export interface RulesResult {
  folder: string;
  window: { start: string; end: string };
  rules: RuleSql[];
  metrics: { hours: string; days: string };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/** The request the host sent, checked field by field, or undefined. */
export function parseWorkerRequest(value: unknown): WorkerRequest | undefined {
  if (
    !isRecord(value) ||
    typeof value.id !== 'number' ||
    !Number.isInteger(value.id) ||
    typeof value.folder !== 'string' ||
    !value.folder
  )
    return undefined;
  const { id, folder } = value;
  const thresholds = value.thresholds === undefined || isStrings(value.thresholds) ? value.thresholds : null;
  if (thresholds === null) return undefined;
  switch (value.op) {
    case 'check': {
      if (value.rules !== undefined && !isStrings(value.rules)) return undefined;
      return {
        id,
        op: 'check',
        folder,
        ...(value.rules ? { rules: value.rules } : {}),
        ...(thresholds ? { thresholds } : {}),
        ...(value.metrics === true ? { metrics: true } : {}),
      };
    }
    case 'sql': {
      if (typeof value.sql !== 'string') return undefined;
      const maxRows =
        typeof value.maxRows === 'number' && Number.isInteger(value.maxRows) && value.maxRows >= 0
          ? Math.min(value.maxRows, MAX_SQL_ROWS)
          : MAX_SQL_ROWS;
      if (value.geographies !== undefined && typeof value.geographies !== 'string') return undefined;
      return {
        id,
        op: 'sql',
        folder,
        sql: value.sql,
        maxRows,
        ...(value.geographies ? { geographies: value.geographies } : {}),
      };
    }
    case 'omfMetrics': {
      const { measures, interval, timeZone, geographies } = value;
      if (
        !isStrings(measures) ||
        typeof interval !== 'string' ||
        typeof timeZone !== 'string' ||
        (geographies !== undefined && typeof geographies !== 'string')
      )
        return undefined;
      return { id, op: 'omfMetrics', folder, measures, interval, timeZone, ...(geographies ? { geographies } : {}) };
    }
    case 'rules':
      return { id, op: 'rules', folder, ...(thresholds ? { thresholds } : {}) };
    case 'timeline': {
      const { device, trip, time } = value;
      if (
        typeof device !== 'string' ||
        !device ||
        (trip !== undefined && typeof trip !== 'string') ||
        (time !== undefined && (typeof time !== 'number' || !Number.isFinite(time)))
      )
        return undefined;
      return { id, op: 'timeline', folder, device, ...(trip ? { trip } : {}), ...(time !== undefined ? { time } : {}) };
    }
    default:
      return undefined;
  }
}

/** True when `value` is an answer of the worker. */
export function isWorkerAnswer(value: unknown): value is WorkerAnswer {
  if (!isRecord(value) || typeof value.id !== 'number') return false;
  if (value.ok === true) return 'result' in value;
  return (
    value.ok === false &&
    isRecord(value.error) &&
    typeof value.error.code === 'string' &&
    typeof value.error.message === 'string'
  );
}
