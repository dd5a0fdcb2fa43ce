/**
 * SQL over a harvest with DuckDB (`@duckdb/node-api`, loaded on first use; its native binding stays out of every
 * bundle). The engine downloads nothing: extension autoinstall and autoload are off, and only what is built in
 * (json, parquet) is used. Once the views are made, the file system is closed to queries except the harvest folder
 * (read) and the files the caller names (written by us), and the configuration is locked; a user's query must be one
 * SELECT (or EXPLAIN), so it can neither write files, attach databases nor load extensions.
 *
 * The views (`trips`, `events`, `telemetry`, `vehicles`, `vehicles_status` and the hidden views of the rules) are read
 * into the session's database file, in a temporary folder of its own, by harvestViews.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';
import { sqlIdentifier, sqlString } from './columnTypes';
import type { HarvestSource } from './harvestSource';
import { ANALYSIS_VIEWS, readHarvestViews } from './harvestViews';
import { DEFAULT_MEMORY_LIMIT, DEFAULT_TEMP_LIMIT, memoryLimitOf } from './memoryLimit';
import type { ParquetPartition } from './parquetLayout';
import { DEFAULT_PARQUET_PARTITION, writeHarvestParquet } from './parquetLayout';
import type { SessionLimits } from './queryErrors';
import { queryFailed } from './queryErrors';
import { StatementGuard, stopped } from './statementGuard';
import { newSessionFolder } from './sessionFolder';
import { loadDuckDB, plain } from './duckdbLoad';
import type { GeographyIndex } from '../geography';
import type { GeographyAssignment } from './geographyTables';
import { createGeographyTables } from './geographyTables';
import type { Intake } from './integrity/intake';
import { emptyIntake } from './integrity/intake';

type DuckDB = typeof import('@duckdb/node-api');
type Connection = import('@duckdb/node-api').DuckDBConnection;
type Instance = import('@duckdb/node-api').DuckDBInstance;

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
  static async open(
    source: HarvestSource,
    options: AnalysisOptions = {},
    stop?: AbortSignal,
  ): Promise<AnalysisSession> {
    const memoryLimit = memoryLimitOf(options.memoryLimit ?? DEFAULT_MEMORY_LIMIT);
    if (!memoryLimit)
      throw new MobilityError(
        'USAGE',
        l10n.t('Memory limit {0}: give a size of 64MB or more, such as 512MB or 2GB.', String(options.memoryLimit)),
      );
    const tempLimit = memoryLimitOf(options.tempLimit ?? DEFAULT_TEMP_LIMIT);
    if (!tempLimit)
      throw new MobilityError(
        'USAGE',
        l10n.t('Temporary folder limit {0}: give a size of 64MB or more, such as 10GB.', String(options.tempLimit)),
      );
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
      throw new MobilityError(
        'ANALYSIS_ENGINE_FAILED',
        l10n.t('Could not prepare the analysis of {0}: {1}', source.folder, errorMessage(err)),
        { cause: err },
      );
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
      await readHarvestViews(connection, source, session.intake, stop);
      session.geographyAssignment = await createGeographyTables(connection, options.geographies);
      await connection.run('RESET preserve_insertion_order');
      await connection.run('RESET write_buffer_row_group_count');
      const writable = (options.writable ?? []).flatMap((p) => [path.resolve(p), temporaryPathOf(p)]);
      const allowed = [source.folder, ...(source.snapshot ? [source.snapshot.dir] : []), tempDir, ...writable].map(
        sqlString,
      );
      await connection.run(`SET allowed_paths = [${allowed.join(', ')}]`);
      await connection.run(`SET allowed_directories = [${allowed.join(', ')}]`);
      await connection.run('SET enable_external_access = false');
      await connection.run('SET lock_configuration = true');
    } catch (err) {
      session.close();
      if (stop?.aborted) throw stopped(err);
      // The hour files are read here (into the session's tables): a bad line is the data's fault, said as a query would.
      const failed = queryFailed(err, session.limits);
      if (
        failed.code === 'ANALYSIS_DATA_INVALID' ||
        failed.code === 'ANALYSIS_OUT_OF_MEMORY' ||
        failed.code === 'ANALYSIS_OUT_OF_DISK'
      )
        throw failed;
      throw new MobilityError(
        'ANALYSIS_ENGINE_FAILED',
        l10n.t('Could not prepare the analysis of {0}: {1}', source.folder, errorMessage(err)),
        { cause: err },
      );
    }
    return session;
  }

  /** Interrupts the statement running now (DuckDB's interrupt); it rejects, and the session stays usable. */
  interrupt(): void {
    this.guard.interrupt();
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
      throw new MobilityError(
        'ANALYSIS_QUERY_REFUSED',
        count
          ? l10n.t('Give one query at a time; this text holds {0} statements.', count)
          : l10n.t('The query is empty. Give a SELECT over trips, events, telemetry, vehicles or vehicles_status.'),
      );
    }
    let type: import('@duckdb/node-api').StatementType;
    try {
      const prepared = await statements.prepare(0);
      type = prepared.statementType;
      prepared.destroySync();
    } catch (err) {
      // Preparing COPY, ATTACH, INSTALL and the like already meets the closed file system.
      if (/^Permission Error/i.test(errorMessage(err))) {
        throw new MobilityError(
          'ANALYSIS_QUERY_REFUSED',
          l10n.t(
            'Only queries that read the harvest are run here (SELECT, WITH … SELECT, EXPLAIN): {0}. To save an answer, use --out <file.csv|.json|.parquet>.',
            errorMessage(err),
          ),
          { cause: err },
        );
      }
      throw queryFailed(err, this.limits);
    }
    const { StatementType } = this.duck;
    if (type !== StatementType.SELECT && type !== StatementType.EXPLAIN) {
      const kind = (StatementType as unknown as Record<number, string>)[type] ?? String(type);
      throw new MobilityError(
        'ANALYSIS_QUERY_REFUSED',
        l10n.t(
          'Only queries that read are run here (SELECT, WITH … SELECT, EXPLAIN); this is a {0} statement. To save an answer, use --out <file.csv|.json|.parquet>.',
          kind,
        ),
      );
    }
  }

  /** Runs one read-only query; `timeoutSeconds` stops it (DuckDB's interrupt) when it runs longer. */
  async query(sql: string, timeoutSeconds?: number): Promise<QueryAnswer> {
    await this.checkReadOnly(sql);
    return this.guard.run(async () => {
      const reader = await this.connection.runAndReadAll(sql);
      const names = reader.columnNames();
      const types = reader.columnTypes();
      return {
        columns: names.map((name, i) => ({ name, type: types[i].toString() })),
        rows: reader.getRowObjectsJS().map((row) => plain(row) as Record<string, unknown>),
      };
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
    const options =
      format === 'parquet'
        ? '(FORMAT parquet, COMPRESSION zstd)'
        : format === 'csv'
          ? '(FORMAT csv, HEADER true)'
          : '(FORMAT json, ARRAY true)';
    try {
      await this.guard.run(async () => {
        try {
          await this.connection.run(`COPY (${sql}) TO ${sqlString(temp)} ${options}`);
        } catch (err) {
          if (err instanceof Error && /Permission Error|No such file|Cannot open file|IO Error/i.test(err.message)) {
            throw new MobilityError(
              'ANALYSIS_WRITE_FAILED',
              l10n.t('Cannot write {0}: {1}', target, errorMessage(err)),
              { cause: err },
            );
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
  async writeParquet(
    tempDir: string,
    partition: ParquetPartition = DEFAULT_PARQUET_PARTITION,
  ): Promise<{ view: string; rows: number }[]> {
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
