// What a server sends is shown as it was sent: values that look random (a 40-character vehicle type, 48 random bytes,
// a provider's vehicle id) come back byte for byte in every output form, and a 4.5 MB string too. Only our own
// secrets are hidden, by value: the kid a server echoes, however short, in every output (JUnit included).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { maskKeyId } from '../../src/core/base/redact';
import { makeCliCredential, runCliInProcess } from './support/cliRunner';
import type { CliCredential } from './support/cliRunner';
import { startCannedServer } from './support/testServer';

const PROTO = `syntax = "proto3";
package values.test.v1;
message Ask { string mode = 1; uint32 size = 2; }
message Answer { string vehicle_type = 1; bytes blob = 2; string note = 3; string kid = 4; }
service Values { rpc Get (Ask) returns (Answer); }
`;

/** Letters of both cases and digits, 32 characters and more: what shape-based redaction used to rewrite. */
const VEHICLE_TYPE = 'Xq7Lm2Pz9Kd4Rt6Wb1Nc8Hv3Js5Gf0YaE2uQ7iO4';
const BLOB = Buffer.from('Qm9vT2s3WXpMcTJ4UjhWbjRIdDZKa0E5Y0Z3R2QxU2VQMG1abl', 'utf8').subarray(0, 48);
const VEHICLE_ID = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5';
/** A short kid: masked whole (nothing of it shown), wherever a server echoes it. */
const KID = 'k1234567';

function kidOf(authorization: unknown): string {
  const header = (typeof authorization === 'string' ? authorization : '').replace(/^Bearer /, '').split('.')[0];
  return String((JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid?: unknown }).kid);
}

describe("a server's values are shown as sent; our own secrets are hidden by value", function () {
  this.timeout(60_000);
  let dir: string;
  let cred: CliCredential;
  let server: grpc.Server;
  let address: string;
  let protoFile: string;
  const flags = () => cred.flags.map((f, i, all) => (all[i - 1] === '--kid' ? KID : f));

  before(async () => {
    cred = makeCliCredential();
    dir = cred.dir;
    protoFile = path.join(dir, 'values.proto');
    fs.writeFileSync(protoFile, PROTO);
    const definition = protoLoader.loadSync(protoFile, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
    });
    server = new grpc.Server({ 'grpc.max_send_message_length': 16 * 1024 * 1024 });
    server.addService(definition['values.test.v1.Values'] as grpc.ServiceDefinition, {
      Get: (
        call: grpc.ServerUnaryCall<{ mode: string; size: number }, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        const kid = kidOf(call.metadata.get('authorization')[0]);
        if (call.request.mode === 'big') return callback(null, { note: 'x'.repeat(call.request.size) });
        if (call.request.mode === 'kid')
          return callback({ code: grpc.status.UNAUTHENTICATED, details: `unknown kid ${kid}` });
        const trailer = new grpc.Metadata();
        trailer.set('x-vehicle-type', VEHICLE_TYPE);
        callback(null, { vehicle_type: VEHICLE_TYPE, blob: BLOB, note: `kid ${kid} seen`, kid }, trailer);
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    address = `127.0.0.1:${port}`;
  });
  after(() => {
    server?.forceShutdown();
    cred?.remove();
  });

  const grpcCall = (data: object, extra: string[] = []) =>
    runCliInProcess([
      'grpc',
      'call',
      'values.test.v1.Values/Get',
      '--target',
      address,
      '--plaintext',
      '--aud',
      'https://mds.values.test.invalid',
      '--proto',
      protoFile,
      '--data',
      JSON.stringify(data),
      ...flags(),
      ...extra,
    ]);

  function assertNoKid(text: string, where: string): void {
    assert.ok(!text.includes(KID), `${where} shows the kid:\n${text.slice(0, 3000)}`);
    assert.ok(
      !text.includes('k1…67') && !text.includes('k1…'),
      `${where} shows part of the kid:\n${text.slice(0, 3000)}`,
    );
  }

  it('grpc call (text and --json) and send --json show random-looking strings and bytes byte for byte, and mask the echoed kid', async () => {
    const blob64 = BLOB.toString('base64');
    const text = await grpcCall({ mode: 'values' });
    assert.equal(text.code, 0, text.err);
    assert.ok(text.out.includes(`"vehicle_type": "${VEHICLE_TYPE}"`), text.out);
    assert.ok(text.out.includes(`"blob": "${blob64}"`), text.out);
    assert.ok(text.out.includes(`x-vehicle-type: ${VEHICLE_TYPE}`), text.out);
    assert.ok(
      text.out.includes(`"kid": "${maskKeyId(KID)}"`) && text.out.includes(`kid ${maskKeyId(KID)} seen`),
      text.out,
    );
    assertNoKid(text.out + text.err, 'grpc call');

    const json = await grpcCall({ mode: 'values' }, ['--json']);
    assert.equal(json.code, 0, json.err);
    const doc = JSON.parse(json.out) as {
      messages: { vehicle_type: string; blob: string; kid: string }[];
      trailers: Record<string, string[]>;
    };
    assert.equal(doc.messages[0].vehicle_type, VEHICLE_TYPE);
    assert.deepEqual(Buffer.from(doc.messages[0].blob, 'base64'), BLOB);
    assert.deepEqual(doc.trailers['x-vehicle-type'], [VEHICLE_TYPE]);
    assert.equal(doc.messages[0].kid, '…');
    assertNoKid(json.out + json.err, 'grpc call --json');

    const file = path.join(dir, 'values.http');
    fs.writeFileSync(
      path.join(dir, 'values.http'),
      `proto < ./values.proto\n\nGRPC grpc://${address}/values.test.v1.Values/Get\n\n{ "mode": "values" }\n`,
    );
    const sent = await runCliInProcess([
      'send',
      file,
      '--base-url',
      'https://mds.values.test.invalid',
      '--api',
      'mds',
      ...flags(),
      '--json',
    ]);
    assert.equal(sent.code, 0, sent.err);
    const sentDoc = JSON.parse(sent.out) as { messages: { vehicle_type: string; blob: string }[] };
    assert.equal(sentDoc.messages[0].vehicle_type, VEHICLE_TYPE);
    assert.deepEqual(Buffer.from(sentDoc.messages[0].blob, 'base64'), BLOB);
    assertNoKid(sent.out + sent.err, 'send --json');
  });

  /** The text printing's `"note": "…"` value, found without a regular expression (a 4.5 MB capture overflows V8's regex stack). */
  const noteIn = (out: string): string => {
    const start = out.indexOf('"note": "');
    if (start < 0) return '';
    const from = start + '"note": "'.length;
    return out.slice(from, out.indexOf('"', from));
  };

  it('grpc call of a 4.5 MB string prints it whole, with the larger --max-message-size the CLI advises', async () => {
    const size = 4.5 * 1024 * 1024;
    const small = await grpcCall({ mode: 'big', size });
    assert.equal(small.code, 1);
    assert.match(small.err, /--max-message-size/);
    for (const extra of [[], ['--json']]) {
      const run = await grpcCall({ mode: 'big', size }, ['--max-message-size', '8MB', ...extra]);
      assert.equal(run.code, 0, run.err.slice(0, 2000));
      assert.doesNotMatch(run.err, /RangeError|call stack/);
      const note = extra.length
        ? (JSON.parse(run.out) as { messages: { note: string }[] }).messages[0].note
        : noteIn(run.out);
      assert.equal(note.length, size);
    }
  });

  it('the kid a gRPC server echoes in its status is masked in the text, --json and the refusal', async () => {
    for (const extra of [[], ['--json']]) {
      const run = await grpcCall({ mode: 'kid' }, extra);
      assert.equal(run.code, 1);
      assert.match(run.out + run.err, /unknown kid …/);
      assertNoKid(run.out + run.err, `grpc call ${extra.join(' ')}`);
    }
  });

  it("REST: the table and --json show a provider's random-looking vehicle_id as sent; a kid it echoes is masked in test's lines, --json and JUnit", async () => {
    const canned = await startCannedServer((request) => {
      const kid = kidOf(request.headers.authorization);
      if (request.path.endsWith('/echo')) return { status: 200, body: { kid, note: `kid ${kid} is not known here` } };
      return {
        status: 200,
        body: {
          version: '2.0',
          last_updated: 1762326000000,
          ttl: 0,
          vehicles: [
            {
              device_id: '3f2b8c1e-9a4d-4e2f-8b1c-7d6e5f4a3b2c',
              provider_id: '3f2b8c1e-9a4d-4e2f-8b1c-7d6e5f4a3b2d',
              data_provider_id: '3f2b8c1e-9a4d-4e2f-8b1c-7d6e5f4a3b2d',
              vehicle_id: VEHICLE_ID,
              vehicle_type: 'scooter',
              propulsion_types: ['electric'],
              kid,
            },
          ],
        },
      };
    });
    try {
      const base = ['--base-url', `${canned.url}/mds`, '--api', 'mds', ...flags()];
      const table = await runCliInProcess(['vehicles', ...base]);
      assert.equal(table.code, 0, table.err);
      assert.ok(table.out.includes(VEHICLE_ID), table.out);
      const json = await runCliInProcess(['vehicles', ...base, '--json']);
      assert.equal(json.code, 0, json.err);
      const vehicles = (JSON.parse(json.out) as { vehicles: { vehicle_id: string; kid: string }[] }).vehicles;
      assert.equal(vehicles[0].vehicle_id, VEHICLE_ID);
      assertNoKid(json.out, 'vehicles --json');
      const request = await runCliInProcess(['request', '/vehicles', ...base, '--json']);
      assert.equal(request.code, 0, request.err);
      assert.ok(request.out.includes(VEHICLE_ID));
      assertNoKid(request.out, 'request --json');

      const file = path.join(dir, 'echo.http');
      fs.writeFileSync(file, 'GET {{baseUrl}}/echo\n?? body kid == someone-else\n?? body note == nothing\n');
      const junit = path.join(dir, 'echo.xml');
      for (const extra of [['--junit', junit], ['--json']]) {
        const run = await runCliInProcess(['test', file, ...base, ...extra]);
        assert.equal(run.code, 1, run.err);
        assertNoKid(run.out + run.err, `test ${extra[0]}`);
      }
      const report = fs.readFileSync(junit, 'utf8');
      assert.match(report, /<failure /);
      assert.match(report, /actual &quot;…&quot;/);
      assertNoKid(report, 'the JUnit report');
    } finally {
      await canned.close();
    }
  });
});
