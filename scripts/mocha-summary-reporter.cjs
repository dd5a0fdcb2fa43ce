// Spec reporter that also writes { passes, failures, pending, tests } to $TEST_RESULT_FILE,
// so scripts/test.mjs can sum every layer into one "N passed, M failed" line.
const Mocha = require('mocha');
const fs = require('fs');
const path = require('path');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const file = process.env.TEST_RESULT_FILE;
      if (!file) return;
      const s = runner.stats || {};
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ passes: s.passes || 0, failures: s.failures || 0, pending: s.pending || 0, tests: s.tests || 0 }));
    });
  }
}
module.exports = SummaryReporter;
