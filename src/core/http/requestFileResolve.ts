// A parsed request file's request made ready to send: every `{{variable}}` substituted (file variables, given values,
// `{{$guid}}`), cycles and unresolved names refused, and a GRPC request's target and messages read. See docs/request-files.md.
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import { MobilityError } from '../base';
import { hasUserInfo, takeUserAuthorization, userInfoProblem } from '../environment';
import type { FileRequest, RequestFile } from './requestFile';
import type { ResolvedGrpcFileRequest } from './requestFileGrpc';
import { grpcBodyMessages, splitGrpcTarget } from './requestFileGrpc';

/** A request ready to send: every `{{variable}}` substituted. */
export interface ResolvedFileRequest {
  method: string;
  url: string;
  /** Every header but Authorization. */
  headers: Record<string, string>;
  body?: string;
  /** The request's own Authorization, sent as written (only under `# @authorization as-is`; a reused token is refused). */
  authorization?: string;
}

const REFERENCE = /\{\{([^{}]*)\}\}/g;

/** `@a refers to itself (line 1)…` or `@a refers to itself through @b → @c → @a (lines 1, 2, 3)…`: `cycle` starts and ends with the same name. */
function cycleProblem(cycle: string[], file: RequestFile): string {
  const [first, ...through] = cycle;
  const lines = cycle.slice(0, -1).map((name) => String((file.variables.get(name)?.line ?? 0) + 1));
  if (through.length === 1)
    return l10n.t(
      '@{0} refers to itself (line {1}): its value uses {2}. Give it a value that does not.',
      first,
      lines[0],
      `{{${first}}}`,
    );
  return l10n.t(
    '@{0} refers to itself through {1} (lines {2}). Break the cycle: give one of them a value that uses none of the others.',
    first,
    through.map((n) => `@${n}`).join(' → '),
    lines.join(', '),
  );
}

/**
 * Substitutes `{{name}}` from, in this order: `given` (such as `baseUrl` of the active environment), then the file's
 * variables (which may refer to each other), then `{{$guid}}` and `{{$timestamp}}`. Refuses what stays unresolved,
 * naming it, and an Authorization header of the request's own unless `# @authorization as-is` (or
 * `options.authorizationAsIs`, the CLI's `--send-authorization-as-is`) asks for it.
 */
export function resolveFileRequest(
  request: FileRequest,
  file: RequestFile,
  given: Record<string, string> = {},
  options: { authorizationAsIs?: boolean } = {},
): ResolvedFileRequest {
  const { expand, unresolved } = expander(request, file, given);
  const url = expand(request.url);
  const headers: Record<string, string> = {};
  for (const h of request.headers) headers[h.name] = expand(h.value);
  refuseUnresolved(request, unresolved);
  if (hasUserInfo(url)) {
    // The URL is not repeated: it holds a password.
    throw new MobilityError(
      'BASE_URL_INVALID',
      l10n.t(
        'Request {0} (line {1}): its URL holds a user name or password (the part before "@"). Remove the user name and password from the URL (and from the variable that gives it, such as @baseUrl): credentials go in the environment\'s credential, never in a URL.',
        request.name ?? request.index,
        request.line + 1,
      ),
    );
  }
  const own = takeUserAuthorization(
    headers,
    { kind: 'requestFile', request: request.name ?? String(request.index), line: request.line + 1 },
    request.authorizationAsIs || options.authorizationAsIs,
  );
  const resolved: ResolvedFileRequest = { method: request.method, url, headers: own.headers };
  if (own.authorization !== undefined) resolved.authorization = own.authorization;
  if (request.body !== undefined) resolved.body = expand(request.body);
  return resolved;
}

/** `text` of `request` (an assertion's expected value) with its `{{variables}}` substituted as in `resolveFileRequest`. */
export function expandFileText(
  request: FileRequest,
  file: RequestFile,
  text: string,
  given: Record<string, string> = {},
): string {
  const { expand, unresolved } = expander(request, file, given);
  const expanded = expand(text);
  refuseUnresolved(request, unresolved);
  return expanded;
}

/** A variable's value may grow this long once its references are substituted; `@a = {{b}}{{b}}` over 30 levels would be a gigabyte. */
const MAX_EXPANDED_CHARS = 1_000_000;

/** `{{name}}` substitution for `request` (see `resolveFileRequest`); the names it could not resolve are collected in `unresolved`. */
function expander(
  request: FileRequest,
  file: RequestFile,
  given: Record<string, string>,
): { expand: (text: string) => string; unresolved: Set<string> } {
  const unresolved = new Set<string>();
  // Each variable is expanded once per request: `@a = {{b}}{{b}}` chains stay linear, not exponential.
  const expanded = new Map<string, string>();
  const refuse = (problem: string) =>
    new MobilityError(
      'USAGE',
      l10n.t('Request {0} (line {1}): {2}', request.name ?? request.index, request.line + 1, problem),
    );
  // `chain`: the variables being expanded, outermost first, to name a cycle instead of recursing forever.
  const expand = (text: string, chain: string[] = []): string =>
    text.replace(REFERENCE, (whole, inner: string) => {
      const key = inner.trim();
      if (key === '$guid') return randomUUID();
      if (key === '$timestamp') return String(Math.floor(Date.now() / 1000));
      if (Object.hasOwn(given, key)) return given[key];
      const variable = file.variables.get(key);
      if (!variable) {
        unresolved.add(key);
        return whole;
      }
      const done = expanded.get(key);
      if (done !== undefined) return done;
      if (chain.includes(key)) throw refuse(cycleProblem([...chain.slice(chain.indexOf(key)), key], file));
      if (variable.value.includes('\r')) {
        throw refuse(
          l10n.t(
            'the value of @{0} (line {1}) holds a carriage return (CR), which cannot be sent in a URL or a header. Put the value on one line and save the file with LF or CRLF line endings.',
            key,
            variable.line + 1,
          ),
        );
      }
      const value = expand(variable.value, [...chain, key]);
      if (value.length > MAX_EXPANDED_CHARS) {
        throw refuse(
          l10n.t(
            '@{0} (line {1}) grows to {2} characters once the variables it uses are substituted (at most {3}). Make its value, or those it uses, shorter.',
            key,
            variable.line + 1,
            value.length,
            MAX_EXPANDED_CHARS,
          ),
        );
      }
      expanded.set(key, value);
      return value;
    });
  return { expand: (text) => expand(text), unresolved };
}

function refuseUnresolved(request: FileRequest, unresolved: Set<string>): void {
  if (!unresolved.size) return;
  const names = [...unresolved].map((n) => `{{${n}}}`).join(', ');
  throw new MobilityError(
    'USAGE',
    unresolved.size === 1
      ? l10n.t(
          'Request {0} (line {1}) uses {2}, which is not defined: add "@name = value" to the file, or pick an environment for {{baseUrl}}.',
          request.name ?? request.index,
          request.line + 1,
          names,
        )
      : l10n.t(
          'Request {0} (line {1}) uses {2}, which are not defined: add "@name = value" to the file, or pick an environment for {{baseUrl}}.',
          request.name ?? request.index,
          request.line + 1,
          names,
        ),
  );
}

/**
 * A GRPC request ready to call: variables substituted as in `resolveFileRequest` (`given` holds `grpcTarget`), its
 * messages parsed, its `authorization` metadata refused unless `# @authorization as-is` (or the option) asks for it.
 */
export function resolveGrpcFileRequest(
  request: FileRequest,
  file: RequestFile,
  given: Record<string, string> = {},
  options: { authorizationAsIs?: boolean } = {},
): ResolvedGrpcFileRequest {
  const parts = request.grpc;
  const label = request.name ?? String(request.index);
  if (!parts)
    throw new MobilityError('USAGE', l10n.t('Request {0} (line {1}) is not a GRPC request.', label, request.line + 1));
  if (parts.problem) throw new MobilityError('USAGE', parts.problem);
  const { expand, unresolved } = expander(request, file, given);
  const expanded = expand(parts.target).trim();
  // A variable's value ({{grpcTarget}}) is checked as the line is: never used or repeated with a password.
  if (hasUserInfo(expanded))
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      l10n.t('Request {0} (line {1}): {2}', label, request.line + 1, userInfoProblem(l10n.t('The gRPC target'))),
    );
  const { target, transport } = splitGrpcTarget(expanded);
  const entries = request.headers.map((h): [string, string] => [h.name, expand(h.value)]);
  const body = request.body === undefined ? undefined : expand(request.body);
  refuseUnresolved(request, unresolved);
  const authorization = entries.filter(([name]) => /^authorization$/i.test(name));
  const own = takeUserAuthorization(
    Object.fromEntries(authorization),
    { kind: 'requestFile', request: label, line: request.line + 1 },
    request.authorizationAsIs || options.authorizationAsIs,
  );
  let messages: Record<string, unknown>[];
  try {
    messages = grpcBodyMessages(body, request.bodyLine ?? request.line);
  } catch (err) {
    throw new MobilityError(
      'USAGE',
      l10n.t('Request {0} (line {1}): {2}', label, request.line + 1, (err as Error).message),
    );
  }
  const resolved: ResolvedGrpcFileRequest = {
    method: parts.method,
    target,
    metadata: entries.filter(([name]) => !/^authorization$/i.test(name)),
    messages,
    protoFiles: parts.protos.map((p) => p.file),
    importPaths: [...new Set(parts.protos.flatMap((p) => p.includeDirs))],
  };
  if (transport) resolved.transport = transport;
  if (own.authorization !== undefined) resolved.authorization = own.authorization;
  if (!target)
    throw new MobilityError(
      'USAGE',
      l10n.t(
        'Request {0} (line {1}) names no gRPC target: write "GRPC host:port/{2}" or "GRPC {{grpcTarget}}/{2}".',
        label,
        request.line + 1,
        parts.method,
      ),
    );
  return resolved;
}
