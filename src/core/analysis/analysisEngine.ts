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
import { DEFAULT_MEMORY_LIMIT, DEFAULT_TEMP_LIMIT, memoryLimitOf } from './memoryLimit';
import type { ParquetPartition } from './parquetLayout';
import { DEFAULT_PARQUET_PARTITION, parquetItemsSql, parquetListedSql, writeHarvestParquet } from './parquetLayout';
import type { SessionLimits } from './queryErrors';
import { queryFailed } from './queryErrors';
import { StatementGuard, stopped } from './statementGuard';
import { newSessionFolder } from './sessionFolder';
import { loadDuckDB, plain } from './duckdbLoad';
import type { GeographyIndex } from '../geography';
import type { GeographyAssignment } from './geographyTables';
import { createGeographyTables } from './geographyTables';
import type { Intake } from './integrity/intake';
import { UNTYPED_VIEW, emptyIntake, intakeOfRead, setAsideSql, untypedTableSql } from './integrity/intake';
import { READ_COLUMNS, readViewTable } from './integrity/typedRead';

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

/** The names of the views a query may use: the typed views, and the items that could not be typed. */
export const ANALYSIS_VIEWS: readonly string[] = [...VIEWS.map((v) => v.view), UNTYPED_VIEW];

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
  /** The most the session's temporary folder may hold (its database file and DuckDB's spill files), e.g. `20GB`. */
  tempLimit?: string;
  /** Geographies to assign the items to, once, into the tables of geographyTables.ts (empty without). */
  geographies?: GeographyIndex;
}

/** The session's database, in its temporary folder: the harvest's items, read once, compressed. */
const DATABASE_FILE = 'harvest.duckdb';


/** Fields of the items that the registry rule compares with /vehicles, read besides the models' columns. */
const CARRIED_COLUMNS: readonly ItemColumn[] = [
  { name: 'vehicle_type', type: 'VARCHAR' },
  { name: 'propulsion_types', type: 'VARCHAR[]' },
];

/** The table a view's NDJSON is read into, once per session. */
const readTableOf = (view: string) => sqlIdentifier(`_${view}_read`);

/** The hour a harvest file holds, from its name (`…/2026-11-20T07.ndjson`). */
const HOUR_OF_FILE = `regexp_extract(filename, '(\\d{4}-\\d{2}-\\d{2}T\\d{2})\\.ndjson$', 1)`;

/** An open analysis over one harvest. Close it when done. */
export class AnalysisSession {
  private readonly guard: StatementGuard;
  /** What the geography assignment did when the session opened; undefined without geographies. */
  geographyAssignment: GeographyAssignment | undefined;
  /** Per view: the items read, kept, merged as identical copies and set aside as untyped; and each hour file's lines. */
  readonly intake: Intake = emptyIntake();

  private constructor(
    private readonly instance: Instance,
    private readonly connection: Connection,
    private readonly duck: DuckDB,
    readonly source: HarvestSource,
    private readonly tempDir: string,
    /** DuckDB's memory limit and the temporary folder's, named when a query runs out of one. */
    readonly limits: SessionLimits,
  ) {
    this.guard = new StatementGuard(connection, limits);
  }

  /** DuckDB's memory limit, named when a query runs out of it. */
  get memoryLimit(): string {
    return this.limits.memoryLimit;
  }

  /**
   * Opens DuckDB on the session's database file, reads the harvest into it, makes the views, then closes the file
   * system to everything but the harvest and `writable`. `stop` (Ctrl-C, SIGTERM) interrupts the reading, removes the
   * session's folder and rejects.
   */
  static async open(source: HarvestSource, options: AnalysisOptions = {}, stop?: AbortSignal): Promise<AnalysisSession> {
    const memoryLimit = memoryLimitOf(options.memoryLimit ?? DEFAULT_MEMORY_LIMIT);
    if (!memoryLimit) throw new MobilityError('USAGE', l10n.t('Memory limit {0}: give a size of 64MB or more, such as 512MB or 2GB.', String(options.memoryLimit)));
    const tempLimit = memoryLimitOf(options.tempLimit ?? DEFAULT_TEMP_LIMIT);
    if (!tempLimit) throw new MobilityError('USAGE', l10n.t('Temporary folder limit {0}: give a size of 64MB or more, such as 10GB.', String(options.tempLimit)));
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
    const session = new AnalysisSession(instance, connection, duck, source, tempDir, { memoryLimit, tempLimit });
    if (stop) session.guard.stopWhen(stop);
    try {
      if (stop?.aborted) throw stopped();
      // Set here: given to DuckDBInstance.create, DuckDB 1.5 shows the value but does not enforce it.
      await connection.run(`SET max_temp_directory_size = ${sqlString(tempLimit)}`);
      // The hour files are read in parallel in any order (an item's copies are told apart by their hour, not by the
      // order of rows), and each thread's rows are written to the database file as soon as a row group is full: in
      // file order, with DuckDB's default of five row groups buffered, the read took about 3 times as long and ran
      // out of memory at 192 MB on 18 MB of trips (docs/benchmarks.md). Queries then keep the table's order again.
      await connection.run('SET preserve_insertion_order = false');
      await connection.run('SET write_buffer_row_group_count = 1');
      await connection.run(untypedTableSql());
      for (const { view, endpoint, key } of VIEWS) {
        if (stop?.aborted) throw stopped();
        await connection.run(await session.viewSql(view, endpoint, key));
        if (session.filesOf(view).length && !source.parquet) {
          // Lines that cannot be typed are set aside (untyped_items), counted, and the rest is analysed.
          await intakeOfRead(connection, session.intake, view, readTableOf(view));
          await connection.run(setAsideSql(view, readTableOf(view), source.folder));
          if (view !== 'vehicles' && view !== 'vehicles_status') session.intake.views[view].merged = await session.removeCopies(view, key);
        }
        session.intake.views[view] ??= { read: 0, kept: 0, merged: 0, setAside: 0 };
        session.intake.views[view].kept = Number((await connection.runAndReadAll(`SELECT count(*) FROM ${sqlIdentifier(view)}`)).getRowsJS()[0][0]);
        if (source.parquet) session.intake.views[view].read = session.intake.views[view].kept;
      }
      await connection.run(await session.hiddenViewsSql());
      session.geographyAssignment = await createGeographyTables(connection, options.geographies);
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
      if (stop?.aborted) throw stopped(err);
      // The hour files are read here (into the session's tables): a bad line is the data's fault, said as a query would.
      const failed = queryFailed(err, session.limits);
      if (failed.code === 'ANALYSIS_DATA_INVALID' || failed.code === 'ANALYSIS_OUT_OF_MEMORY' || failed.code === 'ANALYSIS_OUT_OF_DISK') throw failed;
      throw new MobilityError('ANALYSIS_ENGINE_FAILED', l10n.t('Could not prepare the analysis of {0}: {1}', source.folder, errorMessage(err)), { cause: err });
    }
    return session;
  }

  /** Interrupts the statement running now (DuckDB's interrupt); it rejects, and the session stays usable. */
  interrupt(): void {
    this.guard.interrupt();
  }

  /**
   * CREATE VIEW for one view: its hour files read with the model's types, one row per item, plus `_hour`. The NDJSON
   * hours are read and de-duplicated once, into a temporary table (spilled to the session's temporary folder beyond
   * the memory limit), which every query then reads instead of the files.
   */
  private async viewSql(view: string, endpoint: MdsEndpointId, key: string): Promise<string> {
    const columns = itemColumnsOf(endpoint);
    const files = this.filesOf(view);
    let hours: string;
    const snapshotView = view === 'vehicles' || view === 'vehicles_status';
    if (files.length && this.source.parquet) {
      // Written from these views, typed: the hour from the partition folders or the hour column; an item once already
      // but in a snapshot list, which keeps every row as listed (a device listed twice is a registry finding).
      hours = await parquetItemsSql(this.connection, endpoint, key, files, snapshotView);
    } else if (!files.length) {
      // No data: the same columns, typed, and no row.
      hours = `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')}, CAST(NULL AS VARCHAR) AS _hour WHERE false`;
    } else {
      // The items' own vehicle_type and propulsion_types (not in the models of trips, events and telemetry, but some
      // providers send them) are read with them, for the registry rule's _item_vehicles, and hidden from the views.
      const carried = snapshotView ? [] : CARRIED_COLUMNS;
      const table = readTableOf(view);
      const hidden = [...carried.map((c) => sqlIdentifier(`_${c.name}`)), ...READ_COLUMNS];
      // Read by DuckDB's typed reader as it streams into a table of the session's database file (compressed, and
      // evicted to that file rather than spilled beyond the memory limit); a file it cannot type is read line by line
      // (integrity/typedRead.ts). The lines that cannot be typed are set aside after, and an item's identical copies
      // removed (removeCopies). A snapshot list keeps every row as listed (a device listed twice is a registry
      // finding); its view shows identical rows once.
      await readViewTable(this.connection, table, endpoint, files, carried, HOUR_OF_FILE);
      const kept = snapshotView ? ` QUALIFY row_number() OVER (PARTITION BY ${sqlIdentifier(key)}, _hash ORDER BY _line) = 1` : '';
      return [
        `CREATE VIEW ${sqlIdentifier(`_${view}_hours`)} AS SELECT * EXCLUDE (${hidden.join(', ')}) FROM ${table}${kept}`,
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
  private async removeCopies(view: string, key: string): Promise<number> {
    const table = readTableOf(view);
    const id = sqlIdentifier(key);
    const twice = await this.connection.runAndReadAll(`SELECT count(*) FROM (SELECT hash(${id}, _hash) FROM ${table} GROUP BY 1 HAVING count(*) > 1)`);
    if (Number(twice.getRowsJS()[0][0]) === 0) return 0;
    // Only byte-identical copies (the same id and the same text, as a resumed harvest writes them) are one item; two
    // texts under one id are two items, kept, and reported by duplicate-ids.
    // The hour as hours since 1970 (about 2^19; 0 for a snapshot's list, which has none) above the rowid (below 2^40).
    const order = `(coalesce(epoch(try_strptime(_hour, '%Y-%m-%dT%H'))::BIGINT // 3600, 0) << 40) | rowid`;
    const before = Number((await this.connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0][0]);
    await this.connection.run(`CREATE TABLE _copies AS SELECT ${id} AS _id, _hash AS _h, max(${order}) & ${2 ** 40 - 1} AS _kept FROM ${table} GROUP BY ${id}, _hash HAVING count(*) > 1`);
    await this.connection.run(`DELETE FROM ${table} USING _copies WHERE ${table}.${id} IS NOT DISTINCT FROM _copies._id AND ${table}._hash = _copies._h AND ${table}.rowid <> _copies._kept`);
    await this.connection.run('DROP TABLE _copies');
    return before - Number((await this.connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0][0]);
  }

  /** The files a view reads: the harvest's hours, or the snapshot's list. */
  private filesOf(view: string): string[] {
    if (view === 'vehicles' || view === 'vehicles_status') return this.source.snapshot ? [this.source.snapshot.files[view]] : [];
    return this.source.parts.filter((p) => p.table === view).flatMap((p) => p.files);
  }

  /** The hidden views the rules read (see the file's comment). */
  private async hiddenViewsSql(): Promise<string> {
    const vehicleColumns = itemColumnsOf('vehicles');
    const vehicleFiles = this.filesOf('vehicles');
    if (this.source.parquet) {
      const listedParquet = vehicleFiles.length
        ? await parquetListedSql(this.connection, vehicleFiles[0])
        : `SELECT ${vehicleColumns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} WHERE false`;
      const kept = this.source.parquet.itemVehicles;
      const itemVehiclesParquet = kept
        ? `SELECT source, device_id, time, vehicle_type, propulsion_types FROM read_parquet(${sqlString(kept)})`
        : "SELECT CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS device_id, CAST(NULL AS BIGINT) AS time, CAST(NULL AS VARCHAR) AS vehicle_type, CAST(NULL AS VARCHAR[]) AS propulsion_types WHERE false";
      return `CREATE VIEW _vehicles_listed AS ${listedParquet}; CREATE VIEW _item_vehicles AS ${itemVehiclesParquet};`;
    }
    const listed = vehicleFiles.length
      ? `SELECT * EXCLUDE (_hour, ${READ_COLUMNS.join(', ')}) FROM ${readTableOf('vehicles')}`
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
      throw queryFailed(err, this.limits);
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
      throw queryFailed(err, this.limits);
    }
    const { StatementType } = this.duck;
    if (type !== StatementType.SELECT && type !== StatementType.EXPLAIN) {
      const kind = (StatementType as unknown as Record<number, string>)[type] ?? String(type);
      throw new MobilityError('ANALYSIS_QUERY_REFUSED', l10n.t('Only queries that read are run here (SELECT, WITH … SELECT, EXPLAIN); this is a {0} statement. To save an answer, use --out <file.csv|.json|.parquet>.', kind));
    }
  }

  /** Runs one read-only query; `timeoutSeconds` stops it (DuckDB's interrupt) when it runs longer. */
  async query(sql: string, timeoutSeconds?: number): Promise<QueryAnswer> {
    await this.checkReadOnly(sql);
    return this.guard.run(async () => {
      const reader = await this.connection.runAndReadAll(sql);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      return { columns: names.map((name, i) => ({ name, type: types[i].toString() })), rows: reader.getRowObjectsJS().map((row) => plain(row) as Record<string, unknown>) };
    }, timeoutSeconds);
  }

  /**
   * Writes a read-only query's answer to `file` (its extension picks CSV, JSON lines or Parquet), through a
   * temporary file renamed when complete. The file must be one of the session's `writable` paths.
   */
  async exportQuery(sql: string, file: string, timeoutSeconds?: number): Promise<void> {
    await this.checkReadOnly(sql);
    const format = formatOf(file);
    const target = path.resolve(file);
    const temp = temporaryPathOf(target);
    const options = format === 'parquet' ? '(FORMAT parquet, COMPRESSION zstd)' : format === 'csv' ? '(FORMAT csv, HEADER true)' : '(FORMAT json, ARRAY true)';
    try {
      await this.guard.run(async () => {
        try {
          await this.connection.run(`COPY (${sql}) TO ${sqlString(temp)} ${options}`);
        } catch (err) {
          if (err instanceof Error && /Permission Error|No such file|Cannot open file|IO Error/i.test(err.message)) {
            throw new MobilityError('ANALYSIS_WRITE_FAILED', l10n.t('Cannot write {0}: {1}', target, errorMessage(err)), { cause: err });
          }
          throw err;
        }
      }, timeoutSeconds);
      await fs.promises.rename(temp, target);
    } catch (err) {
      await fs.promises.rm(temp, { force: true }).catch(() => undefined);
      throw err;
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

  /** Writes the harvest as Parquet into `tempDir` (see `writeHarvestParquet`); by default one file per day and endpoint. */
  async writeParquet(tempDir: string, partition: ParquetPartition = DEFAULT_PARQUET_PARTITION): Promise<{ view: string; rows: number }[]> {
    return this.guard.run(() => writeHarvestParquet(this.connection, this.source, this.limits, tempDir, partition));
  }

  close(): void {
    this.guard.dispose();
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
