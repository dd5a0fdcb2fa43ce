// JSON <-> protobuf messages: a message the user wrote as JSON is checked against its type field
// by field (protobufjs's fromObject silently drops unknown fields and turns "abc" into 0), then
// encoded by protobufjs; answers are decoded by protobufjs and shown as JSON.
import * as l10n from '@vscode/l10n';
import * as protobuf from 'protobufjs';
import { MobilityError } from '../base';
import { isRecord } from '../../shared/isRecord';
import { registerWellKnownJson } from './wellKnown';

// Before any type converts: the proto3 JSON mapping of Timestamp, Duration, the wrappers, Struct… (wellKnown.ts).
registerWellKnownJson();

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);
const FLOAT = new Set(['double', 'float']);

/**
 * How protobufjs's toObject shows a decoded message: the proto3 JSON mapping (64-bit integers as decimal text, bytes as
 * base64, enums by name, NaN and Infinity as text, Any with its "@type", the well-known types as wellKnown.ts maps them),
 * with the .proto's field names and every field, defaults included.
 */
const TO_JSON: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  arrays: true,
  objects: true,
  json: true,
};

const WRAPPERS = new Set(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map(
    (n) => `google.protobuf.${n}Value`,
  ),
);

function bad(where: string, what: string): MobilityError {
  return new MobilityError(
    'GRPC_MESSAGE_INVALID',
    l10n.t('The message does not fit its type at {0}: {1}', where || '(top level)', what),
  );
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return l10n.t('a list');
  if (typeof value === 'string')
    return l10n.t('the text {0}', JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value));
  return typeof value === 'number' || typeof value === 'boolean' ? `${typeof value} ${value}` : l10n.t('an object');
}

/** RFC 3339 text (`2025-11-05T07:00:00Z`) as a Timestamp's seconds and nanos. */
function timestampOf(text: string, where: string): { seconds: string; nanos: number } {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms))
    throw bad(where, l10n.t('expected an RFC 3339 time such as 2025-11-05T07:00:00Z, not {0}', JSON.stringify(text)));
  return { seconds: String(Math.floor(ms / 1000)), nanos: m[2] ? Number(m[2].slice(1).padEnd(9, '0')) : 0 };
}

/** `1.5s` as a Duration's seconds and nanos. */
function durationOf(text: string, where: string): { seconds: string; nanos: number } {
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw bad(where, l10n.t('expected a duration such as 1.5s, not {0}', JSON.stringify(text)));
  const sign = m[1] ? -1 : 1;
  return { seconds: `${m[1] ?? ''}${m[2]}`, nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
}

function checkScalar(type: string, value: unknown, where: string): unknown {
  const expect = (what: string) => bad(where, l10n.t('expected {0} ({1}), got {2}', what, type, describeValue(value)));
  if (type === 'string') {
    if (typeof value !== 'string') throw expect(l10n.t('text'));
    return value;
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw expect('true or false');
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw expect(l10n.t('base64 text'));
    return value;
  }
  if (FLOAT.has(type)) {
    if (typeof value === 'number' || value === 'NaN' || value === 'Infinity' || value === '-Infinity')
      return typeof value === 'number' ? value : Number(value);
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
    throw expect(l10n.t('a number'));
  }
  const text =
    typeof value === 'number'
      ? Number.isInteger(value)
        ? String(value)
        : ''
      : typeof value === 'string'
        ? value.trim()
        : '';
  if (!/^-?\d+$/.test(text)) throw expect(l10n.t('a whole number'));
  const n = BigInt(text);
  const unsigned = UINT32.has(type) || type === 'uint64' || type === 'fixed64';
  const bits = INT32.has(type) || UINT32.has(type) ? 32n : 64n;
  const [min, max] = unsigned ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
  if (n < min || n > max)
    throw bad(where, l10n.t('{0} is out of the range of {1} ({2} to {3})', text, type, String(min), String(max)));
  return INT64.has(type) ? text : Number(n);
}

function checkEnum(type: protobuf.Enum, value: unknown, where: string): unknown {
  if (typeof value === 'string' && Object.hasOwn(type.values, value)) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw bad(
    where,
    l10n.t(
      'expected one of {0} (enum {1}), got {2}',
      Object.keys(type.values).join(', '),
      type.name,
      describeValue(value),
    ),
  );
}

function checkValue(field: protobuf.Field, value: unknown, where: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return checkEnum(resolved, value, where);
  if (resolved instanceof protobuf.Type) return checkMessage(resolved, value, where);
  return checkScalar(field.type, value, where);
}

/**
 * The JSON value `value` checked against the message type `type` and made ready for protobufjs's
 * `fromObject`: field names as in the .proto or in lowerCamelCase (JSON names), enums by name or
 * number, 64-bit integers as numbers or decimal text, bytes as base64, Timestamp and Duration as
 * RFC 3339 and `1.5s` text or as objects. Throws GRPC_MESSAGE_INVALID naming the field.
 */
export function checkMessage(type: protobuf.Type, value: unknown, where = ''): Record<string, unknown> {
  const name = type.fullName.replace(/^\./, '');
  if (name === 'google.protobuf.Timestamp' && typeof value === 'string') return timestampOf(value, where);
  if (name === 'google.protobuf.Duration' && typeof value === 'string') return durationOf(value, where);
  const mapped = wellKnownOf(type, name, value, where);
  if (mapped) return mapped;
  if (!isRecord(value))
    throw bad(where, l10n.t('expected an object (message {0}), got {1}', name, describeValue(value)));
  const out: Record<string, unknown> = {};
  const oneofsSet = new Map<string, string>();
  for (const [key, given] of Object.entries(value)) {
    if (name === 'google.protobuf.Any' && key === '@type') {
      out[key] = given;
      continue;
    }
    const field = type.fields[key] ?? type.fieldsArray.find((f) => jsonNameOf(f) === key);
    const at = where ? `${where}.${key}` : key;
    if (!field)
      throw bad(
        at,
        l10n.t(
          'message {0} has no field "{1}"; its fields are {2}',
          name,
          key,
          type.fieldsArray.map((f) => f.name).join(', ') || l10n.t('none'),
        ),
      );
    field.resolve();
    if (given === null) continue;
    if (field.partOf) {
      const other = oneofsSet.get(field.partOf.name);
      if (other)
        throw bad(
          at,
          l10n.t('"{0}" and "{1}" are both in oneof {2}: set only one', other, field.name, field.partOf.name),
        );
      oneofsSet.set(field.partOf.name, field.name);
    }
    if (field instanceof protobuf.MapField) {
      if (!isRecord(given))
        throw bad(
          at,
          l10n.t('expected an object (map<{0}, {1}>), got {2}', field.keyType, field.type, describeValue(given)),
        );
      out[field.name] = Object.fromEntries(
        Object.entries(given).map(([k, v]) => {
          const keyAt = `${at}[${JSON.stringify(k)}]`;
          if (
            field.keyType === 'bool' ? k !== 'true' && k !== 'false' : field.keyType !== 'string' && !/^-?\d+$/.test(k)
          )
            throw bad(keyAt, l10n.t('the key is not a {0}', field.keyType));
          if (field.keyType !== 'string' && field.keyType !== 'bool') checkScalar(field.keyType, k, keyAt);
          return [k, checkValue(field, v, keyAt)];
        }),
      );
    } else if (field.repeated) {
      if (!Array.isArray(given))
        throw bad(at, l10n.t('expected a list (repeated {0}), got {1}', field.type, describeValue(given)));
      out[field.name] = given.map((v, i) => checkValue(field, v, `${at}[${i}]`));
    } else {
      out[field.name] = checkValue(field, given, at);
    }
  }
  return out;
}

/**
 * A well-known type given in its proto3 JSON form: a wrapper (Int32Value…) as its bare value, a Struct as any object, a
 * Value as any JSON, a ListValue as a list, a FieldMask as "a.b,c"; undefined for anything else (checked as a message).
 */
function wellKnownOf(
  type: protobuf.Type,
  name: string,
  value: unknown,
  where: string,
): Record<string, unknown> | undefined {
  if (WRAPPERS.has(name) && !isRecord(value)) return { value: checkValue(type.fields.value.resolve(), value, where) };
  if (name === 'google.protobuf.FieldMask' && typeof value === 'string') {
    return {
      paths: value === '' ? [] : value.split(',').map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)),
    };
  }
  const fieldType = (fieldName: string) =>
    (type.fields[fieldName]?.resolve().resolvedType ?? undefined) as protobuf.Type | undefined;
  if (name === 'google.protobuf.Struct' && isRecord(value) && !isRecord(value.fields)) {
    const valueType = fieldType('fields');
    return valueType
      ? { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(valueType, v)])) }
      : undefined;
  }
  if (name === 'google.protobuf.ListValue' && Array.isArray(value)) {
    const valueType = fieldType('values');
    return valueType ? { values: value.map((v) => jsonValue(valueType, v)) } : undefined;
  }
  if (name === 'google.protobuf.Value') return jsonValue(type, value);
  return undefined;
}

/** Any JSON as a google.protobuf.Value object for fromObject, with the field names of `valueType` (`null_value` or `nullValue`). */
function jsonValue(valueType: protobuf.Type, value: unknown): Record<string, unknown> {
  const field = (wanted: string) =>
    valueType.fieldsArray.find((f) => f.name.replace(/_/g, '').toLowerCase() === wanted)?.name ?? wanted;
  if (value === null || value === undefined) return { [field('nullvalue')]: 'NULL_VALUE' };
  if (typeof value === 'number') return { [field('numbervalue')]: value };
  if (typeof value === 'string') return { [field('stringvalue')]: value };
  if (typeof value === 'boolean') return { [field('boolvalue')]: value };
  if (Array.isArray(value)) return { [field('listvalue')]: { values: value.map((v) => jsonValue(valueType, v)) } };
  return {
    [field('structvalue')]: {
      fields: Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonValue(valueType, v)]),
      ),
    },
  };
}

/** A field's proto3 JSON name (lowerCamelCase), as protoc computes it. */
function jsonNameOf(field: protobuf.Field): string {
  return field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The JSON value `value` as the bytes of a `type` message; GRPC_MESSAGE_INVALID when it does not fit. */
export function encodeMessage(type: protobuf.Type, value: unknown, where = ''): Buffer {
  const checked = checkMessage(type, value, where);
  return Buffer.from(type.encode(type.fromObject(checked)).finish());
}

/** Decoded bytes of a `type` message as JSON: every field with its default, enums by name, 64-bit integers and bytes as text. */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  return type.toObject(type.decode(bytes), TO_JSON);
}

/** JSON that is parsed from the user's text: GRPC_MESSAGE_INVALID with the parser's reason when it is not JSON. */
export function parseMessagesJson(text: string, what: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') return [{}];
  try {
    const value = JSON.parse(trimmed) as unknown;
    return Array.isArray(value) ? value : [value];
  } catch {
    // Several messages may follow one another (a stream): try them as JSON lines.
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== '');
    try {
      return lines.map((line) => JSON.parse(line) as unknown);
    } catch (err) {
      throw new MobilityError(
        'GRPC_MESSAGE_INVALID',
        l10n.t(
          '{0} is not JSON: {1}. Give one JSON object, a list of them, or one object per line.',
          what,
          (err as Error).message,
        ),
      );
    }
  }
}
