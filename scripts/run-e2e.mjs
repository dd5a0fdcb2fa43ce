#!/usr/bin/env node
// `npm run test:e2e`: the extension as a user gets it (the VSIX from `vsce package --no-dependencies`,
// installed with `code-server --install-extension`) in a real VS Code (code-server, a normal server: the
// smoke-test driver would hide notifications), driven by mocha in plain Node through Playwright and
// Debian's Chromium (test/e2e/*.test.ts, helpers in test/e2e/workbench.ts and session.ts).
// Every run saves screenshots, and the VS Code logs of failed tests, into test-results/e2e/<run>/.
// Env: TEST_RESULT_FILE (counts, default test-results/e2e.json), E2E_TIMEOUT_MS (the whole mocha run,
// default 40 min), E2E_GREP (a mocha --grep pattern), E2E_FILES / E2E_SKIP_FILES (comma-separated file names without
// .test.ts: run only those, or all but those; npm test splits the e2e files between its two lanes so). The tests get the workbench URL, the artifacts folder and
// the user-data, extensions and workspace folders as E2E_* variables (see test/e2e/session.ts).
// E2E_LOCALE=qps-ploc (`npm run test:e2e:pseudo`): VS Code in the pseudo-locale, running only the
// test/e2e/*.pseudo.test.ts files (which the English run leaves out), with the pseudo bundles generated
// by `scripts/l10n.mjs --pseudo` inside the VSIX.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  PROJECT_ROOT,
  build,
  createRunDir,
  ensureVSCode,
  fail,
  installCleanup,
  installVsix,
  log,
  packageVsix,
  removeRunDir,
  runId,
  spawnGroup,
  startCodeServer,
  stopGroup,
  testBuiltinsEnv,
} from './vscode-env.mjs';

const timeoutMs = Number(process.env.E2E_TIMEOUT_MS || 40 * 60_000);
const locale = process.env.E2E_LOCALE || '';
const resultFile = path.resolve(process.env.TEST_RESULT_FILE || path.join(PROJECT_ROOT, 'test-results', 'e2e.json'));

/** Keeps the newest `keep` run folders (their names sort by time). */
function pruneOldRuns(dir, keep) {
  const runs = fs
    .readdirSync(dir)
    .filter((d) => /^\d{4}-\d\d-\d\dT/.test(d))
    .sort();
  for (const old of runs.slice(0, -keep)) fs.rmSync(path.join(dir, old), { recursive: true, force: true });
}

/** Writes (or with clean, removes) the gitignored qps-ploc bundles that go into the pseudo-locale VSIX. */
function pseudoLocaleFiles({ clean = false } = {}) {
  const r = spawnSync(
    process.execPath,
    [path.join(PROJECT_ROOT, 'scripts', 'l10n.mjs'), clean ? '--pseudo-clean' : '--pseudo'],
    { cwd: PROJECT_ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('scripts/l10n.mjs --pseudo failed');
}

/**
 * Makes code-server's web workbench report `locale` as its language (and so the extension host's
 * vscode.env.language, which picks l10n/bundle.l10n.<locale>.json): the server only does that for a locale
 * with a language pack, so this registers an empty one in the user-data folder (languagepacks.json, the
 * cache VS Code keeps of installed packs). VS Code's own UI stays English; only our strings change.
 */
function registerLanguagePack(userDataDir, language) {
  fs.mkdirSync(userDataDir, { recursive: true });
  const translations = path.join(userDataDir, `empty-${language}.i18n.json`);
  fs.writeFileSync(translations, JSON.stringify({ version: '1.0.0', contents: {} }));
  // The server reads extensions[0] of each pack (getInstalledLanguages): a pack needs one, even a made-up one.
  const packs = {
    [language]: {
      hash: `e2e-${language}`,
      extensions: [{ extensionIdentifier: { id: 'e2e.pseudo-language-pack' }, version: '1.0.0' }],
      translations: { vscode: translations },
      label: language,
    },
  };
  fs.writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify(packs));
}

async function main() {
  let server;
  let mocha;
  let runDir;
  installCleanup(() => stopGroup(mocha));
  const artifactsDir = path.join(PROJECT_ROOT, 'test-results', 'e2e', runId());
  const rel = (p) => path.relative(PROJECT_ROOT, p);
  try {
    const { chromium } = await ensureVSCode();
    // npm test builds once for every layer, beside the static checks (scripts/test.mjs).
    if (process.env.MOBILITY_API_TESTS_BUILT !== '1') build(['--e2e']);
    const testDir = path.join(PROJECT_ROOT, 'out', 'test', 'e2e');
    const pseudoTest = (f) => f.endsWith('.pseudo.test.js');
    const names = (variable) =>
      (process.env[variable] ?? '')
        .split(',')
        .map((f) => f.trim().replace(/(\.test)?\.[jt]s$/, ''))
        .filter(Boolean);
    const only = names('E2E_FILES');
    const skip = names('E2E_SKIP_FILES');
    const built = fs.existsSync(testDir)
      ? fs
          .readdirSync(testDir)
          .filter((f) => f.endsWith('.test.js') && pseudoTest(f) === Boolean(locale))
          .sort()
      : [];
    const unknown = [...only, ...skip].filter((name) => !built.includes(`${name}.test.js`));
    if (unknown.length)
      throw new Error(
        `E2E_FILES / E2E_SKIP_FILES name no e2e test file: ${unknown.join(', ')} (test/e2e holds ${built.map((f) => f.replace(/\.test\.js$/, '')).join(', ')}).`,
      );
    const tests = built
      .filter(
        (f) =>
          (!only.length || only.includes(f.replace(/\.test\.js$/, ''))) && !skip.includes(f.replace(/\.test\.js$/, '')),
      )
      .map((f) => path.join(testDir, f));
    if (!tests.length)
      throw new Error(
        `No e2e test was built: test/e2e holds no ${locale ? '*.pseudo.test.ts' : '*.test.ts'}${only.length || skip.length ? ' that E2E_FILES / E2E_SKIP_FILES select' : ''}.`,
      );
    runDir = createRunDir('e2e');
    if (locale) pseudoLocaleFiles();
    let vsix;
    try {
      vsix = packageVsix(runDir);
    } finally {
      if (locale) pseudoLocaleFiles({ clean: true });
    }
    const dirs = { extensionsDir: path.join(runDir, 'extensions'), userDataDir: path.join(runDir, 'user-data') };
    installVsix(vsix, dirs);
    if (locale) registerLanguagePack(dirs.userDataDir, locale);
    const workspace = path.join(runDir, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(path.join(workspace, 'README.md'), '# E2E test workspace\n');
    fs.mkdirSync(artifactsDir, { recursive: true });
    pruneOldRuns(path.dirname(artifactsDir), 10);
    fs.rmSync(resultFile, { force: true });

    // The shared issue clock of this run, not the machine's (~/.local/state/mobility-api).
    const stateDir = path.join(runDir, 'state');
    server = await startCodeServer({
      ...dirs,
      folder: workspace,
      env: { ...testBuiltinsEnv(), MOBILITY_API_STATE_DIR: stateDir },
      logFile: path.join(runDir, 'code-server.log'),
      args: locale ? ['--locale', locale] : [],
    });
    log(`e2e screenshots and logs go to ${rel(artifactsDir)}/`);
    const mochaArgs = [
      path.join(PROJECT_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'),
      '--no-config',
      '--exit',
      '--reporter',
      path.join(PROJECT_ROOT, 'scripts', 'mocha-summary-reporter.cjs'),
      '--timeout',
      '120000',
      '--enable-source-maps',
    ];
    if (process.env.E2E_GREP) mochaArgs.push('--grep', process.env.E2E_GREP);
    // Its own process group, so that a timeout also ends the browsers it launched.
    mocha = spawnGroup(process.execPath, [...mochaArgs, ...tests], {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_RESULT_FILE: resultFile,
        E2E_WORKBENCH_URL: server.workbenchUrl(),
        E2E_ARTIFACTS_DIR: artifactsDir,
        E2E_LOGS_DIR: path.join(dirs.userDataDir, 'logs'),
        // The folders VS Code writes to, for tests that scan them for secrets (test/e2e/canary.test.ts).
        E2E_USER_DATA_DIR: dirs.userDataDir,
        E2E_EXTENSIONS_DIR: dirs.extensionsDir,
        E2E_WORKSPACE_DIR: workspace,
        E2E_STATE_DIR: stateDir,
        MOBILITY_API_STATE_DIR: stateDir,
        E2E_SERVER_LOG: server.logFile,
        CHROMIUM_PATH: chromium,
      },
    });
    let timer;
    const code = await new Promise((resolve) => {
      mocha.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
      timer = setTimeout(() => {
        console.error(`\nThe e2e run did not finish within ${timeoutMs / 1000}s; stopping it.`);
        void stopGroup(mocha).then(() => resolve(1));
      }, timeoutMs);
    });
    clearTimeout(timer);
    if (code !== 0) {
      // Failing tests saved their own logs; this also covers a run that died outside a test.
      fs.copyFileSync(server.logFile, path.join(artifactsDir, 'code-server.log'));
    }
    log(
      `e2e tests exited with code ${code}; screenshots${code ? ' and logs of the failures' : ''}: ${rel(artifactsDir)}/`,
    );
    process.exitCode = code;
  } finally {
    await stopGroup(mocha);
    await server?.stop();
    if (runDir) removeRunDir(runDir);
  }
}

main().catch(fail);
