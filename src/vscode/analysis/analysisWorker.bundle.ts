/**
 * The analysis worker: the entry of dist/analysisWorker.js, a child process the extension forks on first use
 * (analysisClient.ts). It alone loads DuckDB (`@duckdb/node-api`, a native module), so that a native crash ends
 * this process and never the extension host. It answers the host's JSON requests (workerProtocol.ts) one at a
 * time, and ends when the host goes away. No vscode.
 */
import fs from 'node:fs';
import type { HarvestSource } from '../../core/analysis';
import * as l10n from '@vscode/l10n';
import {
  AnalysisSession,
  memoryLimitOf,
  metricsSql,
  metricsWindow,
  readHarvestSource,
  ruleQueriesOf,
  runChecks,
  runMetrics,
  thresholdsOf,
  timelineSql,
} from '../../core/analysis';
import { MobilityError, errorMessage, isMobilityError } from '../../core/base';
import { runOmfMetrics } from '../../core/metrics';
import { metricsViewOptions, shapesOf } from '../../results/metrics/metricsPanelView';
import type {
  CheckResult,
  OmfMetricsResult,
  RulesResult,
  SqlResult,
  WorkerAnswer,
  WorkerRequest,
} from './workerProtocol';
import { geographiesFor } from './workerGeographies';
import { parseWorkerRequest } from './workerProtocol';

/**
 * The last session, kept for the next request over the same files (a notebook's next cell, a finding's timeline):
 * opening one reads the whole harvest into DuckDB, the long part of a request. Any change to the harvest (a file
 * added, rewritten or gone, a manifest updated) makes a new one.
 */
let kept: { key: string; session: AnalysisSession } | undefined;

/** DuckDB's memory limit, as the host started this worker (`--memory-limit=<size>`, the setting), else the default. */
const MEMORY_LIMIT = process.argv.find((a) => a.startsWith('--memory-limit='))?.slice('--memory-limit='.length);
/** The most DuckDB may spill to the session's folder (`--temp-limit=<size>`, the setting), else the default. */
const TEMP_LIMIT = process.argv.find((a) => a.startsWith('--temp-limit='))?.slice('--temp-limit='.length);

/** What a session was read from: the source as read (its parts, done hours, snapshot) and each file's size and time. */
function sourceKey(source: HarvestSource): string {
  const files = [
    ...source.parts.flatMap((p) => [...p.files, `${p.dir}/manifest.json`]),
    ...(source.snapshot ? Object.values(source.snapshot.files) : []),
  ];
  const stats = files.map((f) => {
    const stat = fs.statSync(f, { throwIfNoEntry: false });
    return stat ? [f, stat.size, stat.mtimeMs] : [f];
  });
  return JSON.stringify([source, stats]);
}

async function sessionFor(
  source: HarvestSource,
  geographies?: Awaited<ReturnType<typeof geographiesFor>>,
): Promise<AnalysisSession> {
  const key = `${sourceKey(source)}|${geographies?.key ?? ''}`;
  if (kept?.key === key) return kept.session;
  closeKept();
  if (MEMORY_LIMIT !== undefined && !memoryLimitOf(MEMORY_LIMIT)) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        'The setting mobilityApi.analysis.memoryLimit is {0}: give a size of 64MB or more, such as 512MB or 2GB.',
        JSON.stringify(MEMORY_LIMIT),
      ),
    );
  }
  if (TEMP_LIMIT !== undefined && !memoryLimitOf(TEMP_LIMIT)) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        'The setting mobilityApi.analysis.tempLimit is {0}: give a size of 64MB or more, such as 10GB.',
        JSON.stringify(TEMP_LIMIT),
      ),
    );
  }
  const session = await AnalysisSession.open(source, {
    ...(MEMORY_LIMIT ? { memoryLimit: MEMORY_LIMIT } : {}),
    ...(TEMP_LIMIT ? { tempLimit: TEMP_LIMIT } : {}),
    ...(geographies ? { geographies: geographies.index } : {}),
  });
  kept = { key, session };
  return session;
}

function closeKept(): void {
  kept?.session.close();
  kept = undefined;
}

async function answer(request: WorkerRequest): Promise<unknown> {
  const source = await readHarvestSource(request.folder);
  const thresholds = thresholdsOf(request.op === 'check' || request.op === 'rules' ? (request.thresholds ?? []) : []);
  if (request.op === 'rules') {
    const result: RulesResult = {
      folder: source.folder,
      window: { start: `${source.window.start}:00:00Z`, end: `${source.window.end}:59:59Z` },
      rules: ruleQueriesOf(source, thresholds),
      metrics: metricsSql(metricsWindow(source)),
    };
    return result;
  }
  const geographies =
    (request.op === 'omfMetrics' || request.op === 'sql') && request.geographies
      ? await geographiesFor(request.geographies)
      : undefined;
  const session = await sessionFor(source, geographies);
  if (request.op === 'omfMetrics') {
    const report = await runOmfMetrics(session, metricsViewOptions(request, !!geographies));
    const result: OmfMetricsResult = {
      report,
      ...(geographies ? { geographies: { source: geographies.source, list: geographies.list } } : {}),
    };
    return result;
  }
  if (request.op === 'check') {
    const report = await runChecks(session, request.rules ?? [], thresholds);
    const result: CheckResult = { ...report, inUse: source.parts.filter((p) => p.inUse).map((p) => p.dir) };
    // The plots are a bonus to the report: a failure of the metrics leaves them out, never the findings.
    const metrics = request.metrics
      ? await runMetrics(session).then(
          (m) => m.hours,
          () => undefined,
        )
      : undefined;
    if (metrics) result.metrics = metrics;
    return result;
  }
  if (request.op === 'timeline') {
    const answer = await session.query(
      timelineSql({ device_id: request.device, trip_id: request.trip, time: request.time }),
    );
    const result: SqlResult = { columns: answer.columns, rows: answer.rows, total: answer.rows.length };
    return result;
  }
  const answer = await session.query(request.sql);
  const max = request.maxRows ?? answer.rows.length;
  const result: SqlResult = { columns: answer.columns, rows: answer.rows.slice(0, max), total: answer.rows.length };
  // A cell per geography gets the polygons for its map.
  if (geographies && answer.columns.some((c) => c.name === 'geography_id')) result.shapes = shapesOf(geographies.list);
  return result;
}

let queue: Promise<void> = Promise.resolve();

function reply(message: WorkerAnswer): void {
  process.send?.(message);
}

process.on('message', (message: unknown) => {
  const request = parseWorkerRequest(message);
  if (!request) {
    const id = typeof (message as { id?: unknown })?.id === 'number' ? (message as { id: number }).id : -1;
    reply({
      id,
      ok: false,
      error: { code: 'ANALYSIS_ENGINE_FAILED', message: 'The analysis worker got a request it does not know.' },
    });
    return;
  }
  // One request at a time: DuckDB gets the machine's cores for each.
  queue = queue.then(async () => {
    try {
      reply({ id: request.id, ok: true, result: await answer(request) });
    } catch (err) {
      reply({
        id: request.id,
        ok: false,
        error: isMobilityError(err)
          ? { code: err.code, message: err.message }
          : { code: 'ANALYSIS_ENGINE_FAILED', message: errorMessage(err) },
      });
    }
  });
});

// The host went away (closed, crashed): nothing is left to answer.
process.on('disconnect', () => {
  closeKept();
  process.exit(0);
});
