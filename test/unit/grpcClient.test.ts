import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as protobuf from 'protobufjs';
import * as descriptor from 'protobufjs/ext/descriptor';
import { decodeJwt } from 'jose';
import type { Environment } from '../../src/core/environment';
import { isMobilityError } from '../../src/core/base/errors';
import type { GrpcAuth, GrpcConnection, GrpcSchema } from '../../src/core/grpc/index';
import {
  callMethod,
  listServices,
  loadProtoFiles,
  loadProtoset,
  openConnection,
  reflectionWantsAuth,
  reflectSchema,
} from '../../src/core/grpc/index';
import { IssueClock } from '../../src/core/clock/issueClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { explainGrpcRefusal } from '../../src/results/grpc/grpcRefusal';
import { TrustStore } from '../../src/sandbox/auth/trustStore';
import type { GrpcTestServer } from './support/grpcTestServer';
import { FLEET_PROTO, INCLUDE_DIR, startGrpcTestServer } from './support/grpcTestServer';
import { makeTestCredential } from './support/testCredentials';
import { waitFor } from './support/waitUntil';

const AUDIENCE = 'https://mds.grpc.test.invalid';

function environment(baseUrl = AUDIENCE): Environment {
  return {
    id: 'grpc-test',
    name: 'gRPC test',
    api: 'mds',
    stage: 'custom',
    baseUrl,
    audienceAsList: false,
    headers: {},
  };
}

/** Rejects with the MobilityError code of `promise`, failing when it resolves. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(isMobilityError(err), `expected a MobilityError, got ${String(err)}`);
    return err.code;
  }
  assert.fail('expected a rejection');
}

describe('gRPC client: schema sources', function () {
  this.timeout(30_000);
  const servers: GrpcTestServer[] = [];
  const connections: GrpcConnection[] = [];
  const connect = (server: GrpcTestServer) => {
    const c = openConnection({ address: server.address, plaintext: true });
    connections.push(c);
    return c;
  };
  const start = async (reflection: 'v1' | 'v1alpha' | 'none') => {
    const s = await startGrpcTestServer({ reflection });
    servers.push(s);
    return s;
  };
  after(async () => {
    for (const c of connections) c.close();
    for (const s of servers) await s.close();
  });

  for (const version of ['v1', 'v1alpha'] as const) {
    it(`reads the schema by reflection ${version} when the server offers only that, and says which answered`, async () => {
      const server = await start(version);
      const schema = await reflectSchema(connect(server));
      assert.deepEqual(schema.source, { kind: 'reflection', version });
      const services = listServices(schema);
      assert.deepEqual(
        services.map((s) => s.name),
        ['mobility.test.v1.Fleet'],
      );
      assert.deepEqual(
        services[0].methods.map((m) => [m.fullName, m.clientStreaming, m.serverStreaming, m.inputType, m.outputType]),
        [
          [
            '/mobility.test.v1.Fleet/GetVehicle',
            false,
            false,
            'mobility.test.v1.VehicleRequest',
            'mobility.test.v1.Vehicle',
          ],
          [
            '/mobility.test.v1.Fleet/WatchVehicles',
            false,
            true,
            'mobility.test.v1.WatchRequest',
            'mobility.test.v1.Vehicle',
          ],
          [
            '/mobility.test.v1.Fleet/UploadTelemetry',
            true,
            false,
            'mobility.test.v1.Telemetry',
            'mobility.test.v1.UploadSummary',
          ],
          ['/mobility.test.v1.Fleet/Echo', true, true, 'mobility.test.v1.Telemetry', 'mobility.test.v1.Telemetry'],
        ],
      );
    });
  }

  it('without reflection says so, and calls with the .proto files (import path, well-known Timestamp) or a protoset', async () => {
    const server = await start('none');
    const connection = connect(server);
    await assert.rejects(
      reflectSchema(connection),
      (err: Error) =>
        isMobilityError(err) &&
        err.code === 'GRPC_REFLECTION_UNAVAILABLE' &&
        /neither grpc\.reflection\.v1 nor v1alpha/.test(err.message),
    );
    const fromProto = loadProtoFiles([FLEET_PROTO], [INCLUDE_DIR]);
    assert.deepEqual(fromProto.source, { kind: 'proto', files: [FLEET_PROTO] });
    const own: [string, string][] = [['authorization', 'Bearer own-token']];
    const call = (schema: GrpcSchema) =>
      callMethod(connection, schema, undefined, {
        method: 'mobility.test.v1.Fleet/GetVehicle',
        messages: [{ device_id: 'v1' }],
        metadata: own,
        sendOwnAuthorization: true,
      });
    const viaProto = await call(fromProto);
    assert.equal(viaProto.status.name, 'OK');
    assert.equal(viaProto.messages[0].device_id, 'v1');
    assert.equal(viaProto.messages[0].last_seen, '2025-11-05T07:00:00Z', 'a Timestamp in the proto3 JSON mapping');
    // A descriptor set as protoc --descriptor_set_out writes one, made here from the same .proto files.
    const set = (fromProto.root as unknown as { toDescriptor(syntax: string): protobuf.Message }).toDescriptor(
      'proto3',
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-protoset-')), 'fleet.protoset');
    fs.writeFileSync(file, descriptor.FileDescriptorSet.encode(set).finish());
    const fromProtoset = loadProtoset(file);
    assert.deepEqual(fromProtoset.source, { kind: 'protoset', file });
    const viaProtoset = await call(fromProtoset);
    assert.equal(viaProtoset.status.name, 'OK');
    assert.deepEqual(viaProtoset.messages, viaProto.messages);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});

describe('gRPC client: calls with a fresh token each', function () {
  this.timeout(30_000);
  const credential = makeTestCredential('external-org');
  const trust = new TrustStore([
    { kid: credential.kid, iss: credential.issuer, type: 'external-org', publicKey: credential.publicKey },
  ]);
  const issuer = new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
  const auth: GrpcAuth = { environment: environment(), credential, issuer };
  let server: GrpcTestServer;
  let connection: GrpcConnection;
  let schema: GrpcSchema;
  before(async () => {
    server = await startGrpcTestServer({ reflection: 'v1', trust, audience: AUDIENCE, reflectionNeedsToken: true });
    connection = openConnection({ address: server.address, plaintext: true });
    schema = await reflectSchema(connection, { auth });
  });
  after(async () => {
    connection?.close();
    await server?.close();
  });

  it('signs a new token for every call and for reflection: distinct jti, strictly increasing iat, aud the base URL', async () => {
    const first = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'a' }],
    });
    const second = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'b' }],
    });
    assert.equal(first.status.name, 'OK', first.status.message);
    assert.equal(second.status.name, 'OK', second.status.message);
    const sent = server.seen.map((s) => ({
      path: s.path,
      claims: decodeJwt(s.authorization!.replace(/^Bearer /, '')),
    }));
    assert.equal(
      sent[0].path,
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      'reflection carried a token of its own',
    );
    const calls = sent.slice(-2);
    assert.notEqual(calls[0].claims.jti, calls[1].claims.jti);
    assert.ok(
      sent[0].claims.iat! < calls[0].claims.iat! && calls[0].claims.iat! < calls[1].claims.iat!,
      'iat strictly increases per key',
    );
    assert.equal(calls[1].claims.aud, AUDIENCE);
    assert.equal(second.token?.claims.jti, calls[1].claims.jti, 'the result tells which token was sent');
    assert.deepEqual(second.requestMetadata.authorization, ['Bearer <redacted>']);
    assert.deepEqual(second.trailers['x-served-by'], ['test']);
    assert.deepEqual(first.messages[0].counters, { trips: 3 }, 'a map read by reflection stays a map');
    assert.equal(first.messages[0].odometer_m, '9007199254740993', '64-bit integers keep every digit');
  });

  it("refuses authorization metadata of the user's own unless asked to send it instead, and then sends it as written", async () => {
    const before = server.seen.length;
    const code = await codeOf(
      callMethod(connection, schema, auth, {
        method: 'mobility.test.v1.Fleet/GetVehicle',
        messages: [{}],
        metadata: [['Authorization', 'Bearer stale']],
      }),
    );
    assert.equal(code, 'GRPC_METADATA_INVALID');
    assert.equal(server.seen.length, before, 'nothing was sent');
    const own = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{}],
      metadata: [['authorization', 'Bearer stale']],
      sendOwnAuthorization: true,
    });
    assert.equal(server.seen.at(-1)?.authorization, 'Bearer stale');
    assert.equal(own.token, undefined);
    assert.equal(own.status.name, 'UNAUTHENTICATED');
  });

  it('runs server-streaming, client-streaming and bidirectional calls from a list of messages', async () => {
    const watched: number[] = [];
    const stream = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/WatchVehicles',
      messages: [{ count: 3 }],
      onMessage: (_, i) => watched.push(i),
    });
    assert.deepEqual(
      stream.messages.map((m) => m.device_id),
      ['v0', 'v1', 'v2'],
    );
    assert.deepEqual(watched, [0, 1, 2]);
    const upload = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/UploadTelemetry',
      messages: [{ device_id: 'x' }, { device_id: 'y' }],
    });
    assert.deepEqual(upload.messages, [{ received: 2, device_ids: ['x', 'y'] }]);
    const echo = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/Echo',
      messages: [{ device_id: 'p', lat: 1.5 }, { device_id: 'q' }],
    });
    assert.equal(echo.status.name, 'OK', echo.status.message);
    assert.deepEqual(
      echo.messages.map((m) => [m.device_id, m.lat]),
      [
        ['p', 1.5],
        ['q', 0],
      ],
    );
  });

  it('ends a call at its deadline, and cancels it when the signal aborts (the server sees the cancellation)', async () => {
    const late = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'slow' }],
      deadlineMs: 300,
    });
    assert.equal(late.status.name, 'DEADLINE_EXCEEDED');
    const controller = new AbortController();
    const seenBefore = server.seen.length;
    const pending = callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'slow-aborted' }],
      signal: controller.signal,
    });
    await waitFor('the server to receive the call', () => server.seen.length > seenBefore);
    controller.abort();
    const cancelled = await pending;
    assert.equal(cancelled.status.name, 'CANCELLED');
    // This call, which the server received: the deadline's call may end before it is even sent (its token is signed
    // first), so the server seeing that one is not a rule.
    await waitFor('the server to see the cancellation', () => server.cancelled.includes('slow-aborted'));
  });

  it('tells a reflection refused for want of a token (a retry with one works) from a server without reflection', async () => {
    const bare = openConnection({ address: server.address, plaintext: true });
    const none = await startGrpcTestServer({ reflection: 'none' });
    const noReflection = openConnection({ address: none.address, plaintext: true });
    try {
      const refused: unknown = await reflectSchema(bare).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(isMobilityError(refused) && refused.code === 'GRPC_REFLECTION_UNAVAILABLE', String(refused));
      assert.equal(reflectionWantsAuth(refused), true);
      const absent: unknown = await reflectSchema(noReflection).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(isMobilityError(absent) && absent.code === 'GRPC_REFLECTION_UNAVAILABLE', String(absent));
      assert.equal(reflectionWantsAuth(absent), false, 'no token makes reflection appear');
      assert.equal(reflectionWantsAuth(new Error('UNAUTHENTICATED')), false);
    } finally {
      bare.close();
      noReflection.close();
      await none.close();
    }
  });

  it('decodes grpc-status-details-bin as google.rpc.Status with its ErrorInfo unpacked', async () => {
    const result = await callMethod(connection, schema, auth, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'missing' }],
    });
    assert.equal(result.status.name, 'NOT_FOUND');
    assert.equal(result.status.message, 'no vehicle missing');
    assert.deepEqual(result.status.details, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'NOT_FOUND',
        domain: 'sandbox.test',
        metadata: { rule: 'not_found' },
      },
    ]);
  });

  it('explains UNAUTHENTICATED as the REST doctor explains a 401: the audience the token named', async () => {
    const wrongAud: GrpcAuth = { ...auth, environment: environment('https://elsewhere.test.invalid') };
    const result = await callMethod(connection, schema, wrongAud, {
      method: 'mobility.test.v1.Fleet/GetVehicle',
      messages: [{ device_id: 'a' }],
    });
    assert.equal(result.status.name, 'UNAUTHENTICATED');
    const explanation = explainGrpcRefusal(result, { audience: AUDIENCE, api: 'mds', credentialType: 'external-org' });
    assert.equal(explanation?.causeRule, 'aud_mismatch');
    assert.match(explanation.cause, /server names rule aud_mismatch/);
    assert.ok(explanation.evidence.some((e) => e.label === 'Audience' && e.verdict === 'problem'));
    assert.equal(
      explainGrpcRefusal({ ...result, status: { ...result.status, code: 5, name: 'NOT_FOUND' } }),
      undefined,
    );
  });
});
