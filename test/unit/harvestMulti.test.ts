// `mobility-api harvest trips,events,telemetry --snapshot` against the sandbox: one subfolder per endpoint, each a
// harvest resumable on its own; the snapshot of /vehicles and /vehicles/status, every page; and the analysis
// commands over the parent folder and over one endpoint's folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import type { HarvestSummary } from '../../src/core/harvest/harvestRun';
import type { SnapshotManifest } from '../../src/core/harvest/harvestSnapshot';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { harvestSnapshot } from '../../src/core/harvest/harvestSnapshot';
import { clientOn, demoCredential, mdsEnvironment, readHarvest, readManifest } from './harvestSupport';
import { runCliInProcess } from './support/cliRunner';

const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);
const FLEET = 60;
const PAGE = 25;

describe('CLI: mobility-api harvest of several endpoints, with --snapshot', function () {
  this.timeout(120_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let folder: string;
  const credential = () => [
    '--base-url',
    sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '',
    '--credential',
    sandbox.demo.credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-multi-'));
    sandbox = await startSandbox({ fleetSize: FLEET, seed: 11, pageSize: PAGE, demoDir: path.join(dir, 'demo') });
    folder = path.join(dir, 'out');
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes one subfolder per endpoint and the snapshot, every page; a second run resumes each endpoint on its own', async () => {
    const r = await runCliInProcess([
      'harvest',
      'trips,events,telemetry',
      '--from',
      hourAt(10),
      '--to',
      hourAt(11),
      '--out',
      folder,
      '--snapshot',
      ...credential(),
      '--json',
    ]);
    assert.equal(r.code, 0, r.err + r.out);
    const json = JSON.parse(r.out) as { outDir: string; endpoints: HarvestSummary[]; snapshot: SnapshotManifest };
    assert.deepEqual(
      json.endpoints.map((s) => [s.endpoint, s.outDir, s.complete]),
      [
        ['trips', path.join(folder, 'trips'), true],
        ['events_historical', path.join(folder, 'events'), true],
        ['telemetry', path.join(folder, 'telemetry'), true],
      ],
    );
    for (const [sub, endpoint] of [
      ['trips', 'trips'],
      ['events', 'events_historical'],
      ['telemetry', 'telemetry'],
    ]) {
      assert.equal(readManifest(path.join(folder, sub)).endpoint, endpoint);
      assert.ok(readHarvest(path.join(folder, sub), endpoint).length > 0, `${sub} holds items`);
    }
    // Every page of both lists (a fresh token per page: the sandbox refuses a token used twice).
    assert.deepEqual(fs.readdirSync(path.join(folder, 'snapshot')).sort(), [
      'snapshot.json',
      'vehicles.ndjson',
      'vehicles_status.ndjson',
    ]);
    const lines = (name: string) =>
      fs
        .readFileSync(path.join(folder, 'snapshot', name), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { device_id: string });
    assert.equal(new Set(lines('vehicles.ndjson').map((v) => v.device_id)).size, FLEET);
    assert.equal(lines('vehicles_status.ndjson').length, FLEET);
    assert.deepEqual(
      [json.snapshot.lists.vehicles.pages, json.snapshot.lists.vehicles_status.pages],
      [Math.ceil(FLEET / PAGE), Math.ceil(FLEET / PAGE)],
    );
    assert.equal(typeof json.snapshot.lastUpdated, 'number');
    assert.deepEqual(
      fs.readdirSync(folder).filter((n) => n.startsWith('.')),
      [],
      'no temporary folder is left',
    );

    // The second run widens the range by an hour: each endpoint fetches that hour only, and the snapshot is replaced.
    const again = await runCliInProcess([
      'harvest',
      'trips,events,telemetry',
      '--from',
      hourAt(10),
      '--to',
      hourAt(12),
      '--out',
      folder,
      '--snapshot',
      ...credential(),
    ]);
    assert.equal(again.code, 0, again.err);
    assert.equal((again.err.match(/2 hours of 3 already done in this folder: skipped/g) ?? []).length, 3, again.err);
    assert.match(again.out, /^Harvest of telemetry from .*\n[\s\S]*^Snapshot in .*snapshot at /m);
    assert.match(again.out, new RegExp(`^  /vehicles +${FLEET} vehicles in 3 pages$`, 'm'));
  });

  it("check, sql and parquet take the parent folder or one endpoint's folder; the snapshot's rules run, or say why they cannot compare", async () => {
    const parent = await runCliInProcess(['check', folder, '--json']);
    const report = JSON.parse(parent.out) as CheckReport;
    // The harvest ends two days before the snapshot (taken now): status-vs-events says it cannot compare, never "ok".
    // reports-vs-trips also needs the agency's time zone (--timezone), which this run does not give; it has tests of its own.
    assert.deepEqual(
      report.skipped.map((x) => x.id).sort(),
      ['reports-vs-trips', 'status-vs-events'],
      'every other rule runs: the snapshot is there',
    );
    assert.match(
      report.skipped.find((x) => x.id === 'status-vs-events')?.why ?? '',
      /^could not compare: the snapshot was taken at .* after the harvest ends/,
    );
    assert.match(report.skipped.find((x) => x.id === 'reports-vs-trips')?.why ?? '', /give it with --timezone/);
    assert.equal(report.items.vehicles, FLEET);
    assert.equal(report.items.vehicles_status, FLEET);
    assert.ok(report.items.trips > 0 && report.items.events > 0 && report.items.telemetry > 0);
    assert.equal(
      report.rules.find((x) => x.id === 'registry')?.count,
      0,
      "registry finds nothing in the sandbox's clean world",
    );

    const one = await runCliInProcess([
      'check',
      path.join(folder, 'events'),
      '--json',
      '--rule',
      'registry',
      '--rule',
      'trip-events',
    ]);
    const oneReport = JSON.parse(one.out) as CheckReport;
    assert.deepEqual(oneReport.items.trips, 0);
    assert.equal(oneReport.items.vehicles, FLEET, "one endpoint's folder reads the snapshot beside it");
    assert.deepEqual(
      oneReport.skipped.map((s) => s.id),
      ['trip-events'],
    );

    for (const where of [folder, path.join(folder, 'trips')]) {
      const sql = await runCliInProcess(['sql', where, 'SELECT count(*) AS n FROM vehicles', '--json']);
      assert.equal(sql.code, 0, sql.err);
      assert.deepEqual(JSON.parse(sql.out), [{ n: FLEET }]);
    }
    const parquet = await runCliInProcess(['parquet', path.join(folder, 'telemetry'), '--out', path.join(dir, 'pq')]);
    assert.equal(parquet.code, 0, parquet.err);
    // One endpoint's items, and the snapshot beside its folder, as check and sql read them there.
    assert.deepEqual(
      fs
        .readdirSync(path.join(dir, 'pq'))
        .filter((n) => n.startsWith('endpoint='))
        .sort(),
      ['endpoint=telemetry', 'endpoint=vehicles', 'endpoint=vehicles_status'],
    );
  });

  it('the snapshot is written whole or not at all: a write that fails leaves the earlier snapshot as it was, and no temporary folder', async () => {
    const target = path.join(dir, 'atomic');
    const options = {
      client: clientOn(Date.now),
      environment: mdsEnvironment(sandbox),
      credential: demoCredential(sandbox),
      outDir: target,
    };
    const first = await harvestSnapshot(options);
    const before = fs.readFileSync(path.join(target, 'snapshot', 'snapshot.json'), 'utf8');
    assert.equal(first.lists.vehicles.items, FLEET);
    let writes = 0;
    await assert.rejects(
      harvestSnapshot({
        ...options,
        write: async (handle, data) =>
          ++writes === 2
            ? Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
            : handle.write(data),
      }),
      (err: Error & { code?: string }) => err.code === 'HARVEST_WRITE_FAILED' && /snapshot/.test(err.message),
    );
    assert.equal(writes, 2);
    assert.equal(
      fs.readFileSync(path.join(target, 'snapshot', 'snapshot.json'), 'utf8'),
      before,
      'the earlier snapshot is kept',
    );
    assert.deepEqual(fs.readdirSync(target), ['snapshot'], 'no temporary folder is left');
  });
});
