// One assertion checked against one answer (a page of a request): the value read as httpYac reads it, the
// condition applied, and on failure what was expected and what was found, in words.
import * as l10n from '@vscode/l10n';
import type { HttpExchange } from '../http';
import { itemsOf } from '../mds';
import type { MdsEndpointId } from '../mds';
import { guessMdsEndpoint, validateMdsResponse } from '../conformance';
import type { Assertion } from './assertion';
import { readPath } from './bodyPath';
import { convertExpected, digestOf } from './predicates';

/** The outcome of one assertion; on failure, the expected and the actual value in words. */
export interface AssertionOutcome {
  text: string;
  line: number;
  column: number;
  passed: boolean;
  /** What a passing value is: `== 200`, `a number`, `zero findings …`. */
  expected?: string;
  /** What was found: `201`, `(missing)`, `3 findings: …`. */
  actual?: string;
  /**
   * On the failure of a comparison of equality, the two values alone (no operator, no words), as an editor's diff
   * shows them: VS Code's Testing view writes `actual != expected` from these. Absent for other conditions
   * (`< 2000`, `includes`, `isNumber`…), where `expected` and `actual` in words say more than a diff.
   */
  diff?: { expected: string; actual: string };
  /** On failure, one line naming the assertion, the expected and the actual value (and the page of several). */
  message?: string;
  /** The 1-based page the failure was seen on, when the request followed several pages. */
  page?: number;
}

/** What evaluation needs besides the page. */
export interface EvaluationContext {
  /** The catalogue endpoint of the request, for `?? mds conformance` (else guessed from the body). */
  endpointId?: MdsEndpointId;
  /** The key of the answer that holds the items, when the catalogue knows it. */
  itemsKey?: string;
  /** The refusal doctor's explanation of a 401 or 403, as lines (src/results injects it: the core knows no view). */
  explainRefusal?: (page: HttpExchange) => string[] | undefined;
}

const SHOWN_CHARS = 200;
/** How much of a value a diff shows: more than a message line, never a whole large body. */
const DIFF_CHARS = 20_000;

/**
 * A value as a failure message shows it: text quoted, JSON for the rest, cut short. Our own secrets that a server
 * echoed (a token, the kid) are hidden by the runner, by value (`withoutOwnSecrets`): a server's own values stay.
 */
export function showValue(value: unknown): string {
  if (value === undefined) return l10n.t('(missing)');
  const text = JSON.stringify(value) ?? typeof value;
  const safe = text.replace(/\s+/g, ' ');
  return safe.length > SHOWN_CHARS ? `${safe.slice(0, SHOWN_CHARS)}…` : safe;
}

/** A value as a diff shows it: text as it is, other values as indented JSON, cut short (secrets: see `showValue`). */
function diffValue(value: unknown): string {
  const safe = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  return safe.length > DIFF_CHARS ? `${safe.slice(0, DIFF_CHARS)}…` : safe;
}

/** What a unary condition asks for, in words. */
function unaryExpectation(operator: string): string {
  switch (operator) {
    case 'exists':
    case 'isTrue':
      return l10n.t('a value that exists (not empty, false, 0 or null)');
    case 'isFalse':
      return l10n.t('no value, or an empty, false, 0 or null one');
    case 'isNumber':
      return l10n.t('a number');
    case 'isBoolean':
      return l10n.t('true or false');
    case 'isString':
      return l10n.t('a text');
    default:
      return l10n.t('a list');
  }
}

/** Checks `assertion` against `page`. `?? mds pages` is the run's (contractRun.ts), not a page's: it passes here. */
export function evaluateAssertion(
  assertion: Assertion,
  page: HttpExchange,
  context: EvaluationContext = {},
): AssertionOutcome {
  const base = { text: assertion.text, line: assertion.line, column: assertion.column };
  const pass = (): AssertionOutcome => ({ ...base, passed: true });
  const fail = (expected: string, actual: string): AssertionOutcome => ({
    ...base,
    passed: false,
    expected,
    actual,
    message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual),
  });
  const { subject } = assertion;

  if (subject.kind === 'mdsPages') return pass();
  if (subject.kind === 'tokenAccepted') {
    if (page.status !== 401 && page.status !== 403) return pass();
    const why = context.explainRefusal?.(page);
    const actual = `${page.status} ${page.statusText}`.trim();
    return {
      ...base,
      passed: false,
      expected: l10n.t('no 401 or 403'),
      actual,
      message: why?.length
        ? l10n.t('{0}: the server answered {1}. {2}', assertion.text, actual, why.join(' '))
        : l10n.t('{0}: expected no 401 or 403, actual {1}', assertion.text, actual),
    };
  }
  // A successful answer whose body is not JSON (an HTML page) fails what reads the body, with the reason.
  const readsBody =
    subject.kind === 'mdsConformance' ||
    subject.kind === 'mdsItems' ||
    (subject.kind === 'body' && subject.path !== undefined);
  if (readsBody && page.ok && page.bodyProblem && page.bodyKind !== 'json' && page.bodyKind !== 'csv')
    return fail(
      subject.kind === 'mdsConformance'
        ? l10n.t('zero findings against the official MDS 2.0 schemas')
        : describeExpected(assertion),
      page.bodyProblem,
    );
  if (subject.kind === 'mdsConformance') return conformanceOutcome(page, context, fail, pass);

  let value: unknown;
  let missing: string | undefined;
  switch (subject.kind) {
    case 'status':
      value = page.status;
      break;
    case 'header': {
      const name = Object.keys(page.responseHeaders).find((h) => h.toLowerCase() === subject.name.toLowerCase());
      value = name === undefined ? undefined : page.responseHeaders[name];
      if (name === undefined) missing = l10n.t('no {0} header', subject.name);
      break;
    }
    case 'duration':
      value = Math.round(
        subject.timing === 'firstByte'
          ? page.timings.ttfbMs
          : subject.timing === 'download'
            ? page.timings.totalMs - page.timings.ttfbMs
            : page.timings.totalMs,
      );
      break;
    case 'mdsItems': {
      const count = page.bodyKind === 'csv' ? page.rows?.length : itemsOf(page.body, context.itemsKey)?.items.length;
      if (count === undefined)
        return fail(
          describeExpected(assertion),
          l10n.t('no item list in the answer ({0} {1})', page.status, page.statusText),
        );
      value = count;
      break;
    }
    case 'body': {
      const text = bodyText(page);
      if (!subject.path) {
        value = text;
        break;
      }
      const read = readPath(page.bodyKind === 'json' ? page.body : text, subject.path);
      if (!read.found) return fail(describeExpected(assertion), l10n.t('the body has no {0}', read.missing));
      value = read.value;
      if (read.missing !== undefined) missing = l10n.t('the body has no {0}', read.missing);
      break;
    }
  }

  return checkValue(assertion, value, missing);
}

/**
 * The assertion's condition applied to `value` (read by the caller); `missing` says in words what was not there
 * (`no content-type header`). Shared by REST pages and gRPC answers.
 */
export function checkValue(assertion: Assertion, value: unknown, missing?: string): AssertionOutcome {
  const base = { text: assertion.text, line: assertion.line, column: assertion.column };
  const predicate = assertion.predicate;
  if (!predicate) return { ...base, passed: true };
  const fail = (expected: string, actual: string): AssertionOutcome => ({
    ...base,
    passed: false,
    expected,
    actual,
    message: l10n.t('{0}: expected {1}, actual {2}', assertion.text, expected, actual),
  });
  // A missing value fails every condition but those about presence: httpYac's `exists` and `isFalse` read it as undefined.
  if (
    missing !== undefined &&
    !['exists', 'isTrue', 'isFalse', '!=', '!==', 'not equals'].includes(assertion.operator ?? '')
  ) {
    return fail(describeExpected(assertion), missing);
  }
  const expected = predicate.noAutoConvert ? assertion.expected : convertExpected(value, assertion.expected);
  if (predicate.match(value, expected)) return { ...base, passed: true };
  // A hash condition fails with the digest of what was read, the value it compares.
  const digest = missing === undefined ? digestOf(assertion.operator ?? '', value) : undefined;
  const failed = fail(
    describeExpected(assertion),
    missing ??
      (digest !== undefined
        ? l10n.t('{0} {1} (of {2})', assertion.operator ?? '', digest, showValue(value))
        : showValue(value)),
  );
  if (predicate.diffable && missing === undefined)
    failed.diff = {
      expected: diffValue(expected === undefined ? (assertion.expected ?? '') : expected),
      actual: diffValue(value),
    };
  return failed;
}

function describeExpected(assertion: Assertion): string {
  if (assertion.predicate?.unary) return unaryExpectation(assertion.operator ?? '');
  // As written (`endsWith 01`, not the number 1 it converts to; `== ""` for an empty value).
  const shown = assertion.expected === undefined || assertion.expected === '' ? '""' : assertion.expected;
  return `${assertion.operator ?? ''} ${shown}`.trim();
}

/** The body as text, as httpYac's `response.body`: undefined when there is none. */
function bodyText(page: HttpExchange): string | undefined {
  if (page.bodyKind === 'empty') return undefined;
  if (page.text !== undefined) return page.text;
  if (typeof page.body === 'string') return page.body;
  return JSON.stringify(page.body);
}

function conformanceOutcome(
  page: HttpExchange,
  context: EvaluationContext,
  fail: (expected: string, actual: string) => AssertionOutcome,
  pass: () => AssertionOutcome,
): AssertionOutcome {
  const expected = l10n.t('zero findings against the official MDS 2.0 schemas');
  if (!page.ok || page.status === 202)
    return fail(expected, l10n.t('{0} {1}: no MDS answer to check', page.status, page.statusText));
  const body = page.bodyKind === 'csv' ? (page.text ?? '') : page.body;
  const endpoint = context.endpointId ?? guessMdsEndpoint(body);
  if (!endpoint) return fail(expected, l10n.t('not the answer of an MDS 2.0 endpoint (no known payload)'));
  // The outcome says the verdict and its first rules; the official schema's own bugs (checked for the panel's note)
  // are not part of it, and checking them took a fifth of a test's time (docs/benchmarks.md).
  const report = validateMdsResponse(endpoint, body, { contentType: page.contentType, schemaBugs: false });
  if (report.conforms) return pass();
  const rules = report.rules.slice(0, 3).map((r) => l10n.t('{0} × {1} at {2}', r.count, r.message, r.where || '/'));
  const more = report.rules.length > 3 ? l10n.t('; {0} more rules', report.rules.length - 3) : '';
  return fail(
    l10n.t('{0} ({1}@{2})', expected, report.schemaSource.repository, report.schemaSource.commit.slice(0, 7)),
    l10n.t(
      '{0} findings in {1} of {2} items ({3}): {4}{5}',
      report.findingCount,
      report.itemsWithFindings,
      report.itemsChecked,
      endpoint,
      rules.join('; '),
      more,
    ),
  );
}
