// Copy as Code, run for real: every language's generated program against the sandbox, with two
// workers in one process on one key, every request accepted (spec 5.1 rule 6 across workers); then
// the CLI and the Python, Go, TypeScript and Java programs (the same builds) at once on one key, every
// request accepted (rule 6 across every signer, the protocol of docs/copy-as-code.md). A missing
// toolchain fails under CI=true and is pending (its name in the title) elsewhere.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeLanguage, CodeProgram } from '../../src/core/codegen';
import { CODE_LANGUAGES, codeProgramFor, generateCode } from '../../src/core/codegen';
import type { CredentialType } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { buildEndpointRequest } from '../../src/core/mds/mdsRequests';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { maskKeyId } from '../../src/core/base/redact';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { ProgramRun } from './support/codegenToolchains';
import type { BuiltProgram } from './support/codegenToolchains';
import { buildProgram, compileTypeScript, missingTools, runProgram, skipIfMissing } from './support/codegenToolchains';
import { spawnBuiltCli } from './support/cliRunner';
import { hourBefore } from './sandboxSupport';

/** A key made for one program run, trusted by the sandbox; its files are what the program reads. */
interface TestKey {
  type: CredentialType;
  kid: string;
  issuer: string;
  env: Record<string, string>;
}

describe('Copy as Code: generated programs against the sandbox', function () {
  this.timeout(240_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const log: SandboxRequestLog[] = [];
  /** The key every language's /vehicles program signs with, and those builds: the mixed run reuses them. */
  let shared: TestKey;
  const sharedBuilds = new Map<CodeLanguage, BuiltProgram>();

  /** The /vehicles program of a language on the shared key: the one a per-language run built, else built now. */
  function sharedBuild(language: CodeLanguage): BuiltProgram {
    const cached = sharedBuilds.get(language);
    if (cached) return cached;
    const built = buildProgram(language, generateCode(language, cases()[0].program(shared)), dir, 'vehicles');
    if (language === 'typescript') compileTypeScript([built]);
    sharedBuilds.set(language, built);
    return built;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-run-'));
    // 5 vehicles, 2 a page: /vehicles and the MaaS listing take 3 pages, each with its own token.
    sandbox = await startSandbox({ fleetSize: 5, pageSize: 2, demoDir: false, onRequest: (entry) => log.push(entry) });
    shared = makeKey('external-org');
  });
  after(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function environment(id: 'mds-staging' | 'maas-staging'): Environment {
    const env = sandbox.environments.find((e) => e.id === id);
    assert.ok(env);
    return { id, name: id, api: env.api, stage: env.stage, baseUrl: env.baseUrl };
  }

  function makeKey(type: CredentialType): TestKey {
    const kid = `codegen-${type}-${randomBytes(4).toString('hex')}`;
    const issuer = type === 'service-account' ? `robot-${kid}@sa.test.invalid` : `org-${kid}@${type}.test.invalid`;
    const { privateKey, publicKey } =
      type === 'service-account'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    sandbox.trust({ kid, iss: issuer, type, publicKey });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = join(dir, `${kid}.${type === 'service-account' ? 'json' : 'pem'}`);
    if (type === 'service-account') {
      writeFileSync(
        file,
        JSON.stringify({
          type: 'service_account',
          project_id: 'p',
          private_key_id: kid,
          private_key: pem,
          client_email: issuer,
          client_id: '1',
          auth_uri: 'https://a.invalid',
          token_uri: 'https://a.invalid',
          auth_provider_x509_cert_url: 'https://a.invalid',
          client_x509_cert_url: 'https://a.invalid',
        }),
      );
      return { type, kid, issuer, env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_WORKERS: '2' } };
    }
    writeFileSync(file, pem);
    return {
      type,
      kid,
      issuer,
      env: { MOBILITY_API_KEY_FILE: file, MOBILITY_API_KEY_ID: kid, MOBILITY_API_WORKERS: '2' },
    };
  }

  /** The cases of one language: which request, which credential type, how many requests two workers send. */
  function cases(): {
    name: string;
    type: CredentialType;
    program: (key: TestKey) => CodeProgram;
    requests: number;
    line: RegExp;
  }[] {
    const mds = environment('mds-staging');
    const maas = environment('maas-staging');
    return [
      {
        name: 'vehicles',
        type: 'external-org',
        program: (k) => codeProgramFor(mds, k, buildEndpointRequest('mds', 'vehicles')),
        requests: 6,
        line: /^worker [12] page [123]: /,
      },
      {
        name: 'trips',
        type: 'iam',
        program: (k) =>
          codeProgramFor(mds, k, buildEndpointRequest('mds', 'trips', { end_time: hourBefore(Date.now(), 3) })),
        requests: 2,
        line: /^worker [12]: /,
      },
      {
        name: 'maas',
        type: 'external-org',
        program: (k) => codeProgramFor(maas, k, buildEndpointRequest('maas', 'vehicles')),
        requests: 6,
        line: /^worker [12] page [123]: /,
      },
      {
        name: 'sa-vehicles',
        type: 'service-account',
        program: (k) => codeProgramFor(mds, k, buildEndpointRequest('mds', 'vehicles')),
        requests: 6,
        line: /^worker [12] page [123]: /,
      },
    ];
  }

  const skipUnlessInstalled = (context: Mocha.Context, language: CodeLanguage) =>
    skipIfMissing(context, language, missingTools(language));

  for (const language of CODE_LANGUAGES) {
    it(`${language}: /vehicles (paged), /trips of one hour (IAM), the MaaS listing and /vehicles with a service account, two workers each, every request accepted`, async function () {
      skipUnlessInstalled(this, language);
      const runs = cases().map((c) => {
        const key = c.name === 'vehicles' ? shared : makeKey(c.type);
        const built = buildProgram(language, generateCode(language, c.program(key)), dir, c.name);
        if (key === shared) sharedBuilds.set(language, built);
        return { ...c, key, built };
      });
      if (language === 'typescript') compileTypeScript(runs.map((r) => r.built));
      log.length = 0;
      // Each case on its own key, so they run side by side; on one key, at most one token a second.
      for (const r of runs) mkdirSync(join(dir, r.key.kid), { recursive: true });
      const results = await Promise.all(
        runs.map((r) =>
          runProgram(r.built, {
            ...r.key.env,
            TMPDIR: join(dir, r.key.kid),
            MOBILITY_API_STATE_DIR: join(dir, r.key.kid),
          }).then((run) => ({ ...r, run })),
        ),
      );
      for (const r of results) {
        assert.equal(r.run.code, 0, `${language} ${r.name} exited ${r.run.code}:\n${r.run.err}\n${r.run.out}`);
        const lines = r.run.out.split('\n').filter((l) => r.line.test(l));
        assert.equal(lines.length, r.requests, `${language} ${r.name}: one line per answer:\n${r.run.out}`);
      }
      const refused = log.filter((e) => e.status !== 200);
      assert.deepEqual(refused, [], 'every request accepted');
      assert.equal(
        log.length,
        results.reduce((n, r) => n + r.requests, 0),
        'the sandbox answered every request the programs printed',
      );
    });
  }

  it('the CLI and the Python, Go, TypeScript and Java programs at once on one key, at second precision: every request accepted', async function () {
    const mixed: CodeLanguage[] = ['python', 'go', 'typescript', 'java'];
    for (const language of mixed) skipUnlessInstalled(this, language);
    const builds = mixed.map(sharedBuild);
    // One state folder, the one the per-language runs used on this key (when they ran): their last tokens are in its clock file.
    const stateDir = join(dir, shared.kid);
    const credentialFile = join(dir, 'shared-credential.json');
    writeFileSync(
      credentialFile,
      JSON.stringify({
        type: 'external-org',
        kid: shared.kid,
        issuer: shared.issuer,
        privateKeyFile: shared.env.MOBILITY_API_KEY_FILE,
      }),
    );
    const env = { ...shared.env, MOBILITY_API_WORKERS: '1', MOBILITY_API_STATE_DIR: stateDir, TMPDIR: stateDir };
    log.length = 0;
    // Each signer: the three pages of /vehicles, each with a fresh token, at most one token a second on the key.
    const [cli, ...programs] = await Promise.all([
      spawnBuiltCli(
        ['vehicles', '--api', 'mds', '--base-url', environment('mds-staging').baseUrl, '--credential', credentialFile],
        { MOBILITY_API_STATE_DIR: stateDir },
        120_000,
      ),
      ...builds.map((b) => runProgram(b, env)),
    ]);
    assert.equal(cli.code, 0, `the CLI exited ${cli.code}:\n${cli.err}`);
    programs.forEach((run, n) => assert.equal(run.code, 0, `${mixed[n]} exited ${run.code}:\n${run.err}\n${run.out}`));
    const refused = log
      .filter((e) => e.status !== 200)
      .map((e) => `${e.status} ${e.rule ?? ''}: ${e.description ?? ''}`);
    assert.deepEqual(refused, [], 'no signer was refused');
    assert.ok(
      log.length >= 4 * 3 + 1,
      `every program sent its three pages and the CLI its listing (${log.length} requests)`,
    );
  });

  it('the sandbox refuses a broken program: Python without the wait for the next second fails rule 6', async function () {
    skipUnlessInstalled(this, 'python');
    const key = makeKey('external-org');
    const source = generateCode(
      'python',
      codeProgramFor(environment('mds-staging'), key, buildEndpointRequest('mds', 'vehicles')),
    );
    const broken = source.replace('while iat <= last:', 'while False:');
    assert.notEqual(broken, source, 'the generated program waits for the next second');
    log.length = 0;
    const run: ProgramRun = await runProgram(buildProgram('python', broken, dir, 'broken'), key.env);
    assert.notEqual(run.code, 0, run.out);
    assert.match(run.err, /401/);
    assert.ok(
      log.some((e) => e.status === 401 && e.rule === 'iat_not_increasing' && e.kid === maskKeyId(key.kid)),
      JSON.stringify(log),
    );
  });
});
