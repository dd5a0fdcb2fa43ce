// Copy as Code in TypeScript (REST and gRPC) and Java, run for real: spec 5.1 rule 6 across processes
// (two copies at once on one key, and a run that starts in the second of the last token before it, all
// accepted by the sandbox), Java's JSON read by a parser (a links.next written with \u0026), errors in
// one line with a non-zero exit, and the header's own commands, run with no terminal. A missing
// toolchain fails under CI=true and is pending (its name in the title) elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CodeLanguage, CodeProgram } from '../../src/core/codegen';
import { codeProgramFor, generateCode, grpcCodeProgramFor } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { buildEndpointRequest } from '../../src/core/mds/mdsRequests';
import type { GrpcCallLog, RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { BuiltProgram, ProgramRun } from './support/codegenToolchains';
import {
  buildProgram,
  compileTypeScript,
  JVM_ENV,
  missingTools,
  runCommand,
  runProgram,
  skipIfMissing,
} from './support/codegenToolchains';

const VEHICLES_PROTO = 'proto/mobility/sandbox/v1/vehicles.proto';
/** Where the Java header says Debian's Gson is. */
const GSON = '/usr/share/java/gson.jar';

interface TestKey {
  kid: string;
  issuer: string;
  file: string;
  env: Record<string, string>;
}

/** A program's variant in this file: TypeScript REST, TypeScript gRPC, Java. */
type Variant = 'typescript' | 'typescript-grpc' | 'java';
const VARIANTS: Variant[] = ['typescript', 'typescript-grpc', 'java'];
const languageOf = (variant: Variant): CodeLanguage => (variant === 'java' ? 'java' : 'typescript');

describe('Copy as Code in TypeScript and Java: a clock shared across processes, JSON, errors, run instructions', function () {
  this.timeout(240_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const log: SandboxRequestLog[] = [];
  const calls: GrpcCallLog[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-ts-java-'));
    // 4 vehicles, 2 a page: /vehicles takes 2 pages, each with its own token.
    sandbox = await startSandbox({
      fleetSize: 4,
      pageSize: 2,
      demoDir: false,
      onRequest: (entry) => log.push(entry),
      onGrpcCall: (entry) => calls.push(entry),
    });
  });
  after(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function mds(): { environment: Environment; target: string } {
    const env = sandbox.environments.find((e) => e.id === 'mds-staging');
    assert.ok(env?.grpcTarget);
    return {
      environment: { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl },
      target: env.grpcTarget,
    };
  }

  let keys = 0;
  function makeKey(type: CredentialType = 'external-org'): TestKey {
    const kid = `tsjava-${type}-${randomBytes(4).toString('hex')}`;
    const issuer = type === 'service-account' ? `robot-${++keys}@sa.test.invalid` : `org-${++keys}@ext.test.invalid`;
    const { privateKey, publicKey } =
      type === 'service-account'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    sandbox.trust({ kid, iss: issuer, type, publicKey });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = join(dir, `${kid}.${type === 'service-account' ? 'json' : 'pem'}`);
    const clock = { MOBILITY_API_STATE_DIR: join(dir, `clock-${kid}`) };
    if (type === 'service-account') {
      writeFileSync(
        file,
        JSON.stringify({
          type: 'service_account',
          project_id: 'p',
          private_key_id: kid,
          private_key: pem,
          client_email: issuer,
          client_id: '1',
        }),
      );
      return { kid, issuer, file, env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_WORKERS: '1', ...clock } };
    }
    writeFileSync(file, pem);
    return {
      kid,
      issuer,
      file,
      env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_KEY_ID: kid, MOBILITY_API_WORKERS: '1', ...clock },
    };
  }

  const skipUnlessInstalled = (context: Mocha.Context, language: CodeLanguage) =>
    skipIfMissing(context, language, missingTools(language));

  let builds = 0;
  /** The program of `variant` for `key`: /vehicles (two pages) over REST, ListVehicles over gRPC; built and ready to run. */
  function build(
    variant: Variant,
    key: TestKey,
    options: { program?: CodeProgram; type?: CredentialType; edit?: (source: string) => string } = {},
  ): BuiltProgram {
    const { environment, target } = mds();
    const credential = { type: options.type ?? 'external-org', issuer: key.issuer };
    const program =
      options.program ??
      (variant === 'typescript-grpc'
        ? grpcCodeProgramFor(environment, credential, {
            method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
            target,
            plaintext: true,
            message: {},
            protoFiles: [VEHICLES_PROTO],
            importPaths: ['proto'],
            serverStreaming: true,
            inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
          })
        : codeProgramFor(environment, credential, buildEndpointRequest('mds', 'vehicles')));
    const generated = generateCode(languageOf(variant), program);
    assert.ok(!generated.includes(key.kid), 'no key id in the program');
    const source = options.edit ? options.edit(generated) : generated;
    const name = `${variant}-${++builds}`;
    if (variant === 'java') return buildJava(source, name);
    const built = buildProgram('typescript', source, dir, name);
    if (variant === 'typescript-grpc')
      cpSync(resolve(__dirname, '../../../proto/mobility'), join(built.cwd, 'proto/mobility'), { recursive: true });
    compileTypeScript([built]);
    return built;
  }

  /** The Java program built and run with the commands its header gives (javac, then java, Gson on the classpath). */
  function buildJava(source: string, name: string): BuiltProgram {
    const cwd = join(dir, `java-${name}`);
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'MobilityApiRequest.java'), source);
    const javac = /^ \* {5}(javac .*)$/m.exec(source)?.[1];
    const java = /^ \* {5}(java .*)$/m.exec(source)?.[1];
    assert.ok(javac && java, 'the header gives the javac and java command lines');
    assert.ok(javac.includes(GSON) && java.includes(GSON), "with the jar of Debian's Gson on the classpath");
    const compiled = spawnSync('bash', ['-c', javac], {
      cwd,
      env: { ...process.env, ...JVM_ENV },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(compiled.status, 0, `${javac}:\n${compiled.stdout}${compiled.stderr}`);
    return { command: 'bash', args: ['-c', java], cwd };
  }

  // The sandbox's logs name a kid on refusals only: each test starts them afresh, and its programs are all it sees.
  beforeEach(() => {
    log.length = 0;
    calls.length = 0;
  });
  const answered = () => ({ rest: [...log], grpc: [...calls] });

  function assertRan(run: ProgramRun, what: string): void {
    assert.equal(run.code, 0, `${what} exited ${run.code}:\n${run.err}\n${run.out}`);
  }

  describe('spec 5.1 rule 6 across processes: the last iat per key in a locked file', () => {
    for (const variant of VARIANTS) {
      it(`${variant}: two copies at once on one key, then a third at once after them (in the second of their last token): every ${variant === 'typescript-grpc' ? 'call' : 'request'} accepted`, async function () {
        skipUnlessInstalled(this, languageOf(variant));
        const key = makeKey();
        const program = build(variant, key);
        // gRPC: one call per worker, so two workers per copy; REST: two pages per copy.
        const env = { ...key.env, MOBILITY_API_WORKERS: variant === 'typescript-grpc' ? '2' : '1' };
        const [a, b] = await Promise.all([runProgram(program, env), runProgram(program, env)]);
        // Each copy's last token waited for a new second, so the next run signs in that second.
        const c = await runProgram(program, env);
        for (const [run, name] of [
          [a, 'copy A'],
          [b, 'copy B'],
          [c, 'the run after them'],
        ] as const)
          assertRan(run, `${variant} ${name}`);
        const { rest, grpc } = answered();
        if (variant === 'typescript-grpc') {
          assert.deepEqual(
            grpc.map((x) => x.status),
            Array(6).fill('OK'),
            `every call accepted: ${JSON.stringify(grpc)}`,
          );
        } else {
          assert.deepEqual(
            rest.map((x) => x.status),
            Array(6).fill(200),
            `every request accepted: ${JSON.stringify(rest)}`,
          );
        }
        // The clock file: named by a hash of the kid (never the kid), private to the user, the last iat in decimal.
        const clockDir = join(key.env.MOBILITY_API_STATE_DIR, 'clock');
        const file = `iat-${createHash('sha256').update(key.kid, 'utf8').digest('hex').slice(0, 32)}`;
        assert.ok(readdirSync(clockDir).includes(file), readdirSync(clockDir).join(', '));
        assert.equal(statSync(clockDir).mode & 0o777, 0o700);
        assert.equal(statSync(join(clockDir, file)).mode & 0o777, 0o600);
        const last = Number(readFileSync(join(clockDir, file), 'utf8').trim());
        assert.ok(Number.isInteger(last) && Math.abs(last - Date.now() / 1000) < 60, `the last iat: ${last}`);
      });
    }

    it('a Java run at once after a TypeScript run on the same key reads the same clock file: accepted', async function () {
      skipUnlessInstalled(this, 'typescript');
      skipUnlessInstalled(this, 'java');
      const key = makeKey();
      const ts = build('typescript', key);
      const java = build('java', key);
      assertRan(await runProgram(ts, key.env), 'typescript');
      assertRan(await runProgram(java, key.env), 'java');
      assert.deepEqual(
        answered().rest.map((x) => x.status),
        Array(4).fill(200),
      );
    });
  });

  /** A server on loopback that answers with `answer`, or (without one) takes connections and never says a word; and the paths it was asked for. */
  async function localServer(
    answer?: (path: string, base: string) => string,
  ): Promise<{ base: string; paths: string[]; close: () => Promise<void> }> {
    const paths: string[] = [];
    const sockets = new Set<Socket>();
    let base = '';
    const server = answer
      ? createServer((req, res) => {
          paths.push(req.url ?? '');
          res.setHeader('content-type', 'application/json');
          res.end(answer(req.url ?? '', base));
        })
      : createTcpServer((socket) => {
          sockets.add(socket);
          socket.on('error', () => undefined);
        });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mds`;
    return {
      base,
      paths,
      close: () =>
        new Promise<void>((done) => {
          if ('closeAllConnections' in server) server.closeAllConnections();
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        }),
    };
  }

  const environmentAt = (baseUrl: string): Environment => ({
    id: 'local',
    name: 'local',
    api: 'mds',
    stage: 'staging',
    baseUrl,
  });

  describe('JSON read with a parser', () => {
    for (const variant of ['java', 'typescript'] as const) {
      it(`${variant}: a links.next written with \\u0026 (as Go's encoding/json writes &) is followed to the page it names`, async function () {
        skipUnlessInstalled(this, variant);
        const server = await localServer((path, base) => {
          // The JSON text holds the six characters \u0026 where the link has &.
          const next = path.includes('page=2') ? 'null' : `"${base}/vehicles?page=2\\u0026page_size=2"`;
          return `{"version":"2.0.0","vehicles":[{"device_id":"a"},{"device_id":"b"}],"links":{"next":${next}}}`;
        });
        try {
          const key = makeKey();
          const program = build(variant, key, {
            program: codeProgramFor(
              environmentAt(server.base),
              { type: 'external-org', issuer: key.issuer },
              buildEndpointRequest('mds', 'vehicles'),
            ),
          });
          const run = await runProgram(program, key.env);
          assertRan(run, variant);
          assert.deepEqual(server.paths, ['/mds/vehicles', '/mds/vehicles?page=2&page_size=2']);
          assert.match(run.out, /^worker 1 page 2: 2 vehicles$/m);
        } finally {
          await server.close();
        }
      });
    }
  });

  describe('errors: one line that says what to set or fix, and a non-zero exit', () => {
    /** The run failed with one line on stderr matching `line`, no stack trace, and sent nothing on `key`. */
    function assertOneLine(run: ProgramRun, line: RegExp, what: string): void {
      assert.notEqual(run.code, 0, `${what}: exit status`);
      const lines = run.err.trim().split('\n');
      assert.equal(lines.length, 1, `${what}: one line:\n${run.err}`);
      assert.match(lines[0], line, what);
      assert.doesNotMatch(run.err, /^\s+at |Exception in thread|\bnull\b|\bundefined\b/m, what);
    }

    for (const variant of VARIANTS) {
      it(`${variant}: MOBILITY_API_WORKERS=abc, no key file variable, no key id variable, an RSA key where the program signs ES256: each says so; nothing is sent`, async function () {
        skipUnlessInstalled(this, languageOf(variant));
        const key = makeKey();
        const program = build(variant, key);
        // An RSA key where the program signs ES256 (the sandbox would not trust it as an External Organization key).
        const rsaFile = join(dir, `rsa-${randomBytes(4).toString('hex')}.pem`);
        writeFileSync(
          rsaFile,
          generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
        );
        const runs = await Promise.all([
          runProgram(program, { ...key.env, MOBILITY_API_WORKERS: 'abc' }),
          runProgram(program, { ...key.env, MOBILITY_API_KEY_FILE: '' }),
          runProgram(program, { ...key.env, MOBILITY_API_KEY_ID: '' }),
          runProgram(program, { ...key.env, MOBILITY_API_KEY_FILE: rsaFile }),
        ]);
        assertOneLine(runs[0], /MOBILITY_API_WORKERS must be a whole number from 1 to 100, not "abc"/, 'workers');
        assertOneLine(runs[1], /^Set MOBILITY_API_KEY_FILE to the path of your EC P-256 private key/, 'no key file');
        assertOneLine(runs[2], /^Set MOBILITY_API_KEY_ID to the key id/, 'no key id');
        assertOneLine(
          runs[3],
          /MOBILITY_API_KEY_FILE \(.*\) holds .*(RSA|rsa).*|MOBILITY_API_KEY_FILE \(.*\) holds no EC private key; ES256/,
          'an RSA key',
        );
        assert.match(runs[3].err, /EC|P-256/);
        const { rest, grpc } = answered();
        assert.deepEqual([...rest, ...grpc], [], 'nothing sent');
      });

      it(`${variant}: a server that never answers fails at the ${variant === 'typescript-grpc' ? 'deadline' : 'timeout'}; once it is gone, the network error is named`, async function () {
        skipUnlessInstalled(this, languageOf(variant));
        const server = await localServer();
        const key = makeKey();
        const { target } = mds();
        const grpcTarget = server.base.replace(/^http:\/\/|\/mds$/g, '');
        const program = build(variant, key, {
          program:
            variant === 'typescript-grpc'
              ? grpcCodeProgramFor(
                  environmentAt(server.base),
                  { type: 'external-org', issuer: key.issuer },
                  {
                    method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
                    target: grpcTarget || target,
                    plaintext: true,
                    message: {},
                    protoFiles: [VEHICLES_PROTO],
                    importPaths: ['proto'],
                    serverStreaming: true,
                    inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
                  },
                )
              : codeProgramFor(
                  environmentAt(server.base),
                  { type: 'external-org', issuer: key.issuer },
                  buildEndpointRequest('mds', 'vehicles'),
                ),
          // The program's own limit, made 1 s so that the test need not wait 30.
          edit: (source) => {
            const limit =
              variant === 'java'
                ? /Duration\.ofSeconds\(30\); \/\//.exec(source)?.[0]
                : /const (TIMEOUT_MS|DEADLINE_MS) = [\d_]+;/.exec(source)?.[0];
            assert.ok(limit, 'the program sets a timeout');
            return source.replace(
              limit,
              variant === 'java' ? 'Duration.ofSeconds(1); //' : limit.replace(/= [\d_]+/, '= 1_000'),
            );
          },
        });
        let run: ProgramRun;
        try {
          run = await runProgram(program, key.env);
        } finally {
          await server.close();
        }
        assertOneLine(
          run,
          variant === 'typescript-grpc'
            ? /^worker 1: DEADLINE_EXCEEDED /
            : /^GET http:\/\/127\.0\.0\.1:\d+\/mds\/vehicles: no answer within 1 s$/,
          'no answer',
        );
        const gone = await runProgram(program, key.env);
        assertOneLine(
          gone,
          variant === 'typescript-grpc'
            ? /^worker 1: UNAVAILABLE .*ECONNREFUSED/
            : variant === 'java'
              ? /^GET http:\/\/127\.0\.0\.1:\d+\/mds\/vehicles: cannot connect to the server/
              : /^GET http:\/\/127\.0\.0\.1:\d+\/mds\/vehicles: connect ECONNREFUSED/,
          'server gone',
        );
      });
    }
  });

  describe('run instructions that work with no terminal', () => {
    it("typescript: the header's commands (package.json, npm install, node_modules/.bin/tsx), run as cron would, with no terminal: the program runs, every request accepted", async function () {
      this.timeout(300_000);
      const key = makeKey();
      const source = generateCode(
        'typescript',
        codeProgramFor(
          mds().environment,
          { type: 'external-org', issuer: key.issuer },
          buildEndpointRequest('mds', 'vehicles'),
        ),
      );
      const commands = [...source.matchAll(/^ \* {5}(.*)$/gm)].map((m) => m[1]);
      assert.deepEqual(
        commands.map((c) => c.split(' ')[0]),
        ['printf', 'npm', 'node_modules/.bin/tsx'],
      );
      const cwd = join(dir, 'cron');
      mkdirSync(cwd);
      writeFileSync(join(cwd, 'mobilityApiRequest.ts'), source);
      // As cron runs it: no terminal (stdin from /dev/null, output to pipes), in the file's folder.
      const run = await runCommand('bash', ['-e', '-c', commands.join('\n')], {
        cwd,
        env: { ...process.env, ...key.env },
      });
      assertRan(run, "the header's commands");
      assert.match(run.out, /^worker 1 page 2: 2 vehicles$/m);
      assert.deepEqual(
        answered().rest.map((x) => x.status),
        [200, 200],
      );
    });

    it('typescript-grpc: the header gives the same commands, with the gRPC packages', () => {
      const { environment, target } = mds();
      const source = generateCode(
        'typescript',
        grpcCodeProgramFor(
          environment,
          { type: 'external-org', issuer: 'a@b.c' },
          {
            method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
            target,
            plaintext: true,
            message: {},
            protoFiles: [VEHICLES_PROTO],
            importPaths: ['proto'],
            serverStreaming: true,
            inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
          },
        ),
      );
      const commands = [...source.matchAll(/^ \* {5}(.*)$/gm)].map((m) => m[1]);
      assert.equal(commands.length, 3, commands.join('\n'));
      assert.equal(
        commands[1],
        'npm install --no-fund --no-audit tsx @grpc/grpc-js @grpc/proto-loader jose proper-lockfile',
      );
      assert.equal(commands[2], 'node_modules/.bin/tsx mobilityApiRequest.ts');
      assert.doesNotMatch(source, /npx/);
    });
  });
});
