/** gRPC clients for the sandbox tests: @grpc/grpc-js with the repository's .proto files, loaded by @grpc/proto-loader. */
import assert from 'node:assert/strict';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { loadSync } from 'protobufjs';

const PROTO_DIR = path.resolve('proto');
/** As the sandbox loads them: MDS's field names, int64 as numbers, absent fields left out. */
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: false,
  includeDirs: [PROTO_DIR],
};

type ClientConstructor = new (target: string, credentials: grpc.ChannelCredentials) => grpc.Client;

function clientClass(files: string[], service: string, includeDirs = [PROTO_DIR]): ClientConstructor {
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(files, { ...LOADER_OPTIONS, includeDirs })) as Record<
    string,
    unknown
  >;
  let at: unknown = loaded;
  for (const part of service.split('.')) at = (at as Record<string, unknown>)[part];
  assert.equal(typeof at, 'function', `${service} is in the protos`);
  return at as ClientConstructor;
}

/** Metadata with `authorization: Bearer <token>`, or none. */
export function bearer(token?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** The outcome of a call: the items (or the one answer) or the error. */
export interface CallResult<T> {
  items: T[];
  error?: grpc.ServiceError;
}

/** A plaintext client of one of the sandbox's services. */
export class SandboxGrpcClient {
  readonly client: grpc.Client;

  constructor(target: string, service: 'VehicleService' | 'MaasVehicleService') {
    const Client = clientClass(
      ['mobility/sandbox/v1/vehicles.proto', 'mobility/sandbox/v1/maas.proto'],
      `mobility.sandbox.v1.${service}`,
    );
    this.client = new Client(target, grpc.credentials.createInsecure());
  }

  private method(name: string): (...args: unknown[]) => unknown {
    const fn = (this.client as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
    return fn.bind(this.client);
  }

  /**
   * Reads a server stream to its end. `keep: false` counts the items without keeping them;
   * `onItem` sees each one with the call (to pause it) and the count so far.
   */
  stream<T>(
    name: string,
    metadata: grpc.Metadata,
    options: { keep?: boolean; onItem?: (item: T, call: grpc.ClientReadableStream<T>, count: number) => void } = {},
  ): Promise<CallResult<T> & { count: number }> {
    const call = this.method(name)({}, metadata) as grpc.ClientReadableStream<T>;
    const items: T[] = [];
    let count = 0;
    return new Promise((resolve) => {
      call.on('data', (item: T) => {
        count++;
        if (options.keep ?? true) items.push(item);
        options.onItem?.(item, call, count);
      });
      call.on('error', (error: grpc.ServiceError) => resolve({ items, count, error }));
      call.on('end', () => resolve({ items, count }));
    });
  }

  unary<T>(name: string, request: object, metadata: grpc.Metadata): Promise<CallResult<T>> {
    return new Promise((resolve) => {
      this.method(name)(request, metadata, (error: grpc.ServiceError | null, value: T) =>
        resolve(error ? { items: [], error } : { items: [value] }),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

const REFLECTION_PROTO_DIR = path.resolve('node_modules/@grpc/reflection/build/proto');

/** A server reflection client of one version, with the reflection.proto that @grpc/reflection ships. */
export class ReflectionClient {
  private readonly client: grpc.Client;

  constructor(target: string, version: 'v1' | 'v1alpha') {
    const Client = clientClass(
      [`grpc/reflection/${version}/reflection.proto`],
      `grpc.reflection.${version}.ServerReflection`,
      [REFLECTION_PROTO_DIR],
    );
    this.client = new Client(target, grpc.credentials.createInsecure());
  }

  /** Sends one request on a ServerReflectionInfo stream and returns the one answer, or the call's error. */
  ask(
    request: Record<string, unknown>,
    metadata = new grpc.Metadata(),
  ): Promise<{ response?: Record<string, unknown>; error?: grpc.ServiceError }> {
    const call = (
      this.client as unknown as {
        ServerReflectionInfo: (m: grpc.Metadata) => grpc.ClientDuplexStream<unknown, Record<string, unknown>>;
      }
    ).ServerReflectionInfo(metadata);
    return new Promise((resolve) => {
      let response: Record<string, unknown> | undefined;
      call.on('data', (r: Record<string, unknown>) => {
        response = r;
        call.end();
      });
      call.on('error', (error: grpc.ServiceError) => resolve({ error }));
      call.on('end', () => resolve({ response }));
      call.write(request);
    });
  }

  /** The service names `list_services` answers, or the call's error. */
  async listServices(metadata?: grpc.Metadata): Promise<{ services?: string[]; error?: grpc.ServiceError }> {
    const { response, error } = await this.ask({ list_services: '*' }, metadata);
    if (error) return { error };
    const list = response?.list_services_response as { service?: Array<{ name: string }> } | undefined;
    return { services: (list?.service ?? []).map((s) => s.name) };
  }

  close(): void {
    this.client.close();
  }
}

/** The ErrorInfo in a refusal's `grpc-status-details-bin`, decoded with protobufjs from the repository's google.rpc protos. */
export function errorInfoOf(
  error: grpc.ServiceError,
): { reason: string; domain: string; metadata: Record<string, string> } | undefined {
  const [bin] = error.metadata.get('grpc-status-details-bin');
  if (!Buffer.isBuffer(bin)) return undefined;
  const root = loadSync([
    path.join(PROTO_DIR, 'google/rpc/status.proto'),
    path.join(PROTO_DIR, 'google/rpc/error_details.proto'),
  ]);
  const status = root.lookupType('google.rpc.Status').toObject(root.lookupType('google.rpc.Status').decode(bin)) as {
    code: number;
    message: string;
    details: Array<{ type_url: string; value: Uint8Array }>;
  };
  assert.equal(status.code, error.code, 'the Status code is the call status');
  const detail = status.details.find((d) => d.type_url === 'type.googleapis.com/google.rpc.ErrorInfo');
  if (!detail) return undefined;
  const errorInfo = root.lookupType('google.rpc.ErrorInfo');
  return errorInfo.toObject(errorInfo.decode(detail.value)) as {
    reason: string;
    domain: string;
    metadata: Record<string, string>;
  };
}

/**
 * A gRPC item as MDS JSON: MDS's nullable telemetry fields come back as null (an empty trip_ids,
 * an absent journey_id), and the MaaS battery_percent as null when absent; the rest is as sent.
 */
export function asMdsStatus(item: Record<string, unknown>): Record<string, unknown> {
  const telemetry = { ...(item.last_telemetry as Record<string, unknown>) };
  const tripIds = telemetry.trip_ids as unknown[] | undefined;
  telemetry.trip_ids = tripIds && tripIds.length > 0 ? tripIds : null;
  telemetry.journey_id = telemetry.journey_id ?? null;
  return { ...item, last_telemetry: telemetry };
}

export function asMaasItem(item: Record<string, unknown>): Record<string, unknown> {
  return { ...item, battery_percent: item.battery_percent ?? null };
}
