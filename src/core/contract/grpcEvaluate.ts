// One assertion checked against a gRPC call's answer, as a REST page is checked (evaluate.ts): `?? status == OK` reads
// the status by name (`?? status == 0` by code), `?? messages > 0` counts the answer messages, `?? header <name>` reads
// the response headers and then the trailers, `?? duration` the whole call, `?? token accepted` fails on
// UNAUTHENTICATED or PERMISSION_DENIED. The body forms read the answer message of a unary call; on a stream each
// message must hold (the first one that does not is named), and a stream without messages is checked once against
// nothing, so that `?? body vehicles exists` fails there instead of passing over an empty list. The call itself is
// made by the caller (core/grpc through the CLI or the shell): this domain does not import `grpc`.
import * as l10n from '@vscode/l10n';
import type { Assertion } from './assertion';
import { readPath } from './bodyPath';
import type { AssertionOutcome } from './evaluate';
import { checkValue } from './evaluate';

/** What a gRPC call answered, as the caller reports it. */
export interface GrpcAnswer {
  /** The status: `OK`, `NOT_FOUND`, … and its code. */
  status: { code: number; name: string; message: string };
  /** Response headers (initial metadata) and trailers, each name with its values. */
  headers: Record<string, string[]>;
  trailers: Record<string, string[]>;
  /** The answer messages in the proto3 JSON mapping. */
  messages: Record<string, unknown>[];
  /** The method answers with a stream (server streaming or bidirectional). */
  serverStreaming: boolean;
  /** From sending to the status, in ms. */
  durationMs: number;
  /** The token's jti and a masked kid, when a token was signed. */
  token?: { jti: string; kid: string };
  /** The refusal doctor's explanation of an UNAUTHENTICATED or PERMISSION_DENIED status, as lines. */
  refusal?: string[];
}

const REFUSED = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED']);

/** Checks `assertion` against a gRPC call's `answer`. */
export function evaluateGrpcAssertion(assertion: Assertion, answer: GrpcAnswer): AssertionOutcome {
  const base = { text: assertion.text, line: assertion.line, column: assertion.column };
  const fail = (expected: string, actual: string): AssertionOutcome => ({
    ...base,
    passed: false,
    expected,
    actual,
    message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual),
  });
  const { subject } = assertion;
  switch (subject.kind) {
    case 'status': {
      // By name (OK, NOT_FOUND), or by code when the expected value is a number; shown by name and code.
      const outcome = checkValue(
        assertion,
        /^\s*\d+\s*$/.test(assertion.expected ?? '') ? answer.status.code : answer.status.name,
      );
      if (outcome.passed || outcome.expected === undefined) return outcome;
      const failed = fail(
        outcome.expected,
        `${answer.status.name} (${answer.status.code})${answer.status.message ? `: ${answer.status.message}` : ''}`,
      );
      return outcome.diff ? { ...failed, diff: outcome.diff } : failed;
    }
    case 'grpcMessages':
      return checkValue(assertion, answer.messages.length);
    case 'duration':
      return checkValue(assertion, Math.round(answer.durationMs));
    case 'header': {
      const wanted = subject.name.toLowerCase();
      for (const view of [answer.headers, answer.trailers]) {
        const name = Object.keys(view).find((h) => h.toLowerCase() === wanted);
        if (name !== undefined) return checkValue(assertion, view[name].join(', '));
      }
      return checkValue(assertion, undefined, l10n.t('no {0} header or trailer', subject.name));
    }
    case 'tokenAccepted': {
      if (!REFUSED.has(answer.status.name)) return { ...base, passed: true };
      const actual = answer.status.message ? `${answer.status.name}: ${answer.status.message}` : answer.status.name;
      return {
        ...base,
        passed: false,
        expected: l10n.t('neither UNAUTHENTICATED nor PERMISSION_DENIED'),
        actual,
        message: answer.refusal?.length
          ? l10n.t('{0}: the server answered {1}. {2}', assertion.text, actual, answer.refusal.join(' '))
          : l10n.t('{0}: expected neither UNAUTHENTICATED nor PERMISSION_DENIED, actual {1}', assertion.text, actual),
      };
    }
    case 'body':
      return bodyOutcome(assertion, answer);
    default:
      return fail(l10n.t('a REST answer'), l10n.t('a gRPC call'));
  }
}

/** `?? body [path] …` on the one message of a unary call, or on every message of a stream. */
function bodyOutcome(assertion: Assertion, answer: GrpcAnswer): AssertionOutcome {
  const subject = assertion.subject.kind === 'body' ? assertion.subject : { kind: 'body' as const };
  const none = answer.serverStreaming
    ? l10n.t('the stream sent no message ({0})', answer.status.name)
    : l10n.t('no answer message ({0})', answer.status.name);
  const checkOne = (message: Record<string, unknown> | undefined): AssertionOutcome => {
    if (message === undefined) return checkValue(assertion, undefined, none);
    if (!subject.path) return checkValue(assertion, JSON.stringify(message));
    const read = readPath(message, subject.path);
    if (!read.found) return checkValue(assertion, undefined, l10n.t('the message has no {0}', read.missing));
    return checkValue(
      assertion,
      read.value,
      read.missing === undefined ? undefined : l10n.t('the message has no {0}', read.missing),
    );
  };
  if (!answer.serverStreaming || answer.messages.length === 0) return checkOne(answer.messages[0]);
  for (let i = 0; i < answer.messages.length; i++) {
    const outcome = checkOne(answer.messages[i]);
    if (outcome.passed) continue;
    return {
      ...outcome,
      message: l10n.t('message {0} of {1}: {2}', i + 1, answer.messages.length, outcome.message ?? ''),
    };
  }
  return { text: assertion.text, line: assertion.line, column: assertion.column, passed: true };
}
