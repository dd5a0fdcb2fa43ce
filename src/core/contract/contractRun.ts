// The runner behind `mobility-api test` and VS Code's TestController: request files read, every request with
// assertions planned (resolved, checked) before anything is signed, then sent in file order with a fresh token per
// request and per page, and each assertion checked against each page. A GRPC request is planned here too; its call is
// made by the caller's `callGrpc` (this domain does not import `grpc`), and its answer checked by grpcEvaluate.ts.
import * as l10n from '@vscode/l10n';
import { errorMessage, maskKeyId, withoutOwnSecrets } from '../base';
import type { Credential } from '../auth';
import type { ApiKind, ApiRequest, Environment } from '../environment';
import type { ApiClient, ApiResult, FileRequest, HttpExchange, RequestFile, ResolvedGrpcFileRequest } from '../http';
import { expandFileText, parseRequestFile, resolveFileRequest, resolveGrpcFileRequest } from '../http';
import { freeRequest, isMdsEndpointId } from '../mds';
import { plural } from '../../shared/format';
import type { Assertion, AssertionProblem } from './assertion';
import { parseAssertions, protocolProblem } from './assertion';
import type { AssertionOutcome, EvaluationContext } from './evaluate';
import { evaluateAssertion } from './evaluate';
import type { GrpcAnswer } from './grpcEvaluate';
import { evaluateGrpcAssertion } from './grpcEvaluate';

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
    for (const p of file.problems) plan.warnings.push({ file: source.name, line: p.line, column: 0, message: p.message });
    // What no request runs (script blocks, `@loop`, a global `??`) stops the run: a test it holds must never pass unrun.
    const ofRequests = new Set(file.requests.flatMap((r) => r.refused ?? []));
    for (const r of file.refused) if (!ofRequests.has(r)) plan.problems.push({ file: source.name, line: r.line, column: r.column, message: r.message });
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

function planRequest(fileName: string, file: RequestFile, request: FileRequest, label: string, options: PlanOptions, problems: PlanProblem[]): PlannedRequest | undefined {
  const read = parseAssertions(request.assertions ?? []);
  const at = (line: number, column: number, message: string) => problems.push({ file: fileName, line, column, message, request: request.line });
  // A form not supported here (`?? js …`) is refused as a malformed line is: nothing is sent, exit 2.
  for (const p of [...read.problems, ...(request.refused ?? [])].sort((a, b) => a.line - b.line)) at(p.line, p.column, p.message);
  for (const a of read.assertions) {
    const wrong = protocolProblem(a, request.grpc !== undefined);
    if (wrong) at(wrong.line, wrong.column, wrong.message);
    // The official schemas are MDS 2.0's: a MaaS answer would get findings of a schema it never follows.
    else if (options.api === 'maas' && a.subject.kind === 'mdsConformance') at(a.line, a.column, l10n.t('"?? mds conformance" checks an answer against the official MDS 2.0 schemas; this run is against the MaaS API (--api maas), which they do not describe. Remove the line, or run MDS requests with --api mds.'));
  }
  const planned: PlannedRequest = { file: fileName, label, line: request.line, assertions: [], unsupported: [] };
  if (request.disabled) planned.disabled = true;
  if (request.sleepMs !== undefined) planned.sleepMs = request.sleepMs;
  const outside = Object.entries(options.variables ?? {}).filter(([name]) => !file.variables.has(name));
  const given = { ...Object.fromEntries(outside), baseUrl: options.baseUrl };
  try {
    planned.assertions = read.assertions.map((a) => (a.expected === undefined ? a : { ...a, expected: expandFileText(request, file, a.expected, given) }));
  } catch (err) {
    at(request.line, 0, errorMessage(err));
    return undefined;
  }
  if (request.grpc) {
    try {
      if (options.grpcTarget === undefined && /\{\{\s*grpcTarget\s*\}\}/.test(request.grpc.target) && !file.variables.has('grpcTarget')) {
        throw new Error(l10n.t('Request {0} (line {1}) goes to {{grpcTarget}}: give the gRPC target (mobility-api test --grpc-target <host:port>; in VS Code, the environment\'s gRPC endpoint).', label, request.line + 1));
      }
      const resolved = resolveGrpcFileRequest(request, file, options.grpcTarget === undefined ? given : { ...given, grpcTarget: options.grpcTarget });
      if (resolved.authorization !== undefined) throw new Error(l10n.t('Request {0} (line {1}) sends its own authorization: a test signs a fresh token for every call. Remove it.', label, request.line + 1));
      planned.grpc = resolved;
    } catch (err) {
      at(request.line, 0, errorMessage(err));
      return undefined;
    }
    return planned;
  }
  try {
    const resolved = resolveFileRequest(request, file, given);
    if (!HTTP_METHODS.includes(resolved.method)) throw new Error(l10n.t('Request {0} (line {1}): "{2}" is not an HTTP method: write GET (the MDS and MaaS APIs are read with GET).', label, request.line + 1, resolved.method));
    if (resolved.method !== 'GET') throw new Error(l10n.t('Request {0} (line {1}) is {2}: the MDS and MaaS APIs are read with GET.', label, request.line + 1, resolved.method));
    if (resolved.authorization !== undefined) throw new Error(l10n.t('Request {0} (line {1}) sends its own Authorization: a test signs a fresh token for every request. Remove "# @authorization as-is".', label, request.line + 1));
    planned.request = freeRequest(options.api, pathUnder(resolved.url, options.baseUrl, label, request.line), undefined, resolved.headers);
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
  throw new Error(l10n.t('Request {0} (line {1}) goes to {2}, which is not under the base URL {3}: its token is signed for that environment alone (its audience).', label, line + 1, url, base));
}

/** A sent request's token as a report may show it: its jti and a masked kid, never the token. */
export interface TokenMention {
  jti: string;
  kid: string;
}

/** One request's run. */
export interface RequestRun {
  file: string;
  label: string;
  line: number;
  /** The first page's URL; for a GRPC request, `target/package.Service/Method`. */
  url?: string;
  /** The last page's status. */
  status?: number;
  /** A GRPC request's status by name (`OK`, `NOT_FOUND`); `status` is then absent. */
  grpcStatus?: string;
  /** A GRPC request (reported as `GRPC <url>`, even when its call could not be made). */
  grpc?: boolean;
  statusText?: string;
  /** Every page's time from sending to the last byte, added up, in ms. */
  durationMs: number;
  pages: number;
  outcomes: AssertionOutcome[];
  tokens: TokenMention[];
  /** The request could not be sent or answered (a network failure): the run's message. */
  error?: string;
  /** Not sent, and why (see `PlannedRequest.skip`; `# @disabled`). */
  skipped?: string;
  /** Sent (`--all`) with no assertion: it tested nothing, so it is neither passed nor failed. */
  untested?: boolean;
  passed: boolean;
}

export interface RunOptions {
  client: ApiClient;
  environment: Environment;
  credential: Credential;
  /** The refusal doctor, injected by the caller (src/results). */
  explainRefusal?: EvaluationContext['explainRefusal'];
  /** Stop after the first failed request. */
  bail?: boolean;
  /**
   * Makes a GRPC request's call with a fresh token (the caller holds the connections and schemas) and reports its
   * answer; a call that cannot be made (unreachable, a message that does not fit) throws. Without it, GRPC requests
   * are reported as not run.
   */
  callGrpc?: (planned: PlannedRequest & { grpc: ResolvedGrpcFileRequest }, signal?: AbortSignal) => Promise<GrpcAnswer>;
  /** Called before each request, for progress. */
  onStart?: (planned: PlannedRequest) => void;
  /** Called after each request, for progress. */
  onRequest?: (run: RequestRun) => void;
  /**
   * Called with a REST request's whole answer before its assertions are checked (VS Code's Testing view shows it in
   * the results panel). The answer holds the tokens sent: it stays with the caller, never in a `RequestRun`.
   */
  onAnswer?: (planned: PlannedRequest, result: ApiResult) => void;
  signal?: AbortSignal;
}

/** Every request of `plan`, in order. Requests left out by `bail` are not in the list. */
export async function runContractPlan(plan: ContractPlan, options: RunOptions): Promise<RequestRun[]> {
  const runs: RequestRun[] = [];
  for (const file of plan.files) {
    for (const planned of file.requests) {
      if (options.signal?.aborted) return runs;
      options.onStart?.(planned);
      // A run as it may be reported (lines, JUnit, `--json`, the Testing view): our own secrets that the server echoed
      // (the tokens sent, the key id) hidden by value in every text of it; nothing else is changed.
      const run = withoutOwnSecrets(await runRequest(planned, options), { kid: options.credential.kid });
      runs.push(run);
      options.onRequest?.(run);
      if (options.bail && !run.passed && !run.skipped) return runs;
    }
  }
  return runs;
}

async function runRequest(planned: PlannedRequest, options: RunOptions): Promise<RequestRun> {
  const run: RequestRun = { file: planned.file, label: planned.label, line: planned.line, durationMs: 0, pages: 0, outcomes: [], tokens: [], passed: false };
  if (planned.disabled) return { ...run, skipped: l10n.t('disabled (# @disabled): not sent'), passed: true };
  if (planned.sleepMs) await sleep(planned.sleepMs, options.signal);
  if (options.signal?.aborted) return { ...run, error: l10n.t('cancelled before it was sent') };
  if (planned.grpc) {
    if (options.callGrpc) return runGrpcRequest({ ...planned, grpc: planned.grpc }, options.callGrpc, run, options.signal);
    planned = { ...planned, skip: l10n.t('GRPC requests need a gRPC target to run: give --grpc-target <host:port>.') };
  }
  if (!planned.request) {
    run.skipped = planned.skip;
    // A GRPC request with assertions fails: its assertions would otherwise pass unchecked.
    run.outcomes = [...planned.assertions, ...planned.unsupported].map((a) => ({ text: a.text, line: a.line, column: a.column, passed: false, message: l10n.t('{0}: not checked: {1}', a.text, planned.skip ?? '') }));
    run.passed = run.outcomes.length === 0;
    return run;
  }
  const allPages = planned.assertions.some((a) => a.subject.kind === 'mdsPages');
  let result: ApiResult;
  const started = performance.now();
  try {
    result = await options.client.request(options.environment, options.credential, planned.request, { allPages, signal: options.signal });
  } catch (err) {
    // A timeout or a refused connection took time too: the report says how long it was waited for.
    run.durationMs = Math.round(performance.now() - started);
    run.error = errorMessage(err);
    return run;
  }
  options.onAnswer?.(planned, result);
  const last = result.pages[result.pages.length - 1];
  run.url = result.url;
  run.status = last?.status;
  run.statusText = last?.statusText;
  run.pages = result.pages.length;
  run.durationMs = Math.round(result.pages.reduce((ms, p) => ms + p.timings.totalMs, 0));
  run.tokens = result.pages.flatMap((p) => (p.token ? [{ jti: p.token.claims.jti, kid: maskKeyId(p.token.header.kid) }] : []));
  run.outcomes = resultOutcomes(planned, result, options.explainRefusal);
  run.passed = run.outcomes.every((o) => o.passed);
  if (run.outcomes.length === 0) run.untested = true;
  return withoutOwnSecrets(run, { tokens: result.pages.map((p) => p.token?.token) });
}

/** Waits `ms` (`# @sleep`), or until `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Every assertion of `planned` checked against a REST result (each page; `?? mds pages` against the whole), and each
 * form not supported here as a failure. The results panel shows these after a send from a file.
 */
export function resultOutcomes(planned: Pick<PlannedRequest, 'assertions' | 'unsupported'> & { request?: Pick<ApiRequest, 'endpointId' | 'itemsKey'> }, result: ApiResult, explainRefusal?: EvaluationContext['explainRefusal']): AssertionOutcome[] {
  const endpointId = planned.request?.endpointId;
  const context: EvaluationContext = { explainRefusal, itemsKey: planned.request?.itemsKey, ...(endpointId !== undefined && isMdsEndpointId(endpointId) ? { endpointId } : {}) };
  const outcomes = planned.assertions.map((a) => (a.subject.kind === 'mdsPages' ? pagesOutcome(a, result) : acrossPages(a, result.pages, context)));
  for (const u of planned.unsupported) outcomes.push({ text: u.text, line: u.line, column: u.column, passed: false, message: u.message });
  return outcomes;
}

/** Every assertion of `planned` checked against a gRPC answer, and each form not supported here as a failure. */
export function grpcOutcomes(planned: Pick<PlannedRequest, 'assertions' | 'unsupported'>, answer: GrpcAnswer): AssertionOutcome[] {
  const outcomes = planned.assertions.map((a) => evaluateGrpcAssertion(a, answer));
  for (const u of planned.unsupported) outcomes.push({ text: u.text, line: u.line, column: u.column, passed: false, message: u.message });
  return outcomes;
}


/** An assertion holds on every page; the first page it fails on is the outcome, named when there are several. */
function acrossPages(assertion: Assertion, pages: readonly HttpExchange[], context: EvaluationContext): AssertionOutcome {
  for (let i = 0; i < pages.length; i++) {
    const outcome = evaluateAssertion(assertion, pages[i], context);
    if (outcome.passed) continue;
    if (pages.length === 1) return outcome;
    return { ...outcome, page: i + 1, message: l10n.t('page {0}: {1}', i + 1, outcome.message ?? '') };
  }
  return { text: assertion.text, line: assertion.line, column: assertion.column, passed: true };
}

/** `?? mds pages`: every `links.next` followed, with a fresh token each, to the last page. */
function pagesOutcome(assertion: Assertion, result: ApiResult): AssertionOutcome {
  const base = { text: assertion.text, line: assertion.line, column: assertion.column };
  const notRead = result.pages.findIndex((p) => p.ok && p.bodyKind === 'text' && p.bodyProblem);
  if (notRead >= 0) {
    // A page that is not JSON has no links.next to follow: the pages were not all read.
    const expected = l10n.t('every page followed to the last');
    const actual = l10n.t('page {0}: {1}', notRead + 1, result.pages[notRead].bodyProblem ?? '');
    return { ...base, passed: false, expected, actual, message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual) };
  }
  if (!result.stoppedBecause && !result.nextUrl) return { ...base, passed: true };
  const expected = l10n.t('every page followed to the last');
  const actual = l10n.t('stopped after {0}: {1}', plural(result.pages.length, 'page'), result.stoppedBecause ?? result.nextUrl ?? '');
  return { ...base, passed: false, expected, actual, message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual) };
}

async function runGrpcRequest(planned: PlannedRequest & { grpc: ResolvedGrpcFileRequest }, callGrpc: NonNullable<RunOptions['callGrpc']>, run: RequestRun, signal: AbortSignal | undefined): Promise<RequestRun> {
  run.url = `${planned.grpc.target}/${planned.grpc.method}`;
  run.grpc = true;
  let answer: GrpcAnswer;
  const started = performance.now();
  try {
    answer = await callGrpc(planned, signal);
  } catch (err) {
    run.durationMs = Math.round(performance.now() - started);
    run.error = errorMessage(err);
    return run;
  }
  run.grpcStatus = answer.status.name;
  // grpc-js says "OK" again as the message of an OK status.
  if (answer.status.message && answer.status.message !== answer.status.name) run.statusText = answer.status.message;
  run.pages = 1;
  run.durationMs = Math.round(answer.durationMs);
  if (answer.token) run.tokens = [answer.token];
  run.outcomes = grpcOutcomes(planned, answer);
  run.passed = run.outcomes.every((o) => o.passed);
  if (run.outcomes.length === 0) run.untested = true;
  return run;
}
