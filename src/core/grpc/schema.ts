// Where a gRPC client's types come from: the user's .proto files (with import paths; the
// well-known google/protobuf types resolve without them), a descriptor set file (protoset, as
// `protoc --descriptor_set_out` writes it), or the FileDescriptorProtos of server reflection.
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import * as protobuf from 'protobufjs';
import * as descriptor from 'protobufjs/ext/descriptor';
import { errorMessage, MobilityError } from '../base';

/** Which source a schema was built from; for reflection, which protocol version answered. */
export type SchemaSource =
  | { kind: 'reflection'; version: 'v1' | 'v1alpha' }
  | { kind: 'proto'; files: string[] }
  | { kind: 'protoset'; file: string };

/** The types and services a client knows, with where they came from. */
export interface GrpcSchema {
  root: protobuf.Root;
  source: SchemaSource;
  /** The file descriptors it was built from (reflection, a descriptor set): what `protosetOf` writes. */
  files?: descriptor.IFileDescriptorProto[];
}

/** One method as `list` shows it. */
export interface GrpcMethodInfo {
  service: string;
  name: string;
  /** `/package.Service/Method`, the HTTP/2 path of the call. */
  fullName: string;
  clientStreaming: boolean;
  serverStreaming: boolean;
  inputType: string;
  outputType: string;
}

export interface GrpcServiceInfo {
  name: string;
  methods: GrpcMethodInfo[];
}

/** The methods the reflection protocol itself offers are not the server's API: `list` leaves them out. */
const REFLECTION_SERVICES = /^grpc\.reflection\.v1(alpha)?\.ServerReflection$/;

const PARSE_OPTIONS: protobuf.IParseOptions = { keepCase: true };

/** A name without its leading dot. */
export function fullNameOf(object: protobuf.ReflectionObject): string {
  return object.fullName.replace(/^\./, '');
}

function allServices(ns: protobuf.NamespaceBase, out: protobuf.Service[] = []): protobuf.Service[] {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Service) out.push(nested);
    if (nested instanceof protobuf.Namespace) allServices(nested, out);
  }
  return out;
}

function methodInfo(service: protobuf.Service, method: protobuf.Method): GrpcMethodInfo {
  method.resolve();
  const serviceName = fullNameOf(service);
  return {
    service: serviceName,
    name: method.name,
    fullName: `/${serviceName}/${method.name}`,
    clientStreaming: method.requestStream === true,
    serverStreaming: method.responseStream === true,
    inputType: fullNameOf(method.resolvedRequestType!),
    outputType: fullNameOf(method.resolvedResponseType!),
  };
}

/** Every service of the schema (but the reflection protocol's) with its methods, sorted by name. */
export function listServices(schema: GrpcSchema): GrpcServiceInfo[] {
  return allServices(schema.root)
    .filter((s) => !REFLECTION_SERVICES.test(fullNameOf(s)))
    .map((s) => ({ name: fullNameOf(s), methods: s.methodsArray.map((m) => methodInfo(s, m)) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The method named `package.Service/Method` (also `/package.Service/Method` or
 * `package.Service.Method`), or GRPC_METHOD_UNKNOWN naming what the schema does have.
 */
export function findMethod(schema: GrpcSchema, name: string): { method: protobuf.Method; info: GrpcMethodInfo } {
  // Every call looks its method up: remembered per schema, as a schema's types do not change once loaded.
  let known = foundMethods.get(schema.root);
  const hit = known?.get(name);
  if (hit) return hit;
  const found = lookUpMethod(schema, name);
  if (!known) foundMethods.set(schema.root, (known = new Map<string, FoundMethod>()));
  known.set(name, found);
  return found;
}

type FoundMethod = { method: protobuf.Method; info: GrpcMethodInfo };
const foundMethods = new WeakMap<protobuf.Root, Map<string, FoundMethod>>();

function lookUpMethod(schema: GrpcSchema, name: string): { method: protobuf.Method; info: GrpcMethodInfo } {
  const m = /^\/?([A-Za-z_][\w.]*)[/.]([A-Za-z_]\w*)$/.exec(name.trim());
  const service = m ? schema.root.lookup(m[1]) : null;
  const method = service instanceof protobuf.Service ? service.methods[m![2]] : undefined;
  if (!m || !(service instanceof protobuf.Service) || !method) {
    const known = listServices(schema).flatMap((s) => s.methods.map((x) => x.fullName.slice(1)));
    const shown = known.length ? known.slice(0, 20).join(', ') + (known.length > 20 ? ', …' : '') : l10n.t('none');
    const why = !m
      ? l10n.t('"{0}" is not a method name: write package.Service/Method.', name)
      : !(service instanceof protobuf.Service)
        ? l10n.t('The schema has no service "{0}".', m[1])
        : l10n.t('The service "{0}" has no method "{1}".', m[1], m[2]);
    throw new MobilityError('GRPC_METHOD_UNKNOWN', l10n.t('{0} Methods the schema knows: {1}.', why, shown));
  }
  return { method, info: methodInfo(service, method) };
}

/** What Copy as Code needs of a method besides the call: its kind, its request type and the files that define them. */
export interface MethodCodeShape {
  /** `package.Service/Method`. */
  method: string;
  serverStreaming: boolean;
  clientStreaming: boolean;
  inputType: string;
  /** The request type's package (its nearest enclosing namespace that is not a message). */
  inputPackage: string;
  /** The .proto files (as loaded) that define the service and the request type, when the schema came from files. */
  serviceFile?: string;
  inputFile?: string;
}

/** The shape of `name` for codegen's `grpcCodeProgramFor`, or GRPC_METHOD_UNKNOWN. */
export function methodCodeShape(schema: GrpcSchema, name: string): MethodCodeShape {
  const { method, info } = findMethod(schema, name);
  const input = method.resolvedRequestType!;
  let namespace = input.parent;
  while (namespace instanceof protobuf.Type) namespace = namespace.parent;
  // Loaded from .proto files, an object knows its file; built from descriptors (reflection, a protoset), it is looked up.
  const serviceFile = method.parent?.filename ?? fileDefining(schema, fullNameOf(method.parent!));
  const inputFile = input.filename ?? fileDefining(schema, fullNameOf(input));
  return {
    method: info.fullName.slice(1),
    serverStreaming: info.serverStreaming,
    clientStreaming: info.clientStreaming,
    inputType: info.inputType,
    inputPackage: namespace ? fullNameOf(namespace) : '',
    ...(serviceFile ? { serviceFile } : {}),
    ...(inputFile ? { inputFile } : {}),
  };
}

/** The name of the descriptor file that declares `fullName` (a service or a message, nested or not); undefined for a schema of .proto files. */
function fileDefining(schema: GrpcSchema, fullName: string): string | undefined {
  const wanted = fullName.replace(/^\./, '');
  for (const file of schema.files ?? []) {
    const prefix = file.package ? `${file.package}.` : '';
    const names: string[] = (file.service ?? []).map((s) => `${prefix}${s.name ?? ''}`);
    const walk = (types: descriptor.IDescriptorProto[] | undefined, within: string) => {
      for (const type of types ?? []) {
        names.push(`${within}${type.name ?? ''}`);
        walk(type.nestedType, `${within}${type.name ?? ''}.`);
      }
    };
    walk(file.messageType, prefix);
    if (file.name && names.includes(wanted)) return file.name;
  }
  return undefined;
}

/** The names of the files of a schema built from descriptors, in order; empty for one built from .proto files. */
export function descriptorFileNames(schema: GrpcSchema): string[] {
  return (schema.files ?? []).map((f) => f.name ?? '').filter(Boolean);
}

/** The schema's file descriptors as a descriptor set (a `FileDescriptorSet`, as `protoc --descriptor_set_out` writes it). */
export function protosetOf(schema: GrpcSchema): Uint8Array {
  if (!schema.files?.length)
    throw new MobilityError(
      'GRPC_SCHEMA_INVALID',
      l10n.t('This schema was read from .proto files: give those files instead of a descriptor set.'),
    );
  return descriptor.FileDescriptorSet.encode(descriptor.FileDescriptorSet.fromObject({ file: schema.files })).finish();
}

/** The message type of a full name (`package.Message`), or GRPC_METHOD_UNKNOWN. */
export function findType(schema: GrpcSchema, name: string): protobuf.Type {
  const found = schema.root.lookup(name.replace(/^\./, ''));
  if (!(found instanceof protobuf.Type))
    throw new MobilityError('GRPC_METHOD_UNKNOWN', l10n.t('The schema has no message type "{0}".', name));
  return found;
}

/**
 * Where a parse error points: the file, line and (found from the offending token) column. protobufjs names the file in
 * some errors only ("illegal token 'string', ';' expected (line 7)" does not): `parsing` is the file it was parsing.
 */
function parseProblem(err: unknown, parsing: string | undefined): string {
  const message = errorMessage(err);
  const m = /^(.*) \((?:(.+), )?line (\d+)\)$/.exec(message);
  if (!m || (m[2] === undefined && parsing === undefined)) return message;
  const [, what, named, lineText] = m;
  const file = named ?? parsing!;
  const line = Number(lineText);
  const token = /'([^']*)'/.exec(what)?.[1];
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8').split(/\r?\n/)[line - 1];
  } catch {
    text = undefined;
  }
  const index = token !== undefined && text !== undefined ? text.indexOf(token) : -1;
  return index >= 0
    ? l10n.t('{0}, line {1}, column {2}: {3}', file, line, index + 1, what)
    : l10n.t('{0}, line {1}: {2}', file, line, what);
}

/**
 * Loads `.proto` files. Imports are looked up in `importPaths` in order, then next to the file
 * that imports them; `google/protobuf/*.proto` come with protobufjs. A file that does not parse
 * or an import that is not found is GRPC_SCHEMA_INVALID naming the file, line and column.
 */
export function loadProtoFiles(files: string[], importPaths: string[] = []): GrpcSchema {
  if (!files.length) throw new MobilityError('GRPC_SCHEMA_INVALID', l10n.t('Give at least one .proto file.'));
  const root = new protobuf.Root();
  const missing: string[] = [];
  // protobufjs resolves each file just before it reads and parses it (imports after their importer is parsed).
  let parsing: string | undefined;
  root.resolvePath = (origin, target) => {
    parsing = resolveImport(origin, target);
    return parsing;
  };
  const resolveImport = (origin: string, target: string): string => {
    if (path.isAbsolute(target)) return target;
    const bases = origin ? [...importPaths, path.dirname(origin)] : ['.', ...importPaths];
    for (const base of bases) {
      const candidate = path.resolve(base, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    missing.push(origin ? l10n.t('"{0}" (imported by {1})', target, origin) : `"${target}"`);
    return path.resolve(bases[0] ?? '.', target);
  };
  try {
    root.loadSync(
      files.map((f) => path.resolve(f)),
      PARSE_OPTIONS,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && missing.length) {
      throw new MobilityError(
        'GRPC_SCHEMA_INVALID',
        l10n.t(
          'Cannot find {0} in the import paths ({1}): add the folder that holds it with --import-path.',
          missing[0],
          importPaths.length ? importPaths.join(', ') : l10n.t('none given'),
        ),
      );
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new MobilityError('GRPC_SCHEMA_INVALID', l10n.t('Cannot read the .proto file: {0}.', errorMessage(err)));
    throw new MobilityError(
      'GRPC_SCHEMA_INVALID',
      l10n.t('The .proto files do not load: {0}', parseProblem(err, parsing)),
      { cause: err },
    );
  }
  return { root, source: { kind: 'proto', files } };
}

/** Builds a schema from FileDescriptorProtos: serialized (reflection) or a decoded FileDescriptorSet. */
export function schemaFromDescriptors(files: descriptor.IFileDescriptorProto[], source: SchemaSource): GrpcSchema {
  const byName = new Map<string, descriptor.IFileDescriptorProto>();
  for (const file of files) if (!byName.has(file.name ?? '')) byName.set(file.name ?? '', file);
  try {
    const root = (
      protobuf.Root as unknown as { fromDescriptor(set: descriptor.IFileDescriptorSet): protobuf.Root }
    ).fromDescriptor({ file: [...byName.values()] });
    restoreMaps(root, mapEntryNames([...byName.values()]));
    return { root, source, files: [...byName.values()] };
  } catch (err) {
    throw new MobilityError(
      'GRPC_SCHEMA_INVALID',
      l10n.t('The descriptors do not make a complete schema: {0}.', errorMessage(err)),
      { cause: err },
    );
  }
}

/** The full names (`.pkg.Message.FieldEntry`) of the map entry types that descriptors declare. */
function mapEntryNames(files: descriptor.IFileDescriptorProto[]): Set<string> {
  const names = new Set<string>();
  const walk = (types: descriptor.IDescriptorProto[] | undefined, prefix: string) => {
    for (const type of types ?? []) {
      const name = `${prefix}.${type.name}`;
      if (type.options?.mapEntry) names.add(name);
      walk(type.nestedType, name);
    }
  };
  for (const file of files) walk(file.messageType, file.package ? `.${file.package}` : '');
  return names;
}

/**
 * protobufjs's `fromDescriptor` leaves a map as a repeated field of its entry type: turn each such
 * field back into a map (so that JSON is `{ "key": value }`, as protoc and the .proto loader show it).
 */
function restoreMaps(root: protobuf.Root, entries: Set<string>): void {
  if (!entries.size) return;
  const types: protobuf.Type[] = [];
  const collect = (ns: protobuf.NamespaceBase) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) types.push(nested);
      if (nested instanceof protobuf.Namespace) collect(nested);
    }
  };
  collect(root);
  for (const type of types) {
    for (const field of [...type.fieldsArray]) {
      const entry = field.resolve().resolvedType;
      if (!(entry instanceof protobuf.Type) || !entries.has(entry.fullName) || !field.repeated) continue;
      const key = entry.fields.key;
      const value = entry.fields.value;
      type.remove(field);
      type.add(
        new protobuf.MapField(field.name, field.id, key.type, value.resolve().resolvedType?.fullName ?? value.type),
      );
    }
  }
  for (const type of types) if (entries.has(type.fullName)) type.parent?.remove(type);
  root.resolveAll();
}

/** Decodes one serialized FileDescriptorProto (as server reflection sends them). */
export function decodeFileDescriptor(bytes: Uint8Array): descriptor.IFileDescriptorProto {
  return descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(bytes));
}

/** Loads a descriptor set file (`protoc --include_imports --descriptor_set_out=<file>`). */
export function loadProtoset(file: string): GrpcSchema {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new MobilityError(
      'GRPC_SCHEMA_INVALID',
      l10n.t('Cannot read the descriptor set {0}: {1}.', file, errorMessage(err)),
    );
  }
  return schemaFromProtoset(bytes, { kind: 'protoset', file }, file);
}

/** A schema from the bytes of a descriptor set (a file, or a schema reflection gave, kept for a while); `file` names it in errors. */
export function schemaFromProtoset(bytes: Uint8Array, source: SchemaSource, file: string): GrpcSchema {
  let set: descriptor.IFileDescriptorSet;
  try {
    set = descriptor.FileDescriptorSet.toObject(
      descriptor.FileDescriptorSet.decode(bytes),
    ) as descriptor.IFileDescriptorSet;
  } catch (err) {
    throw new MobilityError(
      'GRPC_SCHEMA_INVALID',
      l10n.t(
        '{0} is not a descriptor set (a FileDescriptorSet as protoc --descriptor_set_out writes it): {1}.',
        file,
        errorMessage(err),
      ),
    );
  }
  if (!set.file?.length)
    throw new MobilityError('GRPC_SCHEMA_INVALID', l10n.t('The descriptor set {0} holds no files.', file));
  return schemaFromDescriptors(set.file, source);
}
