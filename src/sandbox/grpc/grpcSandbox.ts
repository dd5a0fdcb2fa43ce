/**
 * The sandbox's gRPC side: one plaintext gRPC server per environment, each on its own port, with
 * the environment's services (VehicleService for MDS, MaasVehicleService for MaaS), server
 * reflection v1 and/or v1alpha, and the REST side's token rules on every call. Loaded by
 * sandboxServer.ts with a dynamic import, so grpc-js is only evaluated when a sandbox starts.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { MobilityError } from '../../core/base';
import type { SyntheticFleet } from '../world/syntheticFleet';
import type { TokenCheck, TokenVerifier } from '../auth/tokenVerifier';
import type { CallGuard, GrpcCallLog, GrpcEnvironment } from './grpcGuard';
import { guardService } from './grpcGuard';
import { MAX_HEADER_FIELD_BYTES, seeEveryAuthorization, watchUnreadableHeaders } from './grpcHeaders';
import { MAAS_VEHICLE_SERVICE, VEHICLE_SERVICE, maasServiceHandlers, vehicleServiceHandlers } from './grpcServices';
import type { GrpcReflectionMode } from './grpcOptions';
import { SANDBOX_PROTO_FILES, protoRoot } from './protoFiles';

export type { GrpcCallLog } from './grpcGuard';
export type { GrpcReflectionMode } from './grpcOptions';
export { MAAS_VEHICLE_SERVICE, SANDBOX_PROTO_PACKAGE, VEHICLE_SERVICE } from './grpcServices';

/** The method of a logged call whose headers could not be read (its path is one of them). */
export const UNREADABLE_CALL = '(a call whose headers could not be read)';

/** The reflection services by version. */
export const REFLECTION_SERVICES = {
  v1: 'grpc.reflection.v1.ServerReflection',
  v1alpha: 'grpc.reflection.v1alpha.ServerReflection',
} as const;

export interface GrpcSandboxOptions {
  /** The address to bind, as the HTTP side's `host`. */
  host: string;
  /** The host clients dial (`127.0.0.1`, `[::1]`…), for the targets. */
  dialHost: string;
  /** 0: every environment gets an ephemeral port; n: the environments get n, n+1, … in order. */
  firstPort: number;
  environments: readonly GrpcEnvironment[];
  fleet: SyntheticFleet;
  now: () => number;
  /** The REST side's verifier; undefined accepts every call. */
  verifier?: TokenVerifier;
  reflection: GrpcReflectionMode;
  /** Whether reflection calls need a token too (default: they do not). */
  reflectionAuth: boolean;
  /** Told of every token check of a call, with the environment it reached. */
  onChecked?: (
    environment: GrpcEnvironment,
    method: string,
    authorization: string | undefined,
    check: TokenCheck,
  ) => void;
  onCall?: (entry: GrpcCallLog) => void;
}

/** The running gRPC servers. */
export interface GrpcSandbox {
  /** `host:port` by environment id. */
  targets: Record<string, string>;
  close(): void;
}

/** proto-loader options: MDS's snake_case field names, int64 as numbers, absent optional fields left out. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
};

function bindHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
}

/** Adds the reflection services `mode` asks for, behind the token check when `auth` is set. */
function addReflection(
  server: grpc.Server,
  definition: protoLoader.PackageDefinition,
  service: string,
  mode: GrpcReflectionMode,
  guard: CallGuard,
  auth: boolean,
): void {
  if (mode === 'none') return;
  const wanted = mode === 'both' ? [REFLECTION_SERVICES.v1, REFLECTION_SERVICES.v1alpha] : [REFLECTION_SERVICES[mode]];
  // ReflectionService adds both versions; a stand-in server keeps the ones asked for.
  new ReflectionService(definition, { services: [service] }).addToServer({
    addService: (reflection: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) => {
      const path = Object.values(reflection)[0]?.path ?? '';
      if (!wanted.some((name) => path.startsWith(`/${name}/`))) return;
      server.addService(
        reflection,
        auth
          ? guardService(reflection, implementation, guard, true)
          : guardService(reflection, implementation, { ...guard, verifier: undefined }, true),
      );
    },
  });
}

/** The .proto file of each service (each file declares one service and the messages it needs). */
const SERVICE_PROTO_FILES: Record<string, (typeof SANDBOX_PROTO_FILES)[number]> = {
  [VEHICLE_SERVICE]: 'mobility/sandbox/v1/vehicles.proto',
  [MAAS_VEHICLE_SERVICE]: 'mobility/sandbox/v1/maas.proto',
};

/**
 * The definition of one service, loaded from its own file: proto-loader makes one file descriptor per
 * package, so loading both files at once would give each target's reflection a descriptor that declares
 * the other target's service as well, and a client that reads the descriptors would list it.
 */
function serviceDefinition(
  service: string,
  loaded: Map<string, protoLoader.PackageDefinition>,
): protoLoader.PackageDefinition {
  let definition = loaded.get(service);
  if (!definition) {
    definition = protoLoader.loadSync([SERVICE_PROTO_FILES[service]], {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [protoRoot()],
    });
    loaded.set(service, definition);
  }
  return definition;
}

/** Starts one gRPC server per environment; rejects with SANDBOX_START_FAILED when a port is taken. */
export async function startGrpcSandbox(options: GrpcSandboxOptions): Promise<GrpcSandbox> {
  const loaded = new Map<string, protoLoader.PackageDefinition>();
  const servers: grpc.Server[] = [];
  const targets: Record<string, string> = {};
  try {
    for (const [i, environment] of options.environments.entries()) {
      const guard: CallGuard = {
        environment,
        verifier: options.verifier,
        checked: (method, authorization, check) => options.onChecked?.(environment, method, authorization, check),
        log: (entry) => {
          try {
            options.onCall?.({ protocol: 'grpc', environment: environment.id, ...entry });
          } catch {
            // A failing logger must not take the server down.
          }
        },
      };
      const server = new grpc.Server();
      servers.push(server);
      const context = { fleet: options.fleet, now: options.now, log: guard.log };
      const [service, handlers] =
        environment.api === 'mds'
          ? [VEHICLE_SERVICE, vehicleServiceHandlers(context)]
          : [MAAS_VEHICLE_SERVICE, maasServiceHandlers(context)];
      const definition = serviceDefinition(service, loaded);
      const methods = definition[service] as grpc.ServiceDefinition;
      server.addService(methods, guardService(methods, handlers, guard, false));
      addReflection(server, definition, service, options.reflection, guard, options.reflectionAuth);
      const wantedPort = options.firstPort === 0 ? 0 : options.firstPort + i;
      let port: number;
      try {
        port = await bind(server, `${bindHost(options.host)}:${wantedPort}`);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new MobilityError(
          'SANDBOX_START_FAILED',
          `The sandbox's gRPC side could not listen on port ${wantedPort} of ${options.host} for ${environment.id}: ${reason}. Choose another --grpc-port (each environment takes the next port), or 0 for free ports.`,
          { cause: err },
        );
      }
      seeEveryAuthorization(server);
      watchUnreadableHeaders(server, () =>
        guard.log({
          method: UNREADABLE_CALL,
          status: 'UNAVAILABLE',
          description: `A call's headers could not be read: a header field over ${MAX_HEADER_FIELD_BYTES / 1024} KiB (name and value), such as a huge token, is more than Node's HTTP/2 decoder accepts. The connection was closed, so the client sees UNAVAILABLE. Send a token, and every metadata value, well under ${MAX_HEADER_FIELD_BYTES / 1024} KiB.`,
        }),
      );
      targets[environment.id] = `${options.dialHost}:${port}`;
    }
  } catch (err) {
    for (const server of servers) server.forceShutdown();
    throw err;
  }
  return {
    targets,
    close: () => {
      for (const server of servers) server.forceShutdown();
    },
  };
}
