// kill -9 while earlier hours' files are still being flushed: the harvest fetches the next hour while
// the disk writes the last one, so a crash can land with several hours between "fetched" and "recorded".
// The child is this file run by plain Node (HARVEST_CRASH_CHILD set): it harvests and SIGKILLs itself
// at a chosen event, exactly where the window is.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Environment } from '../../src/core/environment/environment';
import type { HarvestWrite } from '../../src/core/harvest/harvestFiles';
import { writeAll } from '../../src/core/harvest/harvestFiles';
import type { HarvestManifest } from '../../src/core/harvest/harvestManifest';
import { harvestHours } from '../../src/core/harvest/harvestRun';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import { clientOn, demoCredential, mdsEnvironment, readHarvest, readManifest, tempFilesUnder } from './harvestSupport';

/** What the parent tells a child: where to harvest, on which clock, and at which event to die. */
interface CrashJob {
  environment: Environment;
  key: { kid: string; issuer: string; privateKeyFile: string };
  sandboxNow: number;
  t0: number;
  from: string;
  to: string;
  outDir: string;
  killAt: { phase: 'request' | 'page'; hour: string };
}

const NOW = Date.UTC(2025, 10, 5, 15, 37, 12);
const DAY = '2025-11-04';
const hourMs = (hour: string) => Date.parse(`${hour}:00:00Z`);
const hourOf = (h: number) => `${DAY}T${String(h).padStart(2, '0')}`;

function runChild(job: CrashJob): void {
  const now = () => job.sandboxNow + (Date.now() - job.t0);
  const credential = parseCredential({
    kind: 'ec',
    type: 'external-org',
    kid: job.key.kid,
    issuer: job.key.issuer,
    privateKey: fs.readFileSync(job.key.privateKeyFile, 'utf8'),
  }).credential;
  harvestHours({
    client: clientOn(now),
    environment: job.environment,
    credential,
    endpoint: 'trips',
    from: job.from,
    to: job.to,
    outDir: job.outDir,
    // The manifest as fresh as it gets: rewritten after every hour that is recorded.
    manifestIntervalMs: 0,
    onProgress: (p) => {
      if (p.phase === job.killAt.phase && p.hour === job.killAt.hour) process.kill(process.pid, 'SIGKILL');
    },
  }).then(
    () => process.exit(3),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(2);
    },
  );
}

/** Runs a child to its self-inflicted SIGKILL; fails when it ends any other way. */
function crashChild(job: CrashJob): Promise<void> {
  const child = fork(__filename, [], {
    env: { ...process.env, HARVEST_CRASH_CHILD: JSON.stringify(job) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      signal === 'SIGKILL'
        ? resolve()
        : reject(new Error(`the child ended with ${String(code)} / ${String(signal)}, not SIGKILL: ${err}`)),
    );
  });
}

/** What a crash may leave: every hour the manifest records as done has its whole file (extra files are fine). */
function assertNothingHalfRecorded(outDir: string, notRecorded: string): void {
  if (!fs.existsSync(path.join(outDir, 'manifest.json'))) return;
  const manifest = readManifest(outDir);
  assert.equal(
    manifest.hours[notRecorded],
    undefined,
    `${notRecorded} was being fetched when killed: it is not recorded`,
  );
  for (const [hour, record] of Object.entries(manifest.hours)) {
    if (record.status !== 'items' && record.status !== 'empty') continue;
    const file = path.join(outDir, 'trips', `${hour}.ndjson`);
    assert.ok(fs.existsSync(file), `${hour} is recorded as done, so its file is there`);
    assert.equal(fs.statSync(file).size, record.bytes, `${hour} is recorded with its file's size`);
  }
}

if (process.env.HARVEST_CRASH_CHILD) {
  runChild(JSON.parse(process.env.HARVEST_CRASH_CHILD) as CrashJob);
} else {
  describe('harvest: kill -9 while hour files are still being flushed', function () {
    this.timeout(90_000);
    const T0 = Date.now();
    const now = () => NOW + (Date.now() - T0);
    const truth = new SyntheticFleet({ size: 120, seed: 7, createdAt: NOW });
    let sandbox: RunningSandbox;
    let dir: string;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-crash-'));
      sandbox = await startSandbox({ fleetSize: 120, seed: 7, now });
    });
    after(async () => {
      await sandbox?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('every manifest it writes records only hours whose files are whole and in place', async () => {
      const outDir = path.join(dir, 'watched');
      let manifests = 0;
      const checkedHours = new Set<string>();
      const checked: HarvestWrite = async (handle, data) => {
        // The manifest (pretty-printed, "{\n...") is checked as it is written, before it can replace the last one.
        if (data[0] === 0x7b && data[1] === 0x0a) {
          manifests++;
          const hours = (JSON.parse(Buffer.from(data).toString('utf8')) as HarvestManifest).hours;
          for (const [hour, record] of Object.entries(hours)) {
            if (record.status !== 'items' && record.status !== 'empty') continue;
            const size = fs.statSync(path.join(outDir, 'trips', `${hour}.ndjson`), { throwIfNoEntry: false })?.size;
            assert.equal(
              size,
              record.bytes,
              `manifest ${manifests} records ${hour} with ${record.bytes} bytes, and its file has ${String(size)}`,
            );
            checkedHours.add(hour);
          }
        }
        await writeAll(handle, data);
      };
      const summary = await harvestHours({
        client: clientOn(now),
        environment: mdsEnvironment(sandbox),
        credential: demoCredential(sandbox),
        endpoint: 'trips',
        from: hourOf(0),
        to: hourOf(23),
        outDir,
        manifestIntervalMs: 0,
        write: checked,
      });
      assert.equal(summary.complete, true);
      // Every hour was in a manifest checked as it was written. A write records every hour whose file is on disk by
      // then, so hours whose files settle together share one (19 writes for 24 hours in a loaded run); with at most
      // three hours in flight, the run writes it at least once every three hours.
      assert.deepEqual(
        [...checkedHours].sort(),
        [...Array(24).keys()].map(hourOf),
        'every hour was checked in a manifest',
      );
      assert.ok(
        manifests >= 8,
        `the manifest was written while the hours finished, not only at the end (${manifests} times)`,
      );
    });

    it('leaves no hour recorded before its file is whole, and the rerun holds every trip once', async () => {
      const from = hourOf(0);
      const to = hourOf(23);
      const expected = [...Array(24).keys()].reduce((n, h) => n + truth.world.countTripsEndingIn(hourMs(hourOf(h))), 0);
      // Killed as the next hour's request starts (the previous hours' files still flushing), or after its
      // first page is in its temporary file.
      const kills: CrashJob['killAt'][] = [
        { phase: 'request', hour: hourOf(1) },
        { phase: 'request', hour: hourOf(3) },
        { phase: 'page', hour: hourOf(5) },
        { phase: 'request', hour: hourOf(9) },
      ];
      const key = { kid: sandbox.demo.kid, issuer: sandbox.demo.issuer, privateKeyFile: sandbox.demo.privateKeyFile };
      const folders = kills.map((_, i) => path.join(dir, `out-${i}`));
      for (const [i, killAt] of kills.entries()) {
        await crashChild({
          environment: mdsEnvironment(sandbox),
          key,
          sandboxNow: NOW,
          t0: T0,
          from,
          to,
          outDir: folders[i],
          killAt,
        });
        assertNothingHalfRecorded(folders[i], killAt.hour);
      }
      // Resumed together (each waits for the killed run's lock to go stale), with one client: one
      // clock for the one key, so that every token's iat is later than the last.
      const client = clientOn(now);
      const reruns = await Promise.all(
        folders.map((outDir) =>
          harvestHours({
            client,
            environment: mdsEnvironment(sandbox),
            credential: demoCredential(sandbox),
            endpoint: 'trips',
            from,
            to,
            outDir,
          }),
        ),
      );
      for (const [i, outDir] of folders.entries()) {
        assert.equal(reruns[i].complete, true, JSON.stringify(reruns[i].notDone));
        const items = readHarvest(outDir, 'trips');
        assert.equal(items.length, expected, `${outDir}: every trip of the day`);
        assert.equal(new Set(items.map((it) => it.item.trip_id)).size, expected, `${outDir}: no trip twice`);
        assert.deepEqual(tempFilesUnder(outDir), []);
        const manifest = readManifest(outDir);
        for (const name of fs.readdirSync(path.join(outDir, 'trips'))) {
          const hour = name.slice(0, -'.ndjson'.length);
          assert.equal(
            fs.statSync(path.join(outDir, 'trips', name)).size,
            manifest.hours[hour]?.bytes,
            `${name} is recorded with its size`,
          );
        }
      }
    });
  });
}
