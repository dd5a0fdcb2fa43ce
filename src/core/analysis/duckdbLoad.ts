/** The native engine, loaded on first use (its binding stays out of every bundle), and its values made plain. */
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';

type DuckDB = typeof import('@duckdb/node-api');

let duckdb: Promise<DuckDB> | undefined;

/** Loads the native engine once, saying what to do when it is not installed for this platform. */
export function loadDuckDB(): Promise<DuckDB> {
  duckdb ??= import('@duckdb/node-api').catch((err: unknown) => {
    duckdb = undefined;
    throw new MobilityError(
      'ANALYSIS_ENGINE_FAILED',
      l10n.t(
        'The analysis engine (DuckDB, @duckdb/node-api) could not be loaded: {0}. Run `npm ci` in the project, or install the build for your platform.',
        errorMessage(err),
      ),
      { cause: err },
    );
  });
  return duckdb;
}

/** Turns JavaScript values DuckDB gives into plain JSON-able ones: bigint as a number when exact, else as text. */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
