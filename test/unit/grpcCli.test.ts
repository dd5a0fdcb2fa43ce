import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writeDemoCredential } from '../../src/sandbox/auth/demoCredential';
import { TrustStore } from '../../src/sandbox/auth/trustStore';
import { runCliInProcess, spawnBuiltCli } from './support/cliRunner';
import type { GrpcTestServer } from './support/grpcTestServer';
import { FIXTURES, FLEET_PROTO, INCLUDE_DIR, startGrpcTestServer } from './support/grpcTestServer';
import { makeTestCertificates } from './support/testCertificates';
import type { TestCertificates } from './support/testCertificates';

const AUDIENCE = 'https://mds.grpc-cli.test.invalid';

describe('CLI: grpc list, describe and call', function () {
  this.timeout(60_000);
  let dir: string;
  let server: GrpcTestServer;
  let credentialFile: string;
  const flags = () => [
    '--target',
    server.address,
    '--plaintext',
    '--aud',
    AUDIENCE,
    '--credential',
    credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];
  const GET = 'mobility.test.v1.Fleet/GetVehicle';

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-cli-'));
    const setup = await writeDemoCredential(path.join(dir, 'demo'));
    credentialFile = setup.demo.credentialFile;
    server = await startGrpcTestServer({
      reflection: 'v1alpha',
      trust: new TrustStore([setup.trusted]),
      audience: AUDIENCE,
    });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('list --json names the reflection version that answered, each method with its kind and types', async () => {
    const r = await runCliInProcess(['grpc', 'list', '--target', server.address, '--plaintext', '--json']);
    assert.equal(r.code, 0, r.err);
    const listed = JSON.parse(r.out) as {
      reflection: string | null;
      services: { name: string; methods: Record<string, unknown>[] }[];
    };
    assert.equal(listed.reflection, 'v1alpha');
    assert.deepEqual(
      listed.services.map((s) => s.name),
      ['mobility.test.v1.Fleet'],
    );
    assert.deepEqual(listed.services[0].methods[1], {
      name: 'WatchVehicles',
      fullName: '/mobility.test.v1.Fleet/WatchVehicles',
      clientStreaming: false,
      serverStreaming: true,
      inputType: 'mobility.test.v1.WatchRequest',
      outputType: 'mobility.test.v1.Vehicle',
    });
    const offline = await runCliInProcess([
      'grpc',
      'list',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
      '--json',
    ]);
    assert.equal(offline.code, 0, offline.err);
    assert.equal((JSON.parse(offline.out) as { reflection: null }).reflection, null);
    const text = await runCliInProcess(['grpc', 'list', '--target', server.address, '--plaintext']);
    assert.match(text.out, /server reflection \(grpc\.reflection\.v1alpha\)/);
    assert.match(
      text.out,
      /^ {2}Echo \(stream mobility\.test\.v1\.Telemetry\) returns \(stream mobility\.test\.v1\.Telemetry\)$/m,
    );
  });

  it('list --protoset-out saves the schema reflection gave as a descriptor set, which list and code --grpc --protoset read', async () => {
    const protoset = path.join(dir, 'fleet.protoset');
    const saved = await runCliInProcess([
      'grpc',
      'list',
      '--target',
      server.address,
      '--plaintext',
      '--protoset-out',
      protoset,
    ]);
    assert.equal(saved.code, 0, saved.err);
    assert.match(saved.out, /^mobility\.test\.v1\.Fleet$/m, 'the listing still goes to stdout');
    assert.match(saved.err, /descriptor set to .*fleet\.protoset/);
    const offline = await runCliInProcess(['grpc', 'list', '--protoset', protoset, '--json']);
    assert.equal(offline.code, 0, offline.err);
    const listed = JSON.parse(offline.out) as { services: { name: string; methods: { name: string }[] }[] };
    assert.deepEqual(
      listed.services.map((s) => [s.name, s.methods.map((m) => m.name)]),
      [['mobility.test.v1.Fleet', ['GetVehicle', 'WatchVehicles', 'UploadTelemetry', 'Echo']]],
    );

    const code = await runCliInProcess([
      'code',
      'python',
      '--grpc',
      GET,
      '--target',
      server.address,
      '--plaintext',
      '--protoset',
      protoset,
      '--aud',
      AUDIENCE,
      '--credential',
      credentialFile,
      '--data',
      '{"device_id": "v7"}',
    ]);
    assert.equal(code.code, 0, code.err);
    assert.match(code.out, /--descriptor_set_in=\S*fleet\.protoset/);
    const typescript = await runCliInProcess([
      'code',
      'typescript',
      '--grpc',
      GET,
      '--target',
      server.address,
      '--plaintext',
      '--protoset',
      protoset,
      '--aud',
      AUDIENCE,
      '--credential',
      credentialFile,
    ]);
    assert.equal(typescript.code, 0, typescript.err);
    assert.match(typescript.out, /loadFileDescriptorSetFromBuffer\(fs\.readFileSync\(".*fleet\.protoset"\)/);
    const neither = await runCliInProcess([
      'code',
      'python',
      '--grpc',
      GET,
      '--target',
      server.address,
      '--plaintext',
      '--aud',
      AUDIENCE,
      '--credential',
      credentialFile,
    ]);
    assert.equal(neither.code, 2);
    assert.match(neither.err, /--protoset-out/);
    const wrongField = await runCliInProcess([
      'code',
      'python',
      '--grpc',
      GET,
      '--target',
      server.address,
      '--plaintext',
      '--protoset',
      protoset,
      '--aud',
      AUDIENCE,
      '--credential',
      credentialFile,
      '--data',
      '{"nope": 1}',
    ]);
    assert.equal(wrongField.code, 2, "the message is checked against the descriptor set's type");
    assert.match(wrongField.err, /nope/);
  });

  it('describe prints a service and a message in .proto syntax, and --template a message to fill in', async () => {
    const service = await runCliInProcess([
      'grpc',
      'describe',
      'mobility.test.v1.Fleet',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
    ]);
    assert.equal(service.code, 0, service.err);
    assert.match(
      service.out,
      /service Fleet \{\n {2}rpc GetVehicle \(mobility\.test\.v1\.VehicleRequest\) returns \(mobility\.test\.v1\.Vehicle\);/,
    );
    const message = await runCliInProcess([
      'grpc',
      'describe',
      'mobility.test.v1.Vehicle',
      '--target',
      server.address,
      '--plaintext',
    ]);
    assert.match(message.out, /map<string, int32> counters = 6;/);
    assert.match(
      message.out,
      /oneof location \{\n {4}mobility\.common\.Point point = 8;\n {4}string stop_id = 9;\n {2}\}/,
    );
    const template = await runCliInProcess([
      'grpc',
      'describe',
      'mobility.test.v1.Vehicle',
      '--template',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
    ]);
    assert.equal(template.code, 0, template.err);
    assert.deepEqual(JSON.parse(template.out), {
      device_id: '',
      vehicle_type: 'VEHICLE_TYPE_UNSPECIFIED',
      battery: { charge: 0 },
      last_seen: '1970-01-01T00:00:00Z',
      tags: [''],
      counters: { key: 0 },
      towed_by: {},
      point: { lat: 0, lng: 0 },
      odometer_m: '0',
    });
    const methodTemplate = await runCliInProcess([
      'grpc',
      'describe',
      GET,
      '--template',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
    ]);
    assert.deepEqual(JSON.parse(methodTemplate.out), { device_id: '' });
    const enumTemplate = await runCliInProcess([
      'grpc',
      'describe',
      'mobility.test.v1.VehicleType',
      '--template',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
    ]);
    assert.equal(enumTemplate.code, 2);
    assert.match(enumTemplate.err, /mobility\.test\.v1\.VehicleType is an enum\.$/m);
  });

  it('call --json prints status, headers, trailers, messages and the claims of the token sent, never the token', async () => {
    const r = await runCliInProcess([
      'grpc',
      'call',
      GET,
      ...flags(),
      '--data',
      '{"device_id": "v7"}',
      '--metadata',
      'x-request-id: 42',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as {
      status: { code: number; name: string };
      headers: Record<string, string[]>;
      trailers: Record<string, string[]>;
      messages: { device_id: string }[];
      token: { aud: string; jti: string };
    };
    assert.deepEqual([out.status.code, out.status.name], [0, 'OK']);
    assert.deepEqual(
      out.messages.map((m) => m.device_id),
      ['v7'],
    );
    assert.deepEqual(out.trailers['x-served-by'], ['test']);
    assert.equal(out.token.aud, AUDIENCE);
    assert.deepEqual(server.seen.at(-1)?.metadata['x-request-id'], ['42']);
    const sent = server.seen.at(-1)!.authorization!.replace(/^Bearer /, '');
    assert.ok(!r.out.includes(sent) && !r.err.includes(sent), 'the token itself is never printed');
    const data = path.join(dir, 'upload.json');
    fs.writeFileSync(data, '{"device_id": "a"}\n{"device_id": "b"}\n');
    const upload = await runCliInProcess([
      'grpc',
      'call',
      'mobility.test.v1.Fleet/UploadTelemetry',
      ...flags(),
      '--data',
      `@${data}`,
    ]);
    assert.equal(upload.code, 0, upload.err);
    assert.match(upload.out, /UploadTelemetry {2}OK/);
    assert.match(upload.out, /"received": 2/);
  });

  it("call exits 1 on a refusal with the status on stderr and the doctor's likely cause", async () => {
    const r = await runCliInProcess([
      'grpc',
      'call',
      GET,
      ...flags().map((f) => (f === AUDIENCE ? 'https://wrong.test.invalid' : f)),
      '--data',
      '{}',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.err, /mobility-api: UNAUTHENTICATED: /);
    assert.match(r.err, /Likely cause: The server names rule aud_mismatch/);
    assert.match(
      r.err,
      /\[PROBLEM\] Server says: UNAUTHENTICATED: aud is "https:\/\/wrong\.test\.invalid".* \(rule: aud_mismatch\)/,
    );
  });

  it('refuses bad input with a clear error before the call is sent', async () => {
    const count = server.seen.length;
    const unknown = await runCliInProcess(['grpc', 'call', 'mobility.test.v1.Fleet/Nope', ...flags()]);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.err,
      /The service "mobility\.test\.v1\.Fleet" has no method "Nope"\. Methods the schema knows: mobility\.test\.v1\.Fleet\/GetVehicle/,
    );
    const misfit = await runCliInProcess(['grpc', 'call', GET, ...flags(), '--data', '{"device_id": 7}']);
    assert.equal(misfit.code, 2);
    assert.match(misfit.err, /does not fit its type at device_id: expected text \(string\), got number 7/);
    const unknownField = await runCliInProcess([
      'grpc',
      'call',
      'mobility.test.v1.Fleet/WatchVehicles',
      ...flags(),
      '--data',
      '{"cuont": 2}',
    ]);
    assert.match(
      unknownField.err,
      /at cuont: message mobility\.test\.v1\.WatchRequest has no field "cuont"; its fields are count/,
    );
    const own = await runCliInProcess(['grpc', 'call', GET, ...flags(), '--metadata', 'authorization: Bearer x']);
    assert.equal(own.code, 2);
    assert.match(own.err, /leave out your own authorization metadata/);
    assert.equal(
      server.seen.filter((s) => !s.path.includes('reflection')).length,
      server.seen.slice(0, count).filter((s) => !s.path.includes('reflection')).length,
      'no call reached the server',
    );
    const broken = await runCliInProcess(['grpc', 'list', '--proto', path.join(FIXTURES, 'broken.proto')]);
    assert.equal(broken.code, 2);
    assert.match(broken.err, /broken\.proto, line 6, column 17: illegal/);
    const noImport = await runCliInProcess(['grpc', 'list', '--proto', FLEET_PROTO]);
    assert.match(
      noImport.err,
      /Cannot find "mobility\/common\.proto" \(imported by .*fleet\.proto\) in the import paths/,
    );
  });

  describe('connections', () => {
    let certificates: TestCertificates;
    let tlsServer: GrpcTestServer;
    before(async () => {
      certificates = makeTestCertificates();
      tlsServer = await startGrpcTestServer({ reflection: 'v1', tls: certificates.valid });
    });
    after(async () => {
      await tlsServer?.close();
      certificates?.remove();
    });

    it('says when nothing listens, when TLS meets plaintext and the reverse, and trusts a CA file', async () => {
      const closed = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as net.AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      const refused = await runCliInProcess(['grpc', 'list', '--target', `127.0.0.1:${closed}`, '--plaintext']);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /Cannot connect to 127\.0\.0\.1:\d+: nothing listens there/);
      const tlsToPlain = await runCliInProcess(['grpc', 'list', '--target', server.address]);
      assert.match(
        tlsToPlain.err,
        /does not speak TLS .*needs --plaintext \(in VS Code: "plaintext": true in mobilityApi\.grpc\.environments\)\. Nothing was sent\./,
      );
      const plainToTls = await runCliInProcess(['grpc', 'list', '--target', tlsServer.address, '--plaintext']);
      assert.match(plainToTls.err, /speaks TLS, not plaintext: leave out --plaintext/);
      assert.equal(tlsServer.seen.length, 0);
      const untrusted = await runCliInProcess(['grpc', 'list', '--target', tlsServer.address]);
      assert.match(untrusted.err, /is not trusted .*--ca-file/);
      const trusted = await runCliInProcess([
        'grpc',
        'list',
        '--target',
        tlsServer.address,
        '--ca-file',
        certificates.caFile,
        '--json',
      ]);
      assert.equal(trusted.code, 0, trusted.err);
      assert.equal((JSON.parse(trusted.out) as { reflection: string }).reflection, 'v1');
      const remote = await runCliInProcess(['grpc', 'list', '--target', 'example.com:443', '--plaintext']);
      assert.match(remote.err, /Plaintext is only for this computer/);
    });

    it("the built CLI over TLS to an IP address target prints the listing, without Node's DEP0123 warning that grpc-js causes", async () => {
      assert.match(tlsServer.address, /^127\.0\.0\.1:\d+$/);
      const run = await spawnBuiltCli([
        'grpc',
        'list',
        '--target',
        tlsServer.address,
        '--ca-file',
        certificates.caFile,
      ]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /^mobility\.test\.v1\.Fleet$/m);
      assert.doesNotMatch(run.err, /DEP0123|DeprecationWarning/, run.err);
      // Any other warning still shows, as Node prints it.
      const preload = path.join(dir, 'warn.cjs');
      fs.writeFileSync(
        preload,
        "process.emitWarning('a warning of the test', { type: 'DeprecationWarning', code: 'DEP_TEST_CANARY' });\n",
      );
      const warned = await spawnBuiltCli(
        ['grpc', 'list', '--target', tlsServer.address, '--ca-file', certificates.caFile],
        { NODE_OPTIONS: `--require ${preload}` },
      );
      assert.equal(warned.code, 0, warned.err);
      assert.match(warned.err, /\[DEP_TEST_CANARY\] DeprecationWarning: a warning of the test/);
      assert.doesNotMatch(warned.err, /DEP0123/);
    });
  });
});
