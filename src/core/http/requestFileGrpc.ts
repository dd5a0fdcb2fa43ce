import * as l10n from '@vscode/l10n';
// The ESM build: esbuild cannot follow the requires inside the UMD build's factory.
import type { ParseError } from 'jsonc-parser/lib/esm/main.js';

/**
 * GRPC requests of `.http` files, in the syntax of httpYac and the IntelliJ HTTP Client:
 *
 *     proto < ./mobility.proto
 *     includeDirs: ["./protos"]
 *
 *     ###
 *     GRPC {{grpcTarget}}/package.Service/Method
 *     x-request-id: 42
 *
 *     { "json": "message" }
 *
 * Metadata lines are written as headers; the body is one JSON message, or, for client-streaming and
 * bidirectional methods, several messages separated by `===` lines (httpYac's frame separator) or
 * one JSON array of messages. `proto < file` lines (with httpYac's `includeDirs:` option below them)
 * name the schema: in a block without a request they apply to every later GRPC request of the file,
 * above a request line to that request alone. Text only: paths stay as written (relative to the file).
 */

/** A `proto < ./file.proto` line and the import folders (`includeDirs`) given below it. */
export interface ProtoImport {
  file: string;
  includeDirs: string[];
  /** 0-based line of the `proto <` line. */
  line: number;
}

/** What a GRPC request line holds, as written. */
export interface GrpcFileParts {
  /** `package.Service/Method`. */
  method: string;
  /** `host:port`, `{{grpcTarget}}`, or with a scheme (`grpc://`, `http://`: plaintext; `grpcs://`, `https://`: TLS). */
  target: string;
  /** The file-level `proto <` lines above the request, then the request's own. */
  protos: ProtoImport[];
  /** Why the request cannot be sent as written (its line named), when it cannot. */
  problem?: string;
}

/** What a GRPC request sends once its variables are substituted. */
export interface ResolvedGrpcFileRequest {
  method: string;
  /** `host:port`, the scheme removed. */
  target: string;
  /** From the scheme: `plaintext` (grpc://, http://), `tls` (grpcs://, https://), or undefined (none written). */
  transport?: 'plaintext' | 'tls';
  /** Every metadata entry but `authorization`, in file order. */
  metadata: [string, string][];
  /** The request's own `authorization`, sent as written (only under `# @authorization as-is`). */
  authorization?: string;
  messages: Record<string, unknown>[];
  /** As written in the file, relative to it. */
  protoFiles: string[];
  importPaths: string[];
}

export const PROTO_LINE = /^proto\s*<\s*(.*)$/i;
const OPTION = /^([A-Za-z]\w*)\s*:\s*(.*)$/;
/** proto-loader options httpYac accepts below `proto <`: read and ignored (messages are always proto3 JSON here). */
const IGNORED_OPTIONS = new Set([
  'keepcase',
  'longs',
  'enums',
  'bytes',
  'defaults',
  'arrays',
  'objects',
  'oneofs',
  'json',
]);
const SERVICE = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
const METHOD = /^[A-Za-z_]\w*$/;
const SCHEME = /^(grpcs?|https?):\/\//i;
/** httpYac's separator of the messages of a stream: `===` (and `=== wait-for-server`, read as a separator). */
const FRAME = /^===(?:\s.*)?$/;

/**
 * Reads `proto < file` at `lines[i]` and the option lines under it. Returns the import and the index
 * of the first line after it, or undefined when `lines[i]` is no `proto <` line.
 */
export function readProtoImport(
  lines: { text: string; line: number }[],
  i: number,
  problems: { line: number; message: string }[],
): { proto?: ProtoImport; next: number } | undefined {
  const match = PROTO_LINE.exec(lines[i].text.trim());
  if (!match) return undefined;
  const file = match[1].trim();
  let next = i + 1;
  const includeDirs: string[] = [];
  for (; next < lines.length; next++) {
    const option = OPTION.exec(lines[next].text.trim());
    if (!option) break;
    const [, name, value] = option;
    if (/^includedirs$/i.test(name)) includeDirs.push(...listOption(value, lines[next].line, problems));
    else if (!IGNORED_OPTIONS.has(name.toLowerCase())) {
      problems.push({
        line: lines[next].line,
        message: l10n.t(
          '"{0}" is not an option of "proto <": write "includeDirs: [\\"./protos\\"]" below it for the folders its imports are in, and leave a blank line before a request.',
          name,
        ),
      });
    }
  }
  if (!file) {
    problems.push({
      line: lines[i].line,
      message: l10n.t('"proto <" names no file: write "proto < ./service.proto" (relative to the request file).'),
    });
    return { next };
  }
  return { proto: { file, includeDirs, line: lines[i].line }, next };
}

/** `["a", "b"]` (httpYac writes JSON) or `a, b`. */
function listOption(value: string, line: number, problems: { line: number; message: string }[]): string[] {
  const text = value.trim();
  if (!text.startsWith('['))
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  try {
    const list: unknown = JSON.parse(text);
    if (Array.isArray(list) && list.every((v) => typeof v === 'string'))
      return list.map((v: string) => v.trim()).filter(Boolean);
  } catch {
    // Said below.
  }
  problems.push({
    line,
    message: l10n.t('includeDirs must be a JSON list of folders, such as includeDirs: ["./protos", "../common"].'),
  });
  return [];
}

/** The method and target of `GRPC <url>` (text after the method), or a problem naming the line and what to write. */
export function grpcRequestLine(url: string, line: number): { method: string; target: string } | { problem: string } {
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const segments = url.slice(scheme.length).split('/');
  const example = 'GRPC {{grpcTarget}}/package.Service/Method';
  if (segments.length < 3 || segments.slice(-2).some((s) => s === '')) {
    if (segments.length === 2 && SERVICE.test(segments[0]) && segments[0].includes('.') && METHOD.test(segments[1])) {
      return {
        problem: l10n.t(
          'Line {0}: "GRPC {1}" names no target: write "GRPC host:port/{1}" or "GRPC {{grpcTarget}}/{1}" (the active environment\'s gRPC target).',
          line + 1,
          url,
        ),
      };
    }
    return {
      problem: l10n.t(
        'Line {0}: "GRPC {1}" is not a gRPC method path: write "{2}" (the target, the service with its package, the method).',
        line + 1,
        url,
        example,
      ),
    };
  }
  const [service, method] = segments.slice(-2);
  const target = `${scheme}${segments.slice(0, -2).join('/')}`;
  if (segments.length - 2 > 1) {
    return {
      problem: l10n.t(
        'Line {0}: the target "{1}" has a path: a gRPC target is host:port alone, as in "{2}".',
        line + 1,
        segments.slice(0, -2).join('/'),
        example,
      ),
    };
  }
  if (segments[0] === '')
    return {
      problem: l10n.t(
        'Line {0}: "GRPC {1}" names no target: write "GRPC host:port/{2}/{3}" or "GRPC {{grpcTarget}}/{2}/{3}" (the active environment\'s gRPC target).',
        line + 1,
        url,
        service,
        method,
      ),
    };
  if (!SERVICE.test(service) || !METHOD.test(method)) {
    return {
      problem: l10n.t(
        'Line {0}: "{1}/{2}" is not a gRPC method: write the service with its package, then the method, as in "mobility.sandbox.v1.Vehicles/ListVehicles".',
        line + 1,
        service,
        method,
      ),
    };
  }
  return { method: `${service}/${method}`, target };
}

/** `target` without its scheme, and the transport the scheme asks for. */
export function splitGrpcTarget(target: string): { target: string; transport?: 'plaintext' | 'tls' } {
  const scheme = SCHEME.exec(target);
  if (!scheme) return { target };
  const tls = /^(grpcs|https)$/i.test(scheme[1]);
  return { target: target.slice(scheme[0].length), transport: tls ? 'tls' : 'plaintext' };
}

/**
 * The messages of a GRPC body: frames separated by `===` lines, each a JSON object or a JSON list
 * of objects; no body is one empty message. Throws a message naming the line and column of the file
 * (`firstLine`: the body's 0-based first line) when a frame is not JSON or not an object.
 */
export function grpcBodyMessages(body: string | undefined, firstLine: number): Record<string, unknown>[] {
  if (body === undefined || body.trim() === '') return [{}];
  const frames: { text: string; line: number }[] = [];
  let current: { text: string[]; line: number } = { text: [], line: firstLine };
  body.split('\n').forEach((text, n) => {
    if (FRAME.test(text.trim())) {
      frames.push({ text: current.text.join('\n'), line: current.line });
      current = { text: [], line: firstLine + n + 1 };
    } else {
      current.text.push(text);
    }
  });
  frames.push({ text: current.text.join('\n'), line: current.line });
  const messages: Record<string, unknown>[] = [];
  for (const frame of frames) {
    if (frame.text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(frame.text);
    } catch {
      const { line, column, what } = jsonError(frame.text);
      throw new Error(
        l10n.t(
          'the message at line {0}, column {1} is not JSON ({2}): write one JSON object, such as {"vehicleId": "…"}.',
          frame.line + line,
          column,
          what,
        ),
      );
    }
    const list = Array.isArray(value) ? value : [value];
    for (const item of list) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        throw new Error(
          l10n.t(
            'the message at line {0} is not a JSON object: a gRPC message is written as {…} (a list of them for a stream).',
            frame.line + 1,
          ),
        );
      }
      messages.push(item as Record<string, unknown>);
    }
  }
  return messages.length ? messages : [{}];
}

/**
 * Where and why `text` is not JSON: JSON.parse says why but not where (V8 before Node 22 gives no
 * position), so jsonc-parser, strict (no comments, no trailing commas), finds the first error's offset.
 */
function jsonError(text: string): { line: number; column: number; what: string } {
  // Required here, on the error path only: its module sets up its formatter's tables when it loads.
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded when first needed */
  const { parse: parseJsonc, printParseErrorCode } =
    require('jsonc-parser/lib/esm/main.js') as typeof import('jsonc-parser/lib/esm/main.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  const offset = first ? first.offset : text.trimEnd().length;
  const before = text.slice(0, offset).split('\n');
  return {
    line: before.length,
    column: before[before.length - 1].length + 1,
    what: first ? printParseErrorCode(first.error) : 'SyntaxError',
  };
}

/**
 * The `.http` text of one GRPC request that `parseRequestFile` reads back: `GRPC {{grpcTarget}}/method`
 * (or `target` when `targetVariable` is false), then the message as pretty JSON; a list of messages
 * (client streaming) is written as frames separated by `===`.
 */
export function grpcRequestText(request: {
  method: string;
  message: unknown;
  targetVariable?: boolean;
  target?: string;
  name?: string;
}): string {
  const method = request.method.replace(/^\//, '');
  const target = request.targetVariable === false && request.target ? request.target : '{{grpcTarget}}';
  const messages = Array.isArray(request.message) ? request.message : [request.message ?? {}];
  const lines = [...(request.name ? [`# @name ${request.name}`] : []), `GRPC ${target}/${method}`, ''];
  messages.forEach((message, i) => {
    if (i > 0) lines.push('===');
    lines.push(JSON.stringify(message, null, 2));
  });
  return `${lines.join('\n')}\n`;
}
