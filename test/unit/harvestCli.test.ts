import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HarvestSummary } from '../../src/core/harvest/harvestRun';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import { readHarvest, readManifest, tempFilesUnder, until } from './harvestSupport';
import type { CliRun } from './support/cliRunner';
import { runCli } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/main';
import { runCliInProcess, spawnBuiltCli } from './support/cliRunner';
import { clearOfPeriodEnd } from './support/clockBoundary';

const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
/** The day before yesterday (UTC): served by a sandbox on the real clock, whatever the time of day. */
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);

/** The built CLI as a child process that the test can signal; resolves with its exit code and output. */
function startBuiltCli(args: string[]): {
  pid: number;
  kill: (signal: NodeJS.Signals) => void;
  done: Promise<CliRun & { signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, [path.resolve('dist/cli.js'), ...args], {
    env: { ...process.env, MOBILITY_API_DEBUG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? -1, out, err, signal })),
  );
  return { pid: child.pid ?? 0, kill: (signal) => child.kill(signal), done };
}

/** Hours the manifest records as done, or 0 while there is none (or it is being replaced). */
function doneHours(outDir: string): number {
  try {
    return Object.values(readManifest(outDir).hours).filter((r) => r.status === 'items' || r.status === 'empty').length;
  } catch {
    return 0;
  }
}

/** Every done hour's file has the size the manifest records, and no other hour file or temporary file exists. */
function assertConsistent(outDir: string): void {
  const manifest = readManifest(outDir);
  const done = Object.entries(manifest.hours).filter(([, r]) => r.status === 'items' || r.status === 'empty');
  for (const [hour, record] of done)
    assert.equal(fs.statSync(path.join(outDir, 'trips', `${hour}.ndjson`)).size, record.bytes, hour);
  assert.deepEqual(
    fs
      .readdirSync(path.join(outDir, 'trips'))
      .filter((f) => !f.startsWith('.'))
      .sort(),
    done.map(([h]) => `${h}.ndjson`).sort(),
  );
}

describe('CLI: mobility-api harvest', function () {
  this.timeout(90_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let folders = 0;
  const truth = new SyntheticFleet({ size: 120, seed: 7, createdAt: Date.now() });
  const tripsIn = (from: number, to: number) =>
    [...Array(to - from + 1).keys()].reduce(
      (n, i) => n + truth.world.countTripsEndingIn(DAY_START + (from + i) * HOUR),
      0,
    );
  const mds = () => sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
  const credential = (precision: 'seconds' | 'milliseconds' = 'milliseconds') => [
    '--base-url',
    mds(),
    '--credential',
    sandbox.demo.credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    precision,
  ];
  const out = () => path.join(dir, `out-${++folders}`);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-cli-'));
    sandbox = await startSandbox({ fleetSize: 120, seed: 7, demoDir: path.join(dir, 'demo') });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('harvests a range: progress on stderr line by line, the coverage summary on stdout, exit 0', async () => {
    const folder = out();
    const r = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      hourAt(9),
      '--to',
      hourAt(11),
      '--out',
      folder,
      ...credential(),
    ]);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(
      r.err,
      new RegExp(
        `^\\[1/3\\] ${hourAt(9)} (?:[\\d,]+ items?|empty \\(200, no items\\)) \\(\\d+ ms\\) · [\\d,]+ items? · [\\d.]+ items/s · ETA \\d+ s$`,
        'm',
      ),
    );
    assert.match(r.err, new RegExp(`^\\[3/3\\] ${hourAt(11)} `, 'm'));
    assert.match(r.out, new RegExp(`^  with items +3   ${tripsIn(9, 11).toLocaleString('en-US')} items`, 'm'));
    assert.match(r.out, /^Complete: every hour has items or is empty\.$/m);
    assert.equal(readHarvest(folder, 'trips').length, tripsIn(9, 11));

    const again = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      hourAt(9),
      '--to',
      hourAt(12),
      '--out',
      folder,
      ...credential(),
      '--json',
    ]);
    assert.equal(again.code, 0, again.err);
    const summary = JSON.parse(again.out) as HarvestSummary;
    assert.equal(summary.skipped, 3);
    assert.equal(summary.fetched, 1);
    assert.equal(summary.items, tripsIn(9, 12));
    assert.match(again.err, /3 hours of 4 already done in this folder: skipped/);
  });

  it('on a terminal, progress is one updating status line, and only waits and hours not done get lines of their own', async () => {
    const status: string[] = [];
    let err = '';
    let printed = '';
    // The hour before the sandbox's world starts (35 days of history) is 404; the two after it are served. Not in the
    // last minute of a UTC day: the world's start moves with the day.
    await clearOfPeriodEnd(DAY_MS, 60_000);
    const beforeWorld = Math.floor(Date.now() / DAY_MS) * DAY_MS - 35 * DAY_MS - HOUR;
    const [missing, served, last] = [0, 1, 2].map((i) => new Date(beforeWorld + i * HOUR).toISOString().slice(0, 13));
    const io: CliIo = {
      out: (t) => (printed += `${t}\n`),
      err: (t) => (err += `${t}\n`),
      readStdin: () => Promise.resolve(''),
      env: {},
      untilStopped: () => new Promise(() => undefined),
      statusLine: (t) => status.push(t),
    };
    const code = await runCli(
      ['harvest', 'trips', '--from', missing, '--to', last, '--out', out(), ...credential()],
      io,
    );
    assert.equal(code, 1, err);
    assert.ok(
      status.some((line) => new RegExp(`^\\[1/3\\] ${served} · [\\d,]+ items? · [\\d.]+ items/s`).test(line)),
      status.join('\n'),
    );
    assert.equal(status.at(-1), '', 'the status line is cleared at the end');
    assert.doesNotMatch(err, new RegExp(`\\] ${served} `), 'a done hour gets no line of its own');
    assert.match(err, new RegExp(`^\\[1/3\\] ${missing} not found \\(404\\)`, 'm'));
    assert.match(printed, /^Incomplete: /m);
  });

  it('exit 1 when an hour is not done (a future hour is 404), listing it; events harvest events_historical', async () => {
    const future = new Date(Date.now() + 2 * HOUR).toISOString().slice(0, 13);
    const r = await runCliInProcess([
      'harvest',
      'events',
      '--from',
      future,
      '--to',
      future,
      '--out',
      out(),
      ...credential(),
    ]);
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /^Harvest of events_historical from /m);
    assert.match(r.out, /^ {2}404 not found +1 /m);
    assert.match(r.out, new RegExp(`^  ${future}  not found \\(404\\)$`, 'm'));
    assert.match(r.out, /^Incomplete: 1 hour not done; run the same command again to retry them/m);
  });

  it('at second precision, says that one key signs one token per second and that --precision milliseconds is faster', async () => {
    const r = await runCliInProcess([
      'harvest',
      'telemetry',
      '--from',
      hourAt(3),
      '--to',
      hourAt(3),
      '--out',
      out(),
      ...credential('seconds'),
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /one key signs at most one token per second \(spec 5\.1 rule 6/);
    assert.match(r.err, /--precision milliseconds\) is faster/);
  });

  it('bad input: exit 2 with what to fix', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['harvest', 'vehicles', '--from', hourAt(1), '--to', hourAt(1), '--out', out()],
        /harvest takes an endpoint, or several separated by commas: trips, events, telemetry \(e\.g\. trips,events,telemetry\), not "vehicles"/,
      ],
      [['harvest', 'trips,vehicles', '--from', hourAt(1), '--to', hourAt(1), '--out', out()], /not "trips,vehicles"/],
      [
        ['harvest', 'events,trips,events_historical', '--from', hourAt(1), '--to', hourAt(1), '--out', out()],
        /events is named twice in "events,trips,events_historical"; name each endpoint once/,
      ],
      [['harvest', 'trips', '--from', hourAt(1), '--to', hourAt(1)], /harvest needs --out <folder>/],
      [
        ['harvest', 'trips', '--from', '2025-13-01T00', '--to', hourAt(1), '--out', out()],
        /The first hour "2025-13-01T00" is not a UTC hour; write YYYY-MM-DDTHH/,
      ],
      [['harvest', 'trips', '--from', hourAt(2), '--to', hourAt(1), '--out', out()], /is before the first hour/],
      [
        ['harvest', 'trips', '--from', hourAt(1), '--to', hourAt(1), '--out', out(), '--max-202-attempts', '0'],
        /--max-202-attempts must be a whole number from 1 to 1000, not "0"/,
      ],
      [
        [
          'harvest',
          'trips',
          '--from',
          hourAt(1),
          '--to',
          hourAt(1),
          '--out',
          out(),
          '--header',
          'Authorization: Bearer X',
        ],
        /--header sets Authorization\. mobility-api signs a fresh token for every request \(spec 5\.1 rule 4\).*harvest sends many requests, so it cannot send a fixed token/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCliInProcess([...args, ...credential()]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
    }
    const folder = out();
    assert.equal(
      (
        await runCliInProcess([
          'harvest',
          'trips',
          '--from',
          hourAt(1),
          '--to',
          hourAt(1),
          '--out',
          folder,
          ...credential(),
        ])
      ).code,
      0,
    );
    const other = await runCliInProcess([
      'harvest',
      'telemetry',
      '--from',
      hourAt(1),
      '--to',
      hourAt(1),
      '--out',
      folder,
      ...credential(),
    ]);
    assert.equal(other.code, 2);
    assert.match(other.err, /holds a harvest of trips, not telemetry\. Harvest telemetry into another folder/);
  });

  it('resumes after kill -9 in the middle: the output holds every trip of the day once, and no partial file', async () => {
    const folder = out();
    const args = ['harvest', 'trips', '--from', hourAt(0), '--to', hourAt(23), '--out', folder];
    // At second precision one hour takes about a second: time to kill it in the middle.
    const first = startBuiltCli([...args, ...credential('seconds')]);
    await until('the manifest records 3 hours', () => doneHours(folder) >= 3);
    first.kill('SIGKILL');
    const killed = await first.done;
    assert.equal(killed.signal, 'SIGKILL');
    assert.ok(doneHours(folder) < 24, 'it was killed before the end');

    const second = await spawnBuiltCli([...args, ...credential('milliseconds')]);
    assert.equal(second.code, 0, second.err + second.out);
    assert.match(second.err, /hours of 24 already done in this folder: skipped/);
    const items = readHarvest(folder, 'trips');
    assert.equal(items.length, tripsIn(0, 23));
    assert.equal(new Set(items.map((i) => i.item.trip_id)).size, items.length, 'no trip twice');
    assert.deepEqual(tempFilesUnder(folder), []);
    assertConsistent(folder);
  });

  it('Ctrl-C stops after the current request with exit 130, leaving a consistent folder that the same command resumes', async () => {
    const folder = out();
    const args = ['harvest', 'trips', '--from', hourAt(0), '--to', hourAt(23), '--out', folder];
    const run = startBuiltCli([...args, ...credential('seconds')]);
    await until('the manifest records an hour', () => doneHours(folder) >= 1);
    run.kill('SIGINT');
    const stopped = await run.done;
    assert.equal(stopped.code, 130, stopped.err);
    assert.match(stopped.err, /stopping after the current request; the folder stays consistent/);
    assert.match(
      stopped.out,
      /^Stopped by the user: the hours finished are recorded; run the same command again to resume\.$/m,
    );
    assert.deepEqual(tempFilesUnder(folder), []);
    assertConsistent(folder);
    assert.ok(doneHours(folder) < 24);

    const resumed = await spawnBuiltCli([...args, ...credential('milliseconds')]);
    assert.equal(resumed.code, 0, resumed.err);
    assert.equal(readHarvest(folder, 'trips').length, tripsIn(0, 23));
  });
});
