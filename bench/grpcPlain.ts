// The plain alternative to the core's gRPC calls: @grpc/grpc-js with the sandbox's own .proto files loaded by
// @grpc/proto-loader, decoding as the core does (snake_case names, 64-bit integers and enums as text, defaults set),
// and nothing else: no checks of the request, no status details, no metadata views.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { GrpcAuth } from '../src/core/grpc';
import type { Credential } from '../src/core/auth/credential';
import { IssueClock } from '../src/core/clock/issueClock';
import { KeyedQueue } from '../src/core/clock/keyedQueue';
import { TokenIssuer } from '../src/core/auth/tokenIssuer';
import type { GrpcEndpoint } from '../src/core/environment/environment';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { SANDBOX_PROTO_FILES, protoRoot } from '../src/sandbox/grpc/protoFiles';
import { environmentOf } from './requests';

/** The core's decoding (src/core/grpc/messageJson.ts TO_JSON) as proto-loader options. */
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: false,
};

export const GET_VEHICLE = 'mobility.sandbox.v1.VehicleService/GetVehicle';
export const LIST_VEHICLES = 'mobility.sandbox.v1.VehicleService/ListVehicles';

type Callback = (err: grpc.ServiceError | null, value?: Record<string, unknown>) => void;

/** The VehicleService client as @grpc/grpc-js generates it from the package definition. */
interface VehicleServiceClient extends grpc.Client {
  GetVehicle(request: { device_id: string }, metadata: grpc.Metadata, callback: Callback): grpc.ClientUnaryCall;
  ListVehicles(request: object, metadata: grpc.Metadata): grpc.ClientReadableStream<Record<string, unknown>>;
}

/** A plaintext VehicleService client of `target`, from the .proto files. */
export function plainVehicleClient(target: string): VehicleServiceClient {
  const definition = protoLoader.loadSync([...SANDBOX_PROTO_FILES], { ...LOADER_OPTIONS, includeDirs: [protoRoot()] });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    mobility: {
      sandbox: {
        v1: { VehicleService: new (target: string, credentials: grpc.ChannelCredentials) => VehicleServiceClient };
      };
    };
  };
  return new loaded.mobility.sandbox.v1.VehicleService(target, grpc.credentials.createInsecure());
}

/** Metadata with `authorization: Bearer <token>`. */
export function bearerMetadata(token: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** One GetVehicle; rejects on any status but OK. */
export function plainGetVehicle(
  client: VehicleServiceClient,
  deviceId: string,
  metadata: grpc.Metadata,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    client.GetVehicle({ device_id: deviceId }, metadata, (err, value) =>
      err || !value ? reject(err ?? new Error('GetVehicle answered nothing')) : resolve(value),
    );
  });
}

/** The whole ListVehicles stream, every vehicle kept; rejects on any status but OK. */
export function plainListVehicles(
  client: VehicleServiceClient,
  metadata: grpc.Metadata,
): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const items: Record<string, unknown>[] = [];
    const call = client.ListVehicles({}, metadata);
    call.on('data', (item: Record<string, unknown>) => items.push(item));
    call.on('error', reject);
    call.on('end', () => resolve(items));
  });
}

/** The sandbox environment's gRPC endpoint as a user's settings give it (plaintext on loopback, schema by reflection). */
export function endpointOf(env: SandboxEnvironment): GrpcEndpoint {
  if (!env.grpcTarget) throw new Error(`The sandbox's ${env.id} has no gRPC target.`);
  return { target: env.grpcTarget, plaintext: true };
}

/** One issuer (millisecond clock, as the sandbox's rule 6 check needs) and one per-key queue, as the extension shares them with REST. */
export function benchSigning(): { issuer: TokenIssuer; queue: KeyedQueue } {
  return { issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }), queue: new KeyedQueue() };
}

/** Who signs the core's calls for `credential` in `env`. */
export function authOf(
  env: SandboxEnvironment,
  credential: Credential,
  signing: { issuer: TokenIssuer; queue: KeyedQueue },
): GrpcAuth {
  return { environment: environmentOf(env), credential, issuer: signing.issuer, queue: signing.queue };
}
