import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { writeDemoCredential } from '../../src/sandbox/auth/demoCredential';
import { TrustStore } from '../../src/sandbox/auth/trustStore';
import { runCliInProcess } from './support/cliRunner';
import type { GrpcTestServer } from './support/grpcTestServer';
import { FIXTURES, startGrpcTestServer } from './support/grpcTestServer';

const AUDIENCE = 'https://mds.send-grpc.test.invalid';

describe('CLI: send of a GRPC request in a .http file', function () {
  this.timeout(60_000);
  let dir: string;
  let credentialFile: string;
  let plain: GrpcTestServer;
  let reflecting: GrpcTestServer;
  const flags = () => [
    '--base-url',
    AUDIENCE,
    '--api',
    'mds',
    '--credential',
    credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];
  const calls = (server: GrpcTestServer) => server.seen.filter((s) => !s.path.includes('reflection'));

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'send-grpc-'));
    const setup = await writeDemoCredential(path.join(dir, 'demo'));
    credentialFile = setup.demo.credentialFile;
    const trust = new TrustStore([setup.trusted]);
    // One server without reflection (the file's proto < lines are the schema), one with it.
    plain = await startGrpcTestServer({ reflection: 'none', trust, audience: AUDIENCE });
    reflecting = await startGrpcTestServer({ reflection: 'v1', trust, audience: AUDIENCE });
    // The request file sits beside a copy of the fixtures: its proto < paths are relative to it.
    fs.cpSync(FIXTURES, path.join(dir, 'protos'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'fleet.http'),
      [
        '@id = v2',
        'proto < ./protos/fleet.proto',
        'includeDirs: ["./protos/include"]',
        '',
        '###',
        '# @name one',
        `GRPC grpc://${plain.address}/mobility.test.v1.Fleet/GetVehicle`,
        'x-request-id: 7',
        '',
        '{ "device_id": "v1" }',
        '',
        '###',
        '# @name active',
        'GRPC {{grpcTarget}}/mobility.test.v1.Fleet/GetVehicle',
        '',
        '{ "device_id": "{{id}}" }',
        '',
        '###',
        '# @name own',
        'GRPC {{grpcTarget}}/mobility.test.v1.Fleet/GetVehicle',
        'authorization: Bearer pasted',
        '',
        '{}',
      ].join('\n'),
    );
  });
  after(async () => {
    await plain?.close();
    await reflecting?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends a GRPC request twice with the schema of its proto < lines, a fresh token each time', async () => {
    const file = path.join(dir, 'fleet.http');
    const first = await runCliInProcess(['send', file, '--request', 'one', ...flags(), '--json']);
    assert.equal(first.code, 0, first.err);
    const second = await runCliInProcess(['send', file, '--request', 'one', ...flags(), '--json']);
    assert.equal(second.code, 0, second.err);
    const outs = [first, second].map(
      (r) =>
        JSON.parse(r.out) as {
          status: { name: string };
          messages: { device_id: string }[];
          token: { jti: string; aud: string };
        },
    );
    assert.deepEqual(
      outs.map((o) => [o.status.name, o.messages[0].device_id, o.token.aud]),
      [
        ['OK', 'v1', AUDIENCE],
        ['OK', 'v1', AUDIENCE],
      ],
    );
    assert.notEqual(outs[0].token.jti, outs[1].token.jti, 'a new token for every call (spec 5.1 rule 4)');
    const sent = calls(plain).slice(-2);
    assert.equal(sent.length, 2);
    assert.deepEqual(
      sent.map((s) => s.metadata['x-request-id']),
      [['7'], ['7']],
    );
    const [a, b] = sent.map((s) => decodeJwt(s.authorization!.replace(/^Bearer /, '')));
    assert.ok(Number(b.iat) >= Number(a.iat) && a.jti !== b.jti);
  });

  it('fills {{grpcTarget}} from --grpc-target and reads the schema by reflection when the file names no proto for it', async () => {
    // The file-level proto < applies to every GRPC request, so this one is sent with a file of its own.
    const file = path.join(dir, 'reflect.http');
    fs.writeFileSync(
      file,
      '@id = v9\n\nGRPC {{grpcTarget}}/mobility.test.v1.Fleet/GetVehicle\n\n{ "device_id": "{{id}}" }\n',
    );
    const r = await runCliInProcess(['send', file, ...flags(), '--grpc-target', reflecting.address, '--plaintext']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /GetVehicle {2}OK/);
    assert.match(r.out, /"device_id": "v9"/);
    assert.equal(calls(reflecting).length, 1);
  });

  it('refuses, before anything is sent, what cannot be sent as written', async () => {
    const file = path.join(dir, 'fleet.http');
    const before = calls(plain).length + calls(reflecting).length;
    const own = await runCliInProcess([
      'send',
      file,
      '--request',
      'own',
      ...flags(),
      '--grpc-target',
      reflecting.address,
      '--plaintext',
    ]);
    assert.equal(own.code, 2);
    assert.match(own.err, /# @authorization as-is/);
    const header = await runCliInProcess([
      'send',
      file,
      '--request',
      'one',
      ...flags(),
      '--header',
      'Authorization: Bearer pasted',
    ]);
    assert.equal(header.code, 2);
    assert.match(
      header.err,
      /--send-authorization-as-is/,
      'a pasted Authorization header is refused by the one rule, naming how to send it on purpose',
    );
    const noTarget = await runCliInProcess(['send', file, '--request', 'active', ...flags()]);
    assert.equal(noTarget.code, 2);
    assert.match(noTarget.err, /uses \{\{grpcTarget\}\}, which is not defined/);
    const restFlag = await runCliInProcess(['send', file, '--request', 'one', ...flags(), '--all-pages']);
    assert.equal(restFlag.code, 2);
    assert.match(restFlag.err, /--all-pages apply to REST requests; request one is a GRPC request/);
    const noBase = await runCliInProcess([
      'send',
      file,
      '--request',
      'one',
      '--api',
      'mds',
      '--credential',
      credentialFile,
    ]);
    assert.equal(noBase.code, 2);
    assert.match(
      noBase.err,
      /--base-url <url> is required: the environment's REST base URL is the audience of the gRPC token too \(spec 5\.3\)/,
    );
    assert.equal(calls(plain).length + calls(reflecting).length, before, 'nothing reached a server');
  });
});
