// Copy as Code for gRPC calls: what the Python and TypeScript programs hold (spec 5 for the
// credential type, the token in the metadata of every call, nothing secret), what is refused with a
// clear error (go, java and shell; calls no program could make), and `mobility-api code --grpc`.
// codegenGrpcRun.test.ts runs the programs against the sandbox.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeLanguage, GrpcCodeCall } from '../../src/core/codegen';
import { CODE_LANGUAGES, generateCode, GRPC_CODE_LANGUAGES, grpcCodeProgramFor } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { runCliInProcess } from './support/cliRunner';
import { distinctKeyPair } from './keyFixtures';

const MDS: Environment = {
  id: 'mds',
  name: 'MDS staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.example.test/staging/',
};
const TYPES: CredentialType[] = ['external-org', 'iam', 'service-account'];
const GET: GrpcCodeCall = {
  method: 'mobility.sandbox.v1.VehicleService/GetVehicle',
  target: 'grpc.example.test:443',
  message: { device_id: 'd-1', flags: [true, null] },
  metadata: [['x-trace', '7']],
  protoFiles: ['proto/mobility/sandbox/v1/vehicles.proto'],
  importPaths: ['proto'],
  serverStreaming: false,
  inputType: 'mobility.sandbox.v1.GetVehicleRequest',
};
const LIST: GrpcCodeCall = {
  ...GET,
  method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
  message: {},
  metadata: [],
  serverStreaming: true,
  inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
};

function code(language: CodeLanguage, type: CredentialType, call: GrpcCodeCall = GET): string {
  return generateCode(
    language,
    grpcCodeProgramFor(
      MDS,
      { type, issuer: type === 'service-account' ? 'robot@sa.example.test' : `org-7@${type}.example.test` },
      call,
    ),
  );
}

function refusal(call: Partial<GrpcCodeCall>): string {
  try {
    grpcCodeProgramFor(MDS, { type: 'iam', issuer: 'a@b.c' }, { ...GET, ...call });
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'CODE_GRPC_INVALID');
    return (err as Error).message;
  }
  assert.fail('refused');
}

describe('Copy as Code generators: gRPC calls', () => {
  for (const language of GRPC_CODE_LANGUAGES) {
    describe(language, () => {
      for (const type of TYPES) {
        it(`${type}: a fresh token in the authorization metadata of every call, aud = the REST base URL, the rules named, nothing secret`, () => {
          const text = code(language, type);
          const top = text.split('\n').slice(0, 20).join('\n');
          assert.match(top, /MOBILITY_API_KEY_FILE/);
          assert.match(top, type === 'service-account' ? /private_key_id/ : /MOBILITY_API_KEY_ID/);
          assert.doesNotMatch(text, /BEGIN [A-Z ]*PRIVATE KEY-----/);
          assert.doesNotMatch(text, /eyJ[\w-]+\.[\w-]+/, 'no token');
          assert.ok(text.includes('"https://mds.example.test/staging"'), 'the base URL, the audience');
          assert.ok(
            text.includes(
              language === 'python'
                ? '("authorization", f"Bearer {token}")'
                : 'metadata.set("authorization", `Bearer ${token}`)',
            ),
            'the token in the metadata',
          );
          for (const rule of [
            'spec 5.1 rule 5',
            'rule 6',
            'spec 5.1 rule 7',
            'spec 5.3',
            type === 'service-account' ? 'spec 5.6' : type === 'iam' ? 'spec 5.5' : 'spec 5.4',
          ])
            assert.ok(text.toLowerCase().includes(rule), `names ${rule}`);
          assert.ok(text.includes(type === 'service-account' ? 'RS256' : 'ES256'));
          assert.equal(/\bsub\b/.test(text), type === 'service-account', 'sub for service accounts only');
          assert.ok(
            text.includes('grpc.example.test:443') && text.includes('GetVehicle') && text.includes('"x-trace"'),
            'target, method and metadata',
          );
        });
      }

      it('TLS by default, a CA file when given, plaintext only when asked (and said)', () => {
        assert.doesNotMatch(code(language, 'iam'), /insecure|Insecure/);
        assert.match(code(language, 'iam', { ...GET, caFile: 'certs/ca.pem' }), /"certs\/ca\.pem"/);
        const plain = code(language, 'iam', { ...GET, target: '127.0.0.1:50051', plaintext: true });
        assert.match(plain, /insecure_channel|createInsecure/);
        assert.match(plain, /Plaintext: this computer only/);
      });

      it('a server stream is printed message by message and counted; a status other than OK exits with its name and message', () => {
        const text = code(language, 'external-org', LIST);
        assert.match(text, /message \{?\$?\{?count\}/);
        assert.match(text, /\{count\} messages/);
        assert.match(
          text,
          language === 'python'
            ? /sys\.exit\(f"worker \{worker\}: \{err\.code\(\)\.name\} \{err\.details\(\)\}"\)/
            : /grpc\.status\[code\]\} \$\{details\}/,
        );
      });
    });
  }

  it('python: the header says the protoc command that writes the stubs it imports, with the import paths as given', () => {
    const text = code('python', 'iam');
    assert.ok(
      text.includes(
        '    protoc --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin -I proto --python_out=. --grpc_python_out=. proto/mobility/sandbox/v1/vehicles.proto\n',
      ),
    );
    assert.ok(
      text.includes(
        '    python -m grpc_tools.protoc -I proto --python_out=. --grpc_python_out=. proto/mobility/sandbox/v1/vehicles.proto\n',
      ),
    );
    assert.match(text, /^from mobility\.sandbox\.v1 import vehicles_pb2, vehicles_pb2_grpc$/m);
    assert.match(text, /vehicles_pb2\.GetVehicleRequest\(\)/);
    // A file under no import path is found in its own folder.
    const alone = code('python', 'iam', { ...GET, protoFiles: ['../shared/my protos/fleet.proto'], importPaths: [] });
    assert.ok(
      alone.includes(`-I '../shared/my protos' --python_out=. --grpc_python_out=. '../shared/my protos/fleet.proto'`),
      alone.slice(0, 1500),
    );
    assert.match(alone, /^import fleet_pb2, fleet_pb2_grpc$/m);
  });

  it('typescript: loads the .proto files at run time by their names under the include folders', () => {
    const text = code('typescript', 'iam');
    assert.ok(text.includes('protoLoader.loadSync(["mobility/sandbox/v1/vehicles.proto"], {'));
    assert.ok(text.includes('includeDirs: ["proto"],'));
    assert.ok(text.includes('const SERVICE = "mobility.sandbox.v1.VehicleService";'));
  });

  it('python: black leaves every variant unchanged', function () {
    if (spawnSync('black', ['--help'], { stdio: 'ignore' }).error) {
      if (process.env.CI === 'true') assert.fail('black is not installed (.ci/run installs it)');
      if (this.test) this.test.title += ' (pending: black not installed)';
      this.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'codegen-grpc-format-'));
    try {
      const variants = [
        ...TYPES.map((t) => code('python', t)),
        code('python', 'external-org', LIST),
        code('python', 'iam', { ...GET, caFile: 'ca.pem' }),
        code('python', 'iam', { ...LIST, target: 'localhost:1', plaintext: true }),
      ];
      // One black over the folder (a process per file timed out on a busy machine); it prints each file's diff.
      variants.forEach((text, n) => writeFileSync(join(dir, `v${n}.py`), text));
      const run = spawnSync('black', ['--check', '--diff', '--quiet', dir], { encoding: 'utf8' });
      assert.equal(run.status, 0, `black would change a variant:\n${run.stdout}${run.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const language of CODE_LANGUAGES.filter((l) => !GRPC_CODE_LANGUAGES.includes(l))) {
    it(`${language} refuses a gRPC call, naming the languages that can${language === 'shell' ? ' and Copy as grpcurl' : ''}`, () => {
      assert.throws(
        () => code(language, 'iam'),
        (err: Error & { code?: string }) =>
          err.code === 'CODE_GRPC_UNSUPPORTED' &&
          /Python \(PyJWT \+ grpcio\) and TypeScript \/ Node \(jose \+ @grpc\/grpc-js\)/.test(err.message) &&
          (language !== 'shell' || /Copy as grpcurl/.test(err.message)),
      );
    });
  }

  it('refuses calls no program could make, saying what to give instead', () => {
    assert.match(refusal({ method: 'GetVehicle' }), /package\.Service\/Method/);
    assert.match(refusal({ clientStreaming: true }), /unary and server-streaming/);
    assert.match(refusal({ target: 'https://grpc.example.test' }), /host:port/);
    assert.match(refusal({ plaintext: true }), /Plaintext is only for this computer/);
    assert.match(refusal({ target: 'localhost:1', plaintext: true, caFile: 'ca.pem' }), /CA file is for TLS/);
    assert.match(refusal({ protoFiles: [] }), /Give the \.proto files/);
    assert.match(refusal({ message: [] }), /one JSON object/);
    assert.match(refusal({ metadata: [['Authorization', 'Bearer x']] }), /signs a fresh token for every call/);
    assert.match(refusal({ protoFiles: ['a.proto', 'b.proto'] }), /which of the \.proto files defines/);
    assert.throws(
      () =>
        generateCode(
          'python',
          grpcCodeProgramFor(
            MDS,
            { type: 'iam', issuer: 'a@b.c' },
            { ...GET, protoFiles: ['my-api/v1.proto'], importPaths: ['.'] },
          ),
        ),
      /Python name/,
    );
  });

  describe('mobility-api code --grpc', () => {
    let dir: string;
    let keyFile: string;
    const SECRET_KID = 'kid-that-must-not-appear-0815';
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'codegen-grpc-cli-'));
      keyFile = join(dir, 'ec.pem');
      writeFileSync(keyFile, distinctKeyPair('p256').privateKey.export({ type: 'pkcs8', format: 'pem' }));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));
    const args = (language: string, method: string, ...more: string[]) => [
      'code',
      language,
      '--grpc',
      method,
      '--target',
      '127.0.0.1:50051',
      '--plaintext',
      '--proto',
      'proto/mobility/sandbox/v1/vehicles.proto',
      '--proto',
      'proto/mobility/sandbox/v1/maas.proto',
      '--import-path',
      'proto',
      '--aud',
      'http://127.0.0.1:8080/mds/staging',
      '--private-key',
      keyFile,
      '--kid',
      SECRET_KID,
      '--iss',
      'org-1@ext.example.test',
      '--type',
      'external-org',
      ...more,
    ];

    it('prints the program for a method of one of several .proto files, with its message, and not the key id', async () => {
      const run = await runCliInProcess(
        args('python', 'mobility.sandbox.v1.VehicleService/GetVehicle', '--data', '{"device_id": "d-9"}'),
      );
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /^from mobility\.sandbox\.v1 import vehicles_pb2, vehicles_pb2_grpc$/m);
      assert.match(run.out, /"device_id": "d-9",/);
      assert.ok(
        run.out.includes('proto/mobility/sandbox/v1/vehicles.proto proto/mobility/sandbox/v1/maas.proto'),
        'protoc compiles every file given',
      );
      assert.ok(!run.out.includes(SECRET_KID));
      const maas = await runCliInProcess(args('typescript', 'mobility.sandbox.v1.MaasVehicleService/ListVehicles'));
      assert.equal(maas.code, 0, maas.err);
      assert.ok(maas.out.includes('const SERVICE = "mobility.sandbox.v1.MaasVehicleService";'));
    });

    it('a message that does not fit its type, an unknown method, a missing --proto and a REST option are clear errors, before any program', async () => {
      const field = await runCliInProcess(
        args('python', 'mobility.sandbox.v1.VehicleService/GetVehicle', '--data', '{"device_id": 7}'),
      );
      assert.equal(field.code, 2);
      assert.match(field.err, /device_id/);
      assert.equal(field.out, '');
      const unknown = await runCliInProcess(args('python', 'mobility.sandbox.v1.VehicleService/Nope'));
      assert.match(unknown.err, /has no method "Nope".*VehicleService\/GetVehicle/);
      const noProto = await runCliInProcess([
        'code',
        'python',
        '--grpc',
        'a.B/C',
        '--target',
        'h:1',
        '--aud',
        'https://x.test',
        '--private-key',
        keyFile,
        '--kid',
        'k',
        '--iss',
        'a@b.c',
      ]);
      assert.match(noProto.err, /--proto <file>/);
      const rest = await runCliInProcess([
        ...args('python', 'mobility.sandbox.v1.VehicleService/GetVehicle'),
        '--query',
        'a=b',
      ]);
      assert.match(rest.err, /--query is for REST requests/);
    });

    it('go, java and shell refuse --grpc, naming python and typescript (shell: Copy as grpcurl)', async () => {
      for (const language of ['go', 'java', 'shell']) {
        const run = await runCliInProcess(args(language, 'mobility.sandbox.v1.VehicleService/GetVehicle'));
        assert.equal(run.code, 2, language);
        assert.match(run.err, /Python \(PyJWT \+ grpcio\) and TypeScript/);
        if (language === 'shell') assert.match(run.err, /Copy as grpcurl/);
        assert.equal(run.out, '');
      }
    });
  });
});
