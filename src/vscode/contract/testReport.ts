// How a contract test's run is told to VS Code's Testing view: each request's output line, its verdict (passed, failed
// at each assertion's line, errored, skipped), the failures' links to the answer in the results panel, and the outcomes
// kept for the integration tests.
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { RequestRun } from '../../core/contract';
import { plural } from '../../shared/format';
import { COMMANDS } from '../platform/commandIds';

/**
 * The `contextValue` of a test message whose test has a result in the results panel (the menus' `when`): Open Result
 * in its context menu, and as the button over the peek. A diff's peek (expected | actual) gets the context menu only,
 * as the button sits over its Actual column.
 */
const RESULT_MESSAGE = 'mobilityApi.result';
const RESULT_DIFF_MESSAGE = 'mobilityApi.resultDiff';

/** Where a test's last answer is: the result `resultId` in the history of `environmentId`'s results panel. */
export interface TestResultLink {
  environmentId: string;
  resultId: string;
}

/** A test's last outcome as reported to VS Code, kept for the integration tests (no token in it). */
export interface ContractTestOutcome {
  state: 'passed' | 'failed' | 'errored' | 'skipped';
  messages: {
    message: string;
    line?: number;
    expected?: string;
    actual?: string;
    contextValue?: string;
    /** A Markdown message's command link: its command, its arguments, and the commands the message trusts. */
    link?: { command: string; args: unknown; trusted: readonly string[] | boolean };
  }[];
  /** The answer in the results panel, when the request got one. */
  result?: TestResultLink;
}

/**
 * One request's outcome: its output line (linked to the request's line), and passed, failed at each assertion's line,
 * or errored. A failure's messages link to the answer in the results panel (`link`): each message's context menu and
 * the button over its peek, and a Markdown command link in the messages that are not a diff (VS Code shows a diff's
 * message as plain text).
 */
export function report(
  run: vscode.TestRun,
  verdict: Verdicts,
  test: vscode.TestItem,
  uri: vscode.Uri,
  environment: Environment,
  result: RequestRun,
  link: TestResultLink | undefined,
): void {
  const at = (line: number, column = 0) => new vscode.Location(uri, new vscode.Position(line, column));
  const status =
    result.status !== undefined ? `${result.status} ${result.statusText ?? ''}`.trim() : (result.grpcStatus ?? '');
  const failed = result.outcomes.filter((o) => !o.passed);
  const said =
    result.error !== undefined
      ? vscode.l10n.t('no answer')
      : failed.length
        ? vscode.l10n.t('{0} of {1} failed', failed.length, plural(result.outcomes.length, 'assertion'))
        : vscode.l10n.t('{0} passed', plural(result.outcomes.length, 'assertion'));
  run.appendOutput(
    `${vscode.l10n.t('{0} on {1}: {2} · {3} ms · {4}', result.label, environment.name, status, result.durationMs, said)}\r\n`,
    at(result.line),
    test,
  );
  // Only the request's line is linked (and shown beside it in the editor); the failures are the test's messages.
  for (const token of result.tokens)
    run.appendOutput(`  ${vscode.l10n.t('token: jti {0}, kid {1}', token.jti, token.kid)}\r\n`, undefined, test);
  for (const o of failed)
    run.appendOutput(`  ${vscode.l10n.t('line {0}: {1}', o.line + 1, o.message ?? o.text)}\r\n`, undefined, test);
  if (link)
    run.appendOutput(
      `  ${vscode.l10n.t("The answer is in the results panel of {0}: Open Result in the test's context menu shows it.", environment.name)}\r\n`,
      undefined,
      test,
    );
  if (result.error !== undefined) {
    const message = new vscode.TestMessage(result.error);
    message.location = at(result.line);
    verdict.errored(test, message, result.durationMs, link);
  } else if (result.skipped !== undefined && result.passed) {
    verdict.skipped(test);
  } else if (result.passed) {
    verdict.passed(test, result.durationMs, link);
  } else {
    verdict.failed(
      test,
      failed.map((o) => {
        const text = o.message ?? o.text;
        const message = o.diff
          ? vscode.TestMessage.diff(text, o.diff.expected, o.diff.actual)
          : new vscode.TestMessage(link ? linkedText(text, link) : text);
        message.location = at(o.line, o.column);
        if (link) message.contextValue = o.diff ? RESULT_DIFF_MESSAGE : RESULT_MESSAGE;
        return message;
      }),
      result.durationMs,
      link,
    );
  }
}

/** `text` (server text among it, escaped) and a link to the result, trusted for Open Result alone. */
function linkedText(text: string, link: TestResultLink): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString();
  markdown.appendText(text);
  markdown.appendMarkdown(
    `\n\n[${vscode.l10n.t('Open the answer in the results panel')}](command:${COMMANDS.openTestResult}?${encodeURIComponent(JSON.stringify([link]))})`,
  );
  markdown.isTrusted = { enabledCommands: [COMMANDS.openTestResult] };
  return markdown;
}

/** The outcomes of a run, reported to VS Code and kept in `outcomes` for the tests; each test's answer in `results`. */
export interface Verdicts {
  passed(test: vscode.TestItem, duration?: number, link?: TestResultLink): void;
  failed(test: vscode.TestItem, messages: vscode.TestMessage[], duration?: number, link?: TestResultLink): void;
  errored(test: vscode.TestItem, message: vscode.TestMessage, duration?: number, link?: TestResultLink): void;
  skipped(test: vscode.TestItem): void;
}

/** A Markdown message's command link, read back for the tests. */
function linkIn(message: vscode.TestMessage): ContractTestOutcome['messages'][number]['link'] {
  if (typeof message.message === 'string') return undefined;
  const found = /\(command:([\w.]+)\?([^)]*)\)/.exec(message.message.value);
  if (!found) return undefined;
  const trusted = message.message.isTrusted;
  return {
    command: found[1],
    args: JSON.parse(decodeURIComponent(found[2])) as unknown,
    trusted: typeof trusted === 'object' ? trusted.enabledCommands : !!trusted,
  };
}

export function verdicts(
  run: vscode.TestRun,
  outcomes: Map<string, ContractTestOutcome>,
  results: Map<string, TestResultLink>,
): Verdicts {
  const keep = (
    test: vscode.TestItem,
    state: ContractTestOutcome['state'],
    messages: vscode.TestMessage[] = [],
    link?: TestResultLink,
  ) => {
    if (link) results.set(test.id, link);
    else results.delete(test.id);
    outcomes.set(test.id, {
      state,
      messages: messages.map((m) => {
        const linked = linkIn(m);
        return {
          message: typeof m.message === 'string' ? m.message : m.message.value,
          ...(m.location ? { line: m.location.range.start.line } : {}),
          ...(m.expectedOutput !== undefined ? { expected: m.expectedOutput } : {}),
          ...(m.actualOutput !== undefined ? { actual: m.actualOutput } : {}),
          ...(m.contextValue !== undefined ? { contextValue: m.contextValue } : {}),
          ...(linked ? { link: linked } : {}),
        };
      }),
      ...(link ? { result: link } : {}),
    });
  };
  return {
    passed: (test, duration, link) => {
      keep(test, 'passed', [], link);
      run.passed(test, duration);
    },
    failed: (test, messages, duration, link) => {
      keep(test, 'failed', messages, link);
      run.failed(test, messages, duration);
    },
    errored: (test, message, duration, link) => {
      keep(test, 'errored', [message], link);
      run.errored(test, message, duration);
    },
    skipped: (test) => {
      keep(test, 'skipped');
      run.skipped(test);
    },
  };
}
