#!/usr/bin/env node
// `npm run test:electron`: the same integration suite (out/test/integration/index.js) in desktop VS Code
// through @vscode/test-electron, as the VS Code docs describe. It downloads VS Code into .vscode-test/ on
// first use, so it needs internet (this project's CI has none and runs test:integration instead).
// Headless Linux needs a display: xvfb-run -a npm run test:electron.
// Env: VSCODE_VERSION (default "stable"), VSCODE_EXECUTABLE_PATH (a VS Code already on the machine, no
// download), TEST_RESULT_FILE (counts, default test-results/electron.json).
import fs from 'node:fs';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { CACHE_DIR, PROJECT_ROOT, build, fail, log } from './vscode-env.mjs';

async function main() {
  build(['--integration']);
  const workspace = path.join(CACHE_DIR, 'runs', 'electron', 'workspace');
  fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Integration test workspace\n');
  const resultFile = path.resolve(
    process.env.TEST_RESULT_FILE || path.join(PROJECT_ROOT, 'test-results', 'electron.json'),
  );
  log(
    `@vscode/test-electron: VS Code ${process.env.VSCODE_VERSION || 'stable'} (downloaded into .vscode-test/ on first use)`,
  );
  const code = await runTests({
    version: process.env.VSCODE_VERSION || 'stable',
    vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH || undefined,
    cachePath: CACHE_DIR,
    extensionDevelopmentPath: PROJECT_ROOT,
    extensionTestsPath: path.join(PROJECT_ROOT, 'out', 'test', 'integration', 'index.js'),
    extensionTestsEnv: { TEST_RESULT_FILE: resultFile },
    // Only the extension under test (and VS Code's built-ins), in fresh user data under .vscode-test/.
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
    ],
  });
  process.exitCode = code;
}

main().catch((err) => {
  if (err?.constructor?.name === 'TestRunFailedError') {
    console.error(err.message);
    process.exit(1);
  }
  fail(err);
});
