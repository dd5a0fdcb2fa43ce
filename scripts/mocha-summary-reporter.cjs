// Spec reporter that also writes { passes, failures, pending, tests, files } to $TEST_RESULT_FILE,
// so scripts/test.mjs can sum every layer into one "N passed, M failed" line, and prints how long
// each test file took (its top-level suites, hooks included), slowest first, so CI's log shows
// where the suite's time goes.
const Mocha = require('mocha');
const fs = require('fs');
const path = require('path');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    /** Milliseconds per test file, summed over its top-level suites. */
    const fileMs = new Map();
    const started = new Map();
    const fileOf = (suite) => path.relative(process.cwd(), suite.file || '(no file)');
    runner.on('suite', (suite) => {
      if (suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on('suite end', (suite) => {
      const start = started.get(suite);
      if (start === undefined) return;
      started.delete(suite);
      fileMs.set(fileOf(suite), (fileMs.get(fileOf(suite)) || 0) + Date.now() - start);
    });
    runner.once('end', () => {
      const files = [...fileMs].sort((a, b) => b[1] - a[1]);
      if (files.length) {
        const width = Math.max(...files.map(([f]) => f.length));
        console.log('\n  Time per test file, slowest first:');
        for (const [file, ms] of files)
          console.log(`    ${file.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(7)} s`);
      }
      const file = process.env.TEST_RESULT_FILE;
      if (!file) return;
      const s = runner.stats || {};
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const seconds = Object.fromEntries(files.map(([f, ms]) => [f, Math.round(ms / 100) / 10]));
      fs.writeFileSync(
        file,
        JSON.stringify({
          passes: s.passes || 0,
          failures: s.failures || 0,
          pending: s.pending || 0,
          tests: s.tests || 0,
          seconds,
        }),
      );
    });
  }
}
module.exports = SummaryReporter;
