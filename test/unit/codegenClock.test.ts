// Copy as Code's Python (REST and gRPC), Go and shell programs, run as separate processes on one key
// against the sandbox: the clock they share (spec 5.1 rule 6 across processes: the last iat of a key in
// a file under one mkdir lock, the protocol of docs/copy-as-code.md) keeps every token accepted when two copies start at once, when one starts
// in the same second as the previous one's last token, and when the three languages run side by side;
// and the errors a user can act on (one line, a non-zero exit, nothing sent). A missing toolchain fails
// under CI=true and is pending (its name in the title) elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CodeLanguage, CodeProgram } from '../../src/core/codegen';
import { codeProgramFor, generateCode, grpcCodeProgramFor } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { buildEndpointRequest } from '../../src/core/mds/mdsRequests';
import type { GrpcCallLog, RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import { maskKeyId } from '../../src/core/base/redact';
import { waitFor } from './support/waitUntil';
import type { BuiltProgram, ProgramRun } from './support/codegenToolchains';
import {
  buildProgram,
  GO_ENV,
  missingGrpcPython,
  missingTools,
  runCommand,
  runProgram,
} from './support/codegenToolchains';

/** The programs under test: a REST language, or Python's gRPC program (`python-grpc`). */
type Flavour = 'python' | 'go' | 'shell' | 'python-grpc';
const FLAVOURS: Flavour[] = ['python', 'go', 'shell', 'python-grpc'];
const VEHICLES_PROTO = 'proto/mobility/sandbox/v1/vehicles.proto';

interface TestKey {
  type: CredentialType;
  kid: string;
  issuer: string;
  file: string;
}

/** What the sandbox saw of one run: each request or call, when it arrived, and whether it was accepted. */
interface Seen {
  at: number;
  kid?: string;
  ok: boolean;
  rule?: string;
}

describe('Copy as Code: Python, Go and shell programs share one clock per key across processes', function () {
  this.timeout(120_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let clockDir: string;
  const seen: Seen[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-clock-'));
    clockDir = join(dir, 'clock');
    // 5 vehicles, 3 a page: /vehicles takes 2 pages, each with its own token.
    sandbox = await startSandbox({
      fleetSize: 5,
      pageSize: 3,
      demoDir: false,
      onRequest: (entry: SandboxRequestLog) =>
        seen.push({
          at: Date.now(),
          kid: entry.kid,
          ok: entry.status === 200,
          ...(entry.rule ? { rule: entry.rule } : {}),
        }),
      onGrpcCall: (entry: GrpcCallLog) =>
        seen.push({
          at: Date.now(),
          kid: entry.kid,
          ok: entry.status === 'OK',
          ...(entry.rule ? { rule: entry.rule } : {}),
        }),
    });
  });
  after(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function mds(): Environment & { grpcTarget: string } {
    const env = sandbox.environments.find((e) => e.id === 'mds-staging');
    assert.ok(env?.grpcTarget);
    return {
      id: env.id,
      name: env.id,
      api: env.api,
      stage: env.stage,
      baseUrl: env.baseUrl,
      grpcTarget: env.grpcTarget,
    };
  }

  function makeKey(type: CredentialType = 'external-org'): TestKey {
    const kid = `clock-${type}-${randomBytes(4).toString('hex')}`;
    const issuer =
      type === 'service-account'
        ? `robot-${randomBytes(3).toString('hex')}@sa.test.invalid`
        : `org-${randomBytes(3).toString('hex')}@ext.test.invalid`;
    const { privateKey, publicKey } =
      type === 'service-account'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    sandbox.trust({ kid, iss: issuer, type, publicKey });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = join(dir, `${kid}.${type === 'service-account' ? 'json' : 'pem'}`);
    writeFileSync(
      file,
      type === 'service-account'
        ? JSON.stringify({ type: 'service_account', private_key_id: kid, private_key: pem, client_email: issuer })
        : pem,
    );
    return { type, kid, issuer, file };
  }

  /** The environment a program of `key` runs with: its secrets, one worker, the test's clock folder. */
  function envOf(key: TestKey, extra: Record<string, string> = {}): Record<string, string> {
    return {
      MOBILITY_API_KEY_FILE: key.file,
      MOBILITY_API_KEY_ID: key.type === 'service-account' ? '' : key.kid,
      MOBILITY_API_WORKERS: '1',
      MOBILITY_API_STATE_DIR: clockDir,
      ...extra,
    };
  }

  const language = (flavour: Flavour): CodeLanguage => (flavour === 'python-grpc' ? 'python' : flavour);

  /** The program of `flavour` for `key`: /vehicles (two pages) over REST, ListVehicles over gRPC; `edit` changes its source first. */
  function build(
    flavour: Flavour,
    key: TestKey,
    name: string,
    options: { baseUrl?: string; target?: string; edit?: (source: string) => string } = {},
  ): BuiltProgram {
    const env = mds();
    const credential = { type: key.type, issuer: key.issuer };
    const program: CodeProgram =
      flavour === 'python-grpc'
        ? grpcCodeProgramFor(env, credential, {
            method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
            target: options.target ?? env.grpcTarget,
            plaintext: true,
            message: {},
            protoFiles: [VEHICLES_PROTO],
            importPaths: ['proto'],
            serverStreaming: true,
            inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
          })
        : codeProgramFor(
            { ...env, baseUrl: options.baseUrl ?? env.baseUrl },
            credential,
            buildEndpointRequest('mds', 'vehicles'),
          );
    const generated = generateCode(language(flavour), program);
    assert.ok(!generated.includes(key.kid), 'no key id in the program');
    const source = options.edit ? options.edit(generated) : generated;
    const built = buildProgram(language(flavour), source, dir, `${flavour}-${name}-${key.kid}`);
    if (flavour === 'python-grpc') {
      // Bundled into out/test/unit: the repository is three folders up.
      cpSync(resolve(__dirname, '../../../proto/mobility'), join(built.cwd, 'proto/mobility'), { recursive: true });
      const protoc = /^ {4}(protoc .*)$/m.exec(source)?.[1];
      assert.ok(protoc, 'the header names the protoc command');
      const run = spawnSync('bash', ['-c', protoc], { cwd: built.cwd, encoding: 'utf8' });
      assert.equal(run.status, 0, `${protoc}: ${run.stderr}`);
    }
    return built;
  }

  /** Two tokens a run: two pages for one REST worker, one call each for two gRPC workers. */
  const twoTokens = (flavour: Flavour) => ({ MOBILITY_API_WORKERS: flavour === 'python-grpc' ? '2' : '1' });

  function skipUnless(context: Mocha.Context, flavours: Flavour[]): void {
    const missing = [
      ...new Set(
        flavours.flatMap((f) => [...missingTools(language(f)), ...(f === 'python-grpc' ? missingGrpcPython() : [])]),
      ),
    ];
    if (missing.length === 0) return;
    if (process.env.CI === 'true') assert.fail(`missing ${missing.join(', ')} (.ci/run installs them)`);
    if (context.test) context.test.title += ` (pending: ${missing.join(', ')} not installed)`;
    context.skip();
  }

  function assertRan(run: ProgramRun, what: string): void {
    assert.equal(run.code, 0, `${what} exited ${run.code}:\n${run.err}\n${run.out}`);
  }

  /** Every request since `seen` was emptied accepted (the sandbox logs the masked kid and the rule of a refused one), and `expected` of them. */
  function assertAllAccepted(key: TestKey, expected?: number): void {
    assert.deepEqual(
      seen.filter((s) => !s.ok),
      [],
      `every request accepted (on ${maskKeyId(key.kid)})`,
    );
    if (expected !== undefined) assert.equal(seen.length, expected, 'the sandbox received every request');
  }

  for (const flavour of FLAVOURS) {
    describe(flavour, () => {
      it('two copies started at once on one key: every request accepted', async function () {
        skipUnless(this, [flavour]);
        const key = makeKey();
        const program = build(flavour, key, 'twice');
        seen.length = 0;
        const runs = await Promise.all([
          runProgram(program, envOf(key, twoTokens(flavour))),
          runProgram(program, envOf(key, twoTokens(flavour))),
        ]);
        runs.forEach((run, n) => assertRan(run, `copy ${n + 1}`));
        assertAllAccepted(key, 4);
      });

      it("a run started in the same second as the previous run's last token: accepted", async function () {
        skipUnless(this, [flavour]);
        const key = makeKey();
        const program = build(flavour, key, 'after');
        seen.length = 0;
        // The first run's last token waits for the start of a second (two pages, or two workers); the
        // second run starts at once. Should it start a second later (a slow machine), try again.
        for (let attempt = 1; ; attempt++) {
          const first = await runProgram(program, envOf(key, twoTokens(flavour)));
          assertRan(first, 'the first run');
          const lastSecond = Math.floor(seen[seen.length - 1].at / 1000);
          const started = Date.now();
          const second = await runProgram(program, envOf(key));
          assertRan(second, 'the second run');
          if (Math.floor(started / 1000) === lastSecond || attempt === 3) break;
        }
        assertAllAccepted(key);
      });
    });
  }

  it('Python, Go and shell at once on one key: every request accepted; the clock file is clock/iat-<32 hex of SHA-256 of the kid>, 0600 in a 0700 folder, holding the last iat, no lock left', async function () {
    skipUnless(this, ['python', 'go', 'shell']);
    const key = makeKey();
    const folder = join(dir, 'clock-mixed');
    const programs = (['python', 'go', 'shell'] as const).map((f) => build(f, key, 'mixed'));
    seen.length = 0;
    const runs = await Promise.all(programs.map((p) => runProgram(p, envOf(key, { MOBILITY_API_STATE_DIR: folder }))));
    runs.forEach((run, n) => assertRan(run, ['python', 'go', 'shell'][n]));
    assertAllAccepted(key, 6);
    const name = `iat-${createHash('sha256').update(key.kid).digest('hex').slice(0, 32)}`;
    const clock = join(folder, 'clock');
    assert.deepEqual(readdirSync(clock), [name]);
    assert.equal(statSync(clock).mode & 0o777, 0o700);
    assert.equal(statSync(join(clock, name)).mode & 0o777, 0o600);
    assert.match(readFileSync(join(clock, name), 'utf8'), /^\d{10}\n?$/);
  });

  it('shell: a lock refresh still running when the lock is released leaves no file where the lock folder was', async function () {
    skipUnless(this, ['shell']);
    // A slow touch (the refresher's, 1 s into holding the lock) and a slow curl (the lock held past that touch's
    // start): the release stops the refresher while its touch runs, and that touch ends after the lock folder is gone.
    const shims = join(dir, 'slow-shims');
    mkdirSync(shims, { recursive: true });
    const touched = join(shims, 'touched');
    const which = (tool: string) => spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(shims, 'touch'), `#!/bin/sh\nsleep 1.5\n${which('touch')} "$@"\necho done >>"${touched}"\n`, {
      mode: 0o755,
    });
    writeFileSync(join(shims, 'curl'), `#!/bin/sh\nsleep 1.2\nexec ${which('curl')} "$@"\n`, { mode: 0o755 });
    const key = makeKey();
    const folder = join(dir, 'clock-slow-touch');
    const run = await runProgram(
      build('shell', key, 'slow-touch'),
      envOf(key, { MOBILITY_API_STATE_DIR: folder, PATH: `${shims}:${process.env.PATH ?? ''}` }),
    );
    assertRan(run, 'the program');
    await waitFor("the refresher's touch to end", () => existsSync(touched), { timeoutMs: 20_000 });
    assert.deepEqual(
      readdirSync(join(folder, 'clock')).filter((name) => name.endsWith('.lock')),
      [],
      'no lock left behind: the next signer of this key would wait for it in vain',
    );
  });

  describe('the run command in the header, as cron runs it: /bin/sh, only HOME and PATH=/usr/bin:/bin, from /', () => {
    /** The header's command that runs the program (its continuation line joined), with the test's files for the /path/to/ placeholders. */
    function headerCommand(source: string, key: TestKey, kidFile: string, folder: string): string {
      const lines = source.split('\n').map((l) => l.replace(/^(#|\/\/)\t?/, '').trim());
      const at = lines.findIndex((l) => l.startsWith('MOBILITY_API_KEY_FILE=/path/to/'));
      assert.ok(at >= 0, 'the header gives the command that runs the program');
      const command = lines[at].endsWith('\\') ? `${lines[at].slice(0, -1).trim()} ${lines[at + 1]}` : lines[at];
      return command
        .replace(/\/path\/to\/(key\.pem|service-account\.json)/, key.file)
        .replace('/path/to/key-id', kidFile)
        .replace(/\/path\/to\//g, `${folder}/`);
    }

    function cron(command: string, home: string): Promise<ProgramRun> {
      return runCommand('/bin/sh', ['-c', command], {
        cwd: '/',
        env: { HOME: home, PATH: '/usr/bin:/bin', SHELL: '/bin/sh', LOGNAME: 'cron' },
      });
    }

    for (const flavour of ['python', 'go', 'shell'] as const) {
      it(`${flavour}: runs and is accepted, its clock file in ~/.local/state/mobility-api/clock`, async function () {
        skipUnless(this, [flavour]);
        const key = makeKey();
        const kidFile = join(dir, `${key.kid}.kid`);
        writeFileSync(kidFile, `${key.kid}\n`, { mode: 0o600 });
        const home = join(dir, `home-${flavour}`);
        mkdirSync(home);
        const built = build(flavour, key, 'cron');
        const source = readFileSync(
          join(
            built.cwd,
            readdirSync(built.cwd).find((f) => /\.(py|go|sh)$/.test(f))!,
          ),
          'utf8',
        );
        if (flavour === 'go') {
          // The header's offline build line, in the folder that holds main.go and the header's go.mod.
          const line = source.split('\n').find((l) => l.startsWith('//\tGOFLAGS=-mod=mod GOPROXY=off go build'));
          assert.ok(line, 'the header gives the offline build command');
          const run = spawnSync('/bin/sh', ['-c', line.slice(3)], {
            cwd: built.cwd,
            env: { ...process.env, ...GO_ENV },
            encoding: 'utf8',
          });
          assert.equal(run.status, 0, `${line}: ${run.stderr}`);
        }
        seen.length = 0;
        const run = await cron(headerCommand(source, key, kidFile, built.cwd), home);
        assertRan(run, `${flavour} from cron`);
        assertAllAccepted(key, 2);
        assert.deepEqual(readdirSync(join(home, '.local/state/mobility-api/clock')), [
          `iat-${createHash('sha256').update(key.kid).digest('hex').slice(0, 32)}`,
        ]);
      });
    }
  });

  describe('errors a user can act on: one line, a non-zero exit, nothing sent', () => {
    /** A port on this computer that nothing listens on. */
    async function closedPort(): Promise<number> {
      const server = createServer();
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const { port } = server.address() as { port: number };
      await new Promise((done) => server.close(done));
      return port;
    }

    function assertOneLine(run: ProgramRun, pattern: RegExp): void {
      assert.notEqual(run.code, 0, `exit code: ${run.out}`);
      const lines = run.err.trim().split('\n');
      assert.equal(lines.length, 1, `one line:\n${run.err}`);
      assert.match(lines[0], pattern);
      assert.doesNotMatch(run.err, /Traceback|panic|goroutine/);
    }

    for (const flavour of FLAVOURS) {
      // Python's gRPC program reads its key with the REST program's code (pythonToken.ts): the cases about the key are checked once.
      const keyCases = flavour !== 'python-grpc';
      it(`${flavour}: no key file variable${keyCases ? ', no key id, a missing file, a file that holds no key' : ''}, MOBILITY_API_WORKERS=abc, the server refusing connections`, async function () {
        skipUnless(this, [flavour]);
        const key = makeKey();
        const notAKey = join(dir, `not-a-key-${flavour}.pem`);
        writeFileSync(notAKey, 'not a key\n');
        const port = await closedPort();
        const program = build(flavour, key, 'errors');
        const nowhere = build(
          flavour,
          key,
          'refused',
          flavour === 'python-grpc' ? { target: `127.0.0.1:${port}` } : { baseUrl: `http://127.0.0.1:${port}` },
        );
        const cases: [BuiltProgram, Record<string, string>, RegExp][] = [
          [program, { MOBILITY_API_KEY_FILE: '' }, /Set MOBILITY_API_KEY_FILE to the private key PEM file/],
          [program, { MOBILITY_API_WORKERS: 'abc' }, /Set MOBILITY_API_WORKERS to a whole number from 1, not .abc./],
          ...(keyCases
            ? ([
                [program, { MOBILITY_API_KEY_ID: '' }, /Set MOBILITY_API_KEY_ID to the key id/],
                [
                  program,
                  { MOBILITY_API_KEY_FILE: join(dir, 'missing.pem') },
                  /Cannot read MOBILITY_API_KEY_FILE.*missing\.pem/,
                ],
                [program, { MOBILITY_API_KEY_FILE: notAKey }, /MOBILITY_API_KEY_FILE \(.*not-a-key.*\) holds no/],
              ] as [BuiltProgram, Record<string, string>, RegExp][])
            : []),
          [nowhere, {}, flavour === 'python-grpc' ? /^worker 1: UNAVAILABLE / : /refused|Couldn't connect/i],
        ];
        seen.length = 0;
        const runs = await Promise.all(cases.map(([built, env]) => runProgram(built, envOf(key, env))));
        runs.forEach((run, n) => assertOneLine(run, cases[n][2]));
        assert.deepEqual(seen, [], 'nothing reached the sandbox');
      });
    }

    it('a service-account program given a file that is no service-account key file: one line naming the fields', async function () {
      skipUnless(this, ['python', 'go', 'shell']);
      const key = makeKey('service-account');
      const notJson = join(dir, 'sa-not-json.json');
      writeFileSync(notJson, '{"private_key": 1}');
      const programs = (['python', 'go', 'shell'] as const).map((flavour) => build(flavour, key, 'sa-errors'));
      const runs = await Promise.all(
        programs.map((p) => runProgram(p, envOf(key, { MOBILITY_API_KEY_FILE: notJson }))),
      );
      for (const run of runs)
        assertOneLine(run, /is not a service-account key file: JSON with private_key, private_key_id and client_email/);
    });

    it('shell: a signature that fails stops the request: with a key of the wrong kind and its check taken out, a non-zero exit and nothing sent', async function () {
      skipUnless(this, ['shell']);
      const key = makeKey();
      const rsa = join(dir, 'wrong-kind.pem');
      writeFileSync(
        rsa,
        generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
      );
      seen.length = 0;
      // The check at the start refuses the key before anything is signed ...
      assertOneLine(
        await runProgram(build('shell', key, 'wrong-key'), envOf(key, { MOBILITY_API_KEY_FILE: rsa })),
        /holds no P-256 EC private key/,
      );
      // ... and without it, the signature fails (an RSA signature is no DER ECDSA one) and curl never runs.
      const unchecked = build('shell', key, 'unchecked', {
        edit: (source) => {
          const check = /^key_text=.*\n\tfail .*\n/m;
          assert.match(source, check, 'the program checks the key first');
          return source.replace(check, '');
        },
      });
      const run = await runProgram(unchecked, envOf(key, { MOBILITY_API_KEY_FILE: rsa }));
      assert.notEqual(run.code, 0, run.out);
      assert.deepEqual(seen, [], `nothing reached the sandbox:\n${run.err}`);
    });
  });
});
