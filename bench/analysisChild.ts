// One side of the analysis benchmark (analysis.ts), alone in its process so that its time and peak RSS are its own:
// `check` as `mobility-api check` runs it, the same rules' SQL run by hand in DuckDB over the same files, or the
// Parquet writer of `mobility-api parquet`. Started over IPC; never run by hand.
import fs from 'node:fs';
import path from 'node:path';
import { AnalysisSession, temporaryPathOf } from '../src/core/analysis/analysisEngine';
import { DEFAULT_THRESHOLDS } from '../src/core/analysis/checkRules';
import { RULE_CATALOG } from '../src/core/analysis/rules/ruleCatalog';
import { runChecks } from '../src/core/analysis/checkRun';
import { itemColumnsOf, sqlString } from '../src/core/analysis/columnTypes';
import { readHarvestSource } from '../src/core/analysis/harvestSource';
// The hour of each item from its file's name, as check reads it, for the rules that compare an item's time with its hour.
import { HOUR_OF_FILE } from '../src/core/analysis/harvestViews';
import { checkContextOf, checkWindowOf } from '../src/core/analysis/ruleSql';
import type { MdsEndpointId } from '../src/core/mds/mdsEndpoints';
import type { AnalysisChildReply, AnalysisChildRequest } from './analysis';

type Measured = Omit<AnalysisChildReply, 'maxRssKb'>;

/** `mobility-api check <folder>`: the folder read, the session opened, every rule run (checkCommand.ts without printing). */
async function checkSide(folder: string): Promise<Measured> {
  const start = performance.now();
  const source = await readHarvestSource(folder);
  const session = await AnalysisSession.open(source);
  const readMs = performance.now() - start;
  let report: Awaited<ReturnType<typeof runChecks>>;
  try {
    report = await runChecks(session);
  } finally {
    session.close();
  }
  const ms = performance.now() - start;
  const counts = Object.fromEntries(
    report.rules.filter((r) => r.id !== 'hour-coverage' && r.id !== 'harvest-files').map((r) => [r.id, r.count]),
  );
  return {
    ms,
    readMs,
    items: Object.values(report.items).reduce((a, b) => a + b, 0),
    findings: report.rules.reduce((n, r) => n + r.count, 0),
    counts,
  };
}

/**
 * What a user would write with DuckDB alone: the hour files by glob, typed with the MDS 2.0 models' columns (the
 * rules need the types), no de-duplication, and every SQL rule of the catalogue (the rules `check` runs) with the
 * harvest's window and the snapshot's last_updated written in, exactly as `check` builds them. `tables`: the files
 * read once into tables that every rule then reads (a careful user's way); else views over the files, read again by
 * each rule. The folder's manifests are read before the clock starts: a user types the window.
 */
async function handSide(folder: string, tables: boolean): Promise<Measured> {
  const source = await readHarvestSource(folder);
  const window = checkWindowOf(source);
  const context = checkContextOf(source);
  const duck = await import('@duckdb/node-api');
  const start = performance.now();
  const instance = await duck.DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  const columns = (endpoint: MdsEndpointId) =>
    `{${itemColumnsOf(endpoint)
      .map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`)
      .join(', ')}}`;
  const kind = tables ? 'TABLE' : 'VIEW';
  const read = (files: string, endpoint: MdsEndpointId, filename = false) =>
    `read_json(${sqlString(path.join(folder, files))}, format = 'newline_delimited',${filename ? ' filename = true,' : ''} columns = ${columns(endpoint)})`;
  for (const [view, files, endpoint] of [
    ['trips', 'trips/trips/*.ndjson', 'trips'],
    ['events', 'events/events_historical/*.ndjson', 'events_historical'],
    ['telemetry', 'telemetry/telemetry/*.ndjson', 'telemetry'],
  ] as const) {
    await connection.run(
      `CREATE ${kind} _${view}_hours AS SELECT * EXCLUDE (filename), ${HOUR_OF_FILE} AS _hour FROM ${read(files, endpoint, true)}`,
    );
    await connection.run(`CREATE VIEW ${view} AS SELECT * EXCLUDE (_hour) FROM _${view}_hours`);
  }
  for (const [view, endpoint] of [
    ['vehicles', 'vehicles'],
    ['vehicles_status', 'vehicles_status'],
  ] as const)
    await connection.run(`CREATE ${kind} ${view} AS SELECT * FROM ${read(`snapshot/${view}.ndjson`, endpoint)}`);
  await connection.run('CREATE VIEW _vehicles_listed AS SELECT * FROM vehicles');
  // By hand every line is typed by read_json (or the read fails): no item is set aside, but the untyped-items rule
  // reads the view.
  await connection.run(
    'CREATE VIEW untyped_items AS SELECT NULL::VARCHAR AS endpoint, NULL::VARCHAR AS file, NULL::BIGINT AS line, NULL::VARCHAR AS problem, NULL::VARCHAR AS item WHERE false',
  );
  const carried = (files: string, source: string, time: string) =>
    `SELECT '${source}' AS source, device_id, ${time} AS time, vehicle_type, propulsion_types FROM read_json(${sqlString(path.join(folder, files))}, format = 'newline_delimited', columns = {'device_id': 'VARCHAR', '${time}': 'BIGINT', 'vehicle_type': 'VARCHAR', 'propulsion_types': 'VARCHAR[]'})`;
  await connection.run(
    `CREATE VIEW _item_vehicles AS ${carried('trips/trips/*.ndjson', 'trips', 'start_time')} UNION ALL ${carried('events/events_historical/*.ndjson', 'events', 'timestamp')} UNION ALL ${carried('telemetry/telemetry/*.ndjson', 'telemetry', 'timestamp')}`,
  );
  const counts: Record<string, number> = {};
  for (const rule of RULE_CATALOG) {
    if (!rule.sql) continue;
    const reader = await connection.runAndReadAll(rule.sql(DEFAULT_THRESHOLDS, window, context));
    counts[rule.id] = reader.getRowObjectsJS().length;
  }
  connection.closeSync();
  instance.closeSync();
  const ms = performance.now() - start;
  return { ms, items: 0, findings: Object.values(counts).reduce((a, b) => a + b, 0), counts };
}

/** `mobility-api parquet <folder> --out <out> [--partition day]`: through a temporary folder renamed when complete. */
async function parquetSide(folder: string, out: string, partition: 'hour' | 'day'): Promise<Measured> {
  const start = performance.now();
  const source = await readHarvestSource(folder);
  const session = await AnalysisSession.open(source, { writable: [out] });
  const temp = temporaryPathOf(out);
  try {
    fs.mkdirSync(temp);
    const written = await session.writeParquet(temp, partition);
    fs.renameSync(temp, out);
    return { ms: performance.now() - start, items: written.reduce((n, w) => n + w.rows, 0), findings: 0, counts: {} };
  } catch (err) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw err;
  } finally {
    session.close();
  }
}

async function measure(request: AnalysisChildRequest): Promise<Measured> {
  // The native module is loaded before any clock starts, on every side alike.
  if (request.side !== 'idle') await import('@duckdb/node-api');
  switch (request.side) {
    case 'check':
      return checkSide(request.folder);
    case 'hand':
      return handSide(request.folder, false);
    case 'hand-tables':
      return handSide(request.folder, true);
    case 'parquet':
      return parquetSide(request.folder, request.out ?? `${request.folder}-parquet`, request.partition ?? 'hour');
    default:
      return { ms: 0, items: 0, findings: 0, counts: {} };
  }
}

process.once('message', (request: AnalysisChildRequest) => {
  measure(request).then(
    (result) =>
      process.send?.({ ...result, maxRssKb: process.resourceUsage().maxRSS } satisfies AnalysisChildReply, () =>
        process.exit(0),
      ),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
});
