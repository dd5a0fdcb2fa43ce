#!/usr/bin/env node
// `npm run package`: one VSIX per platform (`vsce package --target <t>`), each with DuckDB's native binding for that
// platform (issue 31: the analysis engine runs @duckdb/node-api in a child process, and it is the one package the
// bundles leave out, being native). Everything else the extension runs is bundled by esbuild, hence
// `--no-dependencies`, with which vsce leaves out the top node_modules whatever .vscodeignore says. The VSIX carries
// dist/node_modules/@duckdb/{node-api,node-bindings,node-bindings-<platform>} and detect-libc (which node-bindings
// uses to tell glibc from musl): Node finds them from dist/analysisWorker.js, the one file that requires DuckDB, before
// it would look in the project's node_modules (as it does in a development checkout).
//
//   npm run package                         every platform DuckDB ships a binding for
//   npm run package -- --target linux-x64   one (or a comma-separated list)
//   npm run package -- --out <dir>          where the VSIX files go (default: the project folder)
//
// A binding for another platform than this machine's comes from the npm registry (`npm pack`, the same version as
// the lock file's), cached in .vscode-test/package-cache. Each VSIX is built in a staging folder of its own and
// moved into place when complete, so an interrupted run leaves no half-written VSIX.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** VS Code's platform targets, each with the DuckDB binding package it needs. */
export const TARGETS = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'alpine-x64': 'linux-x64-musl',
  'alpine-arm64': 'linux-arm64-musl',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64',
  'win32-arm64': 'win32-arm64',
};

/** The files that go into the staging folder: the project without what is never packaged or is rebuilt there. */
const SKIP = new Set(['node_modules', '.git', '.vscode-test', 'out', 'test-results', 'demo-workspace']);

class PackageError extends Error {}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new PackageError(
      `${path.basename(command)} ${args.join(' ')} failed (exit ${result.status ?? result.signal}):\n${`${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n')}`,
    );
  }
  return result.stdout;
}

function parseArgs(argv) {
  const options = { targets: Object.keys(TARGETS), out: ROOT, build: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) throw new PackageError(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--target')
      options.targets = value()
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
    else if (arg === '--out') options.out = path.resolve(value());
    else if (arg === '--no-build') options.build = false;
    else
      throw new PackageError(
        `Unknown option ${arg}: use --target <${Object.keys(TARGETS).join('|')}>[,…], --out <dir>, --no-build.`,
      );
  }
  const unknown = options.targets.filter((t) => !(t in TARGETS));
  if (unknown.length)
    throw new PackageError(
      `No DuckDB binding for the target ${unknown.join(', ')}: use one of ${Object.keys(TARGETS).join(', ')}.`,
    );
  if (!options.targets.length) throw new PackageError('--target names no platform.');
  return options;
}

/** The installed version of a package of node_modules (the lock file's). */
function installedVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** A package's folder: this machine's node_modules when it has it, else unpacked from the registry into the cache. */
function packageFolder(name, version) {
  const local = path.join(ROOT, 'node_modules', name);
  if (fs.existsSync(path.join(local, 'package.json')) && installedVersion(name) === version) return local;
  const cache = path.join(ROOT, '.vscode-test', 'package-cache', `${name.replace('/', '+')}@${version}`);
  if (fs.existsSync(path.join(cache, 'package', 'package.json'))) return path.join(cache, 'package');
  const partial = `${cache}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  const tarball = run('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', partial])
    .trim()
    .split('\n')
    .pop();
  run('tar', ['-xzf', path.join(partial, tarball), '-C', partial]);
  fs.rmSync(path.join(partial, tarball));
  fs.rmSync(cache, { recursive: true, force: true });
  fs.renameSync(partial, cache);
  return path.join(cache, 'package');
}

/** The staging folder for one target: the project's files and, under dist/node_modules, the DuckDB packages. */
function stage(target, dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const entry of fs.readdirSync(ROOT)) {
    if (SKIP.has(entry) || entry.endsWith('.vsix')) continue;
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, dereference: true });
  }
  // The qps-ploc pseudo-locale bundles are generated for the pseudo-locale e2e run (git-ignored) and never published,
  // even while that run has them in the project folder (npm test runs it beside the unit layer, which packages too).
  for (const pseudo of ['package.nls.qps-ploc.json', path.join('l10n', 'bundle.l10n.qps-ploc.json')])
    fs.rmSync(path.join(dir, pseudo), { force: true });
  const duckdb = installedVersion('@duckdb/node-api');
  const packages = [
    ['@duckdb/node-api', duckdb],
    ['@duckdb/node-bindings', installedVersion('@duckdb/node-bindings')],
    [`@duckdb/node-bindings-${TARGETS[target]}`, installedVersion('@duckdb/node-bindings')],
    ['detect-libc', installedVersion('detect-libc')],
  ];
  for (const [name, version] of packages) {
    fs.cpSync(packageFolder(name, version), path.join(dir, 'dist', 'node_modules', name), {
      recursive: true,
      dereference: true,
    });
  }
}

export function packageTargets(argv) {
  const options = parseArgs(argv);
  if (options.build) run(process.execPath, [path.join(ROOT, 'esbuild.js'), '--production'], { cwd: ROOT });
  const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  fs.mkdirSync(options.out, { recursive: true });
  const written = [];
  for (const target of options.targets) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mobility-api-package-${target}-`));
    try {
      stage(target, dir);
      const vsix = path.join(dir, `${name}-${target}-${version}.vsix`);
      const vsce = path.join(ROOT, 'node_modules', '.bin', 'vsce');
      run(vsce, ['package', '--no-dependencies', '--no-rewrite-relative-links', '--target', target, '-o', vsix], {
        cwd: dir,
      });
      const final = path.join(options.out, path.basename(vsix));
      fs.copyFileSync(vsix, `${final}.partial`);
      fs.renameSync(`${final}.partial`, final);
      written.push(final);
      console.log(
        `${target}: ${path.relative(process.cwd(), final) || final} (${(fs.statSync(final).size / 1024 / 1024).toFixed(1)} MB)`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    packageTargets(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof PackageError ? `npm run package: ${err.message}` : err);
    process.exit(err instanceof PackageError ? 2 : 1);
  }
}
