// Real processes against the real sandbox: the built CLI in shell loops and scripts on the core, all
// signing with one key through one state folder. This file is also the child script: run as
// `node out/test/unit/sharedClock.test.js` with SHARED_CLOCK_CHILD set, it plays the role named there.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../../src/core/http/apiClient';
import { decodeJwt } from '../../src/core/auth/decodeJwt';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { FileClockStore, keyIdDigest } from '../../src/core/clock/fileClockStore';
import { STATE_DIR_RULE } from '../../src/core/clock/stateDir';
import {
  CLOCK_LOCK_REFRESH_SECONDS,
  CLOCK_LOCK_STALE_SECONDS,
  sharedClockLines,
} from '../../src/core/codegen/codeRequest';
import { IssueClock } from '../../src/core/clock/issueClock';
import { lintToken } from '../../src/core/auth/lintToken';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { openSharedClock, stateDirOption } from '../../src/core/clock/sharedClock';
import { SharedKeyQueue } from '../../src/core/clock/sharedKeyQueue';
import { acquireCrossProcessLock, LOCK_STALE_MS, LOCK_UPDATE_MS } from '../../src/core/clock/crossProcessLock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { migrateGlobalStateClock } from '../../src/vscode/platform/globalStateClockStore';
import { runCliInProcess } from './support/cliRunner';
import { waitFor } from './support/waitUntil';

const CHILD_ROLE = process.env.SHARED_CLOCK_CHILD;
const THIS_FILE = __filename;

// ---------------------------------------------------------------- child roles

async function runChild(role: string): Promise<void> {
  const stateDir = process.env.STATE_DIR!;
  if (role === 'requests') {
    const demo = JSON.parse(fs.readFileSync(process.env.CREDENTIAL_FILE!, 'utf8')) as {
      kid: string;
      issuer: string;
      privateKeyFile: string;
    };
    const credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      kid: demo.kid,
      issuer: demo.issuer,
      privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
    }).credential;
    const environment: Environment = {
      id: 'mds-staging',
      name: 'mds',
      api: 'mds',
      stage: 'staging',
      baseUrl: process.env.BASE_URL!,
    };
    const shared = openSharedClock(stateDir);
    const client = new ApiClient({
      issuer: new TokenIssuer({ clock: new IssueClock({ store: shared.store, precision: 'milliseconds' }) }),
      queue: shared.queue,
    });
    process.stdout.write('ready\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    // All at once: the in-process queue orders them, the key's lock folder orders them against the other processes.
    const listings = await Promise.all(
      Array.from({ length: Number(process.env.COUNT) }, () => client.listVehicles(environment, credential)),
    );
    process.stdout.write(`${JSON.stringify(listings.map((l) => l.pages[0].status))}\n`);
    process.exit(0);
  }
  if (role === 'hold-store') {
    await new FileClockStore(stateDir).update('k', () => {
      fs.writeSync(1, 'holding\n');
      // Never returns: the lock stays held (and is no longer refreshed) until the process is killed.
      for (;;) {
        /* spin */
      }
    });
  }
  if (role === 'hold-key') {
    await new SharedKeyQueue(stateDir).acquire(process.env.KEY_ID!);
    process.stdout.write('holding\n');
    setInterval(() => undefined, 60_000);
  }
}

// ---------------------------------------------------------------- helpers for the tests

/** Resolves with everything the child printed once `predicate` holds for it. */
function waitForOutput(child: ChildProcess, predicate: (out: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (predicate(out)) {
        child.stdout!.off('data', onData);
        resolve(out);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) =>
      predicate(out)
        ? resolve(out)
        : reject(new Error(`the child ended (${code}) before it printed what was awaited; it printed: ${out}`)),
    );
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

function spawnChild(role: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--enable-source-maps', THIS_FILE], {
    env: { ...process.env, SHARED_CLOCK_CHILD: role, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

// ---------------------------------------------------------------- tests

if (CHILD_ROLE) {
  runChild(CHILD_ROLE).catch((err: unknown) => {
    process.stderr.write(`child ${CHILD_ROLE} failed: ${String((err as Error)?.stack ?? err)}\n`);
    process.exit(3);
  });
} else {
  describe('the shared issue clock across processes (spec 5.1 rule 6)', function () {
    this.timeout(90_000);
    let dir: string;
    const children: ChildProcess[] = [];
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-clock-'))));
    afterEach(async () => {
      for (const child of children.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited(child);
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    });

    describe('against the sandbox', () => {
      let sandbox: RunningSandbox;
      const served: SandboxRequestLog[] = [];
      beforeEach(async () => {
        served.length = 0;
        // No skew allowed: an iat after the sandbox's clock is refused, so millisecond times must not lead it.
        sandbox = await startSandbox({
          fleetSize: 10,
          pageSize: 10,
          maxSkewSeconds: 0,
          onRequest: (entry) => served.push(entry),
        });
      });
      afterEach(() => sandbox.close());

      it('two shell loops of the built CLI and a script on the core, started at once on one key, get no refusal', async () => {
        const perProcess = 12;
        const base = sandbox.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
        const stateDir = path.join(dir, 'state');
        const cli = path.resolve('dist/cli.js');
        const loop = `read go; i=0; while [ $i -lt ${perProcess} ]; do "${process.execPath}" "${cli}" vehicles --api mds --base-url "${base}" --credential "${sandbox.demo.credentialFile}" --precision milliseconds --state-dir "${stateDir}" >/dev/null || exit $?; i=$((i+1)); done`;
        const loops = [0, 1].map(() => spawn('sh', ['-c', loop], { stdio: ['pipe', 'inherit', 'inherit'] }));
        const script = spawnChild('requests', {
          STATE_DIR: stateDir,
          BASE_URL: base,
          CREDENTIAL_FILE: sandbox.demo.credentialFile,
          COUNT: String(perProcess),
        });
        children.push(...loops, script);
        await waitForOutput(script, (out) => out.includes('ready'));
        const results = waitForOutput(script, (out) => /\[.*\]/.test(out));
        for (const child of [...loops, script]) child.stdin!.write('go\n');

        const codes = await Promise.all([...loops, script].map(exited));
        const statuses = JSON.parse(/\[.*\]/.exec(await results)![0]) as number[];
        const refusals = served.filter((e) => e.status === 401).map((e) => `${e.rule}: ${e.description}`);
        assert.deepEqual(refusals, [], 'the sandbox refused no token');
        assert.deepEqual(codes, [0, 0, 0], 'every CLI run and the script succeeded');
        assert.deepEqual(
          statuses,
          Array.from({ length: perProcess }, () => 200),
        );
        assert.equal(served.filter((e) => e.status === 200 && e.path.endsWith('/vehicles')).length, 3 * perProcess);
        const marks = await new FileClockStore(stateDir).readMarks();
        assert.deepEqual(Object.keys(marks), [keyIdDigest(sandbox.demo.kid)], 'one mark, for the one key');
      });
    });

    it('millisecond tokens issued at .000, .001, .500 and .999 of a second pass the sandbox allowing no skew, and lint without errors', async () => {
      const second = Math.floor(Date.now() / 1000) * 1000;
      let nowMs = second;
      const sandbox = await startSandbox({ fleetSize: 1, maxSkewSeconds: 0, now: () => nowMs });
      try {
        const demo = sandbox.demo;
        const credential = parseCredential({
          kind: 'ec',
          type: 'external-org',
          kid: demo.kid,
          issuer: demo.issuer,
          privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
        }).credential;
        const mds = sandbox.environments.find((e) => e.id === 'mds-staging')!;
        const environment: Environment = {
          id: mds.id,
          name: mds.id,
          api: 'mds',
          stage: 'staging',
          baseUrl: mds.baseUrl,
        };
        const client = new ApiClient({
          issuer: new TokenIssuer({
            clock: new IssueClock({ precision: 'milliseconds', now: () => nowMs }),
            lifetimeSeconds: 60,
          }),
        });
        for (const ms of [0, 1, 500, 999, 1000, 1999]) {
          nowMs = second + ms;
          const page = (await client.listVehicles(environment, credential)).pages[0];
          assert.equal(page.status, 200, `at .${String(ms % 1000).padStart(3, '0')}: ${JSON.stringify(page.body)}`);
          assert.ok(page.token, 'the page was sent with a token the client signed');
          const { iat, exp } = page.token.claims;
          assert.equal(exp - iat, 60, 'exp - iat is the lifetime');
          const decoded = decodeJwt(page.token.token);
          assert.ok(decoded.ok);
          const errors = lintToken(decoded.token, { now: nowMs, knownAudiences: [mds.baseUrl] }).filter(
            (f) => f.severity === 'error',
          );
          assert.deepEqual(errors, []);
        }
      } finally {
        await sandbox.close();
      }
    });

    describe('lock faults', () => {
      it('a process killed (SIGKILL) while it holds the store lock does not block the others for good', async () => {
        const holder = spawnChild('hold-store', { STATE_DIR: dir });
        children.push(holder);
        await waitForOutput(holder, (out) => out.includes('holding'));
        const store = new FileClockStore(dir);
        const waiting = new IssueClock({ store }).next('k');
        holder.kill('SIGKILL');
        await exited(holder);
        assert.ok(fs.existsSync(`${store.fileOf('k')}.lock`), 'the killed holder left its lock behind');
        const t = await waiting;
        assert.ok(Number.isInteger(t), 'the waiter got its time once the lock went stale');
        assert.ok(!fs.existsSync(`${store.fileOf('k')}.lock`), 'and released the lock it took over');
      });

      it("a process killed (SIGKILL) while it holds a key's request lock does not block that key for good; the lock is named by a digest", async () => {
        const keyId = 'kid-of-the-holder';
        const holder = spawnChild('hold-key', { STATE_DIR: dir, KEY_ID: keyId });
        children.push(holder);
        await waitForOutput(holder, (out) => out.includes('holding'));
        const names = fs.readdirSync(path.join(dir, 'clock'));
        assert.equal(names.length, 1);
        assert.match(names[0], /^iat-[0-9a-f]{32}\.lock$/);
        assert.ok(!names[0].includes(keyId));
        const queue = new SharedKeyQueue(dir);
        const waiting = queue.acquire(keyId);
        holder.kill('SIGKILL');
        await exited(holder);
        const release = await waiting;
        release();
        // Another key was never blocked.
        (await queue.acquire('another-kid'))();
      });

      it('a waiter for a key held by another process can be cancelled', async () => {
        const holder = spawnChild('hold-key', { STATE_DIR: dir, KEY_ID: 'k' });
        children.push(holder);
        await waitForOutput(holder, (out) => out.includes('holding'));
        const ac = new AbortController();
        const waiting = new SharedKeyQueue(dir).acquire('k', ac.signal);
        ac.abort();
        await assert.rejects(waiting, (e: unknown) => e instanceof MobilityError && e.code === 'CANCELLED');
      });

      it("a lock released while its refresh is under way: the late refresh never reaches the next holder's lock, which is not lost", async () => {
        // A busy machine, made certain: the answer to the holder's refresh (a stat, then a utimes) is held
        // until the holder has released the lock and the next holder has made it again.
        const base = path.join(dir, 'handover');
        const lockDir = `${base}.lock`;
        const { stat, utimes } = fs;
        let held: (() => void) | undefined;
        let armed = false;
        let touches = 0;
        const lost: string[] = [];
        const patchedStat = (file: fs.PathLike, callback: (err: NodeJS.ErrnoException | null, s: fs.Stats) => void) =>
          stat(file, (err, s) => {
            if (armed && path.resolve(String(file)) === path.resolve(lockDir)) {
              armed = false;
              held = () => callback(err, s);
            } else callback(err, s);
          });
        const countedUtimes = (
          file: fs.PathLike,
          atime: fs.TimeLike,
          mtime: fs.TimeLike,
          callback: fs.NoParamCallback,
        ) => {
          if (path.resolve(String(file)) === path.resolve(lockDir)) touches++;
          utimes(file, atime, mtime, callback);
        };
        Object.assign(fs, { stat: patchedStat, utimes: countedUtimes });
        try {
          const options = { what: 'the handover', maxWaitMs: 30_000, onCompromised: (m: string) => lost.push(m) };
          const releaseFirst = await acquireCrossProcessLock(base, options);
          armed = true;
          await waitFor('the first holder to begin a refresh', () => held !== undefined);
          await releaseFirst();
          const releaseNext = await acquireCrossProcessLock(base, options);
          touches = 0;
          held!();
          assert.equal(touches, 0, "the first holder's late refresh touched the next holder's lock");
          await waitFor('the next holder to refresh its lock, or to lose it', () => touches > 0 || lost.length > 0);
          assert.deepEqual(lost, [], 'the next holder kept its lock');
          await releaseNext();
        } finally {
          Object.assign(fs, { stat, utimes });
        }
      });

      it('waiters that find the same stale lock at once: one takes it over, the others wait for it; no update is lost', async () => {
        // A holder that died long ago left its lock; every waiter sees it stale in the same moment. Each
        // holder does a read-modify-write of a counter, as the clock store does under this lock.
        const base = path.join(dir, 'counter');
        const counterFile = `${base}.json`;
        const rounds = 15;
        const waiters = 6;
        let holders = 0;
        let most = 0;
        for (let round = 0; round < rounds; round++) {
          fs.writeFileSync(counterFile, '0');
          fs.mkdirSync(`${base}.lock`);
          const past = new Date(Date.now() - 2 * LOCK_STALE_MS);
          fs.utimesSync(`${base}.lock`, past, past);
          const lost: string[] = [];
          await Promise.all(
            Array.from({ length: waiters }, async () => {
              const release = await acquireCrossProcessLock(base, {
                what: 'the counter',
                maxWaitMs: 30_000,
                onCompromised: (m) => lost.push(m),
              });
              most = Math.max(most, ++holders);
              const n = Number(await fs.promises.readFile(counterFile, 'utf8'));
              await fs.promises.stat(`${base}.lock`);
              await fs.promises.writeFile(counterFile, String(n + 1));
              holders--;
              await release().catch((err: unknown) => lost.push(`release: ${(err as Error).message}`));
            }),
          );
          assert.equal(most, 1, `round ${round + 1}: two waiters held the lock at once (${lost.join('; ')})`);
          assert.equal(
            fs.readFileSync(counterFile, 'utf8'),
            String(waiters),
            `round ${round + 1}: every holder's update is kept`,
          );
          assert.deepEqual(lost, [], 'no holder lost its lock');
          assert.ok(!fs.existsSync(`${base}.lock`), 'the last holder released the lock');
        }
      });
    });

    describe('a state folder that cannot be used', () => {
      const failsNaming = (where: string) => (e: unknown) =>
        e instanceof MobilityError &&
        e.code === 'CLOCK_STORE_FAILED' &&
        e.message.includes(where) &&
        /--state-dir/.test(e.message);

      // Root ignores file modes, so the folder is made impossible instead: its parent is a regular file.
      it('a folder under a regular file: a clear error naming the folder, from the clock and from the queue', async () => {
        const file = path.join(dir, 'a-file');
        fs.writeFileSync(file, 'not a folder');
        const stateDir = path.join(file, 'state');
        await assert.rejects(new IssueClock({ store: new FileClockStore(stateDir) }).next('k'), failsNaming(stateDir));
        await assert.rejects(new SharedKeyQueue(stateDir).acquire('k'), failsNaming(path.join(stateDir, 'clock')));
      });

      it('the CLI stops with CLOCK_STORE_FAILED naming a state folder it cannot create', async () => {
        const file = path.join(dir, 'a-file');
        fs.writeFileSync(file, 'not a folder');
        const stateDir = path.join(file, 'state');
        const sandbox = await startSandbox({ fleetSize: 1 });
        try {
          const run = await runCliInProcess([
            'token',
            '--credential',
            sandbox.demo.credentialFile,
            '--aud',
            sandbox.environments[0].baseUrl,
            '--state-dir',
            stateDir,
          ]);
          assert.equal(run.code, 2);
          assert.equal(run.out, '', 'no token');
          assert.ok(run.err.includes(stateDir) && /a part of the path is a file/.test(run.err), run.err);
        } finally {
          await sandbox.close();
        }
      });

      it('a clock file that is a folder: a clear error naming it, and no time is handed out', async () => {
        const file = new FileClockStore(dir).fileOf('k');
        fs.mkdirSync(file, { recursive: true });
        await assert.rejects(new IssueClock({ store: new FileClockStore(dir) }).next('k'), failsNaming(file));
      });

      it('a read-only folder: a clear error naming the file (not as root, which ignores file modes)', async function () {
        if (process.getuid?.() === 0) this.skip();
        fs.chmodSync(dir, 0o500);
        try {
          await assert.rejects(new IssueClock({ store: new FileClockStore(dir) }).next('k'), failsNaming(dir));
        } finally {
          fs.chmodSync(dir, 0o700);
        }
      });
    });

    describe('where the state lives', () => {
      it('--state-dir wins over MOBILITY_API_STATE_DIR, then XDG_STATE_HOME, LOCALAPPDATA, HOME; ~ is the home folder', () => {
        const all = {
          MOBILITY_API_STATE_DIR: '/tmp/env',
          XDG_STATE_HOME: '/tmp/xdg',
          LOCALAPPDATA: '/tmp/local',
          HOME: '/tmp/home',
        };
        assert.equal(stateDirOption('/tmp/given', all), '/tmp/given');
        assert.equal(stateDirOption(undefined, all), '/tmp/env');
        assert.equal(stateDirOption(undefined, { ...all, MOBILITY_API_STATE_DIR: '' }), '/tmp/xdg/mobility-api');
        assert.equal(
          stateDirOption(undefined, { LOCALAPPDATA: '/tmp/local', HOME: '/tmp/home' }),
          '/tmp/local/mobility-api',
        );
        assert.equal(stateDirOption(undefined, { HOME: '/tmp/home' }), '/tmp/home/.local/state/mobility-api');
        assert.equal(stateDirOption('~/x', {}), path.join(os.homedir(), 'x'));
        assert.equal(stateDirOption('rel', {}), path.resolve('rel'));
      });

      it("the lock numbers and the state folder rule that Copy as Code's programs write are the ones the extension and the CLI use", () => {
        assert.equal(CLOCK_LOCK_STALE_SECONDS * 1000, LOCK_STALE_MS);
        assert.equal(CLOCK_LOCK_REFRESH_SECONDS * 1000, LOCK_UPDATE_MS);
        const header = sharedClockLines().join(' ');
        const rule = STATE_DIR_RULE.map(([variable, under]) => (under ? `$${variable}/${under}` : `$${variable}`));
        for (const part of rule) assert.ok(header.includes(part), `the header names ${part}`);
      });

      it('no variable set, or a relative one: a clear error naming the variable, never a folder under the working folder', () => {
        const fails = (pattern: RegExp) => (e: unknown) =>
          e instanceof MobilityError && e.code === 'CLOCK_STORE_FAILED' && pattern.test(e.message);
        assert.throws(
          () => stateDirOption(undefined, {}),
          fails(/none of MOBILITY_API_STATE_DIR, XDG_STATE_HOME, LOCALAPPDATA and HOME is set/),
        );
        assert.throws(() => stateDirOption(undefined, { HOME: '?' }), fails(/^HOME is "\?", not an absolute path/));
        assert.throws(
          () => stateDirOption(undefined, { MOBILITY_API_STATE_DIR: 'state', HOME: '/tmp/home' }),
          fails(/^MOBILITY_API_STATE_DIR is "state", not an absolute path/),
        );
      });

      it('migrates the marks of globalState into the file store (the larger wins), then removes them from globalState', async () => {
        const values = new Map<string, unknown>();
        const memento = {
          keys: () => [...values.keys()],
          get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
          update: (key: string, value: unknown) => {
            if (value === undefined) values.delete(key);
            else values.set(key, value);
            return Promise.resolve();
          },
        };
        const ahead = Date.now() / 1000 + 0.4;
        values.set('mobilityApi.issueClock', { old: ahead, stale: 1000, junk: 'x' });
        const store = new FileClockStore(dir);
        await store.raiseMarks({ stale: 2000 });
        assert.equal(await migrateGlobalStateClock(memento, store), 2);
        assert.equal(values.has('mobilityApi.issueClock'), false, 'globalState no longer holds the clock');
        assert.deepEqual(await store.readMarks(), { [keyIdDigest('old')]: ahead, [keyIdDigest('stale')]: 2000 });
        const t = await new IssueClock({ store, precision: 'milliseconds' }).next('old');
        assert.ok(t > ahead, 'no time at or before the migrated mark');
        assert.equal(await migrateGlobalStateClock(memento, store), 0, 'nothing left to migrate');
      });

      it('leaves the marks in globalState when the file store cannot be written', async () => {
        const values = new Map<string, unknown>([['mobilityApi.issueClock', { k: 5 }]]);
        const memento = {
          keys: () => [...values.keys()],
          get: <T>(key: string) => values.get(key) as T,
          update: () => Promise.resolve(),
        };
        const file = path.join(dir, 'a-file');
        fs.writeFileSync(file, '');
        await assert.rejects(
          migrateGlobalStateClock(memento, new FileClockStore(path.join(file, 'state'))),
          (e: unknown) => e instanceof MobilityError && e.code === 'CLOCK_STORE_FAILED',
        );
        assert.deepEqual(values.get('mobilityApi.issueClock'), { k: 5 });
      });
    });
  });
}
