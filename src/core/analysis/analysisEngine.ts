/**
 * SQL over a harvest with DuckDB (`@duckdb/node-api`, loaded on first use; its native binding stays out of every
 * bundle). The engine downloads nothing: extension autoinstall and autoload are off, and only what is built in
 * (json, parquet) is used. Once the views are made, the file system is closed to queries except the harvest folder
 * (read) and the files the caller names (written by us), and the configuration is locked; a user's query must be one
 * SELECT (or EXPLAIN), so it can neither write files, attach databases nor load extensions.
 *
 * Views: `trips`, `events`, `telemetry` over the harvest's done hour files, with columns typed from the MDS 2.0
 * models (columnTypes.ts), each item once (by its id; an item harvested in two hours keeps its newest hour's copy),
 * read from the NDJSON once per session into tables of a database file in a temporary folder of the session's own
 * (compressed, evicted to that file beyond DuckDB's memory limit, spilling beside it; removed on close); and
 * `vehicles`, `vehicles_status` over the harvest's snapshot (`harvest --snapshot`), typed, and empty without one.
 * Hidden views for the rules: `_vehicles_listed` (/vehicles as listed, a device twice included) and `_item_vehicles`
 * (the vehicle_type and propulsion_types an item carries, for providers that send them with their items).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';
import type { MdsEndpointId } from '../mds';
import type { ItemColumn } from './columnTypes';
import { itemColumnsOf, sqlIdentifier, sqlString } from './columnTypes';
import type { AnalysisTable, HarvestSource } from './harvestSource';
import { DEFAULT_MEMORY_LIMIT, memoryLimitOf } from './memoryLimit';
import { newSessionFolder } from './sessionFolder';
import { PARQUET_ITEM_VEHICLES, PARQUET_META_DIR, PARQUET_SNAPSHOT_FILE, parquetViewDir } from './harvestSource';
import { MANIFEST_FILE, SNAPSHOT_DIR, SNAPSHOT_FILE } from '../harvest';

type DuckDB = typeof import('@duckdb/node-api');
type Connection = import('@duckdb/node-api').DuckDBConnection;
type Instance = import('@duckdb/node-api').DuckDBInstance;

/** Every view, the endpoint whose model types it, and the field that names an item once. */
const VIEWS: readonly { view: AnalysisTable | 'vehicles' | 'vehicles_status'; endpoint: MdsEndpointId; key: string }[] = [
  { view: 'trips', endpoint: 'trips', key: 'trip_id' },
  { view: 'events', endpoint: 'events_historical', key: 'event_id' },
  { view: 'telemetry', endpoint: 'telemetry', key: 'telemetry_id' },
  { view: 'vehicles', endpoint: 'vehicles', key: 'device_id' },
  { view: 'vehicles_status', endpoint: 'vehicles_status', key: 'device_id' },
];

/** The names of the views a query may use. */
export const ANALYSIS_VIEWS: readonly string[] = VIEWS.map((v) => v.view);

/** A query's answer. Values as JavaScript gives them: BIGINT that fits a double as a number, structs as objects. */
export interface QueryAnswer {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

/** Options of {@link openAnalysis}. */
export interface AnalysisOptions {
  /** Files or folders the session itself will write (an --out); nothing else outside the harvest is reachable. */
  writable?: string[];
  /** DuckDB's memory limit, e.g. `1GB`; beyond it, tables and large operators spill to the session's temporary folder. */
  memoryLimit?: string;
}

/** The session's database, in its temporary folder: the harvest's items, read once, compressed. */
const DATABASE_FILE = 'harvest.duckdb';

let duckdb: Promise<DuckDB> | undefined;

/** Loads the native engine once, saying what to do when it is not installed for this platform. */
function loadDuckDB(): Promise<DuckDB> {
  duckdb ??= import('@duckdb/node-api').catch((err: unknown) => {
    duckdb = undefined;
    throw new MobilityError('ANALYSIS_ENGINE_FAILED', l10n.t('The analysis engine (DuckDB, @duckdb/node-api) could not be loaded: {0}. Run `npm ci` in the project, or install the build for your platform.', errorMessage(err)), { cause: err });
  });
  return duckdb;
}

/** Turns JavaScript values DuckDB gives into plain JSON-able ones: bigint as a number when exact, else as text. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** `read_json`'s `columns` argument. */
function columnsArgument(columns: ItemColumn[]): string {
  return `{${columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(', ')}}`;
}

/** Fields of the items that the registry rule compares with /vehicles, read besides the models' columns. */
const CARRIED_COLUMNS: readonly ItemColumn[] = [
  { name: 'vehicle_type', type: 'VARCHAR' },
  { name: 'propulsion_types', type: 'VARCHAR[]' },
];

/** The table a view's NDJSON is read into, once per session. */
const readTableOf = (view: string) => sqlIdentifier(`_${view}_read`);

/** How `writeParquet` partitions the items below `endpoint=<view>/`: by `date=` and `hour=` folders, or by `date=` only. */
export type ParquetPartition = 'hour' | 'day';

/** A Parquet file of an hour's partition (`…/date=2026-11-20/hour=07/data_0.parquet`); by day, `hour` is a column. */
const HOUR_PARTITION = /[\\/]hour=\d{2}[\\/][^\\/]+$/;

/** The hour a harvest file holds, from its name (`…/2026-11-20T07.ndjson`). */
const HOUR_OF_FILE = `regexp_extract(filename, '(\\d{4}-\\d{2}-\\d{2}T\\d{2})\\.ndjson$', 1)`;

/** An open analysis over one harvest. Close it when done. */
export class AnalysisSession {
  private constructor(
    private readonly instance: Instance,
    private readonly connection: Connection,
    private readonly duck: DuckDB,
    readonly source: HarvestSource,
    private readonly tempDir: string,
    /** DuckDB's memory limit, named when a query runs out of it. */
    readonly memoryLimit: string,
  ) {}

  /** Opens DuckDB on the session's database file, reads the harvest into it, makes the views, then closes the file system to everything but the harvest and `writable`. */
  static async open(source: HarvestSource, options: AnalysisOptions = {}): Promise<AnalysisSession> {
    const memoryLimit = memoryLimitOf(options.memoryLimit ?? DEFAULT_MEMORY_LIMIT);
    if (!memoryLimit) throw new MobilityError('USAGE', l10n.t('Memory limit {0}: give a size of 64MB or more, such as 512MB or 2GB.', String(options.memoryLimit)));
    const duck = await loadDuckDB();
    // The session's folder (its database file and DuckDB's spill files), removed on close.
    const tempDir = await newSessionFolder();
    let instance: Instance;
    try {
      instance = await duck.DuckDBInstance.create(path.join(tempDir, DATABASE_FILE), {
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
        memory_limit: memoryLimit,
        temp_directory: tempDir,
      });
    } catch (err) {
      await fs.promises.rm(tempDir, { recursive: true, force: true });
      throw new MobilityError('ANALYSIS_ENGINE_FAILED', l10n.t('Could not prepare the analysis of {0}: {1}', source.folder, errorMessage(err)), { cause: err });
    }
    const connection = await instance.connect();
    const session = new AnalysisSession(instance, connection, duck, source, tempDir, memoryLimit);
    try {
      // The hour files are read in parallel in any order (an item's copies are told apart by their hour, not by the
      // order of rows), and each thread's rows are written to the database file as soon as a row group is full: in
      // file order, with DuckDB's default of five row groups buffered, the read took about 3 times as long and ran
      // out of memory at 192 MB on 18 MB of trips (docs/benchmarks.md). Queries then keep the table's order again.
      await connection.run('SET preserve_insertion_order = false');
      await connection.run('SET write_buffer_row_group_count = 1');
      for (const { view, endpoint, key } of VIEWS) {
        await connection.run(session.viewSql(view, endpoint, key));
        if (session.filesOf(view).length && !source.parquet) await session.removeCopies(view, key);
      }
      await connection.run(session.hiddenViewsSql());
      await connection.run('RESET preserve_insertion_order');
      await connection.run('RESET write_buffer_row_group_count');
      const writable = (options.writable ?? []).flatMap((p) => [path.resolve(p), temporaryPathOf(p)]);
      const allowed = [source.folder, ...(source.snapshot ? [source.snapshot.dir] : []), tempDir, ...writable].map(sqlString);
      await connection.run(`SET allowed_paths = [${allowed.join(', ')}]`);
      await connection.run(`SET allowed_directories = [${allowed.join(', ')}]`);
      await connection.run('SET enable_external_access = false');
      await connection.run('SET lock_configuration = true');
    } catch (err) {
      session.close();
      // The hour files are read here (into the session's tables): a bad line is the data's fault, said as a query would.
      const failed = queryFailed(err, memoryLimit);
      if (failed.code === 'ANALYSIS_DATA_INVALID' || failed.code === 'ANALYSIS_OUT_OF_MEMORY') throw failed;
      throw new MobilityError('ANALYSIS_ENGINE_FAILED', l10n.t('Could not prepare the analysis of {0}: {1}', source.folder, errorMessage(err)), { cause: err });
    }
    return session;
  }

  /**
   * CREATE VIEW for one view: its hour files read with the model's types, one row per item, plus `_hour`. The NDJSON
   * hours are read and de-duplicated once, into a temporary table (spilled to the session's temporary folder beyond
   * the memory limit), which every query then reads instead of the files.
   */
  private viewSql(view: string, endpoint: MdsEndpointId, key: string): string {
    const columns = itemColumnsOf(endpoint);
    const files = this.filesOf(view);
    let hours: string;
    const snapshotView = view === 'vehicles' || view === 'vehicles_status';
    if (files.length && this.source.parquet) {
      // Written from these views, typed: the hour from the partition folders; an item once already but in a snapshot
      // list, which keeps every row as listed (a device listed twice is a registry finding).
      const names = columns.map((c) => sqlIdentifier(c.name)).join(', ');
      const list = files.map(sqlString).join(', ');
      hours = snapshotView
        ? `SELECT ${names}, CAST(NULL AS VARCHAR) AS _hour FROM read_parquet([${list}]) QUALIFY row_number() OVER (PARTITION BY ${sqlIdentifier(key)}) = 1`
        : `SELECT ${names}, date || 'T' || hour AS _hour FROM read_parquet([${list}], hive_partitioning = true, hive_types = {${files.some((f) => HOUR_PARTITION.test(f)) ? "'date': VARCHAR, 'hour': VARCHAR" : "'date': VARCHAR"}})`;
    } else if (!files.length) {
      // No data: the same columns, typed, and no row.
      hours = `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')}, CAST(NULL AS VARCHAR) AS _hour WHERE false`;
    } else {
      // The items' own vehicle_type and propulsion_types (not in the models of trips, events and telemetry, but some
      // providers send them) are read with them, for the registry rule's _item_vehicles, and hidden from the views.
      const carried = snapshotView ? [] : CARRIED_COLUMNS;
      const read = `read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columnsArgument([...columns, ...carried])}, filename = true)`;
      const table = readTableOf(view);
      const renamed = carried.map((c) => `${sqlIdentifier(c.name)} AS ${sqlIdentifier(`_${c.name}`)}`);
      const hidden = carried.map((c) => sqlIdentifier(`_${c.name}`));
      // Read as it streams into a table of the session's database file (compressed, and evicted to that file rather
      // than spilled beyond the memory limit); an item's older copies are removed after (removeCopies).
      return [
        `CREATE TABLE ${table} AS SELECT * EXCLUDE (${['filename', ...carried.map((c) => sqlIdentifier(c.name))].join(', ')}), ${[`${HOUR_OF_FILE} AS _hour`, ...renamed].join(', ')} FROM ${read}`,
        `CREATE VIEW ${sqlIdentifier(`_${view}_hours`)} AS SELECT * ${hidden.length ? `EXCLUDE (${hidden.join(', ')}) ` : ''}FROM ${table}`,
        `CREATE VIEW ${sqlIdentifier(view)} AS SELECT * EXCLUDE (_hour) FROM ${sqlIdentifier(`_${view}_hours`)};`,
      ].join('; ');
    }
    return `CREATE VIEW ${sqlIdentifier(`_${view}_hours`)} AS ${hours}; CREATE VIEW ${sqlIdentifier(view)} AS SELECT * EXCLUDE (_hour) FROM ${sqlIdentifier(`_${view}_hours`)};`;
  }

  /**
   * Keeps each item once: of the rows that share its id, the one of the newest hour (of copies in one hour, any one).
   * A grouping by a 64-bit hash of the id, narrow and fixed-size, first tells whether any id comes twice (in a sound
   * harvest none does, and nothing more is done). Only then are the rows grouped by the id itself, keeping the row
   * with the greatest (hour, rowid) packed into one BIGINT, and the others deleted. Both groupings spill to disk
   * beyond the memory limit (a semi-join of the rows on the candidate hashes, tried first, could not).
   */
  private async removeCopies(view: string, key: string): Promise<void> {
    const table = readTableOf(view);
    const id = sqlIdentifier(key);
    const twice = await this.connection.runAndReadAll(`SELECT count(*) FROM (SELECT hash(${id}) FROM ${table} GROUP BY 1 HAVING count(*) > 1)`);
    if (Number(twice.getRowsJS()[0][0]) === 0) return;
    // The hour as hours since 1970 (about 2^19; 0 for a snapshot's list, which has none) above the rowid (below 2^40).
    const order = `(coalesce(epoch(try_strptime(_hour, '%Y-%m-%dT%H'))::BIGINT // 3600, 0) << 40) | rowid`;
    await this.connection.run(`CREATE TABLE _copies AS SELECT ${id} AS _id, max(${order}) & ${2 ** 40 - 1} AS _kept FROM ${table} GROUP BY ${id} HAVING count(*) > 1`);
    await this.connection.run(`DELETE FROM ${table} USING _copies WHERE ${table}.${id} IS NOT DISTINCT FROM _copies._id AND ${table}.rowid <> _copies._kept`);
    await this.connection.run('DROP TABLE _copies');
  }

  /** The files a view reads: the harvest's hours, or the snapshot's list. */
  private filesOf(view: string): string[] {
    if (view === 'vehicles' || view === 'vehicles_status') return this.source.snapshot ? [this.source.snapshot.files[view]] : [];
    return this.source.parts.filter((p) => p.table === view).flatMap((p) => p.files);
  }

  /** The hidden views the rules read (see the file's comment). */
  private hiddenViewsSql(): string {
    const vehicleColumns = itemColumnsOf('vehicles');
    const vehicleFiles = this.filesOf('vehicles');
    if (this.source.parquet) {
      const listedParquet = vehicleFiles.length
        ? `SELECT ${vehicleColumns.map((c) => sqlIdentifier(c.name)).join(', ')} FROM read_parquet([${vehicleFiles.map(sqlString).join(', ')}])`
        : `SELECT ${vehicleColumns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} WHERE false`;
      const kept = this.source.parquet.itemVehicles;
      const itemVehiclesParquet = kept
        ? `SELECT source, device_id, time, vehicle_type, propulsion_types FROM read_parquet(${sqlString(kept)})`
        : "SELECT CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS device_id, CAST(NULL AS BIGINT) AS time, CAST(NULL AS VARCHAR) AS vehicle_type, CAST(NULL AS VARCHAR[]) AS propulsion_types WHERE false";
      return `CREATE VIEW _vehicles_listed AS ${listedParquet}; CREATE VIEW _item_vehicles AS ${itemVehiclesParquet};`;
    }
    const listed = vehicleFiles.length
      ? `SELECT * FROM read_json([${vehicleFiles.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columnsArgument(vehicleColumns)})`
      : `SELECT ${vehicleColumns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} WHERE false`;
    const items = (['trips', 'events', 'telemetry'] as const).flatMap((view) => {
      if (!this.filesOf(view).length) return [];
      const time = view === 'trips' ? 'start_time' : 'timestamp';
      return [`SELECT ${sqlString(view)} AS source, device_id, ${sqlIdentifier(time)} AS time, _vehicle_type AS vehicle_type, _propulsion_types AS propulsion_types FROM ${readTableOf(view)}`];
    });
    const itemVehicles = items.length ? items.join(' UNION ALL ') : "SELECT CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS device_id, CAST(NULL AS BIGINT) AS time, CAST(NULL AS VARCHAR) AS vehicle_type, CAST(NULL AS VARCHAR[]) AS propulsion_types WHERE false";
    return `CREATE VIEW _vehicles_listed AS ${listed}; CREATE VIEW _item_vehicles AS ${itemVehicles};`;
  }

  /** Refuses anything but one SELECT or EXPLAIN, naming what it is. */
  private async checkReadOnly(sql: string): Promise<void> {
    let count: number;
    let statements: Awaited<ReturnType<Connection['extractStatements']>>;
    try {
      statements = await this.connection.extractStatements(sql);
      count = statements.count;
    } catch (err) {
      throw queryFailed(err, this.memoryLimit);
    }
    if (count !== 1) {
      throw new MobilityError('ANALYSIS_QUERY_REFUSED', count ? l10n.t('Give one query at a time; this text holds {0} statements.', count) : l10n.t('The query is empty. Give a SELECT over trips, events, telemetry, vehicles or vehicles_status.'));
    }
    let type: import('@duckdb/node-api').StatementType;
    try {
      const prepared = await statements.prepare(0);
      type = prepared.statementType;
      prepared.destroySync();
    } catch (err) {
      // Preparing COPY, ATTACH, INSTALL and the like already meets the closed file system.
      if (/^Permission Error/i.test(errorMessage(err))) {
        throw new MobilityError('ANALYSIS_QUERY_REFUSED', l10n.t('Only queries that read the harvest are run here (SELECT, WITH … SELECT, EXPLAIN): {0}. To save an answer, use --out <file.csv|.json|.parquet>.', errorMessage(err)), { cause: err });
      }
      throw queryFailed(err, this.memoryLimit);
    }
    const { StatementType } = this.duck;
    if (type !== StatementType.SELECT && type !== StatementType.EXPLAIN) {
      const kind = (StatementType as unknown as Record<number, string>)[type] ?? String(type);
      throw new MobilityError('ANALYSIS_QUERY_REFUSED', l10n.t('Only queries that read are run here (SELECT, WITH … SELECT, EXPLAIN); this is a {0} statement. To save an answer, use --out <file.csv|.json|.parquet>.', kind));
    }
  }

  /** Runs one read-only query. */
  async query(sql: string): Promise<QueryAnswer> {
    await this.checkReadOnly(sql);
    try {
      const reader = await this.connection.runAndReadAll(sql);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      return { columns: names.map((name, i) => ({ name, type: types[i].toString() })), rows: reader.getRowObjectsJS().map((row) => plain(row) as Record<string, unknown>) };
    } catch (err) {
      throw queryFailed(err, this.memoryLimit);
    }
  }

  /**
   * Writes a read-only query's answer to `file` (its extension picks CSV, JSON lines or Parquet), through a
   * temporary file renamed when complete. The file must be one of the session's `writable` paths.
   */
  async exportQuery(sql: string, file: string): Promise<void> {
    await this.checkReadOnly(sql);
    const format = formatOf(file);
    const target = path.resolve(file);
    const temp = temporaryPathOf(target);
    const options = format === 'parquet' ? '(FORMAT parquet, COMPRESSION zstd)' : format === 'csv' ? '(FORMAT csv, HEADER true)' : '(FORMAT json, ARRAY true)';
    try {
      await this.connection.run(`COPY (${sql}) TO ${sqlString(temp)} ${options}`);
      await fs.promises.rename(temp, target);
    } catch (err) {
      await fs.promises.rm(temp, { force: true }).catch(() => undefined);
      if (err instanceof Error && /Permission Error|No such file|Cannot open file|IO Error/i.test(err.message)) {
        throw new MobilityError('ANALYSIS_WRITE_FAILED', l10n.t('Cannot write {0}: {1}', target, errorMessage(err)), { cause: err });
      }
      throw queryFailed(err, this.memoryLimit);
    }
  }

  /** Items per view. */
  async counts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const view of ANALYSIS_VIEWS) {
      const reader = await this.connection.runAndReadAll(`SELECT count(*) AS n FROM ${sqlIdentifier(view)}`);
      counts[view] = Number(reader.getRowsJS()[0][0]);
    }
    return counts;
  }

  /**
   * Writes the harvest as Parquet (zstd) in Hive-style partitions, `endpoint=<view>/date=<day>/hour=<hh>/…` (or, by
   * `day`, `endpoint=<view>/date=<day>/…` with `hour` a column of the files: 24 times fewer, larger files), into
   * `tempDir` (one of the session's `writable` paths): the caller renames it into place when every view is written.
   * The /vehicles snapshot goes to `endpoint=vehicles/` and `endpoint=vehicles_status/` (one file each, as listed),
   * and what the analysis reads besides items to `_harvest/`: each part's manifest (the hours, for hour-coverage), the
   * snapshot's description (its `last_updated`, for status-vs-events) and the items' own vehicle_type and
   * propulsion_types (registry), so that `check`, `sql` and `metrics` on the Parquet folder answer as on the harvest.
   */
  async writeParquet(tempDir: string, partition: ParquetPartition = 'hour'): Promise<{ view: string; rows: number }[]> {
    const written: { view: string; rows: number }[] = [];
    const copy = async (view: string, select: string, to: string, partitioned: boolean) => {
      try {
        const result = await this.connection.runAndReadAll(`COPY (${select}) TO ${sqlString(to)} (FORMAT parquet, COMPRESSION zstd${partitioned ? `, PARTITION_BY (${partition === 'day' ? 'date' : 'date, hour'})` : ''})`);
        return Number(result.getRowsJS()[0]?.[0] ?? 0);
      } catch (err) {
        const failed = queryFailed(err, this.memoryLimit);
        if (failed.code === 'ANALYSIS_OUT_OF_MEMORY') throw failed;
        throw new MobilityError('ANALYSIS_WRITE_FAILED', l10n.t('Cannot write the Parquet files of {0} into {1}: {2}', view, tempDir, errorMessage(err)), { cause: err });
      }
    };
    for (const part of ['trips', 'events', 'telemetry'] as const) {
      if (!this.source.parts.some((p) => p.table === part)) continue;
      const select = `SELECT * EXCLUDE (_hour), substr(_hour, 1, 10) AS date, substr(_hour, 12, 2) AS hour FROM ${sqlIdentifier(`_${part}_hours`)}`;
      written.push({ view: part, rows: await copy(part, select, path.join(tempDir, parquetViewDir(part)), true) });
    }
    const meta = path.join(tempDir, PARQUET_META_DIR);
    await fs.promises.mkdir(meta, { recursive: true });
    const names = new Set<string>();
    for (const part of this.source.parts) {
      let name: string = part.table;
      for (let n = 2; names.has(name); n++) name = `${part.table}-${n}`;
      names.add(name);
      await fs.promises.mkdir(path.join(meta, name));
      await fs.promises.writeFile(path.join(meta, name, MANIFEST_FILE), `${JSON.stringify(part.manifest, null, 2)}\n`);
    }
    const snapshot = this.source.snapshot;
    if (snapshot) {
      for (const [view, select] of [['vehicles', 'SELECT * FROM _vehicles_listed'], ['vehicles_status', 'SELECT * EXCLUDE (_hour) FROM _vehicles_status_hours']] as const) {
        const dir = path.join(tempDir, parquetViewDir(view));
        await fs.promises.mkdir(dir);
        written.push({ view, rows: await copy(view, select, path.join(dir, PARQUET_SNAPSHOT_FILE), false) });
      }
      await fs.promises.mkdir(path.join(meta, SNAPSHOT_DIR));
      await fs.promises.writeFile(path.join(meta, SNAPSHOT_DIR, SNAPSHOT_FILE), `${JSON.stringify(snapshot.manifest, null, 2)}\n`);
    }
    const withVehicles = 'SELECT * FROM _item_vehicles WHERE vehicle_type IS NOT NULL OR propulsion_types IS NOT NULL';
    const carried = await this.connection.runAndReadAll(`SELECT count(*) FROM (${withVehicles})`);
    if (Number(carried.getRowsJS()[0][0]) > 0) await copy('_item_vehicles', withVehicles, path.join(meta, PARQUET_ITEM_VEHICLES), false);
    return written;
  }

  close(): void {
    try {
      this.connection.closeSync();
      this.instance.closeSync();
    } finally {
      fs.rmSync(this.tempDir, { recursive: true, force: true });
    }
  }
}

/** Where a file or folder the session writes stands until it is complete: beside it, with this process's id. */
export function temporaryPathOf(target: string): string {
  return `${path.resolve(target)}.tmp-${process.pid}`;
}

/** The output format an --out file's extension names. */
export function formatOf(file: string): 'csv' | 'json' | 'parquet' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv' || ext === '.json' || ext === '.parquet') return ext.slice(1) as 'csv' | 'json' | 'parquet';
  throw new MobilityError('USAGE', l10n.t('--out {0}: name a file ending in .csv, .json or .parquet.', file));
}

/** A query error as DuckDB words it (with its LINE and caret), or a data error naming the file and line. */
function queryFailed(err: unknown, memoryLimit: string): MobilityError {
  if (err instanceof MobilityError) return err;
  const message = errorMessage(err).replace(/^Failed to extract statements: /, '');
  if (/^Out of Memory Error/i.test(message)) {
    // DuckDB's own advice (threads, insertion order) is not the user's to follow; the limit is.
    return new MobilityError('ANALYSIS_OUT_OF_MEMORY', l10n.t('The analysis needed more memory than its limit of {0} ({1}). Give it more: --memory-limit 1GB in the CLI, or the setting mobilityApi.analysis.memoryLimit in VS Code.', memoryLimit, message.split('\n')[0]), { cause: err });
  }
  if (/^Invalid Input Error: Malformed JSON|JSON/i.test(message) && /in file/i.test(message)) {
    return new MobilityError('ANALYSIS_DATA_INVALID', l10n.t('A harvest file holds a line that is not a whole JSON item: {0}. Run the harvest again for that hour (remove its entry from manifest.json), or fix the file.', message), { cause: err });
  }
  if (/^Conversion Error/i.test(message) && /file/i.test(message)) {
    return new MobilityError('ANALYSIS_DATA_INVALID', l10n.t('A harvest file holds a value of another type than the MDS 2.0 model says: {0}', message), { cause: err });
  }
  return new MobilityError('ANALYSIS_QUERY_FAILED', message, { cause: err });
}
