// Stopping an analysis: Ctrl-C (SIGINT) and SIGTERM of `sql`, `check`, `metrics` or `parquet` remove the session's
// temporary folder before the process ends; `sql --timeout` stops a runaway query; `--temp-limit` bounds what DuckDB
// spills; a `parquet` killed with kill -9 leaves `<out>.tmp-<pid>/`, which the next `parquet` removes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { runCliInProcess } from './support/cliRunner';

const CLI = path.resolve('dist/cli.js');
const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);
/** A query that runs for hours: a hash of every one of 10^12 numbers. */
const RUNAWAY = 'SELECT count(*) AS n FROM range(1000000000000) t(i) WHERE hash(i) = 42';

/** Waits until `condition` holds, polling; fails after `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('CLI: stopping sql, check, metrics and parquet', function () {
  this.timeout(120_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let harvest: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-stop-'));
    sandbox = await startSandbox({ fleetSize: 30, seed: 5, demoDir: path.join(dir, 'demo'), grpc: false });
    const base = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
    harvest = path.join(dir, 'harvest');
    const r = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      hourAt(9),
      '--to',
      hourAt(10),
      '--out',
      harvest,
      '--base-url',
      base,
      '--credential',
      sandbox.demo.credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ]);
    assert.equal(r.code, 0, r.err + r.out);
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} of a running sql removes the session's temporary folder and exits ${code}`, async () => {
      // A temporary folder of the child's own, to see its session folder come and go.
      const tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
      const child = spawn(process.execPath, [CLI, 'sql', harvest, RUNAWAY], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const ended = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      const sessionFolders = () => fs.readdirSync(tmp).filter((n) => n.startsWith(`mobility-analysis-${child.pid}-`));
      await until(
        () => sessionFolders().some((n) => fs.existsSync(path.join(tmp, n, 'harvest.duckdb'))),
        60_000,
        'the session folder',
      );
      child.kill(signal);
      assert.equal(await ended, code, err);
      assert.deepEqual(sessionFolders(), [], 'the session folder is removed');
      assert.match(err, new RegExp(`stopping \\(${signal}\\); removing the analysis's temporary folder`));
      assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');
    });
  }

  it('sql --timeout stops a runaway query with a clear message (exit 2), and refuses a timeout that is not a number of seconds', async () => {
    const r = await runCliInProcess(['sql', harvest, RUNAWAY, '--timeout', '1']);
    assert.equal(r.code, 2);
    assert.equal(
      r.err.trim(),
      'mobility-api: The query ran for 1 s, its --timeout, and was stopped. Narrow it (a WHERE on the time, a LIMIT), or give it longer with --timeout.',
    );
    const quick = await runCliInProcess([
      'sql',
      harvest,
      'SELECT count(*) AS n FROM trips',
      '--timeout',
      '30',
      '--json',
    ]);
    assert.equal(quick.code, 0, quick.err);
    for (const bad of ['0', 'soon', '-5']) {
      const refused = await runCliInProcess(['sql', harvest, 'SELECT 1', `--timeout=${bad}`]);
      assert.equal(refused.code, 2, bad);
      assert.match(refused.err, new RegExp(`--timeout ${bad}: give the most seconds the query may run`));
    }
  });

  it('--temp-limit bounds what DuckDB spills to the temporary folder, with an error that names the limit', async () => {
    // 6 million distinct strings of 64 random-looking characters under 128 MB of memory spill far more than 64 MB.
    const distinct =
      'SELECT count(*) AS n FROM (SELECT DISTINCT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS s FROM range(6000000) t(i))';
    const r = await runCliInProcess(['sql', harvest, distinct, '--memory-limit', '128MB', '--temp-limit', '64MB']);
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      /^mobility-api: The analysis needed more temporary disk space than its limit of 64MB \(.*\)\. Give it more with --temp-limit/,
    );
    const bad = await runCliInProcess(['check', harvest, '--temp-limit', 'lots']);
    assert.equal(bad.code, 2);
    assert.equal(bad.err.trim(), 'mobility-api: --temp-limit lots: give a size of 64MB or more, such as 10GB.');
  });

  it('parquet removes the <out>.tmp-<pid> folder that a parquet killed with kill -9 left, and only such folders', async () => {
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    // What a parquet killed half-way leaves in the harvest folder (its default --out is <harvest>/parquet).
    const left = path.join(harvest, `parquet.tmp-${ended}`);
    fs.mkdirSync(path.join(left, 'endpoint=trips', 'date=2026-11-20'), { recursive: true });
    fs.writeFileSync(path.join(left, 'endpoint=trips', 'date=2026-11-20', 'data_0.parquet'), 'PAR1 half written');
    // A folder named so that holds something else is not ours: it stays.
    const foreign = path.join(harvest, `notes.tmp-${ended}`);
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    const r = await runCliInProcess(['parquet', harvest]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`removed ${left.replace(/[.\\/]/g, '\\$&')}, left by a parquet that did not end`));
    assert.equal(fs.existsSync(left), false);
    assert.equal(fs.existsSync(path.join(foreign, 'notes.txt')), true);
    assert.ok(fs.existsSync(path.join(harvest, 'parquet', 'endpoint=trips')));
    fs.rmSync(path.join(harvest, 'parquet'), { recursive: true });
  });

  it('a parquet killed with kill -9 leaves its <out>.tmp-<pid> folder, which the next parquet removes', async () => {
    const out = path.join(dir, 'killed-parquet');
    const child = spawn(process.execPath, [CLI, 'parquet', harvest, '--out', out], { stdio: 'ignore' });
    const ended = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const temp = `${out}.tmp-${child.pid}`;
    await until(() => fs.existsSync(temp) || fs.existsSync(out), 60_000, 'the temporary Parquet folder');
    child.kill('SIGKILL');
    await ended;
    if (fs.existsSync(out)) return; // it had already finished: nothing was left to remove
    assert.ok(fs.existsSync(temp), 'kill -9 leaves the temporary folder');
    const r = await runCliInProcess(['parquet', harvest, '--out', out]);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.existsSync(temp), false, 'the next parquet removed it');
  });
});
