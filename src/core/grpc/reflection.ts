// The schema of a server from server reflection: `grpc.reflection.v1`, else `v1alpha`. The
// protocol's own .proto (as @grpc/reflection ships it) is loaded with @grpc/proto-loader and
// `ServerReflectionInfo` called with grpc-js; each reflection stream carries its own fresh token
// when a credential is given.
import * as l10n from '@vscode/l10n';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type * as descriptor from 'protobufjs/ext/descriptor';
import { isMobilityError, maskKidIn, MobilityError } from '../base';
import { reflectionProtos } from './bundledProtos';
import type { GrpcAuth } from './callAuth';
import { signCall } from './callAuth';
import { DEFAULT_DEADLINE_MS } from './call';
import type { GrpcConnection } from './connection';
import type { GrpcSchema } from './schema';
import { decodeFileDescriptor, schemaFromDescriptors } from './schema';
import { statusName } from './status';

export type ReflectionVersion = 'v1' | 'v1alpha';

interface ReflectionResponse {
  message_response?: string;
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  list_services_response?: { service: { name: string }[] };
  error_response?: { error_code: number; error_message: string };
}

let definitions: protoLoader.PackageDefinition | undefined;

function methodOf(version: ReflectionVersion): protoLoader.MethodDefinition<object, ReflectionResponse> {
  definitions ??= protoLoader.fromJSON(reflectionProtos().toJSON(), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const service = definitions[`grpc.reflection.${version}.ServerReflection`] as protoLoader.ServiceDefinition;
  return service.ServerReflectionInfo;
}

/** A status that ended a reflection stream early. */
class StreamEnded extends Error {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
  ) {
    super(details);
  }
}

/** One reflection stream: each `ask` sends a request and waits for its answer (answers come in order). */
async function openStream(
  connection: GrpcConnection,
  version: ReflectionVersion,
  auth: GrpcAuth | undefined,
  deadlineMs: number,
  signal?: AbortSignal,
) {
  const method = methodOf(version);
  const signed = auth
    ? await signCall(auth, new grpc.Metadata(), signal)
    : { metadata: new grpc.Metadata(), release: () => undefined };
  const call = connection.client.makeBidiStreamRequest(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    signed.metadata,
    { deadline: Date.now() + deadlineMs },
  );
  const waiting: { resolve: (r: ReflectionResponse) => void; reject: (e: Error) => void }[] = [];
  let ended: StreamEnded | undefined;
  const onAbort = () => call.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  call.on('metadata', () => signed.release());
  call.on('data', (response: ReflectionResponse) => waiting.shift()?.resolve(response));
  call.on('error', () => undefined);
  call.on('status', (status: grpc.StatusObject) => {
    signed.release();
    signal?.removeEventListener('abort', onAbort);
    ended = new StreamEnded(status.code, status.details);
    for (const w of waiting.splice(0)) w.reject(ended);
  });
  return {
    ask: (request: object) =>
      new Promise<ReflectionResponse>((resolve, reject) => {
        if (ended) return reject(ended);
        waiting.push({ resolve, reject });
        call.write(request);
      }),
    end: () => call.end(),
  };
}

/** True for the error `reflectSchema` throws when the server refused reflection without a token: a retry with one may work. */
export function reflectionWantsAuth(err: unknown): boolean {
  return (
    isMobilityError(err) &&
    err.code === 'GRPC_REFLECTION_UNAVAILABLE' &&
    err.cause instanceof StreamEnded &&
    err.cause.code === grpc.status.UNAUTHENTICATED
  );
}

/**
 * The server's schema by reflection: v1 first, v1alpha when v1 is not offered. Throws
 * GRPC_REFLECTION_UNAVAILABLE when neither is, and says when the server wants reflection authenticated.
 */
export async function reflectSchema(
  connection: GrpcConnection,
  options: { auth?: GrpcAuth; deadlineMs?: number; signal?: AbortSignal } = {},
): Promise<GrpcSchema> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  await connection.ready(deadlineMs, options.signal);
  for (const version of ['v1', 'v1alpha'] as const) {
    const stream = await openStream(connection, version, options.auth, deadlineMs, options.signal);
    try {
      const files = await collectFiles(stream);
      return schemaFromDescriptors(files, { kind: 'reflection', version });
    } catch (err) {
      if (!(err instanceof StreamEnded)) throw err;
      if (err.code === grpc.status.UNIMPLEMENTED) continue;
      if (err.code === grpc.status.UNAUTHENTICATED && !options.auth) {
        throw new MobilityError(
          'GRPC_REFLECTION_UNAVAILABLE',
          l10n.t(
            "The server wants reflection calls authenticated ({0}): give the environment's base URL and a credential, or the schema as .proto files or a descriptor set.",
            err.details,
          ),
          { cause: err },
        );
      }
      // The server's words may echo the key id of the reflection call's token: masked (spec 5.7).
      throw new MobilityError(
        'GRPC_FAILED',
        l10n.t(
          'Server reflection ({0}) failed: {1} {2}.',
          `grpc.reflection.${version}`,
          statusName(err.code),
          maskKidIn(err.details, options.auth?.credential.kid),
        ),
      );
    } finally {
      stream.end();
    }
  }
  throw new MobilityError(
    'GRPC_REFLECTION_UNAVAILABLE',
    l10n.t(
      'The server at {0} does not offer server reflection (neither grpc.reflection.v1 nor v1alpha): give its .proto files (with their import paths) or a descriptor set (protoset).',
      connection.target.address,
    ),
  );
}

type Stream = Awaited<ReturnType<typeof openStream>>;

/** Every file that declares a service, and the files they import, as FileDescriptorProtos. */
async function collectFiles(stream: Stream): Promise<descriptor.IFileDescriptorProto[]> {
  const files = new Map<string, descriptor.IFileDescriptorProto>();
  const add = (response: ReflectionResponse, asked: string) => {
    if (response.error_response) {
      throw new MobilityError(
        'GRPC_SCHEMA_INVALID',
        l10n.t(
          "The server's reflection has no descriptor for {0}: {1} {2}.",
          asked,
          statusName(response.error_response.error_code),
          response.error_response.error_message,
        ),
      );
    }
    for (const bytes of response.file_descriptor_response?.file_descriptor_proto ?? []) {
      const file = decodeFileDescriptor(bytes);
      if (file.name && !files.has(file.name)) files.set(file.name, file);
    }
  };
  const listed = await stream.ask({ list_services: '' });
  const services = (listed.list_services_response?.service ?? [])
    .map((s) => s.name)
    .filter((name) => !/^grpc\.reflection\./.test(name));
  for (const service of services) add(await stream.ask({ file_containing_symbol: service }), service);
  for (;;) {
    const missing = [...new Set([...files.values()].flatMap((f) => (f.dependency ?? []) as string[]))].filter(
      (name) => !files.has(name),
    );
    if (!missing.length) break;
    for (const name of missing) add(await stream.ask({ file_by_filename: name }), name);
  }
  return [...files.values()];
}
