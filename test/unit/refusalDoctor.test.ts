import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import { FileClockStore, keyIdDigest } from '../../src/core/clock/fileClockStore';
import { IssueClock } from '../../src/core/clock/issueClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import type { IssuedToken } from '../../src/core/auth/tokenIssuer';
import { listingView } from '../../src/results/requests/listingView';
import { explainRefusal } from '../../src/results/tokens/refusalView';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxEnvironment } from '../../src/sandbox/sandboxServer';
import type { CliCredential } from './support/cliRunner';
import { makeCliCredential, runCliInProcess } from './support/cliRunner';
import { makeTestCredential } from './support/testCredentials';
import { startCannedServer } from './support/testServer';

const MDS_BODY = { version: '2.0', vehicles: [], links: {} };

function environmentOf(env: SandboxEnvironment, extra: Partial<Environment> = {}): Environment {
  return { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl, ...extra };
}

/** The lines the CLI prints after "Likely cause:". */
function causeLine(err: string): string {
  const line = err.split('\n').find((l) => l.startsWith('Likely cause: '));
  assert.ok(line, `no "Likely cause" line in:\n${err}`);
  return line;
}

describe('why was my token refused (the rejection doctor)', function () {
  this.timeout(30_000);
  let clockOffsetMs = 0;
  let sandbox: RunningSandbox;
  let cli: CliCredential;
  const env = (id: SandboxEnvironment['id']) => sandbox.environments.find((e) => e.id === id) as SandboxEnvironment;

  /** Trusts the CLI credential's key under `type` with the CLI's issuer. */
  function trustCli(type: 'external-org' | 'iam'): void {
    const keyFile = cli.flags[cli.flags.indexOf('--private-key') + 1];
    sandbox.trust({
      kid: cli.kid,
      iss: 'org-1@example.test',
      type,
      publicKey: createPublicKey(createPrivateKey(fs.readFileSync(keyFile, 'utf8'))),
    });
  }
  const flagsAs = (type: string) => cli.flags.map((f) => (f === 'external-org' ? type : f));

  before(async () => {
    sandbox = await startSandbox({ now: () => Date.now() + clockOffsetMs, fleetSize: 10, demoDir: false });
  });
  after(() => sandbox.close());
  beforeEach(() => {
    clockOffsetMs = 0;
    cli = makeCliCredential();
  });
  afterEach(() => cli.remove());

  describe('refusals the sandbox names a rule for', () => {
    it("expired: a 60 s token on a sandbox whose clock runs 2 min ahead; the server's rule is the cause", async () => {
      trustCli('external-org');
      clockOffsetMs = 120_000;
      const run = await runCliInProcess([
        'vehicles',
        '--base-url',
        env('mds-staging').baseUrl,
        '--api',
        'mds',
        '--lifetime',
        '60',
        ...cli.flags,
      ]);
      assert.equal(run.code, 1);
      assert.match(run.err, /401 Unauthorized/);
      assert.match(
        causeLine(run.err),
        /^Likely cause: The server names rule expired \(spec 5\.1 rule 5\): exp [\d.]+ .* is not later than the server time/,
      );
      assert.match(run.err, /\[PROBLEM\] Server says: 401 invalid_token: .*\(rule: expired\)/);
      // The sandbox's Date header follows its clock, so the doctor sees the skew and why the token expired there.
      assert.match(run.err, /\[PROBLEM\] Clock: This computer's clock is about 2 min behind the server's/);
      assert.match(run.err, /\[PROBLEM\] Token times: .*at the server's time .* it had expired/);
      assert.match(run.err, /\[ok\] Audience: aud .* holds the environment's base URL/);
    });

    it('type_not_allowed_for_api: an IAM credential sent to the MaaS environment', async () => {
      trustCli('iam');
      const run = await runCliInProcess([
        'request',
        '/v1alpha2/vehicles',
        '--base-url',
        env('maas-staging').baseUrl,
        '--api',
        'mds',
        ...flagsAs('iam'),
      ]);
      assert.equal(run.code, 1);
      assert.match(
        causeLine(run.err),
        /^Likely cause: The server names rule type_not_allowed_for_api .*IAM.*External Organization credential for the MaaS API/,
      );
    });

    it('nbf_in_future: a request file with a token of its own that is not valid yet', async () => {
      trustCli('external-org');
      const keyFile = cli.flags[cli.flags.indexOf('--private-key') + 1];
      const base = env('mds-staging').baseUrl;
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({
        iss: 'org-1@example.test',
        aud: base,
        iat: now,
        exp: now + 300,
        nbf: now + 600,
        jti: randomUUID(),
      })
        .setProtectedHeader({ alg: 'ES256', kid: cli.kid })
        .sign(createPrivateKey(fs.readFileSync(keyFile, 'utf8')));
      const file = path.join(cli.dir, 'own.http');
      fs.writeFileSync(file, `# @authorization as-is\nGET {{baseUrl}}/vehicles\nAuthorization: Bearer ${token}\n`);
      const run = await runCliInProcess(['send', file, '--base-url', base, '--api', 'mds', ...cli.flags]);
      assert.equal(run.code, 1);
      assert.match(
        causeLine(run.err),
        /^Likely cause: The server names rule nbf_in_future \(spec RFC 7519 4\.1\.5\): nbf .* not valid yet/,
      );
      assert.match(run.err, /\[\?\] Token: The request carried an Authorization of its own/);
      assert.ok(!run.err.includes(token) && !run.out.includes(token), 'the token is never printed');
    });

    it('aud_mismatch: an environment whose audience setting is not its base URL (view model)', async () => {
      const credential = makeTestCredential();
      sandbox.trust({
        kid: credential.kid,
        iss: credential.issuer,
        type: 'external-org',
        publicKey: credential.publicKey,
      });
      const environment = environmentOf(env('mds-staging'), { audience: env('mds-production').baseUrl });
      const listing = await new ApiClient().listVehicles(environment, credential);
      const view = listingView({
        id: 'r',
        environment,
        listing,
        canLoadNext: false,
        canCopyCurl: false,
        now: Date.now(),
      });
      const explanation = view.error?.explanation;
      assert.ok(explanation, 'a 401 listing carries an explanation');
      assert.equal(explanation.causeRule, 'aud_mismatch');
      assert.match(explanation.cause, /^The server names rule aud_mismatch \(spec 5\.3\): aud is ".*mds-production"/);
      const audience = explanation.evidence.find((e) => e.label === 'Audience');
      assert.equal(audience?.verdict, 'problem');
      assert.ok(audience.detail.includes(`"${env('mds-staging').baseUrl}"`));
    });

    it('iat_not_increasing: another FileClockStore on the same state folder signed and sent a later token first', async () => {
      const credential = makeTestCredential();
      sandbox.trust({
        kid: credential.kid,
        iss: credential.issuer,
        type: 'external-org',
        publicKey: credential.publicKey,
      });
      const environment = environmentOf(env('mds-staging'));
      const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-clock-'));
      try {
        const here = new FileClockStore(stateDir);
        const elsewhere = new TokenIssuer({
          clock: new IssueClock({ store: new FileClockStore(stateDir), precision: 'milliseconds' }),
        });
        let laterIat = 0;
        /** This window's issuer; while its token is in flight, the other window signs and sends a later one. */
        class RacedIssuer extends TokenIssuer {
          override async issue(
            c: Credential,
            e: Environment,
            o?: { lifetimeSeconds?: number; signal?: AbortSignal },
          ): Promise<IssuedToken> {
            const mine = await super.issue(c, e, o);
            const later = await elsewhere.issue(c, e);
            laterIat = later.claims.iat;
            const res = await fetch(`${e.baseUrl}/vehicles`, { headers: { Authorization: `Bearer ${later.token}` } });
            assert.equal(res.status, 200);
            return mine;
          }
        }
        const client = new ApiClient({
          issuer: new RacedIssuer({ clock: new IssueClock({ store: here, precision: 'milliseconds' }) }),
        });
        const listing = await client.listVehicles(environment, credential);
        const page = listing.pages[0];
        assert.equal(page.status, 401);
        const keyMark = (await here.readMarks())[keyIdDigest(credential.kid)];
        assert.equal(keyMark, laterIat);
        const view = listingView({
          id: 'r',
          environment,
          listing,
          canLoadNext: false,
          canCopyCurl: false,
          now: Date.now(),
          refusal: { keyMark, credentialType: 'external-org' },
        });
        assert.equal(view.error?.explanation?.causeRule, 'iat_not_increasing');
        const ordering = view.error?.explanation?.evidence.find((e) => e.label === 'Key ordering');
        assert.equal(ordering?.verdict, 'problem');
        assert.match(ordering.detail, /signed a later token .* in another window or process/);
        // The server names the rule but the shared clock file holds nothing later: say what cannot be seen, not [ok].
        const unseen = explainRefusal(page, {
          audience: environment.baseUrl,
          api: 'mds',
          keyMark: page.token!.claims.iat,
        });
        const unseenOrdering = unseen?.evidence.find((e) => e.label === 'Key ordering');
        assert.equal(unseenOrdering?.verdict, 'unknown');
        assert.match(
          unseenOrdering.detail,
          /came from a signer that does not write that file \(other software signing with this key/,
        );
        // A server that does not name its rule: the shared clock's mark is the best guess.
        const foreign = { ...page, mdsError: { error: 'unauthorized' }, body: { error: 'unauthorized' } };
        const guess = explainRefusal(foreign, { audience: environment.baseUrl, api: 'mds', keyMark });
        assert.equal(guess?.causeRule, 'iat_not_increasing');
        assert.match(guess.cause, /^Another window or process signed a later token with this key/);
        // Without the mark the same answer has no such cause.
        assert.notEqual(
          explainRefusal(foreign, { audience: environment.baseUrl, api: 'mds' })?.causeRule,
          'iat_not_increasing',
        );
      } finally {
        fs.rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });

  describe('servers that give no rule', () => {
    it('a bare text 401 with terminal escapes: quoted, escaped, and every local check passes', async () => {
      const server = await startCannedServer(() => ({
        status: 401,
        body: 'Token \u001b[31mrejected\u001b[0m by gateway',
      }));
      try {
        const run = await runCliInProcess(['vehicles', '--base-url', server.url, '--api', 'mds', ...cli.flags]);
        assert.equal(run.code, 1);
        assert.equal(causeLine(run.err), 'Likely cause: The server says: "Token ?[31mrejected?[0m by gateway".');
        assert.ok(!run.err.includes('\u001b'), 'no escape character reaches the terminal');
        assert.match(run.err, /\[ok\] Other spec 5 rules: kid, alg, iss/);
        assert.match(
          run.err,
          /\[ok\] Key ordering: The key's shared clock file holds no time later than this token's iat \d+(\.\d+)?\. Every VS Code window, mobility-api run and Copy as Code program with the same state folder writes it; other software signing with this key, another state folder or another computer is not seen here\./,
        );
      } finally {
        await server.close();
      }
    });

    it('a foreign MDS-style error body without a rule', async () => {
      const server = await startCannedServer(() => ({
        status: 401,
        body: { error: 'invalid_client', error_description: 'JWT verification failed' },
      }));
      try {
        const run = await runCliInProcess([
          'request',
          '/vehicles',
          '--base-url',
          server.url,
          '--api',
          'mds',
          ...cli.flags,
        ]);
        assert.equal(run.code, 1);
        assert.equal(causeLine(run.err), 'Likely cause: The server says: "invalid_client: JWT verification failed".');
      } finally {
        await server.close();
      }
    });

    it('the server\'s own words after "bearer" are quoted as sent; an echoed token is not', async () => {
      let echoed = '';
      const server = await startCannedServer((req) => {
        echoed = String(req.headers.authorization ?? '');
        return {
          status: 401,
          body: { error: 'invalid_token', error_description: `bearer token expired (got ${echoed})` },
        };
      });
      try {
        const run = await runCliInProcess([
          'request',
          '/vehicles',
          '--base-url',
          server.url,
          '--api',
          'mds',
          ...cli.flags,
        ]);
        assert.equal(run.code, 1);
        assert.match(
          causeLine(run.err),
          /^Likely cause: The server says: "invalid_token: bearer token expired \(got Bearer [^ ]+\)"\.$/,
        );
        assert.ok(
          echoed.length > 20 && !run.err.includes(echoed.slice('Bearer '.length)),
          'the token never reaches the terminal',
        );
      } finally {
        await server.close();
      }
    });

    it('a 403 without a body: the credential may not see the resource', async () => {
      const server = await startCannedServer(() => ({ status: 403 }));
      try {
        const run = await runCliInProcess(['vehicles', '--base-url', server.url, '--api', 'mds', ...cli.flags]);
        assert.equal(run.code, 1);
        assert.match(causeLine(run.err), /accepted the token but this credential may not see this resource/);
      } finally {
        await server.close();
      }
    });

    it('a 401 from a server whose Date is 10 minutes ahead: the clock is the cause, the token expired for the server', async () => {
      const server = await startCannedServer(() => ({
        status: 401,
        headers: { Date: new Date(Date.now() + 600_000).toUTCString() },
        body: { error: 'unauthorized' },
      }));
      try {
        const run = await runCliInProcess([
          'vehicles',
          '--base-url',
          server.url,
          '--api',
          'mds',
          '--lifetime',
          '300',
          ...cli.flags,
        ]);
        assert.equal(run.code, 1);
        assert.match(
          causeLine(run.err),
          /^Likely cause: This computer's clock is about (9|10) min behind the server's, so for the server the token had already expired \(rule expired\)\. Sync this computer's clock \(NTP\)/,
        );
        assert.match(run.err, /mobility-api: warning: This computer's clock is about (9|10) min behind the server's/);
        assert.match(run.err, /\[PROBLEM\] Token times: .* it had expired/);
      } finally {
        await server.close();
      }
    });
  });

  describe('clock skew notice', () => {
    for (const [direction, offsetMs, words] of [
      ['ahead', -600_000, 'ahead of'],
      ['behind', 600_000, 'behind'],
    ] as const) {
      it(`says so when this computer's clock is ${direction} of the server's, on a 200 too`, async () => {
        const server = await startCannedServer(() => ({
          status: 200,
          headers: { Date: new Date(Date.now() + offsetMs).toUTCString() },
          body: MDS_BODY,
        }));
        try {
          const run = await runCliInProcess(['vehicles', '--base-url', server.url, '--api', 'mds', ...cli.flags]);
          assert.equal(run.code, 0, run.err);
          assert.match(
            run.err,
            new RegExp(
              `^mobility-api: warning: This computer's clock is about (9|10) min ${words} the server's .*NTP`,
              'm',
            ),
          );
          const credential = makeTestCredential();
          const environment: Environment = {
            id: 'canned',
            name: 'canned',
            api: 'mds',
            stage: 'custom',
            baseUrl: server.url,
          };
          const listing = await new ApiClient().listVehicles(environment, credential);
          const view = listingView({
            id: 'r',
            environment,
            listing,
            canLoadNext: false,
            canCopyCurl: false,
            now: Date.now(),
          });
          assert.match(view.clockNotice ?? '', new RegExp(`about (9|10) min ${words} the server's`));
        } finally {
          await server.close();
        }
      });
    }

    it('says nothing when the clocks agree', async () => {
      const server = await startCannedServer(() => ({ status: 200, body: MDS_BODY }));
      try {
        const run = await runCliInProcess(['vehicles', '--base-url', server.url, '--api', 'mds', ...cli.flags]);
        assert.equal(run.code, 0, run.err);
        assert.doesNotMatch(run.err, /clock/);
        const environment: Environment = {
          id: 'canned',
          name: 'canned',
          api: 'mds',
          stage: 'custom',
          baseUrl: server.url,
        };
        const view = listingView({
          id: 'r',
          environment,
          listing: await new ApiClient().listVehicles(environment, makeTestCredential()),
          canLoadNext: false,
          canCopyCurl: false,
          now: Date.now(),
        });
        assert.equal(view.clockNotice, undefined);
      } finally {
        await server.close();
      }
    });
  });
});
