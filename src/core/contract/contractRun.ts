// The runner behind `mobility-api test` and VS Code's TestController: the requests planned by contractPlan.ts sent
// in file order with a fresh token per request and per page, and each assertion checked against each page. A GRPC
// request's call is made by the caller's `callGrpc` (this domain does not import `grpc`), and its answer checked by
// grpcEvaluate.ts.
import * as l10n from '@vscode/l10n';
import { errorMessage, maskKeyId, withoutOwnSecrets } from '../base';
import type { Credential } from '../auth';
import type { ApiRequest, Environment } from '../environment';
import type { ApiClient, ApiResult, HttpExchange, ResolvedGrpcFileRequest } from '../http';
import { isMdsEndpointId } from '../mds';
import { plural } from '../../shared/format';
import type { Assertion } from './assertion';
import type { ContractPlan, PlannedRequest } from './contractPlan';
import type { AssertionOutcome, EvaluationContext } from './evaluate';
import { evaluateAssertion } from './evaluate';
import type { GrpcAnswer } from './grpcEvaluate';
import { evaluateGrpcAssertion } from './grpcEvaluate';

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
  const run: RequestRun = {
    file: planned.file,
    label: planned.label,
    line: planned.line,
    durationMs: 0,
    pages: 0,
    outcomes: [],
    tokens: [],
    passed: false,
  };
  if (planned.disabled) return { ...run, skipped: l10n.t('disabled (# @disabled): not sent'), passed: true };
  if (planned.sleepMs) await sleep(planned.sleepMs, options.signal);
  if (options.signal?.aborted) return { ...run, error: l10n.t('cancelled before it was sent') };
  if (planned.grpc) {
    if (options.callGrpc)
      return runGrpcRequest({ ...planned, grpc: planned.grpc }, options.callGrpc, run, options.signal);
    planned = { ...planned, skip: l10n.t('GRPC requests need a gRPC target to run: give --grpc-target <host:port>.') };
  }
  if (!planned.request) {
    run.skipped = planned.skip;
    // A GRPC request with assertions fails: its assertions would otherwise pass unchecked.
    run.outcomes = [...planned.assertions, ...planned.unsupported].map((a) => ({
      text: a.text,
      line: a.line,
      column: a.column,
      passed: false,
      message: l10n.t('{0}: not checked: {1}', a.text, planned.skip ?? ''),
    }));
    run.passed = run.outcomes.length === 0;
    return run;
  }
  const allPages = planned.assertions.some((a) => a.subject.kind === 'mdsPages');
  let result: ApiResult;
  const started = performance.now();
  try {
    result = await options.client.request(options.environment, options.credential, planned.request, {
      allPages,
      signal: options.signal,
    });
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
  run.tokens = result.pages.flatMap((p) =>
    p.token ? [{ jti: p.token.claims.jti, kid: maskKeyId(p.token.header.kid) }] : [],
  );
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
export function resultOutcomes(
  planned: Pick<PlannedRequest, 'assertions' | 'unsupported'> & {
    request?: Pick<ApiRequest, 'endpointId' | 'itemsKey'>;
  },
  result: ApiResult,
  explainRefusal?: EvaluationContext['explainRefusal'],
): AssertionOutcome[] {
  const endpointId = planned.request?.endpointId;
  const context: EvaluationContext = {
    explainRefusal,
    itemsKey: planned.request?.itemsKey,
    ...(endpointId !== undefined && isMdsEndpointId(endpointId) ? { endpointId } : {}),
  };
  const outcomes = planned.assertions.map((a) =>
    a.subject.kind === 'mdsPages' ? pagesOutcome(a, result) : acrossPages(a, result.pages, context),
  );
  for (const u of planned.unsupported)
    outcomes.push({ text: u.text, line: u.line, column: u.column, passed: false, message: u.message });
  return outcomes;
}

/** Every assertion of `planned` checked against a gRPC answer, and each form not supported here as a failure. */
export function grpcOutcomes(
  planned: Pick<PlannedRequest, 'assertions' | 'unsupported'>,
  answer: GrpcAnswer,
): AssertionOutcome[] {
  const outcomes = planned.assertions.map((a) => evaluateGrpcAssertion(a, answer));
  for (const u of planned.unsupported)
    outcomes.push({ text: u.text, line: u.line, column: u.column, passed: false, message: u.message });
  return outcomes;
}

/** An assertion holds on every page; the first page it fails on is the outcome, named when there are several. */
function acrossPages(
  assertion: Assertion,
  pages: readonly HttpExchange[],
  context: EvaluationContext,
): AssertionOutcome {
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
    return {
      ...base,
      passed: false,
      expected,
      actual,
      message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual),
    };
  }
  if (!result.stoppedBecause && !result.nextUrl) return { ...base, passed: true };
  const expected = l10n.t('every page followed to the last');
  const actual = l10n.t(
    'stopped after {0}: {1}',
    plural(result.pages.length, 'page'),
    result.stoppedBecause ?? result.nextUrl ?? '',
  );
  return {
    ...base,
    passed: false,
    expected,
    actual,
    message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual),
  };
}

async function runGrpcRequest(
  planned: PlannedRequest & { grpc: ResolvedGrpcFileRequest },
  callGrpc: NonNullable<RunOptions['callGrpc']>,
  run: RequestRun,
  signal: AbortSignal | undefined,
): Promise<RequestRun> {
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
