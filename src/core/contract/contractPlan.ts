// The plan of a contract run (`mobility-api test`, VS Code's TestController): request files read and every request
// with assertions resolved and checked before anything is signed, in file order; a GRPC request is planned here too.
// Nothing is sent here (see contractRun.ts).
import * as l10n from '@vscode/l10n';
import { errorMessage } from '../base';
import type { ApiKind, ApiRequest } from '../environment';
import type { FileRequest, RequestFile, ResolvedGrpcFileRequest } from '../http';
import { expandFileText, parseRequestFile, resolveFileRequest, resolveGrpcFileRequest } from '../http';
import { freeRequest } from '../mds';
import type { Assertion, AssertionProblem } from './assertion';
import { parseAssertions, protocolProblem } from './assertion';

/** A request file to run: the name it is shown by (a path) and its text. */
export interface ContractSource {
  name: string;
  text: string;
}

/** One request of a plan: what is sent and what is checked, or why it is not sent. */
export interface PlannedRequest {
  file: string;
  /** The request's name, or its request line as written: `GET {{baseUrl}}/vehicles`. */
  label: string;
  /** 0-based line of the request line. */
  line: number;
  assertions: Assertion[];
  /** Forms read but not run here (`?? js …`): each fails the request with its message. */
  unsupported: AssertionProblem[];
  /** What is sent; absent when the request is not sent (`skip`) or is a GRPC request. */
  request?: ApiRequest;
  /** A GRPC request, resolved: what the caller's `callGrpc` sends. */
  grpc?: ResolvedGrpcFileRequest;
  /** Why the request is not sent (a GRPC request): it is reported, never dropped in silence. */
  skip?: string;
  /** `# @disabled`: not sent, reported as skipped. */
  disabled?: boolean;
  /** `# @sleep <ms>`: waited before the request is sent. */
  sleepMs?: number;
}

/** Something in the input that must be fixed before anything is sent (exit 2). */
export interface PlanProblem {
  file: string;
  /** 0-based line and column. */
  line: number;
  column: number;
  message: string;
  /** The 0-based request line of the request it belongs to; absent for a line of the file's own (a global `??`). */
  request?: number;
}

export interface ContractPlan {
  files: { name: string; requests: PlannedRequest[] }[];
  problems: PlanProblem[];
  /** Problems of the files that do not stop a run (a line that is no header): shown as warnings. */
  warnings: PlanProblem[];
}

export interface PlanOptions {
  api: ApiKind;
  /** `{{baseUrl}}`; every request must stay under it (its token's audience). */
  baseUrl: string;
  /** Every request, not only those with assertions. */
  all?: boolean;
  /** Only requests whose name (or request line) contains this text. */
  filter?: string;
  /** Only the requests whose request line (0-based) is one of these (VS Code's Testing view runs some of a file). */
  lines?: readonly number[];
  /** `{{name}}` values from outside the file (an env file); the file's own `@name = value` wins. */
  variables?: Record<string, string>;
  /** `{{grpcTarget}}` of GRPC requests (`host:port`, or `grpc://host:port` for plaintext). */
  grpcTarget?: string;
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'];

/** Reads the files and plans their requests, in file order. Never sends anything. */
export function planContractRun(sources: readonly ContractSource[], options: PlanOptions): ContractPlan {
  const plan: ContractPlan = { files: [], problems: [], warnings: [] };
  for (const source of sources) {
    const file = parseRequestFile(source.text);
    if (file.notText) {
      plan.problems.push({ file: source.name, line: 0, column: 0, message: file.notText });
      continue;
    }
    for (const p of file.problems)
      plan.warnings.push({ file: source.name, line: p.line, column: 0, message: p.message });
    // What no request runs (script blocks, `@loop`, a global `??`) stops the run: a test it holds must never pass unrun.
    const ofRequests = new Set(file.requests.flatMap((r) => r.refused ?? []));
    for (const r of file.refused)
      if (!ofRequests.has(r))
        plan.problems.push({ file: source.name, line: r.line, column: r.column, message: r.message });
    const requests: PlannedRequest[] = [];
    for (const request of file.requests) {
      const label = request.name ?? `${request.method} ${request.url}`;
      if (!request.assertions?.length && !request.refused?.length && !options.all) continue;
      if (options.filter !== undefined && !label.includes(options.filter)) continue;
      if (options.lines !== undefined && !options.lines.includes(request.line)) continue;
      const planned = planRequest(source.name, file, request, label, options, plan.problems);
      if (planned) requests.push(planned);
    }
    plan.files.push({ name: source.name, requests });
  }
  return plan;
}

function planRequest(
  fileName: string,
  file: RequestFile,
  request: FileRequest,
  label: string,
  options: PlanOptions,
  problems: PlanProblem[],
): PlannedRequest | undefined {
  const read = parseAssertions(request.assertions ?? []);
  const at = (line: number, column: number, message: string) =>
    problems.push({ file: fileName, line, column, message, request: request.line });
  // A form not supported here (`?? js …`) is refused as a malformed line is: nothing is sent, exit 2.
  for (const p of [...read.problems, ...(request.refused ?? [])].sort((a, b) => a.line - b.line))
    at(p.line, p.column, p.message);
  for (const a of read.assertions) {
    const wrong = protocolProblem(a, request.grpc !== undefined);
    if (wrong) at(wrong.line, wrong.column, wrong.message);
    // The official schemas are MDS 2.0's: a MaaS answer would get findings of a schema it never follows.
    else if (options.api === 'maas' && a.subject.kind === 'mdsConformance')
      at(
        a.line,
        a.column,
        l10n.t(
          '"?? mds conformance" checks an answer against the official MDS 2.0 schemas; this run is against the MaaS API (--api maas), which they do not describe. Remove the line, or run MDS requests with --api mds.',
        ),
      );
  }
  const planned: PlannedRequest = { file: fileName, label, line: request.line, assertions: [], unsupported: [] };
  if (request.disabled) planned.disabled = true;
  if (request.sleepMs !== undefined) planned.sleepMs = request.sleepMs;
  const outside = Object.entries(options.variables ?? {}).filter(([name]) => !file.variables.has(name));
  const given = { ...Object.fromEntries(outside), baseUrl: options.baseUrl };
  try {
    planned.assertions = read.assertions.map((a) =>
      a.expected === undefined ? a : { ...a, expected: expandFileText(request, file, a.expected, given) },
    );
  } catch (err) {
    at(request.line, 0, errorMessage(err));
    return undefined;
  }
  if (request.grpc) {
    try {
      if (
        options.grpcTarget === undefined &&
        /\{\{\s*grpcTarget\s*\}\}/.test(request.grpc.target) &&
        !file.variables.has('grpcTarget')
      ) {
        throw new Error(
          l10n.t(
            "Request {0} (line {1}) goes to {{grpcTarget}}: give the gRPC target (mobility-api test --grpc-target <host:port>; in VS Code, the environment's gRPC endpoint).",
            label,
            request.line + 1,
          ),
        );
      }
      const resolved = resolveGrpcFileRequest(
        request,
        file,
        options.grpcTarget === undefined ? given : { ...given, grpcTarget: options.grpcTarget },
      );
      if (resolved.authorization !== undefined)
        throw new Error(
          l10n.t(
            'Request {0} (line {1}) sends its own authorization: a test signs a fresh token for every call. Remove it.',
            label,
            request.line + 1,
          ),
        );
      planned.grpc = resolved;
    } catch (err) {
      at(request.line, 0, errorMessage(err));
      return undefined;
    }
    return planned;
  }
  try {
    const resolved = resolveFileRequest(request, file, given);
    if (!HTTP_METHODS.includes(resolved.method))
      throw new Error(
        l10n.t(
          'Request {0} (line {1}): "{2}" is not an HTTP method: write GET (the MDS and MaaS APIs are read with GET).',
          label,
          request.line + 1,
          resolved.method,
        ),
      );
    if (resolved.method !== 'GET')
      throw new Error(
        l10n.t(
          'Request {0} (line {1}) is {2}: the MDS and MaaS APIs are read with GET.',
          label,
          request.line + 1,
          resolved.method,
        ),
      );
    if (resolved.authorization !== undefined)
      throw new Error(
        l10n.t(
          'Request {0} (line {1}) sends its own Authorization: a test signs a fresh token for every request. Remove "# @authorization as-is".',
          label,
          request.line + 1,
        ),
      );
    planned.request = freeRequest(
      options.api,
      pathUnder(resolved.url, options.baseUrl, label, request.line),
      undefined,
      resolved.headers,
    );
  } catch (err) {
    at(request.line, 0, errorMessage(err));
    return undefined;
  }
  return planned;
}

/** The request's URL as a path under the base URL; a URL elsewhere would carry the token to another server. */
function pathUnder(url: string, baseUrl: string, label: string, line: number): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`)) return url.slice(base.length) || '/';
  throw new Error(
    l10n.t(
      'Request {0} (line {1}) goes to {2}, which is not under the base URL {3}: its token is signed for that environment alone (its audience).',
      label,
      line + 1,
      url,
      base,
    ),
  );
}
