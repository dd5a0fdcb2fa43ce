// A run as JUnit XML, the form Jenkins, GitLab and GitHub's report actions read (validated against the Jenkins
// xunit plugin's junit-10.xsd in the tests): a testsuite per file, a testcase per request, a failure naming each
// failed assertion with its expected and actual value. Tokens never appear: a request's jti and a masked kid do.
import { redactSecrets } from '../base';
import type { RequestRun } from './contractRun';

/** Characters XML 1.0 cannot hold, even escaped: C0 controls but tab and newlines, U+FFFE, U+FFFF and lone surrogates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(text: string): string {
  return redactSecrets(text)
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;');
}

/** Element text: newlines kept as they are. */
function xmlText(text: string): string {
  return xml(text).replace(/&#10;/g, '\n');
}

/** Seconds with three decimals, the form the schema's SUREFIRE_TIME allows. */
function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** What a request's failure says: each failed assertion at its line, or the reason it could not be sent. */
export function failureLines(run: RequestRun): string[] {
  if (run.error !== undefined) return [run.error];
  return run.outcomes.filter((o) => !o.passed).map((o) => `${run.file}:${o.line + 1}:${o.column + 1}: ${o.message ?? o.text}`);
}

/** The JUnit XML of a run: `files` in order (a file without requests is an empty suite), `runs` grouped under them. */
export function junitReport(files: readonly string[], runs: readonly RequestRun[], options: { name: string; timestamp: Date }): string {
  const suites = files.map((file) => ({ file, runs: runs.filter((r) => r.file === file) }));
  const count = (list: readonly RequestRun[]) => ({
    tests: list.length,
    failures: list.filter((r) => !r.passed && !r.skipped && r.error === undefined).length + list.filter((r) => r.skipped && !r.passed).length,
    errors: list.filter((r) => r.error !== undefined).length,
    skipped: list.filter((r) => r.skipped && r.passed).length,
    ms: list.reduce((n, r) => n + r.durationMs, 0),
  });
  const all = count(runs);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xml(options.name)}" tests="${all.tests}" failures="${all.failures}" errors="${all.errors}" time="${seconds(all.ms)}">`];
  const stamp = options.timestamp.toISOString().replace(/\.\d{3}Z$/, '');
  suites.forEach((suite, id) => {
    const c = count(suite.runs);
    lines.push(`  <testsuite name="${xml(suite.file)}" tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(c.ms)}" timestamp="${stamp}" id="${id}" file="${xml(suite.file)}">`);
    for (const run of suite.runs) {
      lines.push(`    <testcase name="${xml(run.label)}" classname="${xml(suite.file)}" time="${seconds(run.durationMs)}">`);
      const failed = failureLines(run);
      if (run.error !== undefined) {
        lines.push(`      <error type="RequestError" message="${xml(run.error)}">${xmlText(run.error)}</error>`);
      } else if (run.skipped && run.passed) {
        lines.push(`      <skipped message="${xml(run.skipped)}"/>`);
      } else if (!run.passed) {
        const first = run.outcomes.find((o) => !o.passed);
        lines.push(`      <failure type="AssertionError" message="${xml(first?.message ?? first?.text ?? '')}">${xmlText(failed.join('\n'))}</failure>`);
      }
      const said = [
        run.url !== undefined ? `GET ${run.url}` : undefined,
        run.status !== undefined ? `${run.status} ${run.statusText ?? ''}`.trim() + (run.pages > 1 ? `, ${run.pages} pages` : '') : undefined,
        ...run.tokens.map((t, i) => `token${run.tokens.length > 1 ? ` ${i + 1}` : ''}: jti ${t.jti}, kid ${t.kid}`),
        ...run.outcomes.filter((o) => o.passed).map((o) => `passed: ${o.text}`),
      ].filter((l): l is string => l !== undefined);
      if (said.length) lines.push(`      <system-out>${xmlText(said.join('\n'))}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  });
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
