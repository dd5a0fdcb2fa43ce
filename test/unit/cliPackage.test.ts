// The CLI installs without cloning: `npm pack` makes a tarball (what .npmignore lets in: dist/cli.js, dist/proto, the
// licence and README) whose `mobility-api` works after `npm install -g` into a prefix of its own, as on a clean machine
// with Node 20; that install runs `mobility-api sandbox`, then `mobility-api test` of examples/contract against it with a
// JUnit report, and `mobility-api sql` (DuckDB's binding comes with the install) over a harvest it made.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XSD, xmllint } from './support/junitSchema';

const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);

function run(command: string, args: string[], options: { cwd?: string; timeout?: number } = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, timeout: options.timeout ?? 60_000, env: { ...process.env, MOBILITY_API_DEBUG: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout, err: stderr });
    });
  });
}

describe('the CLI as a package: npm pack, npm install -g, mobility-api', function () {
  this.timeout(240_000);
  let dir: string;
  let bin: string;
  let sandbox: ReturnType<typeof spawn> | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-package-'));
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is built (node esbuild.js)');
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { encoding: 'utf8' });
    assert.equal(pack.status, 0, pack.stderr);
    const tarball = path.join(dir, pack.stdout.trim().split('\n').pop() ?? '');
    const install = await run('npm', ['install', '--global', '--prefix', path.join(dir, 'prefix'), '--no-audit', '--no-fund', tarball], { timeout: 180_000 });
    assert.equal(install.code, 0, install.err);
    bin = path.join(dir, 'prefix', 'bin', 'mobility-api');
  });
  after(() => {
    sandbox?.kill('SIGINT');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('packs only the CLI: its bundle, the .proto files, the licence and README', () => {
    const installed = path.join(dir, 'prefix', 'lib', 'node_modules', 'mobility-api-explorer');
    const files = fs.readdirSync(installed, { recursive: true }).map(String).filter((f) => !f.startsWith('node_modules') && fs.statSync(path.join(installed, f)).isFile()).sort();
    assert.deepEqual(files.filter((f) => !f.startsWith(`dist${path.sep}proto${path.sep}`)), ['CHANGELOG.md', 'LICENSE', 'README.md', `dist${path.sep}cli.js`, 'package.json']);
    assert.ok(files.includes(path.join('dist', 'proto', 'mobility', 'sandbox', 'v1', 'vehicles.proto')));
  });

  it('runs the installed mobility-api: the sandbox, a contract test of examples/contract with its JUnit report, and sql over a harvest', async function () {
    sandbox = spawn(bin, ['sandbox', '--json', '--port', '0', '--fleet', '20', '--demo-dir', path.join(dir, 'demo')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const first = await new Promise<string>((resolve, reject) => {
      let out = '';
      sandbox?.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      sandbox?.once('exit', (code) => reject(new Error(`the installed sandbox ended (${code}) before it printed its address`)));
    });
    const info = JSON.parse(first) as { environments: { name: string; baseUrl: string }[]; demo: { credentialFile: string } };
    const base = info.environments.find((e) => e.name === 'mds-staging')?.baseUrl ?? '';
    const report = path.join(dir, 'report.xml');
    const common = ['--credential', info.demo.credentialFile, '--precision', 'milliseconds', '--state-dir', path.join(dir, 'state')];
    const tested = await run(bin, ['test', path.resolve('examples/contract'), '--base-url', base, ...common, '--junit', report], { cwd: dir });
    assert.equal(tested.code, 0, tested.out + tested.err);
    assert.match(tested.out, /^\d+ passed, 0 failed$/m);
    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0, 'the report validates against the Jenkins JUnit schema');
    const harvest = path.join(dir, 'trips');
    const harvested = await run(bin, ['harvest', 'trips', '--from', hourAt(9), '--to', hourAt(10), '--out', harvest, '--base-url', base, ...common]);
    assert.equal(harvested.code, 0, harvested.err);
    const counted = await run(bin, ['sql', harvest, 'SELECT count(*) AS n FROM trips', '--json']);
    assert.equal(counted.code, 0, counted.err);
    const lines = fs.readdirSync(path.join(harvest, 'trips')).reduce((n, f) => n + fs.readFileSync(path.join(harvest, 'trips', f), 'utf8').split('\n').filter(Boolean).length, 0);
    assert.deepEqual(JSON.parse(counted.out), [{ n: lines }]);
  });
});
