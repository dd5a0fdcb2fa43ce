#!/usr/bin/env node
// `npm run test:integration`: the mocha suite in test/integration runs inside the extension host of a real
// VS Code (code-server, see scripts/vscode-env.mjs), with this project loaded as the extension under
// development: the contract of @vscode/test-electron (extensionDevelopmentPath + extensionTestsPath).
// code-server runs with the smoke-test driver, whose workbench reads both paths from ?payload= and reports
// the suite's exit code to window.codeAutomationExit, which Playwright exposes.
// Env: TEST_RESULT_FILE (counts, default test-results/integration.json), INTEGRATION_TIMEOUT_MS (default 20 min),
// VERBOSE=1 (all workbench console lines, not only the extension host's test output).
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { chromium } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  PROJECT_ROOT,
  build,
  createRunDir,
  ensureVSCode,
  fail,
  installCleanup,
  log,
  removeRunDir,
  runId,
  startCodeServer,
  testBuiltinsEnv,
} from './vscode-env.mjs';

const timeoutMs = Number(process.env.INTEGRATION_TIMEOUT_MS || 20 * 60_000);
const resultFile = path.resolve(
  process.env.TEST_RESULT_FILE || path.join(PROJECT_ROOT, 'test-results', 'integration.json'),
);

// The workbench's own start-up chatter, which shares the console with the extension host's test output
// (VERBOSE=1 shows it): connection set-up, the disabled gallery.
const NOISE = new RegExp(
  [
    '^Resolv(ing|ed) connection token',
    '^Creating a socket',
    '^\\[reconnection-grace-time\\]',
    '^\\[Service Worker\\]',
    '^\\[AgentHost',
    '^\\[AccountPolicyGate\\]',
    'additional builtin extensions',
    '^No search provider registered',
  ].join('|'),
);

async function main() {
  let server;
  let context;
  let runDir;
  const rel = (p) => path.relative(PROJECT_ROOT, p);
  /** Keeps VS Code's logs (the extension host's included) and a screenshot where the user can find them. */
  const saveArtifacts = async (page) => {
    const dir = path.join(PROJECT_ROOT, 'test-results', 'integration', runId());
    fs.mkdirSync(dir, { recursive: true });
    await page?.screenshot({ path: path.join(dir, 'workbench.png') }).catch(() => {});
    const logs = path.join(runDir, 'user-data', 'logs');
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dir, 'logs'), { recursive: true });
    if (server) fs.copyFileSync(server.logFile, path.join(dir, 'code-server.log'));
    return dir;
  };
  installCleanup(async () => {
    await context?.close().catch(() => {});
  });
  try {
    const { chromium: executablePath } = await ensureVSCode();
    // npm test builds once for the unit and integration layers, which it runs side by side (scripts/test.mjs).
    if (process.env.MOBILITY_API_TESTS_BUILT !== '1') build(['--integration']);
    const testsEntry = path.join(PROJECT_ROOT, 'out', 'test', 'integration', 'index.js');
    if (!fs.existsSync(testsEntry)) throw new Error(`${testsEntry} was not built`);

    runDir = createRunDir('integration');
    const workspace = path.join(runDir, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Integration test workspace\n');
    fs.rmSync(resultFile, { force: true });

    server = await startCodeServer({
      folder: workspace,
      extensionsDir: path.join(runDir, 'extensions'),
      userDataDir: path.join(runDir, 'user-data'),
      logFile: path.join(runDir, 'code-server.log'),
      args: ['--vscode-option', 'enable-smoke-test-driver'],
      // The shared issue clock of this run, not the machine's (~/.local/state/mobility-api).
      env: { ...testBuiltinsEnv(), TEST_RESULT_FILE: resultFile, MOBILITY_API_STATE_DIR: path.join(runDir, 'state') },
    });
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(PROJECT_ROOT)],
      ['extensionTestsPath', remote(testsEntry)],
      ['skipWelcome', 'true'],
    ]);

    context = await chromium.launchPersistentContext(path.join(runDir, 'chromium-profile'), {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      // As in the e2e layer (test/e2e/session.ts): no animation repaints the window while a test waits.
      reducedMotion: 'reduce',
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const exitCode = new Promise((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code)));
    });
    // The smoke-test driver forwards the workbench console, the extension host's included, to this function.
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      if (process.env.VERBOSE || !NOISE.test(line)) console.log(type === 'error' ? `[${type}] ${line}` : line);
    });
    log(`running ${path.relative(PROJECT_ROOT, testsEntry)} in the extension host`);
    // Playwright's default 30 s for the page's load event is too short for the workbench on a loaded 2-core machine
    // (seen: two timeouts while other runs built); the run's own timeout below still bounds the whole.
    await page.goto(server.workbenchUrl({ payload }), { timeout: 180_000 });
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const code = await Promise.race([exitCode, timedOut]);
    clearTimeout(timer);
    if (code === 'timeout') {
      const dir = await saveArtifacts(page);
      throw new Error(
        `The integration suite did not finish within ${timeoutMs / 1000}s. A screenshot, VS Code's logs and the code-server log are in ${rel(dir)}/.`,
      );
    }
    log(`integration suite exited with code ${code}`);
    if (code !== 0) log(`VS Code's logs of the failed run and a screenshot: ${rel(await saveArtifacts(page))}/`);
    process.exitCode = code;
  } finally {
    await context?.close().catch(() => {});
    await server?.stop();
    if (runDir) removeRunDir(runDir);
  }
}

main().catch(fail);
