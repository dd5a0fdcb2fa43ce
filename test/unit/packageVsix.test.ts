// `npm run package` (scripts/package.mjs): one VSIX per platform, each with DuckDB's native binding for it (issue 31).
// Built here for this machine's platform, unpacked as VS Code installs it, and DuckDB loaded from the unpacked
// extension's dist/, away from this checkout's node_modules, as the analysis worker loads it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { mcpLaunchOf } from '../../src/agent/mcpLaunch';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'package.mjs');
const PLATFORM = `${process.platform}-${process.arch}`;

/**
 * Every file a VSIX may hold, as paths inside it (`*` within one folder, `**` across folders, `{a,b}` either): a file
 * that matches none (a stray probe at the root, a source map, a test) fails this test, so it cannot ship unnoticed.
 * Add a pattern here only for a file the installed extension needs.
 */
const VSIX_ALLOWLIST = [
  '[Content_Types].xml',
  'extension.vsixmanifest',
  'extension/{package.json,package.nls.json,readme.md,changelog.md,LICENSE.txt,SECURITY.md}',
  // The bundles (no source maps, no benchmarks; the CLI, which VS Code runs as the MCP server) and what they read at run time.
  'extension/dist/*.js',
  'extension/dist/webview/main.{js,css}',
  'extension/dist/proto/**/*.proto',
  // DuckDB's native binding for this platform and what it loads (scripts/package.mjs).
  'extension/dist/node_modules/@duckdb/{node-api,node-bindings,node-bindings-*}/**',
  'extension/dist/node_modules/detect-libc/**',
  'extension/l10n/bundle.l10n.json',
  'extension/media/*.{png,svg}',
  'extension/media/walkthrough/*.md',
  'extension/syntaxes/*.json',
  'extension/examples/contract/{README.md,*.http}',
];

/** A pattern of VSIX_ALLOWLIST as a regular expression over a whole path. */
function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '{') out += '(?:';
    else if (c === '}') out += ')';
    else if (c === ',') out += '|';
    else out += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The files (not folders) of an unpacked VSIX, relative to it, with forward slashes. */
function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

describe('npm run package: a VSIX per platform with its DuckDB binding', function () {
  this.timeout(180_000);
  let dir = '';
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'package-vsix-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`builds the ${PLATFORM} VSIX, and DuckDB runs from the unpacked extension`, async () => {
    // dist/ as the test build left it (--no-build): what matters here is what goes around it.
    const run = spawnSync(process.execPath, [SCRIPT, '--target', PLATFORM, '--out', dir, '--no-build'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    const vsix = fs.readdirSync(dir).filter((f) => f.endsWith('.vsix'));
    assert.deepEqual(vsix, [
      `mobility-api-explorer-${PLATFORM}-0.1.0.vsix`.replace(
        '0.1.0',
        (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      ),
    ]);
    const unpacked = path.join(dir, 'unpacked');
    const unzip = spawnSync('unzip', ['-q', path.join(dir, vsix[0]), '-d', unpacked], { encoding: 'utf8' });
    assert.equal(unzip.status, 0, unzip.stderr);
    const manifest = fs.readFileSync(path.join(unpacked, 'extension.vsixmanifest'), 'utf8');
    assert.match(manifest, new RegExp(`TargetPlatform="${PLATFORM}"`), 'the VSIX says its platform');
    const extension = path.join(unpacked, 'extension');
    assert.ok(
      !fs.existsSync(path.join(extension, 'node_modules')),
      'nothing else of node_modules: the rest is bundled',
    );
    // Nothing ships that the allowlist does not name, and every pattern still names something (the list stays tight).
    const files = filesUnder(unpacked);
    const patterns = VSIX_ALLOWLIST.map(globToRegExp);
    assert.deepEqual(
      files.filter((f) => !patterns.some((p) => p.test(f))),
      [],
      'files in the VSIX that VSIX_ALLOWLIST does not allow: leave them out (.vscodeignore) or, if the extension needs them, allow them',
    );
    assert.deepEqual(
      VSIX_ALLOWLIST.filter((_, i) => !files.some((f) => patterns[i].test(f))),
      [],
      'allowlist patterns that match no file of the VSIX',
    );
    const bindings = fs.readdirSync(path.join(extension, 'dist', 'node_modules', '@duckdb')).sort();
    assert.deepEqual(
      bindings,
      ['node-api', 'node-bindings', `node-bindings-${PLATFORM}`],
      "DuckDB and this platform's binding only",
    );
    // Resolved from the unpacked dist/, as dist/analysisWorker.js resolves it (a temporary folder: no checkout around it).
    const requireFromDist = createRequire(path.join(extension, 'dist', 'analysisWorker.js'));
    const resolved = requireFromDist.resolve('@duckdb/node-api');
    assert.ok(resolved.startsWith(path.join(extension, 'dist', 'node_modules')), resolved);
    const duckdb = requireFromDist('@duckdb/node-api') as typeof import('@duckdb/node-api');
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll('SELECT 40 + 2 AS answer')).getRowObjects();
    connection.closeSync();
    instance.closeSync();
    assert.deepEqual(rows, [{ answer: 42 }]);
    // The CLI VS Code starts as the MCP server (mcpServerDefinitionProviders) is there and runs from the unpacked dist/.
    assert.ok(mcpLaunchOf(extension, process.execPath), 'the installed extension offers its MCP server');
    const cli = spawnSync(process.execPath, [path.join(extension, 'dist', 'cli.js'), '--version'], {
      encoding: 'utf8',
      cwd: dir,
    });
    assert.equal(cli.status, 0, cli.stderr);
  });

  it('refuses a platform DuckDB has no binding for, and says which it has', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '--target', 'web', '--out', dir, '--no-build'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /No DuckDB binding for the target web: use one of linux-x64, linux-arm64, alpine-x64/);
    assert.ok(!fs.readdirSync(dir).some((f) => f.includes('web')), 'nothing written');
  });
});
