import fs from 'node:fs';
import { errorMessage, isMobilityError, MobilityError, withArticle } from '../../core/base';
import { stateDirOption } from '../../core/clock';
import { withoutTrailingSlashes } from '../../core/environment';
import type { GrpcCallRequest, GrpcConnection, GrpcSchema, MetadataEntries } from '../../core/grpc';
import {
  describeSymbol,
  descriptorFileNames,
  findMethod,
  findType,
  listServices,
  loadProtoFiles,
  loadProtoset,
  messageTemplate,
  openConnection,
  parseMessagesJson,
  protosetOf,
  reflectSchema,
  userMetadata,
} from '../../core/grpc';
import type { CliIo } from '../support/cliIo';
import {
  apiFrom,
  CREDENTIAL_OPTIONS,
  environmentFrom,
  issuerFrom,
  loadCredential,
  parse,
  positiveNumber,
} from '../support/options';
import { readFile } from '../support/inputFiles';
import type { Signing } from './grpcCall';
import { runCall } from './grpcCall';
import { cachedSchema, saveSchema } from './grpcSchemaCache';
import { printUsage } from '../support/usage';

/** The options of every `grpc` subcommand. */
const GRPC_OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  target: { type: 'string' },
  plaintext: { type: 'boolean' },
  'ca-file': { type: 'string' },
  proto: { type: 'string', multiple: true },
  'import-path': { type: 'string', multiple: true },
  protoset: { type: 'string' },
  'protoset-out': { type: 'string' },
  aud: { type: 'string' },
  api: { type: 'string' },
  json: { type: 'boolean' },
  template: { type: 'boolean' },
  data: { type: 'string' },
  metadata: { type: 'string', multiple: true },
  deadline: { type: 'string' },
  'send-authorization': { type: 'boolean' },
  'max-message-size': { type: 'string' },
  'refresh-schema': { type: 'boolean' },
} as const;

type GrpcValues = ReturnType<typeof parse<typeof GRPC_OPTIONS>>['values'];

/** `mobility-api grpc list|describe|call`: a gRPC server's services, their types, and calls with a fresh token each. */
export async function grpcCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, GRPC_OPTIONS, true);
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) return printUsage(io);
  if (sub !== 'list' && sub !== 'describe' && sub !== 'call')
    throw new MobilityError('USAGE', `grpc takes list, describe or call, not "${sub}".`);
  // Everything local is checked first: no reflection stream and no token goes out for a call that cannot be sent.
  const deadlineMs = values.deadline === undefined ? undefined : positiveNumber(values.deadline, '--deadline') * 1000;
  const maxMessageBytes =
    values['max-message-size'] === undefined ? undefined : byteSize(values['max-message-size'], '--max-message-size');
  let call: (Omit<GrpcCallRequest, 'method'> & { method: string }) | undefined;
  if (sub === 'call') {
    if (values.target === undefined) throw new MobilityError('USAGE', 'grpc call needs --target <host:port>.');
    if (rest.length !== 1)
      throw new MobilityError('USAGE', 'grpc call takes one method, such as mobility.v1.Fleet/GetVehicle.');
    const metadata = parseMetadata(values.metadata ?? []);
    const sendOwnAuthorization = values['send-authorization'] === true;
    userMetadata(metadata, sendOwnAuthorization);
    const messages = parseMessagesJson(
      await dataText(values.data, io),
      values.data === undefined ? '--data' : `--data ${values.data}`,
    );
    call = { method: rest[0], messages, metadata, sendOwnAuthorization, deadlineMs };
  }
  const signing = signingFrom(values, io, sub === 'call' && !values['send-authorization']);
  const connection =
    values.target === undefined
      ? undefined
      : openConnection({
          address: values.target,
          plaintext: values.plaintext === true,
          caFile: values['ca-file'],
          maxMessageBytes,
        });
  try {
    let schema = await schemaFrom(values, connection, signing, deadlineMs, io, sub === 'call');
    if (sub === 'list') return list(schema, values, io);
    if (sub === 'describe') return describe(schema, rest, values, io);
    try {
      findMethod(schema, call!.method);
    } catch (err) {
      // A schema kept from an earlier call may be older than the server's: ask the server before saying the method is unknown.
      if (!cachedSchemas.has(schema)) throw err;
      schema = await schemaFrom({ ...values, 'refresh-schema': true }, connection, signing, deadlineMs, io, true);
      findMethod(schema, call!.method);
    }
    return await runCall(connection!, schema, signing, call!, values, io);
  } finally {
    connection?.close();
  }
}

/** `--max-message-size 8MB`: bytes, with an optional B, KB, MB, GB (powers of 1024, as grpc-js counts). */
function byteSize(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i.exec(text.trim());
  const unit = (m?.[2] ?? 'B').toUpperCase().replace('IB', 'B');
  const bytes = m ? Math.floor(Number(m[1]) * 1024 ** ['B', 'KB', 'MB', 'GB'].indexOf(unit)) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > 2 ** 31 - 1)
    throw new MobilityError(
      'USAGE',
      `${flag} must be a size such as 8MB, 16777216 or 512KB (at most 2GB), not "${text}".`,
    );
  return bytes;
}

/** The credential and audience, when given; `required` for a call that signs its token. */
function signingFrom(values: GrpcValues, io: CliIo, required: boolean): Signing | undefined {
  const given =
    values['private-key'] !== undefined || values['key-file'] !== undefined || values.credential !== undefined;
  if (!given && !required) return undefined;
  if (values.aud === undefined)
    throw new MobilityError(
      'USAGE',
      "--aud <base-url> is required with a credential: the environment's base URL, the audience REST and gRPC share (spec 5.3).",
    );
  const api = apiFrom(values, false);
  const aud = withoutTrailingSlashes(values.aud);
  if (aud !== values.aud) io.err(`mobility-api: note: the audience is the base URL without its trailing slash: ${aud}`);
  const environment = environmentFrom(aud, '--aud', api, values);
  const credential = loadCredential(values, io, api);
  const { issuer, queue, store } = issuerFrom(values, io);
  return {
    auth: { environment, credential, issuer, queue },
    environment,
    credential,
    store,
    stateDir: stateDirOption(values['state-dir'], io.env),
  };
}

async function schemaFrom(
  values: GrpcValues,
  connection: GrpcConnection | undefined,
  signing: Signing | undefined,
  deadlineMs: number | undefined,
  io: CliIo,
  keep: boolean,
): Promise<GrpcSchema> {
  if (values.proto?.length && values.protoset !== undefined)
    throw new MobilityError('USAGE', 'Give the schema as --proto files or as one --protoset, not both.');
  if (values['import-path']?.length && !values.proto?.length)
    throw new MobilityError(
      'USAGE',
      '--import-path is where the imports of --proto files are found: give the --proto files too.',
    );
  if (values.proto?.length) return loadProtoFiles(values.proto, values['import-path'] ?? []);
  if (values.protoset !== undefined) return loadProtoset(values.protoset);
  if (!connection)
    throw new MobilityError(
      'USAGE',
      'Give --target <host:port> to read the schema by server reflection, or the schema as --proto files or a --protoset.',
    );
  // A call keeps what reflection said in the state folder for SCHEMA_CACHE_MS (--refresh-schema asks again).
  const stateDir = keep ? signing?.stateDir : undefined;
  if (stateDir && !values['refresh-schema']) {
    const cached = cachedSchema(stateDir, connection.target);
    if (cached) {
      cachedSchemas.add(cached);
      return cached;
    }
  }
  let schema: GrpcSchema;
  try {
    schema = await reflectSchema(connection, { auth: signing?.auth, deadlineMs });
  } catch (err) {
    throw withSchemaFlags(err);
  }
  if (stateDir) saveSchema(stateDir, connection.target, schema, (m) => io.err(`mobility-api: warning: ${m}`));
  return schema;
}

/** The schemas that came from the state folder rather than from the server in this run. */
const cachedSchemas = new WeakSet<GrpcSchema>();

/** gRPC's status code UNAUTHENTICATED (grpc.status.UNAUTHENTICATED). */
const GRPC_UNAUTHENTICATED = 16;

/** Whether reflection was refused for want of a token: its cause is the server's UNAUTHENTICATED status (a code, not the words). */
function wantsAuthentication(err: Error): boolean {
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause === 'object' && cause !== null && cause.code === GRPC_UNAUTHENTICATED;
}

/** Reflection that is not offered (or wants a token) gets the CLI's flags named: --proto with --import-path, --protoset, --aud with a credential. */
export function withSchemaFlags(err: unknown): unknown {
  if (!isMobilityError(err) || err.code !== 'GRPC_REFLECTION_UNAVAILABLE') return err;
  return new MobilityError(
    'GRPC_REFLECTION_UNAVAILABLE',
    `${err.message} In the CLI: --proto <file> (with --import-path <dir> for its imports) or --protoset <file>${wantsAuthentication(err) ? ', or --aud <base-url> with a credential' : ''}.`,
    { cause: err },
  );
}

function list(schema: GrpcSchema, values: GrpcValues, io: CliIo): number {
  const services = listServices(schema);
  if (values['protoset-out'] !== undefined) writeProtoset(schema, values['protoset-out'], io);
  if (values.json) {
    const reflection = schema.source.kind === 'reflection' ? schema.source.version : null;
    io.out(
      JSON.stringify(
        {
          reflection,
          services: services.map((s) => ({
            name: s.name,
            methods: s.methods.map(({ name, fullName, clientStreaming, serverStreaming, inputType, outputType }) => ({
              name,
              fullName,
              clientStreaming,
              serverStreaming,
              inputType,
              outputType,
            })),
          })),
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const from =
    schema.source.kind === 'reflection'
      ? `server reflection (grpc.reflection.${schema.source.version})`
      : schema.source.kind === 'proto'
        ? schema.source.files.join(', ')
        : schema.source.file;
  io.out(`Schema from ${from}`);
  for (const service of services) {
    io.out(service.name);
    for (const m of service.methods)
      io.out(
        `  ${m.name} (${m.clientStreaming ? 'stream ' : ''}${m.inputType}) returns (${m.serverStreaming ? 'stream ' : ''}${m.outputType})`,
      );
  }
  if (!services.length) io.out('No services.');
  return 0;
}

/**
 * `--protoset-out <file>`: the schema read by reflection (or from a descriptor set) written as a descriptor set, for
 * `code --grpc --protoset` and protoc's `--descriptor_set_in`. On stderr, so that stdout stays the listing.
 */
function writeProtoset(schema: GrpcSchema, file: string, io: CliIo): void {
  const bytes = protosetOf(schema);
  try {
    fs.writeFileSync(file, bytes);
  } catch (err) {
    throw new MobilityError(
      'USAGE',
      `Cannot write --protoset-out ${file}: ${errorMessage(err)}. Give a file in a folder you can write to.`,
    );
  }
  io.err(`Wrote the schema (${descriptorFileNames(schema).length} files) as a descriptor set to ${file}.`);
}

function describe(schema: GrpcSchema, symbols: string[], values: GrpcValues, io: CliIo): number {
  if (symbols.length !== 1)
    throw new MobilityError(
      'USAGE',
      'grpc describe takes one symbol: a service, a method (package.Service/Method) or a message.',
    );
  const described = describeSymbol(schema, symbols[0]);
  if (values.template) {
    if (described.kind !== 'message' && described.kind !== 'method')
      throw new MobilityError(
        'USAGE',
        `--template needs a message or a method; ${described.fullName} is ${withArticle(described.kind)}.`,
      );
    const type =
      described.kind === 'method'
        ? findType(schema, findMethod(schema, symbols[0]).info.inputType)
        : findType(schema, described.fullName);
    io.out(JSON.stringify(messageTemplate(type), null, 2));
    return 0;
  }
  io.out(described.text);
  return 0;
}

/** `--data '<json>'`, `--data @file`, `--data -` (stdin); none means one empty message. */
export async function dataText(data: string | undefined, io: CliIo): Promise<string> {
  if (data === undefined) return '{}';
  if (data === '-') return io.readStdin();
  if (data.startsWith('@')) return readFile(data.slice(1), '--data');
  return data;
}

/** `--metadata 'name: value'`, repeatable. */
export function parseMetadata(list: string[]): MetadataEntries {
  return list.map((entry) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new MobilityError('USAGE', `--metadata must look like 'name: value', not "${entry}".`);
    return [entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()];
  });
}
