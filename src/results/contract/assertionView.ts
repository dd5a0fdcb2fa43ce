// A request's assertions as the results panel and VS Code's Testing view show them, and a gRPC call's result as the
// answer core/contract checks (`GrpcAnswer`): the same shape for the CLI, the panel and the TestController.
import { maskKeyId } from '../../core/base';
import type { AssertionOutcome, GrpcAnswer } from '../../core/contract';
import type { GrpcCallResult } from '../../core/grpc';
import type { AssertionResultView } from '../../shared/contractViews';

/** Each outcome as the panel's header lists it. */
export function assertionViews(outcomes: readonly AssertionOutcome[]): AssertionResultView[] {
  return outcomes.map((o) => {
    const view: AssertionResultView = { text: o.text, line: o.line + 1, passed: o.passed };
    if (!o.passed) {
      if (o.expected !== undefined) view.expected = o.expected;
      if (o.actual !== undefined) view.actual = o.actual;
      if (o.message !== undefined) view.message = o.message;
    }
    return view;
  });
}

/** A call's result as the answer its assertions are checked against; `refusal` is the doctor's lines, when refused. */
export function grpcAnswerOf(result: GrpcCallResult, refusal?: string[]): GrpcAnswer {
  const answer: GrpcAnswer = {
    status: { code: result.status.code, name: result.status.name, message: result.status.message },
    headers: result.headers,
    trailers: result.trailers,
    messages: result.messages,
    serverStreaming: result.method.serverStreaming,
    durationMs: result.timings.totalMs,
  };
  if (result.token) answer.token = { jti: result.token.claims.jti, kid: maskKeyId(result.token.header.kid) };
  if (refusal?.length) answer.refusal = refusal;
  return answer;
}
