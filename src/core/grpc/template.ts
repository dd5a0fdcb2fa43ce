// A JSON message to start from, for any message type: every field with its type's default, enums
// by their first value's name, nested messages expanded once on each path (a type that contains
// itself stops as {}), repeated fields as one-element lists, maps with one entry, the first member
// of each oneof only. Timestamp and Duration as the text the message checker takes.
import * as protobuf from 'protobufjs';

const NUMBERS = new Set(['double', 'float', 'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const LONGS = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function scalarDefault(type: string): unknown {
  if (NUMBERS.has(type)) return 0;
  if (LONGS.has(type)) return '0';
  if (type === 'bool') return false;
  return '';
}

function valueOf(field: protobuf.Field, seen: Set<string>): unknown {
  field.resolve();
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return Object.keys(resolved.values)[0] ?? 0;
  if (resolved instanceof protobuf.Type) return template(resolved, seen);
  return scalarDefault(field.type);
}

function template(type: protobuf.Type, seen: Set<string>): unknown {
  const name = type.fullName;
  if (name === '.google.protobuf.Timestamp') return '1970-01-01T00:00:00Z';
  if (name === '.google.protobuf.Duration') return '0s';
  if (seen.has(name)) return {};
  const inner = new Set(seen).add(name);
  const out: Record<string, unknown> = {};
  const oneofsDone = new Set<string>();
  for (const field of type.fieldsArray) {
    if (field.partOf) {
      if (oneofsDone.has(field.partOf.name)) continue;
      oneofsDone.add(field.partOf.name);
    }
    const value = valueOf(field, inner);
    if (field instanceof protobuf.MapField)
      out[field.name] = { [String(scalarDefault(field.keyType) === '' ? 'key' : scalarDefault(field.keyType))]: value };
    else out[field.name] = field.repeated ? [value] : value;
  }
  return out;
}

/** The template of `type` as a JSON value. */
export function messageTemplate(type: protobuf.Type): Record<string, unknown> {
  return template(type, new Set()) as Record<string, unknown>;
}
