// httpYac's assertion lines under a request, read into assertions with their positions:
//
//     ?? status == 200
//     ?? header content-type includes json
//     ?? body contains "vehicles"
//     ?? body vehicles[0].device_id isString
//     ?? duration < 2000
//
// `??`, a field (status, header <name>, body [path], duration [timing]), a condition (predicates.ts) and the
// expected value, the rest of the line. Ours, for this API family: `?? mds conformance`, `?? mds items > 0`,
// `?? mds pages`, `?? token accepted`. httpYac's script forms (`?? js …`, `?? xpath …`) are read and reported as
// not supported here: no user script runs in the extension host or the CLI.
import * as l10n from '@vscode/l10n';
import type { AssertionLine } from '../http';
import type { PathStep } from './bodyPath';
import { parseBodyPath, pathText } from './bodyPath';
import type { Predicate } from './predicates';
import { predicateAt, predicateIds } from './predicates';

/** The timings httpYac names after `duration`; ours are the total, the first byte and the download. */
export type DurationTiming = 'total' | 'firstByte' | 'download';

/** What an assertion reads. */
export type AssertionSubject =
  | { kind: 'status' }
  | { kind: 'header'; name: string }
  | { kind: 'duration'; timing: DurationTiming }
  | { kind: 'body'; path?: PathStep[] }
  | { kind: 'mdsItems' }
  | { kind: 'mdsConformance' }
  | { kind: 'mdsPages' }
  | { kind: 'tokenAccepted' }
  /** A GRPC request's count of answer messages (`?? messages > 0`). */
  | { kind: 'grpcMessages' };

/** One assertion line, read. */
export interface Assertion {
  /** As written, from `??` on. */
  text: string;
  /** 0-based line and column of `??`. */
  line: number;
  column: number;
  subject: AssertionSubject;
  /** What is read, as httpYac names it in its messages: `status`, `content-type`, `vehicles.length`, `mds items`. */
  field: string;
  /** The condition and its id as written; absent for our checks that take none (`mds conformance`, `mds pages`, `token accepted`). */
  predicate?: Predicate;
  operator?: string;
  /** The expected value as written (its `{{variables}}` not yet substituted). */
  expected?: string;
}

/** A line that is no assertion we can run: malformed (fix it), or a form not supported here (`unsupported`). */
export interface AssertionProblem {
  text: string;
  /** 0-based line; 0-based column and length of the part at fault. */
  line: number;
  column: number;
  length: number;
  message: string;
  unsupported: boolean;
}

const DURATION_TIMINGS: Record<string, DurationTiming> = {
  total: 'total',
  firstByte: 'firstByte',
  download: 'download',
};
/** httpYac's timings that this client does not measure apart. */
const UNMEASURED_TIMINGS = new Set(['wait', 'request', 'tcp', 'tls']);

/** Reads one `??` line. */
export function parseAssertion(source: AssertionLine): { assertion: Assertion } | { problem: AssertionProblem } {
  const { text, line, column } = source;
  let at = 2;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  /** The next word (up to a space), moving past it. */
  const word = () => {
    skipSpace();
    const start = at;
    while (at < text.length && !/\s/.test(text[at])) at++;
    return { value: text.slice(start, at), start };
  };
  const problem = (message: string, start: number, end = text.length, unsupported = false) => ({
    problem: { text, line, column: column + start, length: Math.max(1, end - start), message, unsupported },
  });
  const examples =
    'status, header <name>, body [path], duration, messages, mds conformance, mds items, mds pages, token accepted';

  const type = word();
  let subject: AssertionSubject;
  let field = type.value;
  let needsPredicate = true;
  switch (type.value) {
    case 'status':
      subject = { kind: 'status' };
      break;
    case 'header': {
      skipSpace();
      const name = word();
      if (!name.value || predicateAt(name.value))
        return problem(l10n.t('Name the header: "?? header content-type includes json".'), name.start);
      subject = { kind: 'header', name: name.value };
      field = name.value;
      break;
    }
    case 'duration': {
      skipSpace();
      const save = at;
      const timing = word();
      if (Object.hasOwn(DURATION_TIMINGS, timing.value)) {
        subject = { kind: 'duration', timing: DURATION_TIMINGS[timing.value] };
        field = `duration ${timing.value}`;
      } else if (UNMEASURED_TIMINGS.has(timing.value)) {
        return problem(
          l10n.t(
            '"duration {0}" is not supported here: this client measures the total, firstByte and download times only.',
            timing.value,
          ),
          timing.start,
          timing.start + timing.value.length,
          true,
        );
      } else {
        at = save;
        subject = { kind: 'duration', timing: 'total' };
      }
      break;
    }
    case 'body': {
      skipSpace();
      if (at < text.length && !predicateAt(text.slice(at))) {
        const start = at;
        at = endOfPath(text, at);
        const written = text.slice(start, at);
        const path = parseBodyPath(written);
        if ('problem' in path) return problem(path.problem, start + path.offset, at, path.unsupported);
        subject = { kind: 'body', path: path.steps };
        field = pathText(path.steps);
      } else {
        subject = { kind: 'body' };
      }
      break;
    }
    case 'messages':
      subject = { kind: 'grpcMessages' };
      break;
    case 'js':
    case 'xpath':
      return problem(
        l10n.t(
          '"?? {0}" is not supported here: no user script runs in the extension or the CLI. Assert the body with "?? body <path> …" instead.',
          type.value,
        ),
        type.start,
        text.length,
        true,
      );
    case 'mds': {
      const what = word();
      if (what.value === 'items') {
        subject = { kind: 'mdsItems' };
        field = 'mds items';
        break;
      }
      if (what.value === 'conformance' || what.value === 'pages') {
        subject = what.value === 'pages' ? { kind: 'mdsPages' } : { kind: 'mdsConformance' };
        field = `mds ${what.value}`;
        needsPredicate = false;
        break;
      }
      return problem(
        l10n.t(
          '"{0}" is no MDS check: write "?? mds conformance", "?? mds items > 0" or "?? mds pages".',
          what.value || 'mds',
        ),
        what.value ? what.start : type.start,
      );
    }
    case 'token': {
      const what = word();
      if (what.value !== 'accepted')
        return problem(
          l10n.t('Write "?? token accepted": it fails when the server refuses the token (401 or 403).'),
          what.value ? what.start : type.start,
        );
      subject = { kind: 'tokenAccepted' };
      field = 'token accepted';
      needsPredicate = false;
      break;
    }
    case '':
      return problem(l10n.t('"??" asserts nothing: write what to check, as in "?? status == 200" ({0}).', examples), 0);
    default:
      return problem(
        l10n.t('"{0}" is not a field an assertion can read: use {1}.', type.value, examples),
        type.start,
        type.start + type.value.length,
      );
  }

  skipSpace();
  if (!needsPredicate) {
    if (at < text.length)
      return problem(l10n.t('"?? {0}" takes no condition: remove "{1}".', field, text.slice(at)), at);
    return { assertion: { text, line, column, subject, field } };
  }
  const found = predicateAt(text.slice(at));
  if (!found) {
    const next = word();
    return next.value
      ? problem(
          l10n.t('"{0}" is not a condition: use one of {1}.', next.value, predicateIds().join(', ')),
          next.start,
          next.start + next.value.length,
        )
      : problem(l10n.t('"{0}" needs a condition and a value, as in "?? status == 200".', text), 0);
  }
  const operatorStart = at;
  at += found.id.length;
  const expected = text.slice(at).trim();
  if (found.predicate.unary && expected)
    return problem(l10n.t('"{0}" takes no value: remove "{1}".', found.id, expected), text.indexOf(expected, at));
  if (!found.predicate.unary && !expected && !found.predicate.emptyExpected)
    return problem(
      l10n.t('"{0}" needs a value to compare with, as in "?? status {0} 200".', found.id),
      operatorStart,
      at,
    );
  const assertion: Assertion = { text, line, column, subject, field, predicate: found.predicate, operator: found.id };
  if (!found.predicate.unary) assertion.expected = expected;
  return { assertion };
}

/** The end of a body path starting at `start`: the first space outside `[…]` and quotes. */
function endOfPath(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth <= 0 && /\s/.test(c)) break;
  }
  return i;
}

/**
 * Why `assertion` cannot check a request of this kind, or undefined: `?? messages` counts a GRPC request's answer
 * messages; `?? mds …` reads an MDS REST answer; a gRPC call has no first-byte or download time of its own.
 */
export function protocolProblem(assertion: Assertion, grpc: boolean): AssertionProblem | undefined {
  const at = (message: string): AssertionProblem => ({
    text: assertion.text,
    line: assertion.line,
    column: assertion.column,
    length: assertion.text.length,
    message,
    unsupported: false,
  });
  const { subject } = assertion;
  if (!grpc && subject.kind === 'grpcMessages')
    return at(
      l10n.t(
        '"?? messages" counts the answer messages of a GRPC request; this is a REST request: use "?? mds items > 0" or "?? body <path> …".',
      ),
    );
  if (grpc && (subject.kind === 'mdsItems' || subject.kind === 'mdsConformance' || subject.kind === 'mdsPages')) {
    return at(
      l10n.t(
        '"?? {0}" reads an MDS REST answer; this is a GRPC request: use "?? messages > 0", "?? status == OK" or "?? body <path> …".',
        assertion.field,
      ),
    );
  }
  if (grpc && subject.kind === 'duration' && subject.timing !== 'total')
    return at(l10n.t('A gRPC call is timed as a whole: write "?? duration < 2000", not "{0}".', assertion.field));
  return undefined;
}

/** Reads every `??` line of a request. */
export function parseAssertions(lines: readonly AssertionLine[]): {
  assertions: Assertion[];
  problems: AssertionProblem[];
} {
  const assertions: Assertion[] = [];
  const problems: AssertionProblem[] = [];
  for (const line of lines) {
    const read = parseAssertion(line);
    if ('problem' in read) problems.push(read.problem);
    else assertions.push(read.assertion);
  }
  return { assertions, problems };
}
