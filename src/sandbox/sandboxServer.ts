import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { MobilityError } from '../core/base';
import type { ClientReport } from './auth/clientGrade';
import { ClientGrader } from './auth/clientGrade';
import type { DemoCredential } from './auth/demoCredential';
import type { GrpcCallLog, GrpcSandbox } from './grpc/grpcSandbox';
import type { GrpcReflectionMode } from './grpc/grpcOptions';
import { GRPC_REFLECTION_MODES, isGrpcReflectionMode } from './grpc/grpcOptions';
import { protoFile, protoRoot, SANDBOX_PROTO_FILES } from './grpc/protoFiles';
import { writeDemoCredential } from './auth/demoCredential';
import { MAX_PAGE_SIZE } from './routes/mdsResponses';
import { answerClientError } from './routes/replies';
import type { SandboxEnvironment, SandboxRequestLog } from './routes/httpFront';
import { httpFront } from './routes/httpFront';
import type { SandboxFault } from './faults/requestFaults';
import { FaultInjector } from './faults/requestFaults';
import type { DataFaultRule } from './faults/dataFaults';
import { checkDataFaultsOption } from './faults/dataFaults';
import { MAX_FLEET_SIZE, SyntheticFleet } from './world/syntheticFleet';
import { TokenVerifier } from './auth/tokenVerifier';
import type { TrustedKey } from './auth/trustStore';
import { TrustStore } from './auth/trustStore';

export type { DemoCredential } from './auth/demoCredential';
export type { TrustedKey } from './auth/trustStore';
export type { SandboxFault } from './faults/requestFaults';
export type { GrpcCallLog } from './grpc/grpcSandbox';
export type { GrpcReflectionMode } from './grpc/grpcOptions';
export { parseTrustFile } from './auth/trustStore';
export type { ClientReport, RequestVerdict } from './auth/clientGrade';
export { clientReportText } from './auth/clientReportText';
export { DATA_FAULT_RULES, parseDataFaults } from './faults/dataFaults';
export type { DataFaultEntry, DataFaultRule } from './faults/dataFaults';
export type { SandboxEnvironment, SandboxRequestLog } from './routes/httpFront';
export { REPORT_PATH } from './routes/httpFront';
export { DATA_FAULTS_PATH } from './faults/faultListing';

/** How to start a sandbox. Every field is optional. */
export interface SandboxOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 500; up to 1,000,000. */
  fleetSize?: number;
  /** Default 100; at most 1000. Clients may ask for another size with `page_size`. */
  pageSize?: number;
  /** Default fixed, so the fleet is the same on every start. */
  seed?: number;
  /** Keys trusted in addition to the demo key. */
  trust?: TrustedKey[];
  /**
   * Where to write the demo credential; default a new folder under the OS temp folder, removed on
   * close; `false` writes no files (the file fields of `demo` are then empty).
   */
  demoDir?: string | false;
  /** Reuse this demo key (PKCS#8 PEM) so a demo credential stays valid across restarts. */
  demoPrivateKeyPem?: string;
  /** Default true; false only for benchmarks (every request is then accepted). */
  verifyTokens?: boolean;
  /** Clock in ms since the epoch; default `Date.now`. */
  now?: () => number;
  /** How far `iat` may lie in the future, in seconds; default 60. */
  maxSkewSeconds?: number;
  /**
   * How many days of history the world holds before today (UTC); default 35, from 1 to 400. Older
   * hours answer 404 ("the provider was not operating"). The window moves with `now`.
   */
  historyDays?: number;
  /** Requests that answer 202 or 500 a number of times before they are served, to test clients' retries. */
  faults?: SandboxFault[];
  /**
   * Put instances of each kind of data fault that `mobility-api check` looks for into the world: `'all'` or the rule
   * ids (`DATA_FAULT_RULES`); listed at `GET /_sandbox/data-faults`. Default none: a clean world.
   */
  dataFaults?: 'all' | readonly DataFaultRule[];
  /** Grade the client: keep a report card of every request's verdict on the rules of spec 5 (`clientReport()`, `GET /_sandbox/report`). */
  grade?: boolean;
  /** Called once per answered request, e.g. to print why a token was refused. */
  onRequest?: (entry: SandboxRequestLog) => void;
  /** Default true: each environment also serves gRPC on a port of its own (`grpcTarget`). */
  grpc?: boolean;
  /** Default 0: ephemeral ports; n: the environments' gRPC ports are n, n+1, n+2 (in `environments` order). */
  grpcPort?: number;
  /** Which gRPC server reflection versions to serve; default `both`. */
  grpcReflection?: GrpcReflectionMode;
  /** Default false: reflection answers without a token; true: it needs one, as the other gRPC calls. */
  grpcReflectionAuth?: boolean;
  /** Called once per answered gRPC call. */
  onGrpcCall?: (entry: GrpcCallLog) => void;
}

/** A started sandbox. */
export interface RunningSandbox {
  /** `http://127.0.0.1:<port>`, without trailing slash. */
  url: string;
  port: number;
  environments: SandboxEnvironment[];
  demo: DemoCredential;
  /** Trusts one more key from now on; a key with a kid already trusted replaces it. */
  trust(key: TrustedKey): void;
  /** Stops trusting a key (its tokens are then refused as unknown_kid); the demo key cannot be removed. */
  untrust(kid: string): boolean;
  /** The kids trusted now, the demo key's included. */
  trustedKids(): string[];
  /** The report card so far when started with `grade`, else undefined. */
  clientReport(): ClientReport | undefined;
  /** Stops listening, drops open connections and removes a demo folder the sandbox created. */
  close(): Promise<void>;
}

/** The seed used when none is given. */
export const DEFAULT_SEED = 20_240_501;

const ENVIRONMENT_KINDS: readonly Omit<SandboxEnvironment, 'baseUrl'>[] = [
  { id: 'mds-staging', api: 'mds', stage: 'staging' },
  { id: 'mds-production', api: 'mds', stage: 'production' },
  { id: 'maas-staging', api: 'maas', stage: 'staging' },
];

function invalidOption(name: string, value: unknown, want: string): never {
  throw new MobilityError(
    'SANDBOX_OPTIONS_INVALID',
    `The sandbox option ${name} is ${JSON.stringify(value)}; ${want}.`,
  );
}

function checkInteger(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    invalidOption(name, value, `use a whole number from ${min} to ${max}`);
  return value;
}

/**
 * Starts the local sandbox provider: a real HTTP server that checks every token by the rules of
 * spec section 5 and serves MDS 2.0 vehicle listings (and a MaaS listing) from a synthetic fleet.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const port = checkInteger('port', options.port, 0, 0, 65535);
  const fleetSize = checkInteger('fleetSize', options.fleetSize, 500, 0, MAX_FLEET_SIZE);
  const pageSize = checkInteger('pageSize', options.pageSize, 100, 1, MAX_PAGE_SIZE);
  const seed = checkInteger('seed', options.seed, DEFAULT_SEED, 0, 0xffffffff);
  const maxSkewSeconds = options.maxSkewSeconds ?? 60;
  if (!Number.isFinite(maxSkewSeconds) || maxSkewSeconds < 0)
    invalidOption('maxSkewSeconds', maxSkewSeconds, 'use a number of seconds, 0 or more');
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const verifyTokens = options.verifyTokens ?? true;

  const setup = await writeDemoCredential(options.demoDir, options.demoPrivateKeyPem);
  const removeDemoDir = () => {
    if (setup.createdDir) rmSync(setup.demo.dir, { recursive: true, force: true });
  };
  let trust: TrustStore;
  try {
    trust = new TrustStore([setup.trusted, ...(options.trust ?? [])]);
  } catch (err) {
    removeDemoDir();
    throw err;
  }
  const verifier = new TokenVerifier({ trust, now, maxSkewSeconds });
  const historyDays = checkInteger('historyDays', options.historyDays, 35, 1, 400);
  const faults = new FaultInjector(options.faults);
  const grader = options.grade ? new ClientGrader(now) : undefined;
  const grpcPort = checkInteger('grpcPort', options.grpcPort, 0, 0, 65535 - (ENVIRONMENT_KINDS.length - 1));
  const grpcReflection = options.grpcReflection ?? 'both';
  if (!isGrpcReflectionMode(grpcReflection))
    invalidOption('grpcReflection', grpcReflection, `use one of ${GRPC_REFLECTION_MODES.join(', ')}`);
  const dataFaults = checkDataFaultsOption(options.dataFaults);
  const fleet = new SyntheticFleet({ size: fleetSize, seed, createdAt: now(), dataFaults });
  let environments: SandboxEnvironment[] = [];
  let origin = '';

  // Node answers a request without Host with a bare 400 of its own; the route answers it with an MDS body instead.
  const server: Server = createServer(
    { requireHostHeader: false },
    httpFront({
      fleet,
      now,
      historyDays,
      pageSize,
      faults,
      demo: setup.demo,
      verifier: verifyTokens ? verifier : undefined,
      grader,
      options,
      served: () => ({ origin, environments }),
    }),
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(err, socket, options.onRequest, now()),
  );

  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(port, host, () => {
        server.off('error', rejectListen);
        resolveListen();
      });
    });
  } catch (err) {
    removeDemoDir();
    const code = (err as NodeJS.ErrnoException).code;
    const what =
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use`
        : err instanceof Error
          ? err.message
          : String(err);
    throw new MobilityError(
      'SANDBOX_START_FAILED',
      `The sandbox could not start: ${what}. Choose another port, or 0 for any free port.`,
      { cause: err },
    );
  }

  const actualPort = (server.address() as AddressInfo).port;
  // An unspecified address accepts connections, but clients must dial a concrete one.
  const dialHost =
    host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  origin = `http://${dialHost}:${actualPort}`;
  environments = ENVIRONMENT_KINDS.map((kind) => ({
    ...kind,
    baseUrl: `${origin}/${kind.id}`,
    ...(fleet.size ? { exampleDeviceId: fleet.deviceIdAt(0) } : {}),
  }));

  let grpc: GrpcSandbox | undefined;
  if (options.grpc ?? true) {
    try {
      // Loaded here, not imported at the top: grpc-js is evaluated only when a sandbox with gRPC starts.
      const { startGrpcSandbox } = await import('./grpc/grpcSandbox');
      grpc = await startGrpcSandbox({
        host,
        dialHost,
        firstPort: grpcPort,
        environments,
        fleet,
        now,
        verifier: verifyTokens ? verifier : undefined,
        reflection: grpcReflection,
        reflectionAuth: options.grpcReflectionAuth ?? false,
        onCall: options.onGrpcCall,
        onChecked: grader
          ? (environment, method, authorization, check) =>
              grader.record({
                transport: 'grpc',
                method: method.split('/').pop() ?? method,
                path: method,
                atMs: now(),
                status: check.ok ? 0 : 16,
                authorization,
                check,
                audience: environment.baseUrl,
              })
          : undefined,
      });
    } catch (err) {
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      removeDemoDir();
      throw err;
    }
    const targets = grpc.targets;
    const grpcProtos = { protoFiles: SANDBOX_PROTO_FILES.map(protoFile), importPaths: [protoRoot()] };
    environments = environments.map((e) => ({ ...e, grpcTarget: targets[e.id], grpcProtos }));
  }

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port: actualPort,
    environments: environments.map((e) => ({ ...e })),
    demo: setup.demo,
    trust: (key: TrustedKey) => trust.add(key),
    untrust: (kid: string) => kid !== setup.demo.kid && trust.remove(kid),
    trustedKids: () => trust.kids(),
    clientReport: () => grader?.report(),
    close: () => {
      closing ??= new Promise<void>((resolveClose) => {
        grpc?.close();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }).then(removeDemoDir);
      return closing;
    },
  };
}
