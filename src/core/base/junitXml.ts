// JUnit XML, the form Jenkins, GitLab and GitHub's report actions read (validated against the Jenkins xunit plugin's
// junit-10.xsd in the tests): suites of test cases, each passed, failed, in error or skipped. Every text is escaped;
// characters XML 1.0 cannot hold become U+FFFD. Texts come without our secrets (the contract runner hides an echoed
// token or kid by value): a server's values are written as they came.

/** Characters XML 1.0 cannot hold, even escaped: C0 controls but tab and newlines, U+FFFE, U+FFFF and lone surrogates. */
/* eslint-disable no-control-regex -- matching control characters is the point */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/* eslint-enable no-control-regex */

function xml(text: string): string {
  return text
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

/** One test case and how it ended: at most one of failure, error and skipped. */
export interface JunitCase {
  name: string;
  classname: string;
  ms: number;
  failure?: { type: string; message: string; text: string };
  error?: { type: string; message: string; text: string };
  skipped?: string;
  /** What the case printed, for the report's system-out. */
  out?: string;
}

/** One suite: a file of requests, say, or one report. */
export interface JunitSuite {
  name: string;
  file?: string;
  cases: readonly JunitCase[];
}

/** The whole report. */
export function junitXml(name: string, suites: readonly JunitSuite[], timestamp: Date): string {
  const count = (cases: readonly JunitCase[]) => ({
    tests: cases.length,
    failures: cases.filter((c) => c.failure).length,
    errors: cases.filter((c) => c.error).length,
    skipped: cases.filter((c) => c.skipped !== undefined).length,
    ms: cases.reduce((n, c) => n + c.ms, 0),
  });
  const all = count(suites.flatMap((s) => s.cases));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(name)}" tests="${all.tests}" failures="${all.failures}" errors="${all.errors}" time="${seconds(all.ms)}">`,
  ];
  const stamp = timestamp.toISOString().replace(/\.\d{3}Z$/, '');
  suites.forEach((suite, id) => {
    const c = count(suite.cases);
    lines.push(
      `  <testsuite name="${xml(suite.name)}" tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(c.ms)}" timestamp="${stamp}" id="${id}"${suite.file !== undefined ? ` file="${xml(suite.file)}"` : ''}>`,
    );
    for (const test of suite.cases) {
      lines.push(
        `    <testcase name="${xml(test.name)}" classname="${xml(test.classname)}" time="${seconds(test.ms)}">`,
      );
      if (test.error)
        lines.push(
          `      <error type="${xml(test.error.type)}" message="${xml(test.error.message)}">${xmlText(test.error.text)}</error>`,
        );
      else if (test.failure)
        lines.push(
          `      <failure type="${xml(test.failure.type)}" message="${xml(test.failure.message)}">${xmlText(test.failure.text)}</failure>`,
        );
      else if (test.skipped !== undefined) lines.push(`      <skipped message="${xml(test.skipped)}"/>`);
      if (test.out) lines.push(`      <system-out>${xmlText(test.out)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  });
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
