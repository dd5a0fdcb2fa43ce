/**
 * The Parquet of a harvest, as `mobility-api parquet` writes it and the analysis reads it back: Hive-style partitions
 * below `endpoint=<view>/`, by `date=` (the default: one file per day and endpoint, `hour` a column) or by `date=` and
 * `hour=` folders; MDS times as Parquet timestamps in UTC; what the analysis reads besides items in `_harvest/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';
import type { MdsEndpointId } from '../mds';
import { MANIFEST_FILE, SNAPSHOT_DIR, SNAPSHOT_FILE } from '../harvest';
import { parquetColumnsSql, sqlIdentifier, sqlString } from './columnTypes';
import type { HarvestSource } from './harvestSource';
import { PARQUET_ITEM_VEHICLES, PARQUET_META_DIR, PARQUET_SNAPSHOT_FILE, parquetViewDir } from './harvestSource';
import type { SessionLimits } from './queryErrors';
import { queryFailed } from './queryErrors';

type Connection = import('@duckdb/node-api').DuckDBConnection;

/** How `writeParquet` partitions the items below `endpoint=<view>/`: by `date=` only (`hour` a column), or by `date=` and `hour=` folders. */
export type ParquetPartition = 'hour' | 'day';

/**
 * One file per day and endpoint: readers pay for every file they open (over 7 days of a 2,000-vehicle fleet, `check`
 * took 0.39 × its time on the NDJSON on daily files, 0.86 × on hourly ones: docs/benchmarks.md).
 */
export const DEFAULT_PARQUET_PARTITION: ParquetPartition = 'day';

/** A Parquet file of an hour's partition (`…/date=2026-11-20/hour=7/data_0.parquet`, `hour=07` before issue 37); by day, `hour` is a column. */
const HOUR_PARTITION = /[\\/]hour=\d{1,2}[\\/][^\\/]+$/;

/**
 * Whether the files hold MDS times as timestamps (written since issue 37) or as BIGINT milliseconds (before): the
 * type of the first time-holding column of the first file.
 */
async function timesAreTimestamps(connection: Connection, file: string): Promise<boolean> {
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)})`);
  return described
    .getRowObjectsJS()
    .some((row) => typeof row.column_type === 'string' && /TIMESTAMP/i.test(row.column_type));
}

/**
 * The SELECT of a view's items from its Parquet files, typed as the views are (MDS times in milliseconds), with
 * `_hour` (`2026-11-20T07`) from the partitions or the `hour` column; a snapshot list keeps its rows as listed.
 */
export async function parquetItemsSql(
  connection: Connection,
  endpoint: MdsEndpointId,
  key: string,
  files: string[],
  snapshot: boolean,
): Promise<string> {
  const names = parquetColumnsSql(endpoint, (await timesAreTimestamps(connection, files[0])) ? 'read' : 'as-written');
  const list = files.map(sqlString).join(', ');
  if (snapshot)
    return `SELECT ${names}, CAST(NULL AS VARCHAR) AS _hour FROM read_parquet([${list}]) QUALIFY row_number() OVER (PARTITION BY ${sqlIdentifier(key)}) = 1`;
  const byHour = files.some((f) => HOUR_PARTITION.test(f));
  // The hour as two digits however it was written: an integer now (hour=7, a column of 7), text before issue 37 (hour=07, '07').
  const hour = "lpad(CAST(hour AS VARCHAR), 2, '0')";
  return `SELECT ${names}, date || 'T' || ${hour} AS _hour FROM read_parquet([${list}], hive_partitioning = true, hive_types = {${byHour ? "'date': VARCHAR, 'hour': VARCHAR" : "'date': VARCHAR"}})`;
}

/** The SELECT of `/vehicles` as listed (`_vehicles_listed`) from its Parquet file. */
export async function parquetListedSql(connection: Connection, file: string): Promise<string> {
  return `SELECT ${parquetColumnsSql('vehicles', (await timesAreTimestamps(connection, file)) ? 'read' : 'as-written')} FROM read_parquet(${sqlString(file)})`;
}

/** The endpoint whose model types each item view. */
const ITEM_ENDPOINTS = { trips: 'trips', events: 'events_historical', telemetry: 'telemetry' } as const;

/**
 * Writes the harvest as Parquet (zstd) in Hive-style partitions, `endpoint=<view>/date=<day>/…` with `hour` a column
 * (an integer, 0 to 23), or by `hour`, `endpoint=<view>/date=<day>/hour=<h>/…` (folders that readers take as that integer),
 * into `tempDir` (one of the session's `writable` paths): the caller renames it into place when every view is written.
 * MDS times become Parquet timestamps in UTC. The /vehicles snapshot goes to `endpoint=vehicles/` and
 * `endpoint=vehicles_status/` (one file each, as listed), and what the analysis reads besides items to `_harvest/`:
 * each part's manifest (the hours, for hour-coverage), the snapshot's description (its `last_updated`, for
 * status-vs-events) and the items' own vehicle_type and propulsion_types (registry), so that `check`, `sql` and
 * `metrics` on the Parquet folder answer as on the harvest.
 */
export async function writeHarvestParquet(
  connection: Connection,
  source: HarvestSource,
  limits: SessionLimits,
  tempDir: string,
  partition: ParquetPartition,
): Promise<{ view: string; rows: number }[]> {
  const written: { view: string; rows: number }[] = [];
  const copy = async (view: string, select: string, to: string, partitioned: boolean) => {
    try {
      const result = await connection.runAndReadAll(
        `COPY (${select}) TO ${sqlString(to)} (FORMAT parquet, COMPRESSION zstd${partitioned ? `, PARTITION_BY (${partition === 'day' ? 'date' : 'date, hour'})` : ''})`,
      );
      return Number(result.getRowsJS()[0]?.[0] ?? 0);
    } catch (err) {
      const failed = queryFailed(err, limits);
      if (failed.code === 'ANALYSIS_OUT_OF_MEMORY' || failed.code === 'ANALYSIS_OUT_OF_DISK') throw failed;
      throw new MobilityError(
        'ANALYSIS_WRITE_FAILED',
        l10n.t('Cannot write the Parquet files of {0} into {1}: {2}', view, tempDir, errorMessage(err)),
        { cause: err },
      );
    }
  };
  for (const part of ['trips', 'events', 'telemetry'] as const) {
    if (!source.parts.some((p) => p.table === part)) continue;
    // An integer in both layouts: a column by day, folders hour=0 to hour=23 by hour, which readers (DuckDB, polars,
    // Spark) take as integers (hour=07 DuckDB reads as text).
    const select = `SELECT ${parquetColumnsSql(ITEM_ENDPOINTS[part], 'write')}, substr(_hour, 1, 10) AS date, CAST(substr(_hour, 12, 2) AS BIGINT) AS hour FROM ${sqlIdentifier(`_${part}_hours`)}`;
    written.push({ view: part, rows: await copy(part, select, path.join(tempDir, parquetViewDir(part)), true) });
  }
  const meta = path.join(tempDir, PARQUET_META_DIR);
  await fs.promises.mkdir(meta, { recursive: true });
  const names = new Set<string>();
  for (const part of source.parts) {
    let name: string = part.table;
    for (let n = 2; names.has(name); n++) name = `${part.table}-${n}`;
    names.add(name);
    await fs.promises.mkdir(path.join(meta, name));
    await fs.promises.writeFile(path.join(meta, name, MANIFEST_FILE), `${JSON.stringify(part.manifest, null, 2)}\n`);
  }
  const snapshot = source.snapshot;
  if (snapshot) {
    const lists = [
      ['vehicles', 'vehicles', '_vehicles_listed'],
      ['vehicles_status', 'vehicles_status', '_vehicles_status_hours'],
    ] as const;
    for (const [view, endpoint, from] of lists) {
      const dir = path.join(tempDir, parquetViewDir(view));
      await fs.promises.mkdir(dir);
      written.push({
        view,
        rows: await copy(
          view,
          `SELECT ${parquetColumnsSql(endpoint, 'write')} FROM ${from}`,
          path.join(dir, PARQUET_SNAPSHOT_FILE),
          false,
        ),
      });
    }
    await fs.promises.mkdir(path.join(meta, SNAPSHOT_DIR));
    await fs.promises.writeFile(
      path.join(meta, SNAPSHOT_DIR, SNAPSHOT_FILE),
      `${JSON.stringify(snapshot.manifest, null, 2)}\n`,
    );
  }
  const withVehicles = 'SELECT * FROM _item_vehicles WHERE vehicle_type IS NOT NULL OR propulsion_types IS NOT NULL';
  const carried = await connection.runAndReadAll(`SELECT count(*) FROM (${withVehicles})`);
  if (Number(carried.getRowsJS()[0][0]) > 0)
    await copy('_item_vehicles', withVehicles, path.join(meta, PARQUET_ITEM_VEHICLES), false);
  return written;
}
