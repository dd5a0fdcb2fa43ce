import path from 'node:path';
import { shellQuote } from '../base';

/** The bearer token of a grpcurl command: a real one (copied), or a command that prints one (run when pasted). */
export type GrpcurlToken = { token: string } | { tokenCommand: string };

/** One gRPC call as grpcurl makes it. */
export interface GrpcurlCall {
  /** `host:port`. */
  target: string;
  /** `package.Service/Method` (a leading `/` is dropped). */
  method: string;
  plaintext?: boolean;
  /** A PEM file of CA certificates to trust (`-cacert`). */
  caFile?: string;
  /** `.proto` files (`-proto`) and the folders their imports are in (`-import-path`); none: server reflection. */
  protoFiles?: string[];
  importPaths?: string[];
  /** A descriptor set (`-protoset`), used when there are no `.proto` files. */
  protoset?: string;
  /** Metadata sent as written (`-H 'name: value'`); an `authorization` entry here is left out. */
  metadata?: [string, string][];
  /** The request messages: one, or several for client and bidirectional streams. */
  messages: unknown[];
}

/** The name of the shell variable the token is kept in. */
export const GRPCURL_TOKEN_VARIABLE = 'TOKEN';

/**
 * A grpcurl command line that works when pasted into a POSIX shell: the token in a shell variable on
 * a line of its own (`TOKEN='<jwt>'`, or `TOKEN="$(command)"`), then
 * `grpcurl [-plaintext | -cacert f] [-import-path d]... [-proto f]... -H "authorization: Bearer $TOKEN" [-H 'n: v']... -d '<json>' host:port method`.
 * With `authorization` (the request's own, `# @authorization as-is`) it is sent as written and no variable is set.
 * Several messages are written as grpcurl reads a stream: JSON objects one after the other (space between).
 */
export function grpcurlCommand(call: GrpcurlCall, auth: GrpcurlToken | { authorization: string }): string {
  const lines: string[] = [];
  const parts = ['grpcurl'];
  if (call.plaintext) parts.push('-plaintext');
  else if (call.caFile) parts.push('-cacert', shellQuote(call.caFile));
  const protoFiles = call.protoFiles ?? [];
  if (protoFiles.length) {
    for (const dir of importPathsFor(protoFiles, call.importPaths ?? [])) parts.push('-import-path', shellQuote(dir));
    for (const file of protoFiles) parts.push('-proto', shellQuote(file));
  } else if (call.protoset) {
    parts.push('-protoset', shellQuote(call.protoset));
  }
  if ('authorization' in auth) {
    parts.push('-H', shellQuote(`authorization: ${auth.authorization}`));
  } else {
    lines.push(
      'token' in auth
        ? `${GRPCURL_TOKEN_VARIABLE}=${shellQuote(auth.token)}`
        : `${GRPCURL_TOKEN_VARIABLE}="$(${auth.tokenCommand})"`,
    );
    // Double quotes, so that the shell expands the variable.
    parts.push('-H', `"authorization: Bearer $${GRPCURL_TOKEN_VARIABLE}"`);
  }
  for (const [name, value] of call.metadata ?? []) {
    if (/^authorization$/i.test(name.trim())) continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  const data = (call.messages.length ? call.messages : [{}]).map((m) => JSON.stringify(m ?? {})).join(' ');
  parts.push('-d', shellQuote(data), shellQuote(call.target), shellQuote(call.method.replace(/^\//, '')));
  lines.push(parts.join(' '));
  return lines.join('\n');
}

/**
 * The import paths grpcurl needs: those given, then the folder of every `.proto` file under none of them. With
 * import paths, grpcurl finds each `-proto` file relative to one of them, so a file outside all would not load.
 */
function importPathsFor(protoFiles: string[], importPaths: string[]): string[] {
  if (!importPaths.length) return [];
  const dirs = [...importPaths];
  const under = (file: string, dir: string) => {
    const rel = path.relative(dir, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  for (const file of protoFiles) {
    if (!dirs.some((d) => under(file, d))) dirs.push(path.dirname(file));
  }
  return [...new Set(dirs)];
}
