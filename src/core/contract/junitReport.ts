// A run as JUnit XML, the form Jenkins, GitLab and GitHub's report actions read (validated against the Jenkins
// xunit plugin's junit-10.xsd in the tests): a testsuite per file, a testcase per request, a failure naming each
// failed assertion with its expected and actual value; a request sent with no assertion (`--all`) is skipped, with why. Tokens never appear: a request's jti and a masked kid do.
import * as l10n from '@vscode/l10n';
import type { JunitCase } from '../base';
import { junitXml } from '../base';
import type { RequestRun } from './contractRun';

/** What a request's failure says: each failed assertion at its line, or the reason it could not be sent. */
export function failureLines(run: RequestRun): string[] {
  if (run.error !== undefined) return [run.error];
  return run.outcomes
    .filter((o) => !o.passed)
    .map((o) => `${run.file}:${o.line + 1}:${o.column + 1}: ${o.message ?? o.text}`);
}

/** The JUnit XML of a run: `files` in order (a file without requests is an empty suite), `runs` grouped under them. */
export function junitReport(
  files: readonly string[],
  runs: readonly RequestRun[],
  options: { name: string; timestamp: Date },
): string {
  const caseOf = (run: RequestRun): JunitCase => {
    const said = [
      run.url !== undefined ? `${run.grpc || run.grpcStatus !== undefined ? 'GRPC' : 'GET'} ${run.url}` : undefined,
      run.status !== undefined
        ? `${run.status} ${run.statusText ?? ''}`.trim() + (run.pages > 1 ? `, ${run.pages} pages` : '')
        : undefined,
      run.grpcStatus !== undefined ? `${run.grpcStatus} ${run.statusText ?? ''}`.trim() : undefined,
      ...run.tokens.map((t, i) => `token${run.tokens.length > 1 ? ` ${i + 1}` : ''}: jti ${t.jti}, kid ${t.kid}`),
      ...run.outcomes.filter((o) => o.passed).map((o) => `passed: ${o.text}`),
    ].filter((l): l is string => l !== undefined);
    const first = run.outcomes.find((o) => !o.passed);
    return {
      name: run.label,
      classname: run.file,
      ms: run.durationMs,
      ...(run.error !== undefined
        ? { error: { type: 'RequestError', message: run.error, text: run.error } }
        : run.skipped && run.passed
          ? { skipped: run.skipped }
          : run.untested && run.passed
            ? // Sent, but it checks nothing: a CI reader sees a skipped test with the reason, not a pass.
              { skipped: l10n.t('sent, not tested: the request has no assertion (?? status == 200, …)') }
            : !run.passed
              ? {
                  failure: {
                    type: 'AssertionError',
                    message: first?.message ?? first?.text ?? run.skipped ?? '',
                    text: failureLines(run).join('\n') || (run.skipped ?? ''),
                  },
                }
              : {}),
      out: said.join('\n'),
    };
  };
  return junitXml(
    options.name,
    files.map((file) => ({ name: file, file, cases: runs.filter((r) => r.file === file).map(caseOf) })),
    options.timestamp,
  );
}
