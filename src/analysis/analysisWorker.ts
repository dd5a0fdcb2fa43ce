/**
 * The analysis worker: the entry of dist/analysisWorker.js, a child process the extension forks on first use
 * (analysisClient.ts). It alone loads DuckDB (`@duckdb/node-api`, a native module), so that a native crash ends
 * this process and never the extension host. It answers the host's JSON requests (workerProtocol.ts) one at a
 * time, and ends when the host goes away. No vscode.
 */
import { AnalysisSession, metricsSql, metricsWindow, readHarvestSource, ruleQueriesOf, runChecks, runMetrics, thresholdsOf, timelineSql } from '../core/analysis';
import { errorMessage, isMobilityError } from '../core/base';
import type { CheckResult, RulesResult, SqlResult, WorkerAnswer, WorkerRequest } from './workerProtocol';
import { parseWorkerRequest } from './workerProtocol';

async function answer(request: WorkerRequest): Promise<unknown> {
  const source = await readHarvestSource(request.folder);
  const thresholds = thresholdsOf(request.op === 'sql' || request.op === 'timeline' ? [] : request.thresholds ?? []);
  if (request.op === 'rules') {
    const result: RulesResult = { folder: source.folder, window: { start: `${source.window.start}:00:00Z`, end: `${source.window.end}:59:59Z` }, rules: ruleQueriesOf(source, thresholds), metrics: metricsSql(metricsWindow(source)) };
    return result;
  }
  const session = await AnalysisSession.open(source);
  try {
    if (request.op === 'check') {
      const report = await runChecks(session, request.rules ?? [], thresholds);
      const result: CheckResult = { ...report, inUse: source.parts.filter((p) => p.inUse).map((p) => p.dir) };
      // The plots are a bonus to the report: a failure of the metrics leaves them out, never the findings.
      const metrics = request.metrics ? await runMetrics(session).then((m) => m.hours, () => undefined) : undefined;
      if (metrics) result.metrics = metrics;
      return result;
    }
    if (request.op === 'timeline') {
      const answer = await session.query(timelineSql({ device_id: request.device, trip_id: request.trip, time: request.time }));
      const result: SqlResult = { columns: answer.columns, rows: answer.rows, total: answer.rows.length };
      return result;
    }
    const answer = await session.query(request.sql);
    const max = request.maxRows ?? answer.rows.length;
    const result: SqlResult = { columns: answer.columns, rows: answer.rows.slice(0, max), total: answer.rows.length };
    return result;
  } finally {
    session.close();
  }
}

let queue: Promise<void> = Promise.resolve();

function reply(message: WorkerAnswer): void {
  process.send?.(message);
}

process.on('message', (message: unknown) => {
  const request = parseWorkerRequest(message);
  if (!request) {
    const id = typeof (message as { id?: unknown })?.id === 'number' ? (message as { id: number }).id : -1;
    reply({ id, ok: false, error: { code: 'UNEXPECTED', message: 'The analysis worker got a request it does not know.' } });
    return;
  }
  // One request at a time: DuckDB gets the machine's cores for each.
  queue = queue.then(async () => {
    try {
      reply({ id: request.id, ok: true, result: await answer(request) });
    } catch (err) {
      reply({ id: request.id, ok: false, error: isMobilityError(err) ? { code: err.code, message: err.message } : { code: 'UNEXPECTED', message: errorMessage(err) } });
    }
  });
});

// The host went away (closed, crashed): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
