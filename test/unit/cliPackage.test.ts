// The CLI installs without cloning: `npm pack` makes a tarball (what .npmignore lets in: dist/cli.js, dist/proto, the
// licence and README) whose `mobility-api` works after `npm install -g` into a prefix of its own, as on a clean machine
// with Node 20; that install runs `mobility-api sandbox`, then `mobility-api test` of examples/contract against it with a
// JUnit report, and `mobility-api sql` (DuckDB's binding comes with the install) over a harvest it made; and docs/ci.md's
// GitHub Actions and GitLab CI jobs, read from the page, in a fresh folder with that install, against the sandbox.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import { XSD, xmllint } from './support/junitSchema';

const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);

function run(
  command: string,
  args: string[],
  options: { cwd?: string; timeout?: number } = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, timeout: options.timeout ?? 60_000, env: { ...process.env, MOBILITY_API_DEBUG: '' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout, err: stderr });
      },
    );
  });
}

/** docs/ci.md's two jobs as shell scripts, their install step left out (the test installs the package it packed). */
function ciJobs(markdown: string): { name: 'github' | 'gitlab'; script: string }[] {
  const blocks = [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]) as Record<string, unknown>);
  const install = /git clone|npm ci |npm pack|npm install --global/;
  const jobs: { name: 'github' | 'gitlab'; script: string }[] = [];
  for (const doc of blocks) {
    if (doc.jobs) {
      const steps = (
        doc.jobs as { contract: { steps: { name?: string; run?: string; env?: Record<string, string> }[] } }
      ).contract.steps;
      assert.ok(
        steps.some((step) => step.run && install.test(step.run)),
        'the GitHub job installs the CLI',
      );
      const run = steps
        .filter((step) => step.run && !install.test(step.run))
        .map((step) => {
          const exports = Object.entries(step.env ?? {}).map(
            ([name, value]) => `export ${name}='${String(value).replaceAll("'", "'\\''")}'`,
          );
          return ['(', 'set -eo pipefail', ...exports, step.run ?? '', ')'].join('\n');
        });
      jobs.push({ name: 'github', script: ['set -e', ...run].join('\n') });
    } else if (doc.contract) {
      const lines = (doc.contract as { script: string[] }).script;
      assert.ok(
        lines.some((line) => install.test(line)),
        'the GitLab job installs the CLI',
      );
      jobs.push({ name: 'gitlab', script: ['set -e', ...lines.filter((line) => !install.test(line))].join('\n') });
    }
  }
  return jobs;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a job's script in its own process group, and ends what it left running (the sandbox) when it is done. */
function runJob(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const stop = () => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGTERM');
      } catch {
        // nothing left running
      }
    };
    const timer = setTimeout(stop, 120_000);
    let exitCode: number | null = null;
    // The background sandbox holds the output open: the job ends when bash exits; then what it left is ended.
    child.on('exit', (code) => {
      exitCode = code;
      clearTimeout(timer);
      stop();
    });
    child.on('close', () => resolve({ code: exitCode ?? 1, out, err }));
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
    const install = await run(
      'npm',
      ['install', '--global', '--prefix', path.join(dir, 'prefix'), '--no-audit', '--no-fund', tarball],
      { timeout: 180_000 },
    );
    assert.equal(install.code, 0, install.err);
    bin = path.join(dir, 'prefix', 'bin', 'mobility-api');
  });
  after(() => {
    sandbox?.kill('SIGINT');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('packs only the CLI: its bundle, the .proto files, the licence, the README and the docs it links to, the example collection', () => {
    const installed = path.join(dir, 'prefix', 'lib', 'node_modules', 'mobility-api-explorer');
    const files = fs
      .readdirSync(installed, { recursive: true })
      .map(String)
      .filter((f) => !f.startsWith('node_modules') && fs.statSync(path.join(installed, f)).isFile())
      .sort();
    const allowed =
      /^(CHANGELOG|README|ARCHITECTURE|CONTRIBUTING|SECURITY)\.md$|^LICENSE$|^package\.json$|^dist\/cli\.js$|^dist\/proto\/.+\.proto$|^docs\/[\w-]+\.md$|^docs\/[\w-]+\.schema\.json$|^media\/screenshot-[\w-]+\.png$|^examples\/contract\/[\w.-]+$/;
    assert.deepEqual(
      files.filter((f) => !allowed.test(f.split(path.sep).join('/'))),
      [],
    );
    assert.ok(files.includes(path.join('dist', 'proto', 'mobility', 'sandbox', 'v1', 'vehicles.proto')));
    assert.ok(files.includes(path.join('examples', 'contract', 'mds-provider.http')));
    // Every relative link of the packed README leads to a file of the package.
    const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1].split('#')[0])
      .filter((l) => l && !/^[a-z]+:/i.test(l));
    assert.ok(links.length > 10, 'the README links to its docs');
    assert.deepEqual(
      [...new Set(links.filter((l) => !fs.existsSync(path.join(installed, l))))],
      [],
      'links to files the package lacks',
    );
  });

  it("runs docs/ci.md's GitHub Actions and GitLab CI jobs as written, in a folder that is not this repository, against the sandbox", async function () {
    const staging = await startSandbox({ demoDir: path.join(dir, 'staging-demo') });
    try {
      const demo = JSON.parse(fs.readFileSync(staging.demo.credentialFile, 'utf8')) as {
        kid: string;
        issuer: string;
        privateKeyFile: string;
      };
      const keyFile = path.resolve(path.dirname(staging.demo.credentialFile), demo.privateKeyFile);
      const stagingUrl = staging.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
      const jobs = ciJobs(fs.readFileSync('docs/ci.md', 'utf8'));
      for (const job of jobs) {
        // A repository of the user's own: its contract/ folder, nothing of this one.
        const repo = fs.mkdtempSync(path.join(dir, `${job.name}-repo-`));
        fs.mkdirSync(path.join(repo, 'contract'));
        fs.writeFileSync(
          path.join(repo, 'contract', 'vehicles.http'),
          '# @name vehicles\nGET {{baseUrl}}/vehicles?page_size=2\n?? status == 200\n?? mds conformance\n?? token accepted\n',
        );
        const port = await freePort();
        const values: Record<string, string> = {
          'secrets.MOBILITY_API_KEY_ID': demo.kid,
          'secrets.MOBILITY_API_ISSUER': demo.issuer,
          'secrets.MOBILITY_API_PRIVATE_KEY': fs.readFileSync(keyFile, 'utf8'),
          'vars.STAGING_BASE_URL': stagingUrl,
        };
        const script = job.script
          .replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (whole, name: string) => values[name] ?? whole)
          .replaceAll('8787', String(port));
        const env = {
          ...process.env,
          PATH: `${path.join(dir, 'prefix', 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
          npm_config_prefix: path.join(dir, 'prefix'),
          HOME: path.join(repo, '.home'),
          RUNNER_TEMP: fs.mkdtempSync(path.join(dir, 'runner-temp-')),
          CI_PROJECT_DIR: repo,
          MOBILITY_API_DEBUG: '',
          ...(job.name === 'gitlab'
            ? {
                MOBILITY_API_KEY_FILE: keyFile,
                MOBILITY_API_KEY_ID: demo.kid,
                MOBILITY_API_ISSUER: demo.issuer,
                MOBILITY_API_CREDENTIAL_TYPE: 'external-org',
                STAGING_BASE_URL: stagingUrl,
              }
            : {}),
        };
        const ran = await runJob(script, repo, env);
        assert.equal(ran.code, 0, `${job.name}:\n${script}\n${ran.out}${ran.err}`);
        assert.match(ran.out, /^5 passed, 0 failed$/m, `${job.name}: the package's example collection`);
        assert.match(ran.out, /^1 passed, 0 failed$/m, `${job.name}: the repository's own contract file`);
        for (const report of ['sandbox.xml', 'staging.xml'])
          assert.equal(
            xmllint(this, ['--noout', '--schema', XSD, path.join(repo, 'reports', report)]).status,
            0,
            `${job.name}: ${report}`,
          );
      }
      assert.deepEqual(
        jobs.map((j) => j.name),
        ['github', 'gitlab'],
      );
    } finally {
      await staging.close();
    }
  });

  it('runs the installed mobility-api: the sandbox, a contract test of examples/contract with its JUnit report, and sql over a harvest', async function () {
    sandbox = spawn(bin, ['sandbox', '--json', '--port', '0', '--fleet', '20', '--demo-dir', path.join(dir, 'demo')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const first = await new Promise<string>((resolve, reject) => {
      let out = '';
      sandbox?.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      sandbox?.once('exit', (code) =>
        reject(new Error(`the installed sandbox ended (${code}) before it printed its address`)),
      );
    });
    const info = JSON.parse(first) as {
      environments: { name: string; baseUrl: string }[];
      demo: { credentialFile: string };
    };
    const base = info.environments.find((e) => e.name === 'mds-staging')?.baseUrl ?? '';
    const report = path.join(dir, 'report.xml');
    const common = [
      '--credential',
      info.demo.credentialFile,
      '--precision',
      'milliseconds',
      '--state-dir',
      path.join(dir, 'state'),
    ];
    const tested = await run(
      bin,
      ['test', path.resolve('examples/contract'), '--base-url', base, ...common, '--junit', report],
      { cwd: dir },
    );
    assert.equal(tested.code, 0, tested.out + tested.err);
    assert.match(tested.out, /^\d+ passed, 0 failed$/m);
    assert.equal(
      xmllint(this, ['--noout', '--schema', XSD, report]).status,
      0,
      'the report validates against the Jenkins JUnit schema',
    );
    const harvest = path.join(dir, 'trips');
    const harvested = await run(bin, [
      'harvest',
      'trips',
      '--from',
      hourAt(9),
      '--to',
      hourAt(10),
      '--out',
      harvest,
      '--base-url',
      base,
      ...common,
    ]);
    assert.equal(harvested.code, 0, harvested.err);
    const counted = await run(bin, ['sql', harvest, 'SELECT count(*) AS n FROM trips', '--json']);
    assert.equal(counted.code, 0, counted.err);
    const lines = fs.readdirSync(path.join(harvest, 'trips')).reduce(
      (n, f) =>
        n +
        fs
          .readFileSync(path.join(harvest, 'trips', f), 'utf8')
          .split('\n')
          .filter(Boolean).length,
      0,
    );
    assert.deepEqual(JSON.parse(counted.out), [{ n: lines }]);
  });
});
