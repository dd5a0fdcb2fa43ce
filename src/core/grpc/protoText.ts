// A service, method, message or enum of a schema written back in .proto syntax, for `describe`.
import * as l10n from '@vscode/l10n';
import * as protobuf from 'protobufjs';
import { MobilityError } from '../base';
import type { GrpcSchema } from './schema';

/** A type reference as written in a .proto file: the full name, or the scalar's name. */
function typeName(field: protobuf.Field): string {
  field.resolve();
  return field.resolvedType ? field.resolvedType.fullName.replace(/^\./, '') : field.type;
}

function fieldLine(field: protobuf.Field): string {
  if (field instanceof protobuf.MapField)
    return `map<${field.keyType}, ${typeName(field)}> ${field.name} = ${field.id};`;
  const label = field.repeated
    ? 'repeated '
    : field.options?.proto3_optional
      ? 'optional '
      : field.required
        ? 'required '
        : '';
  return `${label}${typeName(field)} ${field.name} = ${field.id};`;
}

function indent(lines: string[]): string[] {
  return lines.map((l) => (l ? `  ${l}` : l));
}

function enumText(e: protobuf.Enum): string[] {
  return [`enum ${e.name} {`, ...indent(Object.entries(e.values).map(([name, n]) => `${name} = ${n};`)), '}'];
}

function methodLine(method: protobuf.Method): string {
  method.resolve();
  const input = method.resolvedRequestType!.fullName.replace(/^\./, '');
  const output = method.resolvedResponseType!.fullName.replace(/^\./, '');
  return `rpc ${method.name} (${method.requestStream ? 'stream ' : ''}${input}) returns (${method.responseStream ? 'stream ' : ''}${output});`;
}

function messageText(type: protobuf.Type): string[] {
  const body: string[] = [];
  const oneofs = type.oneofsArray.filter(
    (o) => !(o.fieldsArray.length === 1 && o.fieldsArray[0].options?.proto3_optional),
  );
  const inOneof = new Set(oneofs.flatMap((o) => o.fieldsArray));
  for (const field of type.fieldsArray) if (!inOneof.has(field)) body.push(fieldLine(field));
  for (const oneof of oneofs) body.push(`oneof ${oneof.name} {`, ...indent(oneof.fieldsArray.map(fieldLine)), '}');
  for (const nested of type.nestedArray) {
    if (nested instanceof protobuf.Type && !nested.options?.map_entry) body.push(...messageText(nested));
    else if (nested instanceof protobuf.Enum) body.push(...enumText(nested));
  }
  return [`message ${type.name} {`, ...indent(body), '}'];
}

/**
 * `symbol` (`package.Service`, `package.Service/Method`, `package.Service.Method`, a message or an
 * enum) in .proto syntax, with a comment line giving its full name. GRPC_METHOD_UNKNOWN when the
 * schema has no such symbol.
 */
export function describeSymbol(
  schema: GrpcSchema,
  symbol: string,
): { kind: 'service' | 'method' | 'message' | 'enum'; fullName: string; text: string } {
  const name = symbol
    .trim()
    .replace(/^[./]+/, '')
    .replace('/', '.');
  const found = name ? schema.root.lookup(name) : null;
  const fullName = found?.fullName.replace(/^\./, '') ?? name;
  if (found instanceof protobuf.Service) {
    return {
      kind: 'service',
      fullName,
      text: [`// ${fullName}`, `service ${found.name} {`, ...indent(found.methodsArray.map(methodLine)), '}'].join(
        '\n',
      ),
    };
  }
  if (found instanceof protobuf.Method)
    return { kind: 'method', fullName, text: [`// ${fullName}`, methodLine(found)].join('\n') };
  if (found instanceof protobuf.Type)
    return { kind: 'message', fullName, text: [`// ${fullName}`, ...messageText(found)].join('\n') };
  if (found instanceof protobuf.Enum)
    return { kind: 'enum', fullName, text: [`// ${fullName}`, ...enumText(found)].join('\n') };
  throw new MobilityError(
    'GRPC_METHOD_UNKNOWN',
    l10n.t('The schema has no service, method, message or enum "{0}".', symbol),
  );
}
