import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiKind } from '../core/environment';
import { maskKeyId, MobilityError } from '../core/base';
import type { AuthRuleId } from '../core/auth';
import type { ClientReport } from './auth/clientGrade';
import { ClientGrader } from './auth/clientGrade';
import { clientReportText } from './auth/clientReportText';
import type { DemoCredential } from './auth/demoCredential';
import type { GrpcCallLog, GrpcSandbox } from './grpc/grpcSandbox';
import type { GrpcReflectionMode } from './grpc/grpcOptions';
import { GRPC_REFLECTION_MODES, isGrpcReflectionMode } from './grpc/grpcOptions';
import { protoFile, protoRoot, SANDBOX_PROTO_FILES } from './grpc/protoFiles';
import { withoutTrailingSlashes } from '../core/environment';
import { writeDemoCredential } from './auth/demoCredential';
import type { MdsErrorBody, Reply } from './routes/mdsResponses';
import { errorReply, JSON_CONTENT_TYPE, maasVehiclesPage, MAX_PAGE_SIZE, parsePage } from './routes/mdsResponses';
import { answerClientError, unauthorized } from './routes/replies';
import { DATA_FAULTS_PATH, dataFaultsReply } from './faults/faultListing';
import { MDS_ROUTES, routeMds } from './routes/mdsRoutes';
import type { SandboxFault } from './faults/requestFaults';
import { FaultInjector } from './faults/requestFaults';
import type { DataFaultRule } from './faults/dataFaults';
import { checkDataFaultsOption } from './faults/dataFaults';
import { MAX_FLEET_SIZE, SyntheticFleet } from './world/syntheticFleet';
import type { TokenCheck } from './auth/tokenVerifier';
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

/** Where a grading sandbox serves its report card (JSON; `?format=text` for the text). */
export const REPORT_PATH = '/_sandbox/report';
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

/** One answered request, for logs. Holds no token. */
export interface SandboxRequestLog {
  method: string;
  path: string;
  status: number;
  environment?: SandboxEnvironment['id'];
  /** For 401s: the broken rule. */
  rule?: AuthRuleId;
  /** The kid of the token when it had one, masked (`ab12…f9c0`): a key id is a secret (spec 5.7). */
  kid?: string;
  /** For errors: the error description sent to the client. */
  description?: string;
}

/** One environment the sandbox serves; its base URL is also its audience (spec 5.3). */
export interface SandboxEnvironment {
  id: 'mds-staging' | 'mds-production' | 'maas-staging';
  api: ApiKind;
  stage: 'staging' | 'production';
  baseUrl: string;
  /** `host:port` of the environment's gRPC server (plaintext), unless the sandbox runs without gRPC. */
  grpcTarget?: string;
  /**
   * With `grpcTarget`: the `.proto` files its services are defined in (absolute) and the folder their imports resolve
   * from. Its clients read the schema by reflection; programs (Copy as Code) load or compile these files.
   */
  grpcProtos?: { protoFiles: string[]; importPaths: string[] };
  /** A device_id the environment serves (its first vehicle), for examples such as a starter request file's `@device_id`. */
  exampleDeviceId?: string;
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

/** An answer with what the grader needs: the token check and the audience, or that it is the report itself. */
type Routed = Reply & { environment?: SandboxEnvironment['id']; check?: TokenCheck; audience?: string; report?: boolean };

/** The seed used when none is given. */
export const DEFAULT_SEED = 20_240_501;

const ENVIRONMENT_KINDS: readonly Omit<SandboxEnvironment, 'baseUrl'>[] = [
  { id: 'mds-staging', api: 'mds', stage: 'staging' },
  { id: 'mds-production', api: 'mds', stage: 'production' },
  { id: 'maas-staging', api: 'maas', stage: 'staging' },
];

function invalidOption(name: string, value: unknown, want: string): never {
  throw new MobilityError('SANDBOX_OPTIONS_INVALID', `The sandbox option ${name} is ${JSON.stringify(value)}; ${want}.`);
}

function checkInteger(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) invalidOption(name, value, `use a whole number from ${min} to ${max}`);
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
  if (!Number.isFinite(maxSkewSeconds) || maxSkewSeconds < 0) invalidOption('maxSkewSeconds', maxSkewSeconds, 'use a number of seconds, 0 or more');
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
  if (!isGrpcReflectionMode(grpcReflection)) invalidOption('grpcReflection', grpcReflection, `use one of ${GRPC_REFLECTION_MODES.join(', ')}`);
  const dataFaults = checkDataFaultsOption(options.dataFaults);
  const fleet = new SyntheticFleet({ size: fleetSize, seed, createdAt: now(), dataFaults });
  let environments: SandboxEnvironment[] = [];
  let origin = '';

  const route = async (req: IncomingMessage): Promise<Routed> => {
    const method = req.method ?? 'GET';
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      return errorReply(400, 'bad_request', 'The request has no Host header, which HTTP/1.1 requires (RFC 9112 3.2).', ['header: Host']);
    }
    const url = new URL(req.url ?? '/', origin);
    const path = withoutTrailingSlashes(url.pathname) || '/';
    if (method !== 'GET' && method !== 'HEAD') {
      return errorReply(405, 'method_not_allowed', `The sandbox answers GET and HEAD only, not ${method}.`, [`path: ${path}`], { Allow: 'GET, HEAD' });
    }
    if (path === REPORT_PATH) {
      if (!grader) return errorReply(404, 'not_found', 'This sandbox keeps no report card: start it with --grade (the grade option).', [`path: ${path}`]);
      const report = grader.report();
      return url.searchParams.get('format') === 'text' ? { status: 200, contentType: 'text/plain; charset=utf-8', body: undefined, text: clientReportText(report), report: true } : { status: 200, contentType: JSON_CONTENT_TYPE, body: report, report: true };
    }
    if (path === DATA_FAULTS_PATH) return { ...dataFaultsReply(url.searchParams, { fleet, now, historyDays }), report: true };
    if (path === '/') {
      return {
        status: 200,
        contentType: JSON_CONTENT_TYPE,
        body: {
          name: 'Mobility API Explorer sandbox',
          environments: environments.map((e) => ({ ...e, audience: e.baseUrl, vehicles: e.api === 'mds' ? `${e.baseUrl}/vehicles` : `${e.baseUrl}/v1alpha2/vehicles` })),
          demo: { type: setup.demo.type, kid: setup.demo.kid, issuer: setup.demo.issuer },
          fleet_size: fleet.size,
        },
      };
    }
    const segments = path.split('/').slice(1);
    const env = environments.find((e) => e.id === segments[0]);
    if (!env) {
      return errorReply(404, 'not_found', `Nothing is served at ${path}. The environments are under ${environments.map((e) => `/${e.id}`).join(', ')}.`, [`path: ${path}`]);
    }
    let checked: { check: TokenCheck; audience: string } | undefined;
    const answer = (reply: Reply): Routed => ({ ...reply, environment: env.id, ...checked });
    // Node joins repeated Authorization headers with ", ": refuse them instead of guessing which one counts.
    const authorizations = req.headersDistinct.authorization ?? [];
    if (authorizations.length > 1) {
      return answer(errorReply(400, 'bad_request', `The request has ${authorizations.length} Authorization headers; send exactly one, "Authorization: Bearer <JWT>".`, ['rule: one Authorization header (RFC 9110 5.3: it is not a list-based field)', `count: ${authorizations.length}`]));
    }
    if (verifyTokens) {
      const check = await verifier.verify(req.headers.authorization, { api: env.api, audience: env.baseUrl });
      checked = { check, audience: env.baseUrl };
      if (!check.ok) return answer(unauthorized(check.refusal));
    }
    const rest = segments.slice(1);
    const notFound = () => answer(errorReply(404, 'not_found', `The ${env.id} environment has no resource at ${path}.`, [`path: ${path}`, `routes: ${env.api === 'mds' ? MDS_ROUTES : '/v1alpha2/vehicles'}`]));
    const endpoint = `${env.baseUrl}/${rest.join('/')}`;

    if (env.api === 'maas') {
      if (rest.length !== 2 || rest[0] !== 'v1alpha2' || rest[1] !== 'vehicles') return notFound();
      const parsed = parsePage(url.searchParams, pageSize, fleet.size);
      if (!parsed.ok) return answer(errorReply(400, 'bad_param', `The page parameters are wrong: ${parsed.problem}.`, [`page_size is capped at ${MAX_PAGE_SIZE}`]));
      return answer({ status: 200, contentType: JSON_CONTENT_TYPE, body: maasVehiclesPage(fleet, endpoint, parsed.page, now()) });
    }
    return answer(routeMds({ fleet, now, historyDays, pageSize, faults }, rest, url.searchParams, endpoint, req.headers.accept, notFound));
  };

  const respond = (req: IncomingMessage, res: ServerResponse, reply: Routed) => {
    const text = reply.text ?? JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      // From the sandbox's clock, not Node's: a client must see the skew against a sandbox whose clock was moved.
      Date: new Date(now()).toUTCString(),
      'Content-Type': reply.contentType,
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...reply.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : text);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (grader && !reply.report) {
      // The query too: a token reused for page 2 must not look like page 1's.
      grader.record({ transport: 'http', method: req.method ?? 'GET', path: req.url ?? '/', atMs: now(), status: reply.status, authorization: req.headers.authorization, check: reply.check, audience: reply.audience });
    }
    if (options.onRequest) {
      const body = reply.body as Partial<MdsErrorBody>;
      const entry: SandboxRequestLog = { method: req.method ?? 'GET', path, status: reply.status };
      if (reply.environment) entry.environment = reply.environment;
      if (reply.rule) entry.rule = reply.rule;
      if (reply.kid) entry.kid = maskKeyId(reply.kid);
      if (reply.status >= 400 && typeof body.error_description === 'string') entry.description = body.error_description;
      try {
        options.onRequest(entry);
      } catch {
        // A failing logger must not take the server down.
      }
    }
  };

  // Node answers a request without Host with a bare 400 of its own; the route answers it with an MDS body instead.
  const server: Server = createServer({ requireHostHeader: false }, (req, res) => {
    route(req).then(
      (reply) => respond(req, res, reply),
      (err: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const reason = err instanceof Error ? err.message : String(err);
        respond(req, res, errorReply(500, 'server_error', 'The sandbox failed to answer this request. This is a bug in the sandbox; the details say where.', [reason]));
      },
    );
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, options.onRequest, now()));

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
    const what = code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use` : err instanceof Error ? err.message : String(err);
    throw new MobilityError('SANDBOX_START_FAILED', `The sandbox could not start: ${what}. Choose another port, or 0 for any free port.`, { cause: err });
  }

  const actualPort = (server.address() as AddressInfo).port;
  // An unspecified address accepts connections, but clients must dial a concrete one.
  const dialHost = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  origin = `http://${dialHost}:${actualPort}`;
  environments = ENVIRONMENT_KINDS.map((kind) => ({ ...kind, baseUrl: `${origin}/${kind.id}`, ...(fleet.size ? { exampleDeviceId: fleet.deviceIdAt(0) } : {}) }));

  let grpc: GrpcSandbox | undefined;
  if (options.grpc ?? true) {
    try {
      // Loaded here, not imported at the top: grpc-js is evaluated only when a sandbox with gRPC starts.
      const { startGrpcSandbox } = await import('./grpc/grpcSandbox');
      grpc = await startGrpcSandbox({ host, dialHost, firstPort: grpcPort, environments, fleet, now, verifier: verifyTokens ? verifier : undefined, reflection: grpcReflection, reflectionAuth: options.grpcReflectionAuth ?? false, onCall: options.onGrpcCall,
        onChecked: grader ? (environment, method, authorization, check) => grader.record({ transport: 'grpc', method: method.split('/').pop() ?? method, path: method, atMs: now(), status: check.ok ? 0 : 16, authorization, check, audience: environment.baseUrl }) : undefined });
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
