// A gRPC call as a generated program makes it: the method, the target, the request message, and the
// .proto files the program loads (TypeScript, at run time) or compiles with protoc (Python), with
// their paths as the user gave them, relative to where the program runs.
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import { audienceOf, normaliseBaseUrl } from '../environment';
import { MobilityError } from '../base';
import type { CodeProgram, CodeProtoFile, GrpcCodeRequest } from './codeRequest';
import { checkLifetime } from '../auth';
import { codeCredentialOf, DEFAULT_CODE_LIFETIME } from './codeRequest';

/**
 * A gRPC call to generate a program for, as a parsed `.http` GRPC request or the CLI has it, with
 * what the schema says of the method (`methodCodeShape` of core/grpc gives the last five fields).
 */
export interface GrpcCodeCall {
  /** `package.Service/Method` (a leading `/` is allowed). */
  method: string;
  /** `host:port`. */
  target: string;
  plaintext?: boolean;
  caFile?: string;
  /** The request message as JSON; default `{}`. */
  message?: unknown;
  metadata?: [string, string][];
  protoFiles: string[];
  importPaths?: string[];
  /** Instead of `protoFiles`: a descriptor set (path as given) and the names of the files in it. */
  protoset?: { file: string; files: string[] };
  serverStreaming: boolean;
  clientStreaming?: boolean;
  /** The request type's full name, `package.Message`, and its package (default the service's). */
  inputType: string;
  inputPackage?: string;
  /** The `.proto` files (as given, or as resolved by the loader) that define the service and the request type; default: the only file given. */
  serviceFile?: string;
  inputFile?: string;
}

const METHOD = /^\/?((?:([A-Za-z_][\w.]*)\.)?[A-Za-z_]\w*)\/([A-Za-z_]\w*)$/;
const TARGET = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

function usage(message: string): MobilityError {
  return new MobilityError('CODE_GRPC_INVALID', message);
}

/** The include folders and the names of the files under them; a file under none is found in its own folder. */
function layout(files: string[], importPaths: string[]): { includeDirs: string[]; protoFiles: CodeProtoFile[] } {
  const includeDirs = [...importPaths];
  const protoFiles = files.map((given) => {
    for (const dir of includeDirs) {
      const name = path.relative(path.resolve(dir), path.resolve(given));
      if (name && !name.startsWith('..') && !path.isAbsolute(name))
        return { given, name: name.split(path.sep).join('/') };
    }
    const dir = path.dirname(given);
    if (!includeDirs.includes(dir)) includeDirs.push(dir);
    return { given, name: path.basename(given) };
  });
  return { includeDirs, protoFiles };
}

/** The name of `file` (as given or resolved) in the layout; a file found in an include folder is added to it. */
function protoNameOf(file: string, where: { includeDirs: string[]; protoFiles: CodeProtoFile[] }): string {
  const known = where.protoFiles.find(
    (f) => f.given === file || path.resolve(f.given) === path.resolve(file) || f.name === file,
  );
  if (known) return known.name;
  if (/^google\/protobuf\/\w+\.proto$/.test(file)) return file; // a well-known type: it comes with every protobuf library
  for (const dir of where.includeDirs) {
    const name = path.relative(path.resolve(dir), path.resolve(file));
    if (name && !name.startsWith('..') && !path.isAbsolute(name)) {
      const added = { given: path.join(dir, name), name: name.split(path.sep).join('/') };
      where.protoFiles.push(added);
      return added.name;
    }
  }
  throw usage(
    l10n.t(
      '{0} is neither one of the .proto files given nor under one of the import paths: give it as a .proto file.',
      file,
    ),
  );
}

/**
 * The program for `call` on `environment`: a fresh token for every call, `aud` = the environment's
 * base URL (REST and gRPC share it, spec 5.3). Refuses what a program could not send: a method
 * name that is not `package.Service/Method`, a client-streaming method, a target that is not
 * host:port, plaintext beyond this computer, no `.proto` file, a message that is not a JSON object,
 * and metadata `authorization` (each call signs its own).
 */
export function grpcCodeProgramFor(
  environment: Environment,
  credential: Pick<Credential, 'type' | 'issuer'>,
  call: GrpcCodeCall,
  lifetimeSeconds = DEFAULT_CODE_LIFETIME,
): CodeProgram<GrpcCodeRequest> {
  checkLifetime(lifetimeSeconds);
  const m = METHOD.exec(call.method.trim());
  if (!m)
    throw usage(
      l10n.t(
        'The gRPC method must be package.Service/Method, such as mobility.sandbox.v1.VehicleService/GetVehicle, not "{0}".',
        call.method,
      ),
    );
  if (call.clientStreaming)
    throw usage(
      l10n.t(
        '{0} streams its requests from the client: Copy as Code writes programs for unary and server-streaming methods.',
        m[1] + '/' + m[3],
      ),
    );
  const target = TARGET.exec(call.target.trim());
  if (!target || Number(target[2]) < 1 || Number(target[2]) > 65535)
    throw usage(
      l10n.t(
        'The gRPC target must be host:port, such as grpc.example.com:443 or 127.0.0.1:50051, not "{0}".',
        call.target,
      ),
    );
  if (call.plaintext && !LOOPBACK.test(target[1]))
    throw usage(
      l10n.t(
        'Plaintext is only for this computer (localhost, 127.0.0.1, ::1): {0} would receive tokens unencrypted. Use TLS.',
        target[1],
      ),
    );
  if (call.plaintext && call.caFile)
    throw usage(l10n.t('A CA file is for TLS: give either plaintext or a CA file, not both.'));
  if (!call.protoFiles.length && !call.protoset)
    throw usage(
      l10n.t(
        'Give the .proto files that define {0}: the program loads them (TypeScript) or compiles them with protoc (Python).',
        m[1],
      ),
    );
  const message = call.message ?? {};
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    throw usage(l10n.t('The request message must be one JSON object, such as {"device_id": "…"}.'));
  const metadata = (call.metadata ?? []).map(([name, value]): [string, string] => [name.trim().toLowerCase(), value]);
  if (metadata.some(([name]) => name === 'authorization'))
    throw usage(
      l10n.t('Leave out the authorization metadata: the program signs a fresh token for every call (spec 5.1 rule 4).'),
    );
  const set = call.protoFiles.length ? undefined : call.protoset;
  const where = set
    ? { includeDirs: [], protoFiles: set.files.map((name) => ({ given: name, name })) }
    : layout(call.protoFiles, call.importPaths ?? []);
  const only = call.protoFiles.length === 1 ? call.protoFiles[0] : undefined;
  const serviceFile = call.serviceFile ?? only;
  if (serviceFile === undefined)
    throw usage(
      set
        ? l10n.t('The descriptor set {0} does not declare {1}.', set.file, m[1])
        : l10n.t('Say which of the .proto files defines {0}.', m[1]),
    );
  const serviceProto = protoNameOf(serviceFile, where);
  const inputProto = protoNameOf(call.inputFile ?? serviceFile, where);
  const packageName = m[2] ?? '';
  const inputPackage = call.inputPackage ?? packageName;
  const inputType = call.inputType.replace(/^\./, '');
  const baseUrl = normaliseBaseUrl(environment.baseUrl, environment.name);
  return {
    request: {
      kind: 'grpc',
      method: `${m[1]}/${m[3]}`,
      service: m[1],
      packageName,
      methodName: m[3],
      serverStreaming: call.serverStreaming,
      inputName:
        inputPackage && inputType.startsWith(`${inputPackage}.`) ? inputType.slice(inputPackage.length + 1) : inputType,
      target: call.target.trim(),
      plaintext: call.plaintext === true,
      ...(call.caFile ? { caFile: call.caFile } : {}),
      message: message as Record<string, unknown>,
      metadata,
      includeDirs: where.includeDirs,
      protoFiles: where.protoFiles,
      serviceProto,
      inputProto,
      ...(set ? { protoset: set.file } : {}),
    },
    credential: codeCredentialOf(credential),
    api: environment.api,
    baseUrl,
    audience: audienceOf(environment),
    lifetimeSeconds,
  };
}
