import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { distinctKeyPair, keyFixture } from './keyFixtures';
import { runCli } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/main';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';

const CLI = path.resolve('dist/cli.js');
const run = promisify(execFile);

interface Captured {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<Captured> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t + '\n'),
    err: (t) => (err += t + '\n'),
    readStdin: () => Promise.resolve(stdin),
    env,
    untilStopped: () => Promise.resolve(),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/** Spawns the built CLI, as a user's shell would. */
async function spawnCli(args: string[]): Promise<Captured> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, MOBILITY_API_DEBUG: '' },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

describe('CLI mobility-api', function () {
  // Each test starts the built CLI as a process, some of them ten times in a row: on two cores busy with the e2e layer
  // beside this one, one test took over mocha's default 20 s.
  this.timeout(120_000);
  let dir: string;
  let stateDir: string;
  let ecKeyFile: string;
  let ecPublicFile: string;
  let saKeyFile: string;
  let sandbox: RunningSandbox;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-test-'));
    stateDir = path.join(dir, 'state');
    const ec = keyFixture('p256');
    ecKeyFile = path.join(dir, 'test-only-ec.pem');
    fs.writeFileSync(ecKeyFile, ec.privateKey.export({ type: 'sec1', format: 'pem' }));
    ecPublicFile = path.join(dir, 'test-only-ec.pub.pem');
    fs.writeFileSync(ecPublicFile, ec.publicKey.export({ type: 'spki', format: 'pem' }));
    const rsa = keyFixture('rsa2048');
    saKeyFile = path.join(dir, 'test-only-service-account.json');
    fs.writeFileSync(
      saKeyFile,
      JSON.stringify({
        type: 'service_account',
        project_id: 'p',
        private_key_id: 'sa-kid-1',
        private_key: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }),
        client_email: 'robot@sa.test.invalid',
        client_id: '1',
        auth_uri: 'https://auth.test.invalid',
        token_uri: 'https://token.test.invalid',
        auth_provider_x509_cert_url: 'https://certs.test.invalid',
        client_x509_cert_url: 'https://certs.test.invalid/robot',
      }),
    );
    sandbox = await startSandbox({ fleetSize: 230, pageSize: 100, demoDir: path.join(dir, 'demo') });
  });
  after(async () => {
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ecFlags = () => [
    '--private-key',
    ecKeyFile,
    '--kid',
    'kid-1',
    '--iss',
    'org-1@org.test.invalid',
    '--type',
    'external-org',
    '--state-dir',
    stateDir,
  ];

  describe('token', () => {
    it('prints the compact JWT alone on stdout, signed ES256 with the spec claims', async () => {
      const r = await spawnCli(['token', ...ecFlags(), '--aud', 'https://mds.test.invalid']);
      assert.equal(r.code, 0, r.err);
      const token = r.out.trim();
      assert.equal(r.out, token + '\n', 'nothing but the token');
      assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', kid: 'kid-1', typ: 'JWT' });
      const pub = fs.readFileSync(ecPublicFile, 'utf8');
      const { createPublicKey } = await import('node:crypto');
      const { payload } = await jwtVerify(token, createPublicKey(pub), {
        audience: 'https://mds.test.invalid',
        issuer: 'org-1@org.test.invalid',
      });
      assert.equal(payload.exp! - payload.iat!, 300);
      const { createHash } = await import('node:crypto');
      const clockFile = path.join(
        stateDir,
        'clock',
        `iat-${createHash('sha256').update('kid-1').digest('hex').slice(0, 32)}`,
      );
      assert.ok(
        fs.existsSync(clockFile),
        'the per-key clock is kept in the state dir, one file per key named by a hash of the kid',
      );
      const mark = fs.readFileSync(clockFile, 'utf8');
      assert.ok(!mark.includes('PRIVATE') && !mark.includes('kid-1'), 'no key material and no kid in the state');
      assert.ok(Number(mark.trim()) >= payload.iat!, 'the file holds the last iat of the key');
    });

    it('signs a service-account key file with RS256, sub and email', async () => {
      const r = await cli([
        'token',
        '--key-file',
        saKeyFile,
        '--aud',
        'https://mds.test.invalid',
        '--lifetime',
        '360',
        '--state-dir',
        stateDir,
      ]);
      assert.equal(r.code, 0, r.err);
      const token = r.out.trim();
      assert.equal(decodeProtectedHeader(token).alg, 'RS256');
      const claims = decodeJwt(token);
      assert.equal(claims.sub, 'robot@sa.test.invalid');
      assert.equal(claims.email, 'robot@sa.test.invalid');
      assert.equal(claims.exp! - claims.iat!, 360);
      assert.match(r.err, /deprecated/i, 'a warning on stderr for a deprecated type');
    });

    it('tells the type from a configured domain, and refuses an unknown one without --type', async () => {
      const base = [
        'token',
        '--private-key',
        ecKeyFile,
        '--kid',
        'k',
        '--iss',
        'org@org.test.invalid',
        '--aud',
        'https://x.test.invalid',
        '--state-dir',
        stateDir,
      ];
      const unknown = await cli(base);
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /type/i);
      assert.equal((await cli([...base, '--external-org-domain', 'org.test.invalid'])).code, 0);
      assert.equal(
        (await cli(base, '', { MOBILITY_API_EXTERNAL_ORG_DOMAINS: 'other.invalid, org.test.invalid' })).code,
        0,
      );
      const mismatch = await cli([...base, '--iam-domain', 'org.test.invalid', '--type', 'external-org']);
      assert.equal(mismatch.code, 2);
    });

    it('exits 2 with one clear line for bad input', async () => {
      const cases: Array<[string[], RegExp]> = [
        [
          ['token', '--private-key', ecKeyFile, '--iss', 'a@b.invalid', '--type', 'iam', '--aud', 'https://x.invalid'],
          /--kid/,
        ],
        [['token', ...ecFlags(), '--aud', 'https://x.invalid', '--lifetime', '30'], /60 to 3600/],
        [['token', ...ecFlags(), '--aud', 'https://x.invalid', '--lifetime', '4000'], /60 to 3600/],
        [['token', ...ecFlags()], /--aud/],
        [
          [
            'token',
            '--private-key',
            path.join(dir, 'missing.pem'),
            '--kid',
            'k',
            '--iss',
            'a@b.invalid',
            '--aud',
            'https://x.invalid',
          ],
          /no such file/,
        ],
        [['token', '--private-key', saKeyFile.replace('.json', '-nope'), '--aud', 'x'], /Cannot read/],
        [['token', '--nonsense'], /nonsense/],
        [['token', ...ecFlags(), '--aud', 'https://x.invalid', '--api', 'maas', '--type', 'iam'], /MaaS|MDS/],
        [['frobnicate'], /Unknown command/],
      ];
      for (const [args, message] of cases) {
        const r = await spawnCli(args);
        assert.equal(r.code, 2, `${args.join(' ')} → ${r.err}`);
        assert.equal(r.out, '');
        assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
        assert.match(r.err, message);
        assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
      }
    });

    it('refuses a key that is no key, without echoing it', async () => {
      const junk = path.join(dir, 'junk.pem');
      fs.writeFileSync(junk, '-----BEGIN PRIVATE KEY-----\nTUlJQ0FHSEFMTE8=\n-----END PRIVATE KEY-----\n');
      const r = await spawnCli([
        'token',
        '--private-key',
        junk,
        '--kid',
        'k',
        '--iss',
        'a@b.invalid',
        '--type',
        'external-org',
        '--aud',
        'https://x.invalid',
      ]);
      assert.equal(r.code, 2);
      assert.doesNotMatch(r.err, /TUlJQ0FHSEFMTE8/);
    });

    it('hands out distinct, increasing iats to CLI processes run in parallel on one key', async () => {
      const runs = await Promise.all(
        Array.from({ length: 4 }, () =>
          spawnCli([
            'token',
            ...ecFlags(),
            '--kid',
            'parallel',
            '--aud',
            'https://x.invalid',
            '--precision',
            'milliseconds',
          ]),
        ),
      );
      const iats = runs.map((r) => {
        assert.equal(r.code, 0, r.err);
        return decodeJwt(r.out.trim()).iat!;
      });
      assert.equal(new Set(iats).size, 4, `distinct: ${iats.join(', ')}`);
    });

    it('never shows the spec placeholders as defaults', async () => {
      const r = await cli(['help']);
      assert.equal(r.code, 0);
      assert.doesNotMatch(
        r.out,
        /<EXTERNAL_ORG_DOMAIN>|<IAM_DOMAIN>|<SERVICE_ACCOUNT_DOMAIN>|base_url_mds|base_url_maas/,
      );
    });
  });

  describe('decode', () => {
    it('shows header, payload, relative times and no findings for a good token; --json for scripts', async () => {
      const token = (await cli(['token', ...ecFlags(), '--aud', 'https://mds.test.invalid'])).out.trim();
      const human = await cli([
        'decode',
        token,
        '--aud',
        'https://mds.test.invalid',
        '--external-org-domain',
        'org.test.invalid',
      ]);
      assert.equal(human.code, 0, human.err);
      assert.match(human.out, /Payload/);
      assert.match(human.out, /expires in 5 min|expires in 4 min/);
      assert.match(human.out, /Findings: none/);
      const json = await cli(['decode', '-', '--json'], `Bearer ${token}\n`);
      const parsed = JSON.parse(json.out) as {
        header: { kid: string };
        payload: { aud: string };
        signature: { state: string };
      };
      assert.equal(parsed.header.kid, 'kid-1');
      assert.equal(parsed.payload.aud, 'https://mds.test.invalid');
      assert.equal(parsed.signature.state, 'not-verified');
      assert.ok(!json.out.includes(token), 'the decoded view does not repeat the token');
    });

    it('verifies the signature with --public-key and fails (exit 1) with another key', async () => {
      const token = (await cli(['token', ...ecFlags(), '--aud', 'https://mds.test.invalid'])).out.trim();
      const ok = await cli(['decode', token, '--public-key', ecPublicFile]);
      assert.match(ok.out, /Signature: verified/);
      const other = path.join(dir, 'other.pub.pem');
      fs.writeFileSync(other, distinctKeyPair('p256').publicKey.export({ type: 'spki', format: 'pem' }));
      const bad = await cli(['decode', token, '--public-key', other]);
      assert.equal(bad.code, 1);
      assert.match(bad.out, /Signature: FAILED/);
    });

    it('names lint findings with the spec rule, and --strict turns errors into exit 1', async () => {
      const token = (await cli(['token', ...ecFlags(), '--aud', 'https://other.test.invalid'])).out.trim();
      const lenient = await cli(['decode', token, '--aud', 'https://mds.test.invalid']);
      assert.equal(lenient.code, 0);
      const r = await cli(['decode', token, '--aud', 'https://mds.test.invalid', '--strict']);
      assert.equal(r.code, 1);
      assert.match(r.out, /\[spec 5\.3\]/);
    });

    it('prints control characters of hostile claims as visible escapes, in text and --json', async () => {
      // An OSC sequence that would retitle the terminal, a CSI that clears it, U+009B (a CSI on its own) and a bidi override.
      const hostile = {
        iss: '\u001b]0;pwned\u0007evil@x.invalid',
        jti: 'a\u009b2Jb\u001b[2J',
        aud: 'https://x.invalid/\u202egnp.exe',
        exp: 1,
        iat: 2,
      };
      const token = new UnsecuredJWT(hostile).encode();
      for (const args of [
        ['decode', token],
        ['decode', token, '--json'],
      ]) {
        const r = await spawnCli(args);
        const printed = r.out + r.err;
        /* eslint-disable no-control-regex -- looking for control characters */
        assert.doesNotMatch(
          printed,
          /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/,
          `raw control characters in: ${args.join(' ')}`,
        );
        /* eslint-enable no-control-regex */
        assert.match(printed, /\\u001b\]0;pwned/, 'the escape sequence is shown, not acted on');
      }
      const json = await spawnCli(['decode', token, '--json']);
      const parsed = JSON.parse(json.out) as { payload: typeof hostile };
      assert.deepEqual(parsed.payload, hostile, '--json still round-trips the claims exactly');
    });

    it('says why a string is not a JWT (exit 1)', async () => {
      const r = await cli(['decode', 'abc.def']);
      assert.equal(r.code, 1);
      assert.match(r.err, /not a JWT: .*2/);
    });
  });

  describe('vehicles against the sandbox', () => {
    const mdsUrl = () => sandbox.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
    const maasUrl = () => sandbox.environments.find((e) => e.id === 'maas-staging')!.baseUrl;

    it('lists MDS vehicles with the demo credential', async () => {
      const r = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        mdsUrl(),
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        stateDir,
      ]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^200 OK · /m);
      assert.match(r.out, /100 vehicles so far · 1 page/);
      assert.match(r.out, /device_id\s+vehicle_id\s+type/);
      assert.match(r.out, /--all-pages/);
    });

    it('fetches every page with --all-pages --json, one fresh token per page', async () => {
      const r = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        mdsUrl(),
        '--credential',
        sandbox.demo.credentialFile,
        '--status',
        '--all-pages',
        '--json',
        '--precision',
        'milliseconds',
        '--state-dir',
        stateDir,
      ]);
      assert.equal(r.code, 0, r.err);
      const body = JSON.parse(r.out) as { pages: number; vehicles_status: Array<{ device_id: string }> };
      assert.equal(body.pages, 3);
      assert.equal(body.vehicles_status.length, 230);
      assert.equal(new Set(body.vehicles_status.map((v) => v.device_id)).size, 230);
    });

    it('lists MaaS vehicles', async () => {
      const r = await cli([
        'vehicles',
        '--api',
        'maas',
        '--base-url',
        maasUrl(),
        '--credential',
        sandbox.demo.credentialFile,
        '--json',
        '--state-dir',
        stateDir,
      ]);
      assert.equal(r.code, 0, r.err);
      assert.ok(Array.isArray((JSON.parse(r.out) as { vehicles: unknown[] }).vehicles));
    });

    it('shows a refusal with the status, the MDS error and the rule broken (exit 1)', async () => {
      const r = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        `${mdsUrl()}`,
        '--aud-list',
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        stateDir,
        '--header',
        'Accept: application/vnd.mds+json;version=1.2',
      ]);
      assert.equal(r.code, 1);
      assert.match(r.err, /406/);
      const wrongApi = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        `${maasUrl()}`,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        stateDir,
      ]);
      assert.equal(wrongApi.code, 1);
      assert.match(wrongApi.err, /404/);
    });

    it('says connection refused for a sandbox that is not running', async () => {
      const stopped = await startSandbox({ fleetSize: 1, demoDir: path.join(dir, 'demo-stopped') });
      await stopped.close();
      const r = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        stopped.environments[0].baseUrl,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        stateDir,
      ]);
      assert.equal(r.code, 1);
      assert.match(r.err, /connection refused/);
    });
  });

  describe('sandbox and demo', () => {
    /** The first line a child prints on stdout (the sandbox's JSON line once it listens); rejects if it exits first. */
    const firstLineOf = (child: ChildProcess): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout?.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });

    it('`sandbox --json` prints one JSON line once it listens and stops on SIGINT', async () => {
      const child = spawn(
        process.execPath,
        [CLI, 'sandbox', '--json', '--fleet', '50', '--demo-dir', path.join(dir, 'demo2')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const line = await firstLineOf(child);
      const info = JSON.parse(line) as {
        environments: Array<{ name: string; api: string; baseUrl: string }>;
        demo: { credentialFile: string; privateKeyFile: string };
      };
      assert.deepEqual(info.environments.map((e) => e.name).sort(), ['maas-staging', 'mds-production', 'mds-staging']);
      assert.ok(fs.existsSync(info.demo.credentialFile));
      const listed = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        info.environments.find((e) => e.name === 'mds-production')!.baseUrl,
        '--credential',
        info.demo.credentialFile,
        '--json',
        '--state-dir',
        stateDir,
      ]);
      assert.equal(listed.code, 0, listed.err);
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exit, 0);
    });

    it("`sandbox --json --log` writes every answered request as a JSON line on stderr, with a refusal's rule and no token", async () => {
      const child = spawn(
        process.execPath,
        [CLI, 'sandbox', '--json', '--log', '--fleet', '5', '--demo-dir', path.join(dir, 'demo3')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const line = await firstLineOf(child);
      const info = JSON.parse(line) as {
        environments: Array<{ name: string; baseUrl: string }>;
        demo: { credentialFile: string };
      };
      const base = info.environments.find((e) => e.name === 'mds-staging')!.baseUrl;
      const listed = await cli([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        base,
        '--credential',
        info.demo.credentialFile,
        '--json',
        '--state-dir',
        stateDir,
      ]);
      assert.equal(listed.code, 0, listed.err);
      const refused = await fetch(`${base}/vehicles`, { headers: { Authorization: 'Bearer not-a-token' } });
      assert.equal(refused.status, 401);
      const deadline = Date.now() + 10_000;
      // The sandbox logs a request just after it answers it: wait for the second line (or the child's end).
      while (err.trim().split('\n').length < 2 && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => {
          child.stderr.once('data', resolve);
          child.once('exit', resolve);
        });
      }
      const entries = err
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; path: string; status: number; rule?: string; kid?: string });
      assert.deepEqual(
        entries.map((e) => [e.method, e.path, e.status, e.rule]),
        [
          ['GET', '/mds-staging/vehicles', 200, undefined],
          ['GET', '/mds-staging/vehicles', 401, 'malformed_token'],
        ],
      );
      assert.ok(!err.includes('not-a-token'), 'the log holds no token');
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exit, 0);
    });

    it('`sandbox --grade --json` prints the report card of a broken client as one JSON document when stopped', async () => {
      const child = spawn(
        process.execPath,
        [CLI, 'sandbox', '--grade', '--json', '--fleet', '5', '--demo-dir', path.join(dir, 'demo-grade')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const info = JSON.parse(await firstLineOf(child)) as {
        environments: Array<{ name: string; baseUrl: string }>;
        demo: { kid: string; issuer: string; privateKeyFile: string };
      };
      const base = info.environments.find((e) => e.name === 'mds-staging')!.baseUrl;
      // --json shows the kid masked (a secret, spec 5.7); the whole one is in the demo credential file.
      const demoKid = (
        JSON.parse(fs.readFileSync(path.join(dir, 'demo-grade', 'demo-credential.json'), 'utf8')) as { kid: string }
      ).kid;
      const key = createPrivateKey(fs.readFileSync(info.demo.privateKeyFile, 'utf8'));
      // Whole seconds from a clock moved back, so that the next second of the sandbox's clock cannot break the tie.
      const iat = Math.floor(Date.now() / 1000) - 10;
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT({ iss: info.demo.issuer, aud: base, iat, exp: iat + 300, jti: randomUUID(), ...claims })
          .setProtectedHeader({ alg: 'ES256', kid: demoKid })
          .sign(key);
      const get = async (token: string) =>
        (await fetch(`${base}/vehicles`, { headers: { Authorization: `Bearer ${token}` } })).status;
      const once = await sign({});
      assert.deepEqual(
        [
          await get(once),
          await get(once),
          await get(await sign({})),
          await get(await sign({ iat: iat + 1, exp: iat + 2 })),
        ],
        [200, 401, 401, 401],
      );
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exit, 0);
      const lines = out.trim().split('\n');
      assert.equal(lines.length, 2, out);
      const report = JSON.parse(lines[1] ?? '') as {
        requests: Record<string, number>;
        refusals: Array<{ rule: string; count: number }>;
        grade: string;
      };
      assert.deepEqual(report.requests, { seen: 4, accepted: 1, refused: 3, unchecked: 0 });
      // The last token (a 1 s lifetime, its exp 8 s past) is charged both rules it breaks (issue 29 item 15).
      assert.deepEqual(
        report.refusals.map((r) => r.rule),
        ['lifetime_out_of_range', 'expired', 'jti_replayed', 'iat_not_increasing'],
      );
      assert.equal(report.grade, 'fail');
      assert.ok(!out.includes(once) && !lines[1]?.includes(demoKid), 'no token and no whole kid');
    });

    it('`demo` runs the whole job against a sandbox it starts and stops', async () => {
      const r = await cli(['demo']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /mds-staging \(vehicle status\): a fresh ES256 token per page/);
      assert.match(r.out, /250 vehicle statuses · 3 pages/);
      assert.match(r.out, /maas-staging: a fresh ES256 token per page/);
      assert.match(r.out, /401 Unauthorized/);
      assert.match(r.out, /rule: aud_mismatch/);
      // Then one gRPC call (issue 22): GetVehicle of the first vehicle the REST listing showed, with a token of its own.
      const firstListed = /mds-staging \(vehicle status\)[\s\S]*?\n\s+([0-9a-f-]{36})\s/.exec(r.out)?.[1];
      assert.ok(firstListed, r.out);
      const grpcAt = r.out.search(/mds-staging over gRPC \(127\.0\.0\.1:\d+\): GetVehicle/);
      assert.ok(
        grpcAt > r.out.indexOf('maas-staging: a fresh ES256 token per page') &&
          grpcAt < r.out.indexOf('401 Unauthorized'),
        `the gRPC call comes after the REST listings:\n${r.out}`,
      );
      const call = new RegExp(
        `VehicleService/GetVehicle: status OK; device_id ${firstListed}, [a-z_]+; token jti ([0-9a-f]{8})…, iat \\d+`,
      ).exec(r.out);
      assert.ok(call, r.out);
      const restJtis = [...r.out.matchAll(/token per page \(.*jti ([0-9a-f]{8})…\)/g)].map((m) => m[1]);
      assert.equal(restJtis.length, 3);
      assert.ok(!restJtis.includes(call[1]), 'the gRPC call has a token of its own');
      assert.doesNotMatch(r.out, /eyJ[\w-]+\.[\w-]+/, 'no token is printed');
    });
  });
});
