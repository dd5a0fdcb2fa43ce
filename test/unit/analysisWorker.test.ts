// The analysis engine in a child process (issue 31, VS Code): the worker VS Code forks on first use answers a check
// and a query over a harvest folder; a worker killed (SIGKILL, as a native crash ends it) fails what it held with a
// clear error and the next request starts a new worker; a cancelled request ends the worker the same way. Runs the
// built worker (dist/analysisWorker.js) in plain Node.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnalysisWorkerClient } from '../../src/vscode/analysis/analysisClient';
import { MobilityError } from '../../src/core/base';
import type { CheckResult, OmfMetricsResult, RulesResult, SqlResult } from '../../src/vscode/analysis/workerProtocol';
import { parseWorkerRequest } from '../../src/vscode/analysis/workerProtocol';
import { starterNotebook, vegaLiteSpec } from '../../src/vscode/analysis/harvestNotebook';
import type { CheckReport } from '../../src/core/analysis';
import { metricsSql, metricsWindow, readHarvestSource } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';
import { waitUntil } from './support/waitUntil';

const WORKER = path.resolve('dist/analysisWorker.js');
const T0 = Date.UTC(2026, 10, 20, 8);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const DEVICE = 'dddddddd-0000-4000-8000-000000000001';

/** One hour of historical events: one battery_low sent twice (a duplicate-events finding), one located. */
function writeEvents(dir: string): void {
  const event = (n: number, timestamp: number, types: string[]) => ({
    device_id: DEVICE,
    provider_id: PROVIDER,
    event_id: `eeeeeeee-0000-4000-8000-00000000000${n}`,
    vehicle_state: 'non_operational',
    event_types: types,
    timestamp,
    location: { lat: 52.5, lng: 13.4 },
  });
  const hour = new Date(T0).toISOString().slice(0, 13);
  const text = [
    event(1, T0 + 60_000, ['battery_low']),
    event(2, T0 + 60_000, ['battery_low']),
    event(3, T0 + 120_000, ['located']),
  ]
    .map((e) => JSON.stringify(e) + '\n')
    .join('');
  fs.mkdirSync(path.join(dir, 'events_historical'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'events_historical', `${hour}.ndjson`), text);
  const now = new Date().toISOString();
  const manifest = {
    format: 'mobility-api-harvest',
    formatVersion: 1,
    endpoint: 'events_historical',
    path: '/events/historical',
    hourParameter: 'event_time',
    baseUrl: 'https://mds.example/provider',
    from: hour,
    to: hour,
    createdAt: now,
    updatedAt: now,
    hours: {
      [hour]: {
        status: 'items',
        file: `events_historical/${hour}.ndjson`,
        items: 3,
        bytes: Buffer.byteLength(text),
        attempts: 1,
        requests: 1,
        pages: 1,
        httpStatus: 200,
        startedAt: now,
        durationMs: 1,
      },
    },
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

describe('analysis worker: DuckDB in a child process (issue 31)', function () {
  this.timeout(120_000);
  let dir: string;
  let harvest: string;
  let client: AnalysisWorkerClient;
  const log: string[] = [];

  before(() => {
    assert.ok(fs.existsSync(WORKER), `${WORKER} is built (node esbuild.js)`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-worker-'));
    harvest = path.join(dir, 'events');
    writeEvents(harvest);
    client = new AnalysisWorkerClient(WORKER, (line) => log.push(line));
  });
  after(() => {
    client?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("starts on the first request, not before, and answers a check with the report of the CLI's shape", async () => {
    assert.equal(client.pid, undefined, 'no worker before the first use');
    const report = await client.request<CheckReport & { inUse: string[] }>({ op: 'check', folder: harvest });
    assert.ok(client.pid, 'a worker runs');
    assert.notEqual(client.pid, process.pid);
    assert.deepEqual(report.items.events, 3);
    const duplicates = report.rules.find((r) => r.id === 'duplicate-events');
    assert.equal(duplicates?.count, 1);
    assert.equal(duplicates?.findings[0].device_id, DEVICE);
    assert.equal(duplicates?.findings[0].time, new Date(T0 + 60_000).toISOString());
    assert.ok(
      report.skipped.some((s) => s.id === 'trip-events' && /needs trips/.test(s.why)),
      'a rule that cannot run says why',
    );
    assert.deepEqual(report.inUse, []);
  });

  it("answers a query and gives DuckDB's own error for a bad one, the worker still running", async () => {
    const answer = await client.request<SqlResult>({
      op: 'sql',
      folder: harvest,
      sql: 'SELECT event_id, timestamp FROM events ORDER BY event_id',
      maxRows: 2,
    });
    assert.deepEqual(
      answer.columns.map((c) => c.name),
      ['event_id', 'timestamp'],
    );
    assert.equal(answer.rows.length, 2);
    assert.equal(answer.total, 3);
    const pid = client.pid;
    await assert.rejects(
      client.request({ op: 'sql', folder: harvest, sql: 'SELECT nope FROM events' }),
      (err: Error & { code?: string }) => err.code === 'ANALYSIS_QUERY_FAILED' && /nope/.test(err.message),
    );
    await assert.rejects(
      client.request({ op: 'sql', folder: harvest, sql: "COPY events TO '/tmp/x.csv'" }),
      (err: Error & { code?: string }) => err.code === 'ANALYSIS_QUERY_REFUSED',
    );
    assert.equal(client.pid, pid, 'an error in a query does not end the worker');
  });

  it('a query after the harvest changed sees the change: an hour file rewritten with one more item, then removed with its hour', async () => {
    const copy = path.join(dir, 'events-changing');
    writeEvents(copy);
    const count = async () =>
      (await client.request<SqlResult>({ op: 'sql', folder: copy, sql: 'SELECT count(*) AS n FROM events' })).rows[0]
        ?.n;
    assert.equal(Number(await count()), 3);
    assert.equal(Number(await count()), 3, 'the same harvest again');
    const hour = new Date(T0).toISOString().slice(0, 13);
    const file = path.join(copy, 'events_historical', `${hour}.ndjson`);
    const more = {
      device_id: DEVICE,
      provider_id: PROVIDER,
      event_id: 'eeeeeeee-0000-4000-8000-000000000009',
      vehicle_state: 'available',
      event_types: ['service_start'],
      timestamp: T0 + 180_000,
      location: { lat: 52.5, lng: 13.4 },
    };
    fs.appendFileSync(file, JSON.stringify(more) + '\n');
    assert.equal(Number(await count()), 4, 'the rewritten hour file is read again');
    const manifestFile = path.join(copy, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { hours: Record<string, unknown> };
    delete manifest.hours[hour];
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    await assert.rejects(
      count(),
      (err: Error & { code?: string }) => /ANALYSIS/.test(err.code ?? ''),
      'a harvest with no hour done is refused, not answered from before',
    );
  });

  it('a worker killed with SIGKILL fails its request with a clear error, and the next request starts a new worker that answers', async () => {
    const started = client.started;
    const pid = client.pid as number;
    // A request in flight while the worker dies: the user gets an error that says what happened and what to do.
    const inFlight = client.request({ op: 'check', folder: harvest });
    process.kill(pid, 'SIGKILL');
    await assert.rejects(inFlight, (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ANALYSIS_ENGINE_FAILED');
      assert.match(err.message, /SIGKILL/);
      assert.match(err.message, /Run the analysis again/);
      assert.doesNotMatch(err.message, /\n\s+at /, 'no stack trace');
      return true;
    });
    const report = await client.request<CheckReport>({ op: 'check', folder: harvest });
    assert.equal(report.rules.find((r) => r.id === 'duplicate-events')?.count, 1);
    assert.equal(client.started, started + 1, 'a new worker');
    assert.notEqual(client.pid, pid);
  });

  it('cancelling a request ends the worker; the next request works', async () => {
    const pid = client.pid as number;
    const stop = new AbortController();
    const cancelled = client.request({ op: 'check', folder: harvest }, stop.signal);
    stop.abort();
    await assert.rejects(cancelled, (err: unknown) => err instanceof MobilityError && err.code === 'CANCELLED');
    await waitUntil(
      'the worker to end',
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (gone) => gone,
    );
    const answer = await client.request<SqlResult>({
      op: 'sql',
      folder: harvest,
      sql: 'SELECT count(*) AS n FROM events',
    });
    assert.deepEqual(answer.rows, [{ n: 3 }]);
  });

  it("gives each rule's own SQL for a starter notebook, the thresholds written in", async () => {
    const rules = await client.request<RulesResult>({
      op: 'rules',
      folder: harvest,
      thresholds: ['teleportMeters=750'],
    });
    const teleport = rules.rules.find((r) => r.id === 'teleport');
    assert.match(teleport?.sql ?? '', /> 750/);
    assert.equal(
      rules.rules.find((r) => r.id === 'hour-coverage')?.sql,
      undefined,
      'hour coverage is read from the manifests, not SQL',
    );
    const answer = await client.request<SqlResult>({
      op: 'sql',
      folder: harvest,
      sql: rules.rules.find((r) => r.id === 'duplicate-events')?.sql ?? '',
    });
    assert.equal(answer.total, 1, "the rule's SQL, run as it stands, finds what the check finds");
    // The starter notebook's cell of a rule: named columns (no `format(…)` header) and the time as a timestamp, not milliseconds.
    for (const rule of rules.rules.filter((r) => r.sql)) {
      const cell = starterNotebook(rules, 'events').cells.find(
        (c) => c.kind === 'sql' && c.source.includes(rule.sql ?? '\0'),
      );
      assert.ok(cell, `${rule.id} has a cell`);
      const shown = await client.request<SqlResult>({ op: 'sql', folder: harvest, sql: cell.source });
      assert.deepEqual(
        shown.columns.map((c) => c.name),
        ['device_id', 'trip_id', 'time', 'detail'],
        rule.id,
      );
      assert.match(shown.columns[2].type, /^TIMESTAMP/, `${rule.id}: the time is a timestamp`);
      if (rule.id === 'duplicate-events')
        assert.equal(
          typeof shown.rows[0]?.time,
          'string',
          `the finding's time as a time, not milliseconds: ${JSON.stringify(shown.rows[0])}`,
        );
    }
  });

  it("the starter notebook's metrics cells are `mobility-api metrics`' own SQL: run as they stand, they give its rows; the hourly one gets a chart", async () => {
    const rules = await client.request<RulesResult>({ op: 'rules', folder: harvest });
    const source = await readHarvestSource(harvest);
    assert.deepEqual(
      rules.metrics,
      metricsSql(metricsWindow(source)),
      "the SQL the metrics command runs, not queries of the notebook's own",
    );
    const cells = starterNotebook(rules, 'events')
      .cells.filter((c) => c.kind === 'sql')
      .map((c) => c.source);
    assert.deepEqual(cells.slice(0, 2), [rules.metrics.hours, rules.metrics.days]);
    const hours = await client.request<SqlResult>({ op: 'sql', folder: harvest, sql: cells[0] });
    const days = await client.request<SqlResult>({ op: 'sql', folder: harvest, sql: cells[1] });
    const cli = await runCliInProcess(['metrics', harvest, '--json']);
    assert.equal(cli.code, 0, cli.err);
    const metrics = JSON.parse(cli.out) as { hours: unknown[]; days: unknown[] };
    assert.deepEqual(hours.rows, metrics.hours, 'the hourly cell gives the rows of `mobility-api metrics --json`');
    assert.deepEqual(days.rows, metrics.days, 'the daily cell too');
    assert.equal(hours.rows.length, 1);
    assert.equal(hours.rows[0].hour, '2026-11-20T08');
    assert.ok(vegaLiteSpec(hours), 'vehicles and trips per hour are charted');
  });

  it("answers a check with the hourly metrics, and a finding's device timeline in time order with the rows it names marked", async () => {
    const report = await client.request<CheckResult>({ op: 'check', folder: harvest, metrics: true });
    assert.deepEqual(
      report.metrics?.map((row) => [
        row.hour,
        row.prow_at_hour_end,
        row.non_operational_at_hour_end,
        row.trips_started,
      ]),
      [[new Date(T0).toISOString().slice(0, 13), 1, 1, null]],
      'no trips harvested: trips_started is missing, not 0',
    );
    const finding = report.rules.find((r) => r.id === 'duplicate-events')?.findings[0];
    assert.ok(finding?.device_id && finding.time);
    const timeline = await client.request<SqlResult>({
      op: 'timeline',
      folder: harvest,
      device: finding.device_id,
      time: Date.parse(finding.time),
    });
    assert.deepEqual(
      timeline.rows.map((r) => [r.kind, r.time, r.event_types, r.marked]),
      [
        ['event', T0 + 60_000, 'battery_low', true],
        ['event', T0 + 60_000, 'battery_low', true],
        ['event', T0 + 120_000, 'located', false],
      ],
    );
  });

  it('runs with the memory limit of the setting: a change starts a new worker with it, a bad one is named', async () => {
    let limit: string | undefined = '64MB';
    const limited = new AnalysisWorkerClient(
      WORKER,
      () => undefined,
      () => limit,
    );
    try {
      const big = "SELECT max(length(x)) AS n FROM (SELECT string_agg(repeat('x', 1000), ',') AS x FROM range(100000))";
      await assert.rejects(
        limited.request({ op: 'sql', folder: harvest, sql: big }),
        (err: Error & { code?: string }) =>
          err.code === 'ANALYSIS_OUT_OF_MEMORY' &&
          /limit of 64MB .*mobilityApi\.analysis\.memoryLimit/.test(err.message),
      );
      const first = limited.pid;
      limit = '1GB';
      const answer = await limited.request<SqlResult>({ op: 'sql', folder: harvest, sql: big });
      assert.deepEqual(answer.rows, [{ n: 100_099_999 }]);
      assert.notEqual(limited.pid, first, 'a new worker, started with the new limit');
      assert.equal(limited.started, 2);
      limit = 'lots';
      await assert.rejects(
        limited.request({ op: 'sql', folder: harvest, sql: 'SELECT 1' }),
        (err: Error & { code?: string }) =>
          err.code === 'USAGE' && err.message.includes('The setting mobilityApi.analysis.memoryLimit is "lots"'),
      );
    } finally {
      limited.dispose();
    }
  });

  it('runs with the temporary-folder limit of the setting: a query that spills past it stops naming the setting, a bad one is named', async () => {
    let temp: string | undefined = '64MB';
    const limited = new AnalysisWorkerClient(
      WORKER,
      () => undefined,
      () => '128MB',
      () => temp,
    );
    try {
      // 6 million distinct strings of 64 random-looking characters under 128 MB of memory spill far more than 64 MB.
      const distinct =
        'SELECT count(*) AS n FROM (SELECT DISTINCT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS s FROM range(6000000) t(i))';
      await assert.rejects(
        limited.request({ op: 'sql', folder: harvest, sql: distinct }),
        (err: Error & { code?: string }) =>
          err.code === 'ANALYSIS_OUT_OF_DISK' &&
          /limit of 64MB .*the setting mobilityApi\.analysis\.tempLimit in VS Code/.test(err.message),
      );
      temp = 'lots';
      await assert.rejects(
        limited.request({ op: 'sql', folder: harvest, sql: 'SELECT 1' }),
        (err: Error & { code?: string }) =>
          err.code === 'USAGE' && err.message.includes('The setting mobilityApi.analysis.tempLimit is "lots"'),
      );
      assert.equal(limited.started, 2, 'a new worker, started with the new limit');
    } finally {
      limited.dispose();
    }
  });

  it("a worker that dies fails its request, and the log has that worker's own last error output, not the next one's", async () => {
    // A stand-in worker: says who it is on stderr, then dies with the request unanswered.
    const script = path.join(dir, 'dying-worker.js');
    fs.writeFileSync(
      script,
      "process.on('message', () => { process.stderr.write('last words of ' + process.pid, () => process.exit(3)); });\n",
    );
    const lines: string[] = [];
    const dying = new AnalysisWorkerClient(script, (line) => lines.push(line));
    try {
      for (let round = 0; round < 2; round++) {
        await assert.rejects(
          dying.request({ op: 'sql', folder: harvest, sql: 'SELECT 1' }),
          (err: Error & { code?: string }) =>
            err.code === 'ANALYSIS_ENGINE_FAILED' && /stopped with exit code 3/.test(err.message),
        );
      }
      const ends = lines.filter((l) => l.includes('exited with 3'));
      assert.equal(ends.length, 2, lines.join('\n'));
      for (const end of ends) {
        const pid = /\(pid (\d+)\)/.exec(end)?.[1];
        assert.ok(pid && end.endsWith(`its last error output: last words of ${pid}`), end);
      }
    } finally {
      dying.dispose();
    }
  });

  it('computes the OMF metrics of the Metrics view for the whole fleet, and names a measure OMF does not define (issue 40)', async () => {
    const fleet = await client.request<OmfMetricsResult>({
      op: 'omfMetrics',
      folder: harvest,
      measures: ['events.battery_low.count'],
      interval: 'PT1H',
      timeZone: 'UTC',
    });
    assert.deepEqual(
      fleet.report.response.rows,
      [[new Date(T0).toISOString().slice(0, 16) + 'Z', -1]],
      'two battery_low events, below k 10',
    );
    assert.equal(fleet.geographies, undefined);
    const bad = await client
      .request({
        op: 'omfMetrics',
        folder: harvest,
        measures: ['trips.sideways.count'],
        interval: 'PT1H',
        timeZone: 'UTC',
      })
      .catch((err: unknown) => err);
    assert.ok(
      bad instanceof MobilityError && bad.code === 'USAGE' && /not a metric of MDS 2\.0\.2/.test(bad.message),
      String(bad),
    );
  });

  it('computes the OMF metrics per geography with a Geography document, the polygons with them (issue 40)', async () => {
    const ring = (lng: number, lat: number) => [
      [lng - 0.01, lat - 0.01],
      [lng + 0.01, lat - 0.01],
      [lng + 0.01, lat + 0.01],
      [lng - 0.01, lat + 0.01],
      [lng - 0.01, lat - 0.01],
    ];
    const geography = (id: string, name: string, lng: number) => ({
      geography_id: id,
      name,
      published_date: T0 - 86_400_000,
      geography_json: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring(lng, 52.5)] } }],
      },
    });
    const file = path.join(dir, 'geographies.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        version: '2.0.0',
        last_updated: T0,
        geographies: [
          geography('11111111-0000-4000-8000-000000000001', 'Centre', 13.4),
          geography('11111111-0000-4000-8000-000000000002', 'Elsewhere', 13.6),
        ],
      }),
    );
    const per = await client.request<OmfMetricsResult>({
      op: 'omfMetrics',
      folder: harvest,
      measures: ['events.battery_low.count'],
      interval: 'PT1H',
      timeZone: 'UTC',
      geographies: file,
    });
    assert.deepEqual(
      per.report.response.columns.map((c) => c.name),
      ['interval_start', 'geography_id', 'events.battery_low.count'],
    );
    // A row per geography and interval: Centre's two battery_low events and Elsewhere's none are both below k 10 (-1).
    assert.deepEqual(per.report.response.rows, [
      [new Date(T0).toISOString().slice(0, 16) + 'Z', '11111111-0000-4000-8000-000000000001', -1],
      [new Date(T0).toISOString().slice(0, 16) + 'Z', '11111111-0000-4000-8000-000000000002', -1],
    ]);
    assert.deepEqual(
      per.geographies?.list.map((g) => [g.name, g.polygons[0][0].length]),
      [
        ['Centre', 5],
        ['Elsewhere', 5],
      ],
    );
  });

  it('the protocol refuses requests that are not whole', () => {
    assert.equal(parseWorkerRequest({ id: 1, op: 'timeline', folder: '/x', device: '' }), undefined);
    assert.equal(parseWorkerRequest({ id: 1, op: 'timeline', folder: '/x', device: 'd', time: 'noon' }), undefined);
    assert.deepEqual(
      parseWorkerRequest({ id: 1, op: 'timeline', folder: '/x', device: 'd', trip: 't', time: 5, extra: 1 }),
      { id: 1, op: 'timeline', folder: '/x', device: 'd', trip: 't', time: 5 },
    );
    assert.equal(parseWorkerRequest({ id: 1, op: 'drop', folder: '/x' }), undefined);
    assert.equal(parseWorkerRequest({ id: 1, op: 'sql', folder: '/x' }), undefined);
    assert.equal(parseWorkerRequest({ id: 1, op: 'check', folder: '' }), undefined);
    assert.equal(parseWorkerRequest({ id: 1, op: 'check', folder: '/x', rules: [1] }), undefined);
    assert.deepEqual(parseWorkerRequest({ id: 2, op: 'sql', folder: '/x', sql: 'SELECT 1', maxRows: 10 ** 9 }), {
      id: 2,
      op: 'sql',
      folder: '/x',
      sql: 'SELECT 1',
      maxRows: 100_000,
    });
  });
});
