import type { CodeLanguage } from '../../core/codegen';
import { CODE_LANGUAGE_INFO, generateCode, GRPC_CODE_LANGUAGES, grpcCodeProgramFor } from '../../core/codegen';
import { MobilityError } from '../../core/base';
import {
  descriptorFileNames,
  encodeMessage,
  findType,
  loadProtoFiles,
  loadProtoset,
  methodCodeShape,
  parseMessagesJson,
} from '../../core/grpc';
import type { CliIo } from '../support/cliIo';
import { dataText, parseMetadata } from './grpcCommand';
import type { CredentialValues } from '../support/options';
import { apiFrom, environmentFrom, loadCredential } from '../support/options';

/** The options `code --grpc` adds to `code`. */
export const CODE_GRPC_OPTIONS = {
  grpc: { type: 'string' },
  target: { type: 'string' },
  plaintext: { type: 'boolean' },
  'ca-file': { type: 'string' },
  proto: { type: 'string', multiple: true },
  'import-path': { type: 'string', multiple: true },
  protoset: { type: 'string' },
  data: { type: 'string' },
  metadata: { type: 'string', multiple: true },
  aud: { type: 'string' },
} as const;

/** What `code --grpc` reads of the parsed options. */
type CodeGrpcValues = CredentialValues & {
  grpc?: string;
  target?: string;
  plaintext?: boolean;
  'ca-file'?: string;
  proto?: string[];
  'import-path'?: string[];
  protoset?: string;
  data?: string;
  metadata?: string[];
  aud?: string;
  api?: string;
};

/**
 * `mobility-api code python|typescript --grpc <package.Service/Method> --target <host:port> --proto <file>...`:
 * the program for one gRPC call. The .proto files are loaded here to find the method and check the
 * message (say which field does not fit) before anything is written; the program gets their paths as given.
 */
export async function codeGrpc(
  language: CodeLanguage,
  values: CodeGrpcValues,
  io: CliIo,
  lifetime: number,
): Promise<number> {
  const method = values.grpc ?? '';
  if (!GRPC_CODE_LANGUAGES.includes(language)) {
    // generateCode refuses with the languages that can; say it before reading any file.
    throw new MobilityError(
      'USAGE',
      `code --grpc writes ${GRPC_CODE_LANGUAGES.map((l) => CODE_LANGUAGE_INFO[l].grpcLabel).join(' and ')}, not ${language}${language === 'shell' ? ': for the command line, use Copy as grpcurl' : ''}.`,
    );
  }
  if (values.target === undefined)
    throw new MobilityError('USAGE', 'code --grpc needs --target <host:port>, the server the program calls.');
  const protoFiles = values.proto ?? [];
  if (protoFiles.length && values.protoset !== undefined)
    throw new MobilityError('USAGE', 'code --grpc takes the schema as --proto files or as one --protoset, not both.');
  if (!protoFiles.length && values.protoset === undefined) {
    throw new MobilityError(
      'USAGE',
      'code --grpc needs the schema the program loads or compiles: the .proto files that define the service (--proto <file>, repeatable), or a descriptor set (--protoset <file>; `grpc list --target … --protoset-out <file>` writes one from server reflection).',
    );
  }
  if (values.aud === undefined)
    throw new MobilityError(
      'USAGE',
      "code --grpc needs --aud <base-url>: the environment's base URL, the audience REST and gRPC share (spec 5.3).",
    );
  const importPaths = values['import-path'] ?? [];
  const schema =
    values.protoset !== undefined ? loadProtoset(values.protoset) : loadProtoFiles(protoFiles, importPaths);
  const protoset =
    values.protoset !== undefined ? { file: values.protoset, files: descriptorFileNames(schema) } : undefined;
  const shape = methodCodeShape(schema, method);
  const where = values.data === undefined ? '--data' : `--data ${values.data}`;
  const messages = parseMessagesJson(await dataText(values.data, io), where);
  if (messages.length !== 1)
    throw new MobilityError('USAGE', `${where} must hold one request message (a JSON object), not ${messages.length}.`);
  encodeMessage(findType(schema, shape.inputType), messages[0]);
  const api = apiFrom(values, false);
  const environment = environmentFrom(values.aud, '--aud', api, values);
  const credential = loadCredential(values, io, api);
  const program = grpcCodeProgramFor(
    environment,
    credential,
    {
      ...shape,
      target: values.target,
      plaintext: values.plaintext === true,
      caFile: values['ca-file'],
      message: messages[0],
      metadata: parseMetadata(values.metadata ?? []),
      protoFiles,
      importPaths,
      ...(protoset ? { protoset } : {}),
    },
    lifetime,
  );
  io.out(generateCode(language, program).replace(/\n$/, ''));
  return 0;
}
