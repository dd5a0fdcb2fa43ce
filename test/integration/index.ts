// The extensionTestsPath entry, the contract of @vscode/test-electron: VS Code loads this module in the
// extension host and calls run(); a rejection fails the run. The same bundle (out/test/integration/index.js)
// serves code-server (scripts/run-integration.mjs) and desktop VS Code (scripts/vscode-electron.mjs).
// It runs every *.test.js beside it, so a new topic needs only a new test/integration/<topic>.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

/** Runs the integration suite; rejects when a test fails or when there is no test to run. */
export function run(): Promise<void> {
  // The bundles carry inline source maps; where the host honours them, stack traces point into the .ts files
  // (code-server's extension host formats stacks itself, so there they name out/test/integration/*.js).
  process.setSourceMapsEnabled(true);
  const projectRoot = path.resolve(__dirname, '..', '..', '..');
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 30_000,
    // Writes the counts to $TEST_RESULT_FILE, which the extension host inherits from the VS Code process.
    reporter: path.join(projectRoot, 'scripts', 'mocha-summary-reporter.cjs'),
  });
  // INTEGRATION_FILES (comma-separated names such as "settings,shell") and INTEGRATION_GREP (a mocha --grep
  // pattern) narrow a run while iterating; the extension host inherits them from the shell that starts the run.
  const only = (process.env.INTEGRATION_FILES ?? '')
    .split(',')
    .map((f) => f.trim().replace(/(\.test)?\.[jt]s$/, ''))
    .filter(Boolean);
  if (process.env.INTEGRATION_GREP) mocha.grep(process.env.INTEGRATION_GREP);
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js') && (!only.length || only.includes(f.replace(/\.test\.js$/, ''))))
    .sort();
  for (const file of files) mocha.addFile(path.join(__dirname, file));
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed.`));
        else if (runner.stats?.tests === 0)
          reject(
            new Error(
              `No integration test ran: ${__dirname} holds no *.test.js. Build with node esbuild.js --integration.`,
            ),
          );
        else resolve();
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
