// JUnit reports checked as CI servers read them: against the Jenkins xunit plugin's junit-10.xsd, with xmllint.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const XSD = path.resolve('test/fixtures/junit/junit-10.xsd');

/** `xmllint` (Debian's libxml2-utils, installed by .ci/run): fails under CI=true when missing, else the test is pending. */
export function xmllint(context: Mocha.Context, args: string[]): { status: number | null; out: string; err: string } {
  const run = spawnSync('xmllint', args, { encoding: 'utf8' });
  if (run.error) {
    if (process.env.CI === 'true')
      assert.fail('xmllint is missing (apt-get install libxml2-utils; .ci/run installs it)');
    context.skip();
  }
  return { status: run.status, out: run.stdout, err: run.stderr };
}

/** The value of an XPath expression over a report, read by xmllint. */
export function xpath(context: Mocha.Context, file: string, expression: string): string {
  const run = xmllint(context, ['--xpath', expression, file]);
  assert.equal(run.status, 0, run.err);
  return run.out.trim();
}
