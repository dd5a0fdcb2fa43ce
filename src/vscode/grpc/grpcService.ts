// The window's gRPC side: loads the gRPC bundle (dist/grpc.js) the first time a gRPC feature is used, keeps one
// channel and schema per environment (core GrpcSessions), and signs each call's token with the same issuer and the
// same shared per-key queue as REST requests, so that REST and gRPC tokens of a key follow one clock (spec 5, rule 6).
import path from 'node:path';
import * as vscode from 'vscode';
import type { Credential } from '../../core/auth';
import { DEPRECATED_TYPES } from '../../core/auth';
import { MobilityError } from '../../core/base';
import type { Environment, GrpcEndpoint } from '../../core/environment';
import type {
  GrpcAuth,
  GrpcCallRequest,
  GrpcCallResult,
  GrpcFileCall,
  GrpcFileRequestParts,
  GrpcServiceListing,
  GrpcSessions,
  MethodCodeShape,
} from '../../core/grpc';
import type { ClientFactory } from '../platform/clientFactory';
import type { CredentialStore } from '../environments/credentialStore';
import { Disposable } from '../platform/lifecycle';
import type { Settings } from '../platform/settings';

type GrpcEngine = typeof import('./grpc.bundle');

/** The session of an environment's `.http` GRPC requests that do not use its own endpoint (their `proto <` files). */
const FILE_SESSION = '#file';

function loadEngine(): GrpcEngine {
  // A computed path, so that esbuild leaves this require to run time (Node loads the file once).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'grpc.js')) as GrpcEngine;
}

/** The gRPC endpoint of `environment`, or GRPC_TARGET_INVALID saying which setting gives it one. */
export function grpcEndpointOf(environment: Environment): GrpcEndpoint {
  if (environment.grpc) return environment.grpc;
  throw new MobilityError(
    'GRPC_TARGET_INVALID',
    vscode.l10n.t(
      '{0} has no gRPC target. Set one in the setting mobilityApi.grpc.environments (for example {"{1}": {"target": "grpc.example.com:443"}}), or in the environment\'s "grpc" in mobilityApi.customEnvironments.',
      environment.name,
      environment.id,
    ),
  );
}

/** gRPC for the shell: schemas, templates and calls per environment. Nothing here is loaded at activation. */
export class GrpcService extends Disposable {
  private loaded: { engine: GrpcEngine; sessions: GrpcSessions } | undefined;

  constructor(
    private readonly clients: ClientFactory,
    private readonly settings: Settings,
  ) {
    super();
    this.register(new vscode.Disposable(() => this.loaded?.sessions.forget()));
  }

  /** The gRPC bundle, loaded on first use. */
  engine(): { engine: GrpcEngine; sessions: GrpcSessions } {
    if (!this.loaded) {
      const engine = loadEngine();
      this.loaded = { engine, sessions: new engine.GrpcSessions() };
    }
    return this.loaded;
  }

  /** Who signs the calls for `credential` in `environment`: the REST issuer and the shared per-key queue. */
  auth(environment: Environment, credential: Credential): GrpcAuth {
    return {
      environment,
      credential,
      issuer: this.clients.issuer,
      queue: this.clients.queue,
      lifetimeSeconds: this.settings.lifetimeSeconds,
    };
  }

  /** The services and methods of the environment (reflection, or its `.proto` files / protoset). */
  services(
    environment: Environment,
    options: { auth?: GrpcAuth; reload?: boolean; signal?: AbortSignal } = {},
  ): Promise<GrpcServiceListing> {
    return this.engine().sessions.services(environment.id, grpcEndpointOf(environment), {
      ...options,
      deadlineMs: this.settings.timeoutMs,
    });
  }

  /**
   * The services, as `services`; when the server refuses reflection without a token, once more with a fresh token of
   * the credential `credential()` gives (never asked for: undefined keeps the refusal).
   */
  async servicesWithAuth(
    environment: Environment,
    credential: () => Promise<Credential | undefined>,
    options: { reload?: boolean; signal?: AbortSignal } = {},
  ): Promise<GrpcServiceListing & { auth?: GrpcAuth }> {
    try {
      return await this.services(environment, options);
    } catch (err) {
      if (!this.engine().engine.reflectionWantsAuth(err)) throw err;
      const found = await credential();
      if (!found) throw err;
      const auth = this.auth(environment, found);
      return { ...(await this.services(environment, { ...options, auth })), auth };
    }
  }

  /** The JSON template of a method's request message. */
  template(environment: Environment, method: string, auth?: GrpcAuth): Promise<Record<string, unknown>> {
    return this.engine().sessions.template(environment.id, grpcEndpointOf(environment), method, { auth });
  }

  /** One call with a fresh token of `auth` (or the user's own authorization when the request says so). */
  call(environment: Environment, auth: GrpcAuth | undefined, request: GrpcCallRequest): Promise<GrpcCallResult> {
    return this.engine().sessions.call(environment.id, grpcEndpointOf(environment), auth, {
      deadlineMs: this.settings.timeoutMs,
      ...request,
    });
  }

  /** The endpoint and call of a `.http` GRPC request of a file in `folder`, for `environment` (see core grpcFileCall). */
  fileCall(environment: Environment, request: GrpcFileRequestParts, folder: string): GrpcFileCall {
    return this.engine().engine.grpcFileCall(request, environment.grpc, folder);
  }

  /**
   * One call of a `.http` GRPC request to `file.endpoint`. The environment's own endpoint shares its channel and schema
   * with the tree; another one (the request's `proto <` files, a scheme) gets a channel of its own, and its `.proto`
   * files are read again on every send, so that an edited file counts.
   */
  async callFile(
    environment: Environment,
    auth: GrpcAuth | undefined,
    file: GrpcFileCall,
    request: Partial<GrpcCallRequest> = {},
  ): Promise<GrpcCallResult> {
    const { sessions } = this.engine();
    const { id, endpoint } = this.sessionOf(environment, file);
    const call = { deadlineMs: this.settings.timeoutMs, ...file.call, ...request };
    if (file.ownProtos) await sessions.schema(id, endpoint, { reload: true });
    return sessions.call(id, endpoint, auth, call);
  }

  /**
   * What Copy as Code needs of `method` in the schema `file.endpoint` gives; the message is checked against it. For a
   * schema of descriptors (reflection, a descriptor set): the names of its files, and the set itself to save. A server
   * that refuses reflection without a token is asked again with a fresh one of `auth`.
   */
  async fileCodeShape(
    environment: Environment,
    auth: GrpcAuth | undefined,
    file: GrpcFileCall,
  ): Promise<{ shape: MethodCodeShape; descriptorFiles: string[]; protoset: () => Uint8Array }> {
    const { sessions, engine } = this.engine();
    const { id, endpoint } = this.sessionOf(environment, file);
    const load = (withAuth: GrpcAuth | undefined) =>
      sessions.schema(id, endpoint, { auth: withAuth, deadlineMs: this.settings.timeoutMs, reload: file.ownProtos });
    const schema = await load(undefined).catch((err: unknown) => {
      if (!auth || !engine.reflectionWantsAuth(err)) throw err;
      return load(auth);
    });
    const shape = engine.methodCodeShape(schema, file.call.method);
    const type = engine.findType(schema, shape.inputType);
    file.call.messages.forEach((m, i) => engine.encodeMessage(type, m, file.call.messages.length > 1 ? `[${i}]` : ''));
    return { shape, descriptorFiles: engine.descriptorFileNames(schema), protoset: () => engine.protosetOf(schema) };
  }

  /** The environment's own session when the request goes to its endpoint as set, else the environment's file session. */
  private sessionOf(environment: Environment, file: GrpcFileCall): { id: string; endpoint: GrpcEndpoint } {
    const own = environment.grpc;
    if (own && !file.ownProtos && sameEndpoint(own, file.endpoint)) return { id: environment.id, endpoint: own };
    return { id: `${environment.id}${FILE_SESSION}`, endpoint: file.endpoint };
  }

  /** Closes the channel of one environment (or all) and forgets its schema: the next use reflects again. */
  forget(environmentId?: string): void {
    this.loaded?.sessions.forget(environmentId);
    if (environmentId !== undefined) this.loaded?.sessions.forget(`${environmentId}${FILE_SESSION}`);
  }
}

function sameEndpoint(a: GrpcEndpoint, b: GrpcEndpoint): boolean {
  const list = (l?: string[]) => (l ?? []).join('\n');
  return (
    a.target === b.target &&
    !!a.plaintext === !!b.plaintext &&
    a.caFile === b.caFile &&
    list(a.protoFiles) === list(b.protoFiles) &&
    list(a.importPaths) === list(b.importPaths) &&
    a.protoset === b.protoset
  );
}

/** The credential for `environment` without asking: the bound one, else the only one its API accepts, else none. */
export async function quietCredential(
  credentials: CredentialStore,
  environment: Environment,
): Promise<Credential | undefined> {
  let info = await credentials.boundTo(environment.id);
  if (!info) {
    const usable = (await credentials.list()).filter((c) => environment.api === 'mds' || !DEPRECATED_TYPES.has(c.type));
    if (usable.length === 1) info = usable[0];
  }
  return info ? credentials.credential(info.id) : undefined;
}
