import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import type { HarvestWrite } from '../../src/core/harvest/harvestFiles';
import { writeAll } from '../../src/core/harvest/harvestFiles';
import type { HarvestOptions } from '../../src/core/harvest/harvestRun';
import { harvestHours } from '../../src/core/harvest/harvestRun';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import {
  clientOn,
  demoCredential,
  mdsEnvironment,
  readHarvest,
  readManifest,
  tempFilesUnder,
  until,
} from './harvestSupport';
import { makeTestCredential } from './support/testCredentials';
import type { TestServer } from './support/testServer';
import { startCannedServer } from './support/testServer';

const NOW = Date.UTC(2025, 10, 5, 15, 37, 12);
const T0 = Date.now();
const now = () => NOW + (Date.now() - T0);
const DAY = '2025-11-04';
const hourMs = (hour: string) => Date.parse(`${hour}:00:00Z`);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const fails = (code: string, message?: RegExp) => (e: unknown) =>
  e instanceof MobilityError && e.code === code && (!message || message.test(e.message));

/** A write function that fails like a full disk at the `nth` write of an hour file (the manifest, pretty-printed, starts with "{\n"). */
function diskFullAtHourWrite(nth: number): HarvestWrite {
  let hourWrites = 0;
  return async (handle, data) => {
    const isManifest = data[0] === 0x7b && data[1] === 0x0a;
    if (!isManifest && ++hourWrites >= nth)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    await writeAll(handle, data);
  };
}

describe('harvest: full and read-only disks, locks, interruptions and conformance', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let folders = 0;
  const servers: TestServer[] = [];
  const truth = new SyntheticFleet({ size: 120, seed: 7, createdAt: NOW });
  const optionsFor = (extra: Partial<HarvestOptions>): HarvestOptions => ({
    client: clientOn(now),
    environment: mdsEnvironment(sandbox),
    credential: demoCredential(sandbox),
    endpoint: 'trips',
    from: `${DAY}T08`,
    to: `${DAY}T13`,
    outDir: path.join(dir, `out-${++folders}`),
    retry: { backoffBaseMs: 5 },
    ...extra,
  });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-faults-'));
    sandbox = await startSandbox({
      fleetSize: 120,
      seed: 7,
      now,
      faults: [{ endpoint: 'trips', hour: `${DAY}T00`, status: 202, times: 1_000_000 }],
    });
  });
  after(async () => {
    await sandbox?.close();
    await Promise.all(servers.map((s) => s.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a full disk stops the run with a clear error naming the file; finished hours stay, nothing half-written counts, and a rerun completes', async () => {
    const options = optionsFor({});
    // Room for two hours of trips (one page each), then ENOSPC while the third is written.
    assert.ok(
      truth.world.countTripsEndingIn(hourMs(`${DAY}T08`)) > 0 &&
        truth.world.countTripsEndingIn(hourMs(`${DAY}T09`)) > 0,
    );
    await assert.rejects(
      harvestHours({ ...options, write: diskFullAtHourWrite(3) }),
      fails(
        'HARVEST_WRITE_FAILED',
        new RegExp(
          `Cannot write ${options.outDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*the disk is full \\(ENOSPC\\)\\. Free some space, or harvest into a folder on another disk`,
        ),
      ),
    );
    const manifest = readManifest(options.outDir);
    const done = Object.entries(manifest.hours).filter(([, r]) => r.status === 'items');
    assert.deepEqual(
      done.map(([hour]) => hour),
      [`${DAY}T08`, `${DAY}T09`],
      'the hours finished before the disk filled are recorded',
    );
    assert.equal(manifest.hours[`${DAY}T10`], undefined, 'the hour being written is not recorded');
    for (const [hour, record] of done)
      assert.equal(fs.statSync(path.join(options.outDir, 'trips', `${hour}.ndjson`)).size, record.bytes);
    assert.deepEqual(tempFilesUnder(options.outDir), [], 'no temporary file is left behind');
    const files = fs.readdirSync(path.join(options.outDir, 'trips'));
    assert.deepEqual(
      files.sort(),
      done.map(([h]) => `${h}.ndjson`).sort(),
      'every hour file is one the manifest records as done',
    );

    const rerun = await harvestHours(options);
    assert.equal(rerun.complete, true);
    const items = readHarvest(options.outDir, 'trips');
    const expected = [8, 9, 10, 11, 12, 13].reduce(
      (n, h) => n + truth.world.countTripsEndingIn(hourMs(`${DAY}T${String(h).padStart(2, '0')}`)),
      0,
    );
    assert.equal(items.length, expected);
    assert.equal(new Set(items.map((i) => i.item.trip_id)).size, expected);
  });

  it('a manifest that cannot be written as the run ends fails the run with a clear error; a rerun completes', async () => {
    // Room for every hour file; ENOSPC for the manifest. With an interval of an hour, the one manifest write
    // of this short run is the last one, after every hour file is on disk.
    let manifestWrites = 0;
    const manifestFails: HarvestWrite = async (handle, data) => {
      const isManifest = data[0] === 0x7b && data[1] === 0x0a;
      if (isManifest) {
        manifestWrites++;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      await writeAll(handle, data);
    };
    const options = optionsFor({ manifestIntervalMs: 3_600_000 });
    await assert.rejects(
      harvestHours({ ...options, write: manifestFails }),
      fails('HARVEST_WRITE_FAILED', /manifest\.json.*the disk is full \(ENOSPC\)/),
    );
    assert.equal(manifestWrites, 1, 'the run tried to write its manifest once, as it ended');
    assert.equal(fs.existsSync(path.join(options.outDir, 'manifest.json')), false, 'no half-written manifest');
    assert.deepEqual(tempFilesUnder(options.outDir), []);
    const rerun = await harvestHours(options);
    assert.equal(rerun.complete, true);
    const expected = [8, 9, 10, 11, 12, 13].reduce(
      (n, h) => n + truth.world.countTripsEndingIn(hourMs(`${DAY}T${String(h).padStart(2, '0')}`)),
      0,
    );
    assert.equal(readHarvest(options.outDir, 'trips').length, expected, 'the rerun has every item once');
  });

  it('a read-only file system or an --out under a regular file: a clear error naming the path, nothing recorded', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'not a folder');
    await assert.rejects(
      harvestHours(optionsFor({ outDir: path.join(file, 'out') })),
      fails(
        'HARVEST_WRITE_FAILED',
        /Cannot create the folder .*a-file\/out: a part of that path is a file, not a folder \(ENOTDIR\)\. Choose another --out folder/,
      ),
    );
    const readOnly: HarvestWrite = () =>
      Promise.reject(Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' }));
    const options = optionsFor({ write: readOnly });
    await assert.rejects(
      harvestHours(options),
      fails(
        'HARVEST_WRITE_FAILED',
        /Cannot write .*: the folder .*out-\d+(.trips)? is not writable: its file system is read-only \(EROFS\)\. Choose an --out folder on a writable disk/,
      ),
    );
    assert.equal(fs.existsSync(path.join(options.outDir, 'manifest.json')), false);
    assert.deepEqual(tempFilesUnder(options.outDir), []);
  });

  it('an --out folder on a read-only file system says which folder is not writable, never ENOENT', async () => {
    // Node's recursive mkdir reports ENOENT where the file system is read-only; one folder at a time it says EROFS.
    // Root writes through chmod, so the read-only disk is played by mkdir itself (the harvest's folder calls).
    const readOnly = path.join(dir, 'read-only-disk');
    fs.mkdirSync(readOnly);
    const realMkdir = fs.promises.mkdir;
    const inside = (p: fs.PathLike) => String(p).startsWith(`${readOnly}${path.sep}`);
    fs.promises.mkdir = (async (p: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
      if (!inside(p)) return realMkdir(p, options);
      const code = options?.recursive ? 'ENOENT' : 'EROFS';
      throw Object.assign(
        new Error(
          `${code}: ${code === 'EROFS' ? 'read-only file system' : 'no such file or directory'}, mkdir '${String(p)}'`,
        ),
        { code, path: String(p) },
      );
    }) as typeof fs.promises.mkdir;
    try {
      const outDir = path.join(readOnly, 'harvests', 'trips');
      const error = await harvestHours(optionsFor({ outDir })).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof MobilityError && error.code === 'HARVEST_WRITE_FAILED', String(error));
      assert.match(
        error.message,
        new RegExp(
          `^Cannot create the folder ${escapeRegExp(outDir)}: the folder ${escapeRegExp(readOnly)} is not writable: its file system is read-only \\(EROFS\\)\\. Choose an --out folder on a writable disk`,
        ),
      );
      assert.doesNotMatch(error.message, /ENOENT|no such file/);
    } finally {
      fs.promises.mkdir = realMkdir;
    }
  });

  it('a second harvest of the same folder is refused while the first runs; the first stops cleanly when aborted', async () => {
    // The first harvest's first hour answers 202 for ever: it keeps the lock while it waits.
    const stop = new AbortController();
    let waiting = false;
    const first = optionsFor({
      from: `${DAY}T00`,
      to: `${DAY}T02`,
      signal: stop.signal,
      retry: { max202Attempts: 1000, max202WaitSeconds: 5 },
      onProgress: (p) => (waiting ||= p.phase === 'waiting'),
    });
    const running = harvestHours(first);
    await until('the first harvest waits for its 202', () => waiting);
    await assert.rejects(
      harvestHours({ ...first, signal: undefined, onProgress: undefined, lockWaitMs: 0 }),
      fails(
        'HARVEST_FOLDER_IN_USE',
        new RegExp(`Another harvest is writing the folder ${first.outDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      ),
    );
    stop.abort();
    const summary = await running;
    assert.equal(summary.interrupted, true);
    assert.equal(summary.notReached, 3);
    assert.deepEqual(tempFilesUnder(first.outDir), []);
    assert.deepEqual(readManifest(first.outDir).hours, {}, 'the interrupted hour is not recorded');
    // The lock is released: another run takes the folder at once.
    const next = await harvestHours({
      ...first,
      from: `${DAY}T01`,
      to: `${DAY}T02`,
      signal: undefined,
      onProgress: undefined,
      lockWaitMs: 0,
    });
    assert.equal(next.complete, true);
  });

  it('--validate records zero findings for the sandbox, per hour and in total', async () => {
    const options = optionsFor({ from: `${DAY}T12`, to: `${DAY}T13`, validate: true });
    const summary = await harvestHours(options);
    const manifest = readManifest(options.outDir);
    assert.equal(manifest.validatedMode, 'micromobility');
    for (const hour of [`${DAY}T12`, `${DAY}T13`]) {
      assert.equal(manifest.hours[hour]?.conformance?.findingCount, 0);
      assert.equal(manifest.hours[hour]?.conformance?.itemsChecked, truth.world.countTripsEndingIn(hourMs(hour)));
    }
    assert.equal(summary.conformance?.conforms, true);
  });

  it("--validate records a non-conformant provider's findings: a count per rule and two examples", async () => {
    const server = await startCannedServer((req) => {
      const hour = req.query.get('end_time') ?? '';
      const trips = [1, 2, 3].map((n) => ({ trip_id: `not-a-uuid-${hour}-${n}`, provider_id: 'x' }));
      return { status: 200, body: { version: '2.0.0', trips } };
    });
    servers.push(server);
    const environment: Environment = {
      id: 'canned',
      name: 'canned',
      api: 'mds',
      stage: 'staging',
      baseUrl: `${server.url}/mds`,
    };
    const options: HarvestOptions = {
      ...optionsFor({ from: `${DAY}T12`, to: `${DAY}T13`, validate: true }),
      environment,
      credential: makeTestCredential(),
    };
    const summary = await harvestHours(options);
    const record = readManifest(options.outDir).hours[`${DAY}T12`];
    assert.equal(record?.status, 'items');
    assert.equal(record?.conformance?.conforms, false);
    assert.equal(record?.conformance?.itemsWithFindings, 3);
    const rules = record?.conformance?.rules ?? [];
    assert.ok(rules.length > 0);
    for (const rule of rules) assert.ok(rule.examples.length <= 2, 'at most two examples per rule');
    const uuid = rules.find((r) => r.where === '/trips/*/trip_id');
    assert.equal(uuid?.count, 3, JSON.stringify(rules.map((r) => [r.where, r.message])));
    assert.equal(summary.conformance?.itemsWithFindings, 6);
    assert.equal(summary.conformance?.rules.find((r) => r.where === '/trips/*/trip_id')?.count, 6);
  });
});
