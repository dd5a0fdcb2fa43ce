// One open channel and one schema per environment, kept while the environment's gRPC settings stay the same: the
// tree, Call gRPC Method and `.http` GRPC requests of a window share them, so that a schema is reflected once and
// every call still gets its own fresh token (callMethod signs per call).
import type { GrpcEndpoint } from '../environment';
import { callMethod } from './call';
import type { GrpcCallRequest, GrpcCallResult } from './call';
import type { GrpcAuth } from './callAuth';
import { openConnection } from './connection';
import type { GrpcConnection } from './connection';
import { reflectSchema } from './reflection';
import { findMethod, listServices, loadProtoFiles, loadProtoset } from './schema';
import type { GrpcSchema, GrpcServiceInfo, SchemaSource } from './schema';
import { messageTemplate } from './template';

interface Entry {
  key: string;
  connection: GrpcConnection;
  schema?: Promise<GrpcSchema>;
}

/** What the tree shows of an environment's gRPC side. */
export interface GrpcServiceListing {
  source: SchemaSource;
  services: GrpcServiceInfo[];
}

/** The channels and schemas of a window's environments, by environment id. */
export class GrpcSessions {
  private readonly entries = new Map<string, Entry>();

  private entry(environmentId: string, endpoint: GrpcEndpoint): Entry {
    const key = JSON.stringify(endpoint);
    const known = this.entries.get(environmentId);
    if (known?.key === key) return known;
    known?.connection.close();
    const connection = openConnection({
      address: endpoint.target,
      plaintext: endpoint.plaintext,
      caFile: endpoint.caFile,
    });
    const entry: Entry = { key, connection };
    this.entries.set(environmentId, entry);
    return entry;
  }

  /**
   * The environment's schema: its `.proto` files or protoset when set, else server reflection (v1, then v1alpha),
   * whose calls carry a fresh token of `auth` when given. Kept until `forget` or a settings change; a failed load
   * is not kept.
   */
  schema(
    environmentId: string,
    endpoint: GrpcEndpoint,
    options: { auth?: GrpcAuth; deadlineMs?: number; signal?: AbortSignal; reload?: boolean } = {},
  ): Promise<GrpcSchema> {
    const entry = this.entry(environmentId, endpoint);
    if (options.reload) entry.schema = undefined;
    if (entry.schema) return entry.schema;
    const loading = (async () => {
      if (endpoint.protoFiles?.length) return loadProtoFiles(endpoint.protoFiles, endpoint.importPaths ?? []);
      if (endpoint.protoset) return loadProtoset(endpoint.protoset);
      return reflectSchema(entry.connection, {
        auth: options.auth,
        deadlineMs: options.deadlineMs,
        signal: options.signal,
      });
    })();
    entry.schema = loading;
    loading.catch(() => {
      if (entry.schema === loading) entry.schema = undefined;
    });
    return loading;
  }

  async services(
    environmentId: string,
    endpoint: GrpcEndpoint,
    options: { auth?: GrpcAuth; deadlineMs?: number; signal?: AbortSignal; reload?: boolean } = {},
  ): Promise<GrpcServiceListing> {
    const schema = await this.schema(environmentId, endpoint, options);
    return { source: schema.source, services: listServices(schema) };
  }

  /** The JSON template of `method`'s request message (`package.Service/Method`). */
  async template(
    environmentId: string,
    endpoint: GrpcEndpoint,
    method: string,
    options: { auth?: GrpcAuth; signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    const schema = await this.schema(environmentId, endpoint, options);
    const { method: found } = findMethod(schema, method);
    return messageTemplate(found.resolvedRequestType!);
  }

  /** Calls `request.method` with a fresh token of `auth` (or the user's own authorization). */
  async call(
    environmentId: string,
    endpoint: GrpcEndpoint,
    auth: GrpcAuth | undefined,
    request: GrpcCallRequest,
  ): Promise<GrpcCallResult> {
    const schema = await this.schema(environmentId, endpoint, {
      auth,
      deadlineMs: request.deadlineMs,
      signal: request.signal,
    });
    return callMethod(this.entry(environmentId, endpoint).connection, schema, auth, request);
  }

  /** Closes one environment's channel (and drops its schema), or every one. */
  forget(environmentId?: string): void {
    for (const [id, entry] of this.entries) {
      if (environmentId !== undefined && id !== environmentId) continue;
      entry.connection.close();
      this.entries.delete(id);
    }
  }
}
