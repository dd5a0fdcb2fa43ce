// Spec reporter that also writes { passes, failures, pending, tests, files } to $TEST_RESULT_FILE,
// so scripts/test.mjs can sum every layer into one "N passed, M failed" line, and prints how long
// each test file took (its top-level suites, hooks included), slowest first, so CI's log shows
// where the suite's time goes: wall-clock seconds, and the processor seconds spent by this process and by
// the child processes it waited for (compilers, CLIs, workers), read from /proc on Linux. On two cores
// shared by four lanes the second figure is the one that costs the whole run time.
const Mocha = require('mocha');
const fs = require('fs');
const path = require('path');

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every Linux that Node runs on). */
const TICKS_PER_SECOND = 100;
/**
 * Processor milliseconds of this process (every thread) and of the children it has waited for, from
 * /proc/self/stat (utime, stime, cutime, cstime); undefined where there is no /proc.
 */
function cpuMs() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    /** Milliseconds per test file, summed over its top-level suites. */
    const fileMs = new Map();
    /** Processor milliseconds per test file (this process and its waited-for children), where /proc can tell. */
    const fileCpuMs = new Map();
    const started = new Map();
    const fileOf = (suite) => path.relative(process.cwd(), suite.file || '(no file)');
    runner.on('suite', (suite) => {
      if (suite.parent && suite.parent.root) started.set(suite, { at: Date.now(), cpu: cpuMs() });
    });
    runner.on('suite end', (suite) => {
      const start = started.get(suite);
      if (start === undefined) return;
      started.delete(suite);
      const file = fileOf(suite);
      fileMs.set(file, (fileMs.get(file) || 0) + Date.now() - start.at);
      const cpu = cpuMs();
      if (cpu !== undefined && start.cpu !== undefined)
        fileCpuMs.set(file, (fileCpuMs.get(file) || 0) + cpu - start.cpu);
    });
    runner.once('end', () => {
      const files = [...fileMs].sort((a, b) => b[1] - a[1]);
      if (files.length) {
        const width = Math.max(...files.map(([f]) => f.length));
        const cpuKnown = fileCpuMs.size > 0;
        console.log(
          `\n  Time per test file, slowest first${cpuKnown ? ' (wall clock, then processor time with child processes)' : ''}:`,
        );
        for (const [file, ms] of files) {
          const cpu = cpuKnown ? `  ${((fileCpuMs.get(file) || 0) / 1000).toFixed(1).padStart(7)} s cpu` : '';
          console.log(`    ${file.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(7)} s${cpu}`);
        }
      }
      const file = process.env.TEST_RESULT_FILE;
      if (!file) return;
      const s = runner.stats || {};
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const seconds = Object.fromEntries(files.map(([f, ms]) => [f, Math.round(ms / 100) / 10]));
      const cpuSeconds = Object.fromEntries([...fileCpuMs].map(([f, ms]) => [f, Math.round(ms / 100) / 10]));
      fs.writeFileSync(
        file,
        JSON.stringify({
          passes: s.passes || 0,
          failures: s.failures || 0,
          pending: s.pending || 0,
          tests: s.tests || 0,
          seconds,
          cpuSeconds,
        }),
      );
    });
  }
}
module.exports = SummaryReporter;
