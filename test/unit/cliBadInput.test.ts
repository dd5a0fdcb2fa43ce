import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliCredential } from './support/cliRunner';
import { makeCliCredential, runCliInProcess, spawnBuiltCli } from './support/cliRunner';
import { distinctKeyPair } from './keyFixtures';

/** The password of every base URL below: it must appear nowhere the CLI prints or writes. */
const PASSWORD = 'pa55-Secret-in-url';
const WITH_PASSWORD = `https://someone:${PASSWORD}@mds.example.test/provider`;
const REMOVE = /remove the user name and password from the base URL: credentials go in the credential/i;

/** Every file under `dir`, with its text. */
function filesUnder(dir: string): { file: string; text: string }[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
}

describe('CLI: bad input is refused at once, saying what to fix', function () {
  this.timeout(60_000);
  let credential: CliCredential;
  let dir: string;
  before(() => {
    credential = makeCliCredential();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bad-input-'));
  });
  after(() => {
    credential?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('a base URL with a user name and password', () => {
    const requestFile = () => {
      const file = path.join(dir, 'with-password.http');
      fs.writeFileSync(file, 'GET {{baseUrl}}/vehicles\n');
      return file;
    };
    const cases: [string, () => string[]][] = [
      ['request', () => ['request', 'vehicles', '--api', 'mds', '--base-url', WITH_PASSWORD, ...credential.flags]],
      ['vehicles', () => ['vehicles', '--api', 'mds', '--base-url', WITH_PASSWORD, ...credential.flags]],
      ['send', () => ['send', requestFile(), '--api', 'mds', '--base-url', WITH_PASSWORD, ...credential.flags]],
      ['code', () => ['code', 'python', 'vehicles', '--api', 'mds', '--base-url', WITH_PASSWORD, ...credential.flags]],
      [
        'code (a request file)',
        () => ['code', 'typescript', requestFile(), '--api', 'mds', '--base-url', WITH_PASSWORD, ...credential.flags],
      ],
      ['token --aud', () => ['token', '--aud', WITH_PASSWORD, ...credential.flags]],
      [
        'an address that does not parse',
        () => [
          'request',
          'vehicles',
          '--api',
          'mds',
          '--base-url',
          `https://someone:${PASSWORD}@bad host/`,
          ...credential.flags,
        ],
      ],
    ];
    for (const [name, args] of cases) {
      it(`${name}: exit 2, what to fix, and the password nowhere`, async () => {
        const r = await spawnBuiltCli(args());
        assert.equal(r.code, 2, r.err + r.out);
        assert.match(r.err, REMOVE);
        assert.match(r.err, /"--(base-url|aud)"/, 'names the flag to fix');
        assert.ok(!(r.out + r.err).includes(PASSWORD), r.out + r.err);
        assert.equal(r.out, '', 'no token, no program');
      });
    }

    it('harvest: exit 2 before any request, no folder, no manifest, the password nowhere', async () => {
      const out = path.join(dir, 'harvest-with-password');
      const r = await spawnBuiltCli([
        'harvest',
        'trips',
        '--from',
        '2026-01-01T00',
        '--to',
        '2026-01-01T03',
        '--out',
        out,
        '--base-url',
        WITH_PASSWORD,
        ...credential.flags,
      ]);
      assert.equal(r.code, 2, r.err + r.out);
      assert.match(r.err, REMOVE);
      assert.doesNotMatch(r.err, /retry/i, 'refused, not retried');
      assert.ok(!(r.out + r.err).includes(PASSWORD), r.out + r.err);
      assert.ok(!fs.existsSync(out), 'nothing is written');
      for (const { file, text } of filesUnder(credential.dir)) assert.ok(!text.includes(PASSWORD), file);
    });

    it('a request file whose own URL holds a password: refused without repeating it', async () => {
      const file = path.join(dir, 'own-url.http');
      fs.writeFileSync(
        file,
        `@host = https://someone:${PASSWORD}@mds.example.test/provider\n\nGET {{host}}/vehicles\n`,
      );
      const r = await spawnBuiltCli([
        'send',
        file,
        '--api',
        'mds',
        '--base-url',
        'https://mds.example.test/provider',
        ...credential.flags,
      ]);
      assert.equal(r.code, 2, r.err + r.out);
      assert.match(
        r.err,
        /Request 1 \(line 3\): its URL holds a user name or password.*Remove the user name and password from the URL \(and from the variable that gives it/,
      );
      assert.ok(!(r.out + r.err).includes(PASSWORD), r.err);
    });
  });

  describe('a port the HTTP client blocks', () => {
    it('request --base-url http://127.0.0.1:9: what is wrong and what to do, exit 2', async () => {
      const r = await runCliInProcess([
        'request',
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        'http://127.0.0.1:9',
        ...credential.flags,
      ]);
      assert.equal(r.code, 2, r.err);
      assert.match(
        r.err,
        /refuses to connect to port 9 of http:\/\/127\.0\.0\.1:9: it blocks that port as unsafe.*Run the server on another port, such as 8080, and use that port in the base URL\./,
      );
    });

    it("harvest: stopped at the first hour, never retried (the client's own error)", async () => {
      const out = path.join(dir, 'harvest-port-9');
      const r = await runCliInProcess([
        'harvest',
        'trips',
        '--from',
        '2026-01-01T00',
        '--to',
        '2026-01-01T03',
        '--out',
        out,
        '--base-url',
        'http://127.0.0.1:9',
        ...credential.flags,
      ]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /blocks that port as unsafe/);
      assert.doesNotMatch(r.err, /retry \d/, r.err);
      assert.doesNotMatch(r.err, /\[2\/4\]/, 'no second hour is asked for');
    });
  });

  it('harvest --out a folder of the system nothing can be created in: says why, no raw ENOENT', async function () {
    if (process.platform !== 'linux') this.skip();
    const r = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      '2026-01-01T00',
      '--to',
      '2026-01-01T00',
      '--out',
      '/proc/self/fd',
      '--base-url',
      'http://127.0.0.1:1',
      ...credential.flags,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(
      r.err,
      /the folder \/proc\/self\/fd exists but nothing can be created in it \(ENOENT\): it is a special folder of the system.*Choose an --out folder on a disk/,
    );
    assert.doesNotMatch(r.err, /no such file or directory, mkdir/);
  });

  describe('decode', () => {
    const encoded = (text: string) => Buffer.from(text).toString('base64url');
    it('"exp": 1e400 is shown as the token writes it, in text and --json, with a finding', async () => {
      const token = `${encoded('{"alg":"ES256","kid":"k1"}')}.${encoded('{"iss":"a@b.example","exp":1e400,"iat":1700000000}')}.c2ln`;
      const text = await runCliInProcess(['decode', token]);
      assert.match(text.out, /"exp": 1e400,/);
      assert.doesNotMatch(text.out, /"exp": null/);
      assert.match(text.out, /error +\[spec 5\.1 rule 5\] "exp" is 1e400, which is not a finite NumericDate/);
      const json = await runCliInProcess(['decode', token, '--json']);
      assert.match(json.out, /"exp": 1e400,/);
      const parsed = JSON.parse(json.out) as { payload: { iat: number }; findings: { message: string }[] };
      assert.equal(parsed.payload.iat, 1700000000, 'still JSON');
      assert.ok(parsed.findings.some((f) => /not a finite NumericDate/.test(f.message)));
    });
    it('a header with "alg" twice gets a finding', async () => {
      const token = `${encoded('{"alg":"none","alg":"ES256","kid":"k1"}')}.${encoded('{"iss":"a@b.example","exp":1700000300,"iat":1700000000}')}.c2ln`;
      const r = await runCliInProcess(['decode', token]);
      assert.match(r.out, /error +\[spec RFC 7515 4\] The header writes "alg" twice/);
    });
  });

  describe('sandbox --trust', () => {
    const entry = (kid: string) => {
      const { publicKey } = distinctKeyPair('p256');
      return JSON.stringify({
        kid,
        iss: 'someone@org.example.test',
        type: 'external-org',
        publicKey: publicKey.export({ type: 'spki', format: 'pem' }),
      });
    };
    it('two trust files binding one kid: refused, naming both files, the kid masked', async () => {
      const kid = 'trusted-kid-0123456789abcdef';
      const first = path.join(dir, 'first-trust.json');
      const second = path.join(dir, 'second-trust.json');
      fs.writeFileSync(first, entry(kid));
      fs.writeFileSync(second, entry(kid));
      const r = await runCliInProcess(['sandbox', '--port', '0', '--trust', first, '--trust', second]);
      assert.equal(r.code, 2, r.err + r.out);
      assert.ok(r.err.includes(first) && r.err.includes(second), r.err);
      assert.match(r.err, /is bound by two trust files.*remove the entry from one of the files/);
      assert.ok(!r.err.includes(kid), 'never the whole kid');
    });
  });
});
