import path from 'node:path';
import { MobilityError } from '../../core/base';
import type { GrpcAuth } from '../../core/grpc';
import { stateDirOption } from '../../core/clock';
import { findMethod, grpcFileCall, loadProtoFiles, openConnection, reflectSchema, userMetadata } from '../../core/grpc';
import type { FileRequest, RequestFile } from '../../core/http';
import { resolveGrpcFileRequest } from '../../core/http';
import type { CliIo } from '../support/cliIo';
import type { Signing } from './grpcCall';
import { runCall } from './grpcCall';
import { withSchemaFlags } from './grpcCommand';
import {
  apiFrom,
  environmentFrom,
  issuerFrom,
  loadCredential,
  noteOwnAuthorization,
  positiveNumber,
  userHeaders,
} from '../support/options';

/** What `send` reads for a GRPC request, besides the request options it shares with REST. */
export const SEND_GRPC_OPTIONS = {
  'grpc-target': { type: 'string' },
  plaintext: { type: 'boolean' },
  'ca-file': { type: 'string' },
} as const;

/** The values `send` parsed that a GRPC request reads. */
export interface SendGrpcValues {
  'base-url'?: string;
  'grpc-target'?: string;
  plaintext?: boolean;
  'ca-file'?: string;
  header?: string[];
  'send-authorization-as-is'?: boolean;
  timeout?: string;
  json?: boolean;
  api?: string;
  'all-pages'?: boolean;
  'max-pages'?: string;
  validate?: boolean;
  mode?: string;
}

/**
 * `mobility-api send <file.http>` of a GRPC request: `{{grpcTarget}}` is `--grpc-target`, `{{baseUrl}}` and the
 * token's audience are `--base-url` (REST and gRPC share one, spec 5.3), the schema is the request's
 * `proto <` files (relative to the request file) or else server reflection; one call with a fresh token.
 */
export async function sendGrpcFileRequest(
  request: FileRequest,
  file: RequestFile,
  filePath: string,
  values: SendGrpcValues & Parameters<typeof loadCredential>[0],
  io: CliIo,
): Promise<number> {
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  const variables: Record<string, string> = {};
  if (baseUrl) variables.baseUrl = baseUrl;
  if (values['grpc-target']) variables.grpcTarget = values['grpc-target'];
  const asIs = values['send-authorization-as-is'] === true;
  const label = request.name ?? String(request.index);
  const restOnly = (['all-pages', 'max-pages', 'validate', 'mode'] as const).filter(
    (flag) => values[flag] !== undefined,
  );
  if (restOnly.length)
    throw new MobilityError(
      'USAGE',
      `${restOnly.map((f) => `--${f}`).join(', ')} apply to REST requests; request ${label} is a GRPC request (a server stream is read to its end).`,
    );
  const resolved = resolveGrpcFileRequest(request, file, variables, { authorizationAsIs: asIs });
  const api = apiFrom(values, true);
  // --header lines are metadata too; an authorization among them only with --send-authorization-as-is (the one rule).
  const given = userHeaders(values, api, true);
  const extra = Object.entries(given.headers);
  const givenAuthorization = given.authorization;
  const authorization = resolved.authorization ?? givenAuthorization;
  if (asIs && authorization === undefined)
    throw new MobilityError(
      'USAGE',
      `--send-authorization-as-is sends an authorization set by the request or given with --header as written; request ${label} sets none.`,
    );
  if (!baseUrl && authorization === undefined) {
    throw new MobilityError(
      'USAGE',
      "--base-url <url> is required: the environment's REST base URL is the audience of the gRPC token too (spec 5.3), and {{baseUrl}} of the file.",
    );
  }
  let auth: GrpcAuth | undefined;
  let signing: Signing | undefined;
  if (authorization === undefined) {
    const environment = environmentFrom(baseUrl, '--base-url', api, values);
    const credential = loadCredential(values, io, api);
    const { issuer, queue, store } = issuerFrom(values, io);
    auth = { environment, credential, issuer, queue };
    signing = { auth, environment, credential, store, stateDir: stateDirOption(values['state-dir'], io.env) };
  } else {
    noteOwnAuthorization(io);
  }
  const folder = path.dirname(path.resolve(filePath));
  const parts = { ...resolved, metadata: [...resolved.metadata, ...extra], authorization };
  const { endpoint, call } = grpcFileCall(
    parts,
    { target: resolved.target, plaintext: values.plaintext === true, caFile: values['ca-file'] },
    folder,
  );
  // The metadata is checked before reflection and tokens go out.
  userMetadata(call.metadata ?? [], call.sendOwnAuthorization === true);
  const connection = openConnection({
    address: endpoint.target,
    plaintext: endpoint.plaintext === true,
    caFile: endpoint.caFile,
  });
  try {
    const deadlineMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;
    // The request file's folder is searched for imports too.
    const schema = endpoint.protoFiles
      ? loadProtoFiles(endpoint.protoFiles, [...(endpoint.importPaths ?? []), folder])
      : await reflectSchema(connection, { auth, deadlineMs }).catch((err: unknown) => {
          throw withSchemaFlags(err);
        });
    findMethod(schema, call.method);
    return await runCall(connection, schema, signing, { ...call, deadlineMs }, values, io);
  } finally {
    connection.close();
  }
}
