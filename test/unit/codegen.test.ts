// Copy as Code generators: what every program must hold (spec 5 for its credential type, the rule
// comments, the secrets read from the environment and never written) and that each is in its
// language's formatter's style. codegenRun.test.ts runs them against the sandbox.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiRequest } from '../../src/core/environment/apiRequest';
import type { CodeLanguage, CodeProgram } from '../../src/core/codegen';
import { CODE_LANGUAGE_INFO, CODE_LANGUAGES, codeProgramFor, generateCode } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { buildEndpointRequest, freeRequest } from '../../src/core/mds/mdsRequests';
import { runCliInProcess } from './support/cliRunner';
import { distinctKeyPair } from './keyFixtures';

const MDS: Environment = {
  id: 'mds',
  name: 'MDS staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.example.test/staging/',
};
const MAAS: Environment = {
  id: 'maas',
  name: 'MaaS staging',
  api: 'maas',
  stage: 'staging',
  baseUrl: 'https://maas.example.test',
};
const SECRET_KID = 'kid-that-must-not-appear-4711';
const TYPES: CredentialType[] = ['external-org', 'iam', 'service-account'];

function program(
  type: CredentialType,
  request: ApiRequest = buildEndpointRequest('mds', 'vehicles'),
  env = MDS,
): CodeProgram {
  return codeProgramFor(
    env,
    { type, issuer: type === 'service-account' ? 'robot@sa.example.test' : `org-7@${type}.example.test` },
    request,
  );
}

/** The text of the spec section that defines the token of each credential type. */
const TYPE_SECTION: Record<CredentialType, string> = {
  'external-org': 'spec 5.4',
  iam: 'spec 5.5',
  'service-account': 'spec 5.6',
};

describe('Copy as Code generators', () => {
  for (const language of CODE_LANGUAGES) {
    describe(language, () => {
      for (const type of TYPES) {
        it(`${type}: the key file and key id come from the environment, named at the top; nothing secret is written`, () => {
          const code = generateCode(language, program(type));
          const top = code.split('\n').slice(0, 20).join('\n');
          assert.match(top, /MOBILITY_API_KEY_FILE/);
          if (type === 'service-account') assert.match(top, /private_key_id/);
          else assert.match(top, /MOBILITY_API_KEY_ID/);
          assert.doesNotMatch(code, /BEGIN [A-Z ]*PRIVATE KEY-----/);
          assert.doesNotMatch(code, /eyJ[\w-]+\.[\w-]+/, 'no token');
        });

        it(`${type}: signs ${type === 'service-account' ? 'RS256' : 'ES256'} with kid, iss, aud = the base URL, exp, a fresh jti, and names the rules it applies`, () => {
          const code = generateCode(language, program(type));
          assert.ok(code.includes(type === 'service-account' ? 'RS256' : 'ES256'));
          assert.ok(!code.includes(type === 'service-account' ? 'ES256' : 'RS256'), 'only the algorithm of the type');
          assert.ok(code.includes('https://mds.example.test/staging'), 'the base URL, also the audience');
          assert.ok(!code.includes('https://mds.example.test/staging/"'), 'the base URL without its trailing slash');
          if (type !== 'service-account') assert.ok(code.includes(`org-7@${type}.example.test`), 'the issuer');
          for (const claim of ['iss', 'aud', 'iat', 'exp', 'jti', 'kid'])
            assert.match(code, new RegExp(`\\b${claim}\\b`), claim);
          assert.equal(
            /\bsub\b/.test(code) && /\bemail\b/.test(code),
            type === 'service-account',
            'sub and email for service accounts only',
          );
          for (const rule of ['spec 5.1 rule 5', 'rule 6', 'spec 5.1 rule 7', 'spec 5.3', TYPE_SECTION[type]])
            assert.ok(code.toLowerCase().includes(rule.toLowerCase()), `names ${rule}`);
          assert.match(code, /\b300\b/, 'the default lifetime');
        });
      }

      it('follows links.next with a new token per page where the endpoint pages, and not for an hour endpoint', () => {
        assert.match(generateCode(language, program('external-org')), /next/);
        assert.match(
          generateCode(language, program('external-org', buildEndpointRequest('maas', 'vehicles'), MAAS)),
          /next/,
        );
        const trips = generateCode(
          language,
          program('external-org', buildEndpointRequest('mds', 'trips', { end_time: '2024-05-01T10' })),
        );
        assert.doesNotMatch(trips, /links|NEXT/);
        assert.ok(trips.includes('/trips?end_time=2024-05-01T10'));
      });

      it('a free path is sent as given with its query, and its pages are followed', () => {
        const code = generateCode(
          language,
          program('external-org', freeRequest('mds', '/vehicles', new URLSearchParams({ page_size: '3' }))),
        );
        assert.ok(code.includes('/vehicles?page_size=3'));
        assert.match(code, /next/);
      });

      it('a lifetime and an audience list are applied as given', () => {
        const code = generateCode(
          language,
          codeProgramFor(
            { ...MDS, audienceAsList: true },
            { type: 'iam', issuer: 'a@b.c' },
            buildEndpointRequest('mds', 'vehicles'),
            3600,
          ),
        );
        assert.match(code, /\b3600\b/);
        assert.match(
          code,
          /\[\s*BASE_URL\s*\]|\[\]string\{baseURL\}|\[\\"https:\/\/mds\.example\.test\/staging\\"\]|\[\$aud\]/,
        );
      });
    });
  }

  it('a lifetime outside 60..3600 is refused (spec 5.1 rule 5)', () => {
    for (const lifetime of [59, 3601, 1.5]) {
      assert.throws(
        () => codeProgramFor(MDS, { type: 'iam', issuer: 'a@b.c' }, buildEndpointRequest('mds', 'vehicles'), lifetime),
        (err: { code?: string }) => err.code === 'LIFETIME_OUT_OF_RANGE',
      );
    }
  });

  describe('formatted as the language formatter writes it', () => {
    // Each formatter runs once over a folder of every variant (a process per file made the test slow enough to time
    // out on a busy machine): black and shfmt print a diff of each file they would change, gofmt its name.
    const formatters: Partial<Record<CodeLanguage, { tool: string; args: (dir: string) => string[] }>> = {
      python: { tool: 'black', args: (dir) => ['--check', '--diff', '--quiet', dir] },
      go: { tool: 'gofmt', args: (dir) => ['-l', dir] },
      shell: { tool: 'shfmt', args: (dir) => ['-d', dir] },
    };
    for (const [language, formatter] of Object.entries(formatters) as [
      CodeLanguage,
      { tool: string; args: (dir: string) => string[] },
    ][]) {
      it(`${language}: ${formatter.tool} leaves every variant unchanged`, function () {
        if (spawnSync(formatter.tool, ['--help'], { stdio: 'ignore' }).error) {
          if (process.env.CI === 'true') assert.fail(`${formatter.tool} is not installed (.ci/run installs it)`);
          if (this.test) this.test.title += ` (pending: ${formatter.tool} not installed)`;
          this.skip();
        }
        const dir = mkdtempSync(join(tmpdir(), 'codegen-format-'));
        try {
          const variants = [
            ...TYPES.map((t) => program(t)),
            program('iam', buildEndpointRequest('mds', 'trips', { end_time: '2024-05-01T10' })),
            program('external-org', buildEndpointRequest('maas', 'vehicles'), MAAS),
            program('external-org', buildEndpointRequest('mds', 'reports', { month: '2024-04' })),
          ];
          variants.forEach((p, n) =>
            writeFileSync(join(dir, `${n}-${CODE_LANGUAGE_INFO[language].fileName}`), generateCode(language, p)),
          );
          const run = spawnSync(formatter.tool, formatter.args(dir), { encoding: 'utf8' });
          assert.equal(run.status, 0, `${formatter.tool} ${dir}: ${run.stdout}${run.stderr}`);
          assert.equal(run.stdout.trim(), '', `${formatter.tool} would change a variant:\n${run.stdout}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });

  describe('mobility-api code', () => {
    let dir: string;
    let keyFile: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'codegen-cli-'));
      keyFile = join(dir, 'ec.pem');
      writeFileSync(keyFile, distinctKeyPair('p256').privateKey.export({ type: 'pkcs8', format: 'pem' }));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));
    const credential = () => [
      '--private-key',
      keyFile,
      '--kid',
      SECRET_KID,
      '--iss',
      'org-1@ext.example.test',
      '--type',
      'external-org',
    ];

    it('prints the program for an endpoint with its parameters, without the key id or the key', async () => {
      const run = await runCliInProcess([
        'code',
        'python',
        'trips',
        '--query',
        'end_time=2024-05-01T10',
        '--base-url',
        'https://mds.example.test',
        '--api',
        'mds',
        ...credential(),
      ]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /URL = BASE_URL \+ "\/trips\?end_time=2024-05-01T10"/);
      assert.ok(!run.out.includes(SECRET_KID));
      assert.match(run.out, /[^\n]\n$/, 'the program ends with one newline, not a blank line');
      assert.doesNotMatch(run.out, /PRIVATE KEY/);
    });

    it('takes one request of a .http file by name, drops its own Authorization and says so', async () => {
      const file = join(dir, 'requests.http');
      writeFileSync(
        file,
        '# @name first\nGET {{baseUrl}}/vehicles\n\n###\n# @name status\nGET {{baseUrl}}/vehicles/status\nAuthorization: Bearer old\nX-Trace: 1\n',
      );
      const run = await runCliInProcess([
        'code',
        'go',
        file,
        '--request',
        'status',
        '--base-url',
        'https://mds.example.test',
        '--api',
        'mds',
        ...credential(),
      ]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /path {5}= "\/vehicles\/status"/);
      assert.match(run.out, /"X-Trace": +"1"/);
      assert.doesNotMatch(run.out, /Bearer old/);
      assert.match(run.err, /sets its own Authorization/);
    });

    it('refuses an unknown language, naming the five', async () => {
      const run = await runCliInProcess([
        'code',
        'cobol',
        '/vehicles',
        '--base-url',
        'https://mds.example.test',
        '--api',
        'mds',
        ...credential(),
      ]);
      assert.equal(run.code, 2);
      assert.match(run.err, /python, typescript, go, java, shell/);
    });

    it('refuses an IAM credential for the MaaS API, before writing anything', async () => {
      const run = await runCliInProcess([
        'code',
        'java',
        '/v1alpha2/vehicles',
        '--base-url',
        'https://maas.example.test',
        '--api',
        'maas',
        '--private-key',
        keyFile,
        '--kid',
        SECRET_KID,
        '--iss',
        'a@iam.example.test',
        '--type',
        'iam',
      ]);
      assert.equal(run.code, 2);
      assert.equal(run.out, '');
    });
  });
});
