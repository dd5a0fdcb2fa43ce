// A real gRPC server on 127.0.0.1 for the gRPC client tests: the Fleet service of
// test/fixtures/grpc/fleet.proto, server reflection v1, v1alpha, both or none, plaintext or TLS,
// and (when given a trust store) tokens checked with the sandbox's verifier, a refusal answered
// with UNAUTHENTICATED and a google.rpc.Status naming the rule in an ErrorInfo.
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { TokenVerifier } from '../../../src/sandbox/auth/tokenVerifier';
import type { TrustStore } from '../../../src/sandbox/auth/trustStore';
import { statusProtos } from '../../../src/core/grpc/bundledProtos';

export const FIXTURES = path.resolve('test/fixtures/grpc');
export const FLEET_PROTO = path.join(FIXTURES, 'fleet.proto');
export const INCLUDE_DIR = path.join(FIXTURES, 'include');

export interface SeenCall {
  path: string;
  authorization?: string;
  metadata: Record<string, string[]>;
}

export interface GrpcTestServer {
  address: string;
  port: number;
  seen: SeenCall[];
  /** Calls the server saw cancelled by the client. */
  cancelled: string[];
  close(): Promise<void>;
}

export interface GrpcTestServerOptions {
  reflection?: 'v1' | 'v1alpha' | 'both' | 'none';
  /** Check every call's token (reflection calls too when `reflectionNeedsToken`). */
  trust?: TrustStore;
  audience?: string;
  reflectionNeedsToken?: boolean;
  /** Refuse every reflection call UNAUTHENTICATED, echoing the key id of its token in the status message. */
  reflectionEchoesKid?: boolean;
  tls?: { key: string; cert: string };
}

/** The `kid` in the header of the bearer token of `authorization`. */
function kidOf(authorization: unknown): string {
  const header = (typeof authorization === 'string' ? authorization : '').replace(/^Bearer /, '').split('.')[0];
  return String((JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid?: unknown }).kid);
}

function errorInfoStatus(code: number, message: string, rule: string): grpc.Metadata {
  const root = statusProtos();
  const ErrorInfo = root.lookupType('google.rpc.ErrorInfo');
  const Status = root.lookupType('google.rpc.Status');
  const detail = {
    type_url: 'type.googleapis.com/google.rpc.ErrorInfo',
    value: ErrorInfo.encode(
      ErrorInfo.fromObject({ reason: rule.toUpperCase(), domain: 'sandbox.test', metadata: { rule } }),
    ).finish(),
  };
  const metadata = new grpc.Metadata();
  metadata.set(
    'grpc-status-details-bin',
    Buffer.from(Status.encode(Status.fromObject({ code, message, details: [detail] })).finish()),
  );
  return metadata;
}

function flatten(metadata: grpc.Metadata): Record<string, string[]> {
  return Object.fromEntries(Object.entries(metadata.toJSON()).map(([k, v]) => [k, v.map(String)]));
}

export async function startGrpcTestServer(options: GrpcTestServerOptions = {}): Promise<GrpcTestServer> {
  const definition = protoLoader.loadSync(FLEET_PROTO, {
    includeDirs: [INCLUDE_DIR],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const server = new grpc.Server();
  const seen: SeenCall[] = [];
  const cancelled: string[] = [];
  const verifier = options.trust
    ? new TokenVerifier({ trust: options.trust, now: () => Date.now(), maxSkewSeconds: 60 })
    : undefined;

  /** Records the call; with a verifier, resolves to an error status when the token is refused. */
  const admit = async (
    callPath: string,
    metadata: grpc.Metadata,
    checkToken: boolean,
  ): Promise<Partial<grpc.StatusObject> | undefined> => {
    const authorization = metadata.get('authorization')[0] as string | undefined;
    seen.push({ path: callPath, authorization, metadata: flatten(metadata) });
    if (!verifier || !checkToken) return undefined;
    const check = await verifier.verify(authorization, { api: 'mds', audience: options.audience ?? '' });
    if (check.ok) return undefined;
    return {
      code: grpc.status.UNAUTHENTICATED,
      details: check.refusal.description,
      metadata: errorInfoStatus(grpc.status.UNAUTHENTICATED, check.refusal.description, check.refusal.rule),
    };
  };

  const fleet = definition['mobility.test.v1.Fleet'] as grpc.ServiceDefinition;
  server.addService(fleet, {
    GetVehicle: (call: grpc.ServerUnaryCall<{ device_id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const id = call.request.device_id;
      // A "slow…" vehicle is never answered. Its cancellation is listened for before the token check, which is
      // asynchronous: on a busy machine a client can give up before the check ends, and the event would be missed.
      if (id.startsWith('slow')) call.on('cancelled', () => cancelled.push(id));
      void admit('/mobility.test.v1.Fleet/GetVehicle', call.metadata, true).then((refused) => {
        if (refused) return callback(refused);
        if (id.startsWith('slow')) return;
        if (id === 'echo-kid') {
          // A server that echoes the token's key id back, in the message, a trailer and the status details.
          const kid = kidOf(call.metadata.get('authorization')[0]);
          const status = errorInfoStatus(grpc.status.UNAUTHENTICATED, `unknown kid ${kid}`, `kid ${kid}`);
          status.set('x-key-id', kid);
          return callback({ code: grpc.status.UNAUTHENTICATED, details: `unknown kid ${kid}`, metadata: status });
        }
        if (id === 'missing') {
          const status = errorInfoStatus(grpc.status.NOT_FOUND, 'no vehicle missing', 'not_found');
          return callback({ code: grpc.status.NOT_FOUND, details: 'no vehicle missing', metadata: status });
        }
        call.sendMetadata(new grpc.Metadata());
        const trailer = new grpc.Metadata();
        trailer.set('x-served-by', 'test');
        callback(
          null,
          {
            device_id: id,
            vehicle_type: 'SCOOTER',
            battery: { charge: 0.5 },
            last_seen: { seconds: 1762326000, nanos: 0 },
            tags: ['a'],
            counters: { trips: 3 },
            stop_id: 'stop-1',
            odometer_m: '9007199254740993',
          },
          trailer,
        );
      });
    },
    WatchVehicles: (call: grpc.ServerWritableStream<{ count: number }, unknown>) => {
      void admit('/mobility.test.v1.Fleet/WatchVehicles', call.metadata, true).then((refused) => {
        if (refused) {
          call.emit('error', refused);
          return;
        }
        for (let i = 0; i < call.request.count; i++) call.write({ device_id: `v${i}` });
        call.end();
      });
    },
    UploadTelemetry: (
      call: grpc.ServerReadableStream<{ device_id: string }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const ids: string[] = [];
      const admitted = admit('/mobility.test.v1.Fleet/UploadTelemetry', call.metadata, true);
      call.on('data', (m: { device_id: string }) => ids.push(m.device_id));
      call.on(
        'end',
        () =>
          void admitted.then((refused) =>
            refused
              ? callback(refused as grpc.ServiceError)
              : callback(null, { received: ids.length, device_ids: ids }),
          ),
      );
    },
    Echo: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
      const admitted = admit('/mobility.test.v1.Fleet/Echo', call.metadata, true);
      call.on('data', (m: unknown) => void admitted.then((refused) => (refused ? undefined : call.write(m))));
      call.on('end', () => void admitted.then((refused) => (refused ? call.emit('error', refused) : call.end())));
    },
  });

  const reflection = options.reflection ?? 'both';
  if (reflection !== 'none') {
    new ReflectionService(definition).addToServer({
      addService: (service, implementation) => {
        const servicePath = Object.values(service)[0].path;
        const version = servicePath.includes('v1alpha') ? 'v1alpha' : 'v1';
        if (reflection !== 'both' && reflection !== version) return;
        const wrapped = Object.fromEntries(
          Object.entries(implementation).map(([name, handler]) => [
            name,
            (call: grpc.ServerDuplexStream<unknown, unknown>) => {
              if (options.reflectionEchoesKid) {
                seen.push({
                  path: servicePath,
                  authorization: call.metadata.get('authorization')[0] as string | undefined,
                  metadata: flatten(call.metadata),
                });
                call.emit('error', {
                  code: grpc.status.UNAUTHENTICATED,
                  details: `unknown kid ${kidOf(call.metadata.get('authorization')[0])}`,
                });
                return;
              }
              void admit(servicePath, call.metadata, options.reflectionNeedsToken === true).then((refused) => {
                if (refused) {
                  call.emit('error', refused);
                  return;
                }
                (handler as (c: typeof call) => void)(call);
              });
            },
          ]),
        );
        server.addService(service, wrapped);
      },
    });
  }

  const credentials = options.tls
    ? grpc.ServerCredentials.createSsl(null, [
        { private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) },
      ])
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    port,
    seen,
    cancelled,
    close: () => Promise.resolve(server.forceShutdown()),
  };
}
