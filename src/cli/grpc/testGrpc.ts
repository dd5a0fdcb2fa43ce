import path from 'node:path';
import type { RunOptions } from '../../core/contract';
import type { GrpcAuth, GrpcConnection, GrpcSchema } from '../../core/grpc';
import { callMethod, grpcFileCall, loadProtoFiles, loadProtoset, openConnection, reflectSchema } from '../../core/grpc';
import type { Environment } from '../../core/environment';
import { normaliseBaseUrl } from '../../core/environment';
import { grpcAnswerOf } from '../../results/contract/assertionView';
import { explainGrpcRefusal } from '../../results/grpc/grpcRefusal';
import { refusalLines } from '../../results/tokens/refusalView';
import { withSchemaFlags } from './grpcCommand';
import { fromServer } from '../support/output';

/** How `mobility-api test` reaches the gRPC targets: TLS unless plaintext (to this computer only), a CA file. */
export interface TestGrpcTransport {
  plaintext?: boolean;
  caFile?: string;
  deadlineMs?: number;
}

/**
 * The `callGrpc` of `mobility-api test`: one connection per target and one schema per target and schema source for
 * the whole run (the request's `proto <` files, relative to its file, or else server reflection), each call signed
 * with a fresh token by the run's issuer and per-key queue (`auth`). `close()` ends the connections.
 */
export function testGrpcCaller(
  auth: GrpcAuth,
  transport: TestGrpcTransport,
): { callGrpc: NonNullable<RunOptions['callGrpc']>; close: () => void } {
  const connections = new Map<string, GrpcConnection>();
  const schemas = new Map<string, Promise<GrpcSchema>>();
  const callGrpc: NonNullable<RunOptions['callGrpc']> = async (planned, signal) => {
    const folder = path.dirname(path.resolve(planned.file));
    const { endpoint, call } = grpcFileCall(
      planned.grpc,
      {
        target: planned.grpc.target,
        ...(transport.plaintext ? { plaintext: true } : {}),
        ...(transport.caFile ? { caFile: transport.caFile } : {}),
      },
      folder,
    );
    const connectionKey = `${endpoint.plaintext ? 'plain' : 'tls'} ${endpoint.caFile ?? ''} ${endpoint.target}`;
    let connection = connections.get(connectionKey);
    if (!connection) {
      connection = openConnection({
        address: endpoint.target,
        plaintext: endpoint.plaintext === true,
        caFile: endpoint.caFile,
      });
      connections.set(connectionKey, connection);
    }
    const schemaKey = endpoint.protoFiles
      ? `protos ${endpoint.protoFiles.join('\n')}`
      : endpoint.protoset
        ? `protoset ${endpoint.protoset}`
        : `reflection ${connectionKey}`;
    let schema = schemas.get(schemaKey);
    if (!schema) {
      const open = connection;
      schema = endpoint.protoFiles
        ? Promise.resolve(loadProtoFiles(endpoint.protoFiles, [...(endpoint.importPaths ?? []), folder]))
        : endpoint.protoset
          ? Promise.resolve(loadProtoset(endpoint.protoset))
          : reflectSchema(open, { auth, deadlineMs: transport.deadlineMs }).catch((err: unknown) => {
              throw withSchemaFlags(err);
            });
      schemas.set(schemaKey, schema);
      // A failed reflection is tried again by the next request of that target.
      schema.catch(() => schemas.delete(schemaKey));
    }
    const result = await callMethod(connection, await schema, auth, {
      ...call,
      ...(transport.deadlineMs ? { deadlineMs: transport.deadlineMs } : {}),
      ...(signal ? { signal } : {}),
    });
    const refusal = explainGrpcRefusal(result, refusalContext(auth.environment, auth));
    const answer = grpcAnswerOf(
      result,
      refusal ? refusalLines(refusal).map((line) => fromServer(line, 2000)) : undefined,
    );
    return answer;
  };
  return {
    callGrpc,
    close: () => {
      for (const connection of connections.values()) connection.close();
    },
  };
}

function refusalContext(environment: Environment, auth: GrpcAuth) {
  return {
    audience: normaliseBaseUrl(environment.baseUrl, environment.name),
    api: environment.api,
    credentialType: auth.credential.type,
    now: Date.now(),
  };
}
