// One side of the analysis benchmark (analysis.ts), alone in its process so that its time and peak RSS are its own:
// `check` as `mobility-api check` runs it, the same rules' SQL run by hand in DuckDB over the same files, or the
// Parquet writer of `mobility-api parquet`. Started over IPC; never run by hand.
import fs from 'node:fs';
import path from 'node:path';
import { AnalysisSession, temporaryPathOf } from '../src/core/analysis/analysisEngine';
import { CHECK_RULES, DEFAULT_THRESHOLDS } from '../src/core/analysis/checkRules';
import { runChecks } from '../src/core/analysis/checkRun';
import { itemColumnsOf, sqlString } from '../src/core/analysis/columnTypes';
import { readHarvestSource } from '../src/core/analysis/harvestSource';
import { checkWindowOf } from '../src/core/analysis/ruleSql';
import type { MdsEndpointId } from '../src/core/mds/mdsEndpoints';
import type { AnalysisChildReply, AnalysisChildRequest } from './analysis';

type Measured = Omit<AnalysisChildReply, 'maxRssKb'>;

/** `mobility-api check <folder>`: the folder read, the session opened, every rule run (checkCommand.ts without printing). */
async function checkSide(folder: string): Promise<Measured> {
  const start = performance.now();
  const source = await readHarvestSource(folder);
  const session = await AnalysisSession.open(source);
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
    items: Object.values(report.items).reduce((a, b) => a + b, 0),
    findings: report.rules.reduce((n, r) => n + r.count, 0),
    counts,
  };
}

/**
 * What a user would write with DuckDB alone: views over the hour files by glob, typed with the MDS 2.0 models'
 * columns (the rules need the types), no de-duplication, and each rule's own SQL with the harvest's window and the
 * snapshot's last_updated written in, exactly as `check` builds it. The folder's manifests are read before the clock
 * starts: a user types the window.
 */
async function handSide(folder: string): Promise<Measured> {
  const source = await readHarvestSource(folder);
  const window = checkWindowOf(source);
  const mode = source.parts.map((p) => p.manifest.validatedMode).find((m) => m && m !== 'any') ?? 'micromobility';
  const context = {
    mode,
    ...(source.snapshot?.manifest.lastUpdated !== undefined
      ? { snapshotLastUpdated: source.snapshot.manifest.lastUpdated }
      : {}),
  };
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
  const read = (files: string, endpoint: MdsEndpointId) =>
    `read_json(${sqlString(path.join(folder, files))}, format = 'newline_delimited', columns = ${columns(endpoint)})`;
  const views: [string, string][] = [
    ['trips', read('trips/trips/*.ndjson', 'trips')],
    ['events', read('events/events_historical/*.ndjson', 'events_historical')],
    ['telemetry', read('telemetry/telemetry/*.ndjson', 'telemetry')],
    ['vehicles', read('snapshot/vehicles.ndjson', 'vehicles')],
    ['vehicles_status', read('snapshot/vehicles_status.ndjson', 'vehicles_status')],
  ];
  for (const [view, from] of views) await connection.run(`CREATE VIEW ${view} AS SELECT * FROM ${from}`);
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
  for (const rule of CHECK_RULES) {
    if (!rule.sql || rule.id === 'hour-coverage') continue;
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
      return handSide(request.folder);
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
