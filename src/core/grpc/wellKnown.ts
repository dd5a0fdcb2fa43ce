// The proto3 JSON mapping of the well-known types, as protobufjs wrappers (`protobuf.wrappers`, the library's hook for
// them, which already maps google.protobuf.Any to `{"@type", …fields}`): an answer decoded with `toObject(…, { json: true })`
// shows a Timestamp as RFC 3339 text, a Duration as "1.5s", a wrapper (Int64Value…) as its value, a Struct, Value or
// ListValue as the JSON it holds, a FieldMask as "a.b,c". Without `json` (the sandbox's and tests' proto-loader) each type
// converts as before.
import * as protobuf from 'protobufjs';

type Wrapper = protobuf.IWrapper;
type Converted = Record<string, unknown>;
/** `this` of a wrapper: the type, with its generated converters. */
type Self = protobuf.Type;

const MAX_TIMESTAMP_SECONDS = 253402300799; // 9999-12-31T23:59:59Z
const MIN_TIMESTAMP_SECONDS = -62135596800; // 0001-01-01T00:00:00Z

/** 0, 3, 6 or 9 digits of fraction, as the mapping writes nanoseconds. */
function fraction(nanos: number): string {
  if (!nanos) return '';
  const digits = String(Math.abs(nanos)).padStart(9, '0');
  return `.${digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits}`;
}

/** A Long, number or decimal string as a bigint. */
function bigOf(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  if (typeof value === 'string') return BigInt(value || '0');
  // A Long (toObject's `longs: String` makes this rare): its own toString gives the decimal text.
  if (value && typeof value === 'object' && 'low' in value && 'high' in value)
    return BigInt((value as { toString(): string }).toString());
  return 0n;
}

/** A wrapper that maps `toObject` with `json`; `fromObject` is the type's own (the message checker maps the JSON forms). */
function wrap(
  toJson: (self: Self, message: protobuf.Message, options: protobuf.IConversionOptions) => unknown,
): Wrapper {
  return {
    fromObject(this: Self, object: Converted): protobuf.Message {
      return this.fromObject(object);
    },
    toObject(this: Self, message: protobuf.Message, options?: protobuf.IConversionOptions): Converted {
      if (!options?.json) return this.toObject(message, options);
      return toJson(this, message, options) as Converted;
    },
  };
}

/** Timestamp seconds and nanos as RFC 3339 text in UTC (`2025-11-05T07:00:00.5Z`). */
export function timestampText(secondsValue: unknown, nanos: number): string {
  const seconds = bigOf(secondsValue);
  if (seconds < BigInt(MIN_TIMESTAMP_SECONDS) || seconds > BigInt(MAX_TIMESTAMP_SECONDS))
    return `${seconds}s since 1970`;
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${iso}${fraction(nanos)}Z`;
}

/** Duration seconds and nanos as the mapping writes them (`1.5s`, `-0.25s`). */
export function durationText(secondsValue: unknown, nanos: number): string {
  const seconds = bigOf(secondsValue);
  const negative = seconds < 0n || nanos < 0;
  const whole = seconds < 0n ? -seconds : seconds;
  return `${negative ? '-' : ''}${whole}${fraction(nanos)}s`;
}

const plain = (self: Self, message: protobuf.Message, options: protobuf.IConversionOptions): Converted =>
  self.toObject(message, { ...options, json: false, defaults: true });

const scalarWrapper = wrap((self, message, options) => self.toObject(message, { ...options, defaults: true }).value);

function valueToJson(self: Self, message: protobuf.Message, options: protobuf.IConversionOptions): unknown {
  const set = self.toObject(message, { ...options, defaults: false });
  const [name] = Object.keys(set);
  if (name === undefined || /^null_?value$/i.test(name)) return null;
  return set[name];
}

/** Registers the wrappers once, before any type is set up. */
export function registerWellKnownJson(): void {
  if (registered) return;
  registered = true;
  const wrappers = protobuf.wrappers as Record<string, Wrapper>;
  wrappers['.google.protobuf.Timestamp'] = wrap((self, message, options) => {
    const { seconds, nanos } = plain(self, message, options) as { seconds: unknown; nanos: number };
    return timestampText(seconds, nanos);
  });
  wrappers['.google.protobuf.Duration'] = wrap((self, message, options) => {
    const { seconds, nanos } = plain(self, message, options) as { seconds: unknown; nanos: number };
    return durationText(seconds, nanos);
  });
  for (const name of ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'])
    wrappers[`.google.protobuf.${name}Value`] = scalarWrapper;
  wrappers['.google.protobuf.Struct'] = wrap(
    (self, message, options) => self.toObject(message, { ...options, defaults: true }).fields ?? {},
  );
  wrappers['.google.protobuf.ListValue'] = wrap(
    (self, message, options) => self.toObject(message, { ...options, defaults: true }).values ?? [],
  );
  wrappers['.google.protobuf.Value'] = wrap(valueToJson);
  wrappers['.google.protobuf.FieldMask'] = wrap((self, message, options) => {
    const { paths } = plain(self, message, options) as { paths?: string[] };
    return (paths ?? []).map((p) => p.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())).join(',');
  });
}

let registered = false;
