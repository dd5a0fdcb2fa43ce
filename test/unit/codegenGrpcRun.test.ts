// Copy as Code for gRPC calls, run for real: the Python (grpcio, stubs from the protoc command its
// header names) and TypeScript (@grpc/grpc-js) programs against the sandbox's gRPC targets, two
// workers in one process on one key (spec 5.1 rule 6), every call accepted (the sandbox's gRPC log).
// A missing toolchain fails under CI=true and is pending (its name in the title) elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CodeLanguage } from '../../src/core/codegen';
import { generateCode, GRPC_CODE_LANGUAGES, grpcCodeProgramFor } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import type { GrpcCallLog, RunningSandbox } from '../../src/sandbox/sandboxServer';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import { openConnection } from '../../src/core/grpc/connection';
import { reflectSchema } from '../../src/core/grpc/reflection';
import { descriptorFileNames, methodCodeShape, protosetOf } from '../../src/core/grpc/schema';
import type { BuiltProgram } from './support/codegenToolchains';
import {
  buildProgram,
  compileTypeScript,
  missingGrpcPython,
  missingTools,
  runProgram,
  skipIfMissing,
} from './support/codegenToolchains';

const FLEET = 5;
const VEHICLES = 'proto/mobility/sandbox/v1/vehicles.proto';

interface TestKey {
  kid: string;
  env: Record<string, string>;
}

describe('Copy as Code for gRPC: generated programs against the sandbox', function () {
  this.timeout(240_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const calls: GrpcCallLog[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-grpc-run-'));
    sandbox = await startSandbox({
      fleetSize: FLEET,
      demoDir: false,
      grade: true,
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

  function makeKey(type: CredentialType): TestKey & { issuer: string } {
    const kid = `grpc-${type}-${randomBytes(4).toString('hex')}`;
    const org = randomBytes(4).toString('hex'); // the issuer is written into the program; the kid never
    const issuer = type === 'service-account' ? `robot-${org}@sa.test.invalid` : `org-${org}@ext.test.invalid`;
    const { privateKey, publicKey } =
      type === 'service-account'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    sandbox.trust({ kid, iss: issuer, type, publicKey });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = join(dir, `${kid}.${type === 'service-account' ? 'json' : 'pem'}`);
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
      return { kid, issuer, env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_WORKERS: '2' } };
    }
    writeFileSync(file, pem);
    return { kid, issuer, env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_KEY_ID: kid, MOBILITY_API_WORKERS: '2' } };
  }

  /** The program for one call, built in its own folder with the sandbox's .proto files beside it (Python: with its stubs, made by the header's protoc command). */
  function build(
    language: CodeLanguage,
    name: string,
    type: CredentialType,
    method: string,
    serverStreaming: boolean,
    inputType: string,
    message: object,
  ) {
    const key = makeKey(type);
    const { environment, target } = mds();
    const program = grpcCodeProgramFor(
      environment,
      { type, issuer: key.issuer },
      {
        method,
        target,
        plaintext: true,
        message,
        protoFiles: [VEHICLES],
        importPaths: ['proto'],
        serverStreaming,
        inputType,
      },
    );
    const source = generateCode(language, program);
    assert.ok(!source.includes(key.kid), 'no key id in the program');
    const built = buildProgram(language, source, dir, name);
    // Bundled into out/test/unit: the repository is three folders up.
    cpSync(resolve(__dirname, '../../../proto/mobility'), join(built.cwd, 'proto/mobility'), { recursive: true });
    if (language === 'python') {
      const protoc = /^ {4}(protoc .*)$/m.exec(source)?.[1];
      assert.ok(protoc, 'the header names the protoc command');
      const run = spawnSync('bash', ['-c', protoc], { cwd: built.cwd, encoding: 'utf8' });
      assert.equal(run.status, 0, `${protoc}: ${run.stderr}`);
    }
    mkdirSync(join(dir, key.kid));
    return { key, built, env: { ...key.env, TMPDIR: join(dir, key.kid), MOBILITY_API_STATE_DIR: join(dir, key.kid) } };
  }

  const skipUnlessInstalled = (context: Mocha.Context, language: CodeLanguage) =>
    skipIfMissing(context, language, [
      ...missingTools(language),
      ...(language === 'python' ? missingGrpcPython() : []),
    ]);

  for (const language of GRPC_CODE_LANGUAGES) {
    it(`${language}: ListVehicles (server streaming, every vehicle) and GetVehicle (unary, service account), two workers each, every call accepted`, async function () {
      skipUnlessInstalled(this, language);
      const list = build(
        language,
        'list',
        'external-org',
        'mobility.sandbox.v1.VehicleService/ListVehicles',
        true,
        'mobility.sandbox.v1.ListVehiclesRequest',
        {},
      );
      if (language === 'typescript') compileTypeScript([list.built]);
      calls.length = 0;
      const before = sandbox.clientReport()!.requests;
      const listed = await runProgram(list.built, list.env);
      assert.equal(listed.code, 0, `${language} ListVehicles exited ${listed.code}:\n${listed.err}\n${listed.out}`);
      for (const worker of [1, 2]) {
        assert.equal(
          listed.out.split('\n').filter((l) => l.startsWith(`worker ${worker} message `)).length,
          FLEET,
          `worker ${worker} printed every vehicle:\n${listed.out}`,
        );
        assert.ok(listed.out.includes(`worker ${worker}: ${FLEET} messages`), listed.out);
      }
      const deviceId = /"device_id": ?"([^"]+)"/.exec(listed.out)?.[1];
      assert.ok(deviceId, listed.out);

      const get = build(
        language,
        'get',
        'service-account',
        'mobility.sandbox.v1.VehicleService/GetVehicle',
        false,
        'mobility.sandbox.v1.GetVehicleRequest',
        { device_id: deviceId },
      );
      if (language === 'typescript') compileTypeScript([get.built]);
      const got = await runProgram(get.built, get.env);
      assert.equal(got.code, 0, `${language} GetVehicle exited ${got.code}:\n${got.err}\n${got.out}`);
      assert.equal(
        got.out.split('\n').filter((l) => /^worker [12]: \{.*"device_id": ?"/.test(l) && l.includes(deviceId)).length,
        2,
        got.out,
      );

      assert.deepEqual(
        calls.filter((c) => c.status !== 'OK'),
        [],
        'every call accepted',
      );
      assert.deepEqual(calls.map((c) => c.method.split('/').pop()).sort(), [
        'GetVehicle',
        'GetVehicle',
        'ListVehicles',
        'ListVehicles',
      ]);
      // The report card graded the four tokens against every rule of spec 5: all accepted.
      const report = sandbox.clientReport()!.requests;
      assert.deepEqual(
        { accepted: report.accepted - before.accepted, refused: report.refused - before.refused },
        { accepted: 4, refused: 0 },
      );
    });

    it(`${language}: a server known by reflection only: its schema saved as a descriptor set, which the program loads; ListVehicles accepted for two workers`, async function () {
      skipUnlessInstalled(this, language);
      const { environment, target } = mds();
      const connection = openConnection({ address: target, plaintext: true });
      const schema = await reflectSchema(connection).finally(() => connection.close());
      const method = 'mobility.sandbox.v1.VehicleService/ListVehicles';
      const key = makeKey('external-org');
      const program = grpcCodeProgramFor(
        environment,
        { type: 'external-org', issuer: key.issuer },
        {
          ...methodCodeShape(schema, method),
          target,
          plaintext: true,
          message: {},
          protoFiles: [],
          protoset: { file: 'provider.protoset', files: descriptorFileNames(schema) },
        },
      );
      const source = generateCode(language, program);
      assert.ok(!source.includes('.proto"') || language === 'python', 'TypeScript loads no .proto file');
      const built = buildProgram(language, source, dir, 'reflected');
      writeFileSync(join(built.cwd, 'provider.protoset'), protosetOf(schema));
      if (language === 'python') {
        const protoc = /^ {4}(protoc .*)$/m.exec(source)?.[1];
        // The sandbox's reflection (@grpc/reflection) names its files by package.
        assert.match(protoc ?? '', /--descriptor_set_in=provider\.protoset .*--grpc_python_out=\. \S+\.proto/);
        const run = spawnSync('bash', ['-c', protoc!], { cwd: built.cwd, encoding: 'utf8' });
        assert.equal(run.status, 0, `${protoc}: ${run.stderr}`);
      } else {
        assert.match(source, /loadFileDescriptorSetFromBuffer\(fs\.readFileSync\("provider\.protoset"\)/);
        compileTypeScript([built]);
      }
      mkdirSync(join(dir, key.kid));
      calls.length = 0;
      const listed = await runProgram(built, {
        ...key.env,
        TMPDIR: join(dir, key.kid),
        MOBILITY_API_STATE_DIR: join(dir, key.kid),
      });
      assert.equal(listed.code, 0, `${language} exited ${listed.code}:\n${listed.err}\n${listed.out}`);
      for (const worker of [1, 2]) assert.ok(listed.out.includes(`worker ${worker}: ${FLEET} messages`), listed.out);
      const made = calls.filter((c) => c.method.endsWith('/ListVehicles'));
      assert.deepEqual(
        made.map((c) => c.status),
        ['OK', 'OK'],
        `both calls accepted: ${JSON.stringify(calls)}`,
      );
    });

    it(`${language}: without the wait for the next second, rule 6 fails: the program exits non-zero with the status name and message`, async function () {
      skipUnlessInstalled(this, language);
      const program = build(
        language,
        'broken',
        'external-org',
        'mobility.sandbox.v1.VehicleService/ListVehicles',
        true,
        'mobility.sandbox.v1.ListVehiclesRequest',
        {},
      );
      const wait = language === 'python' ? 'while iat <= last:' : 'while (iat <= lastIat) {';
      const source = readSource(program.built);
      assert.ok(source.includes(wait), 'the program waits for the next second');
      writeFileSync(
        sourceFile(program.built),
        source.replace(wait, language === 'python' ? 'while False:' : 'while (false) {'),
      );
      if (language === 'typescript') compileTypeScript([program.built]);
      calls.length = 0;
      // Four workers: at least two of them sign in the same second.
      const run = await runProgram(program.built, { ...program.env, MOBILITY_API_WORKERS: '4' });
      assert.notEqual(run.code, 0, run.out);
      assert.match(run.err, /worker [1-4]: UNAUTHENTICATED iat_not_increasing/);
      assert.ok(
        calls.some((c) => c.status === 'UNAUTHENTICATED' && c.rule === 'iat_not_increasing'),
        JSON.stringify(calls),
      );
    });
  }
});

function sourceFile(program: BuiltProgram): string {
  return program.args[0].endsWith('.js') ? program.args[0].replace(/\.js$/, '.ts') : program.args[0];
}

function readSource(program: BuiltProgram): string {
  return readFileSync(sourceFile(program), 'utf8');
}
