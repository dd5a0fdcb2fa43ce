// The key identifier is a secret (spec 5.7): a canary kid goes through every surface that used to
// print it (core error messages, the sandbox's error bodies and --log, the CLI, the panel's view
// models) and must come out masked, except where the user handed the token in (decode).
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { runCli } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/main';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import { decodeJwt } from '../../src/core/auth/decodeJwt';
import type { Environment } from '../../src/core/environment';
import { errorMessage } from '../../src/core/base/errors';
import { lintToken } from '../../src/core/auth/lintToken';
import { maskKeyId } from '../../src/core/base/redact';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { checkToken } from '../../src/core/auth/tokenRules';
import { pageErrorView } from '../../src/results/tokens/errorAdvice';
import { listingView } from '../../src/results/requests/listingView';
import { tokenResultView } from '../../src/results/tokens/tokenView';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { distinctKeyPair } from './keyFixtures';
import { runCliInProcess } from './support/cliRunner';
import { FLEET_PROTO, INCLUDE_DIR, startGrpcTestServer } from './support/grpcTestServer';
import { startCannedServer } from './support/testServer';

/** A kid that must never be printed whole; long enough that its masked form shows only its ends. */
const CANARY_KID = `canary-kid-${randomBytes(12).toString('hex')}`;
const MASKED = maskKeyId(CANARY_KID);
const ISSUER = 'org-1@example.test';

function assertNoKid(text: string, where: string): void {
  // In any case: a server may echo it upper-cased.
  const lower = text.toLowerCase();
  assert.ok(!lower.includes(CANARY_KID), `${where} shows the whole kid:\n${text}`);
  // Not even a long middle part of it.
  assert.ok(!lower.includes(CANARY_KID.slice(8, 24)), `${where} shows part of the kid:\n${text}`);
}

describe('the key id (kid) is shown masked, never whole (spec 5.7)', function () {
  this.timeout(30_000);
  const { privateKey } = distinctKeyPair('p256');
  const other = distinctKeyPair('p256');
  const credential: Credential = {
    type: 'external-org',
    alg: 'ES256',
    kid: CANARY_KID,
    issuer: ISSUER,
    privateKey,
    publicKey: createPublicKey(privateKey),
  };
  let dir: string;
  let sandbox: RunningSandbox;
  const logged: SandboxRequestLog[] = [];
  const mds = (): Environment => {
    const e = sandbox.environments.find((x) => x.id === 'mds-staging');
    if (!e) throw new Error('no mds-staging');
    return { id: e.id, name: e.id, api: e.api, stage: e.stage, baseUrl: e.baseUrl };
  };
  /** A token with the canary kid, signed by `key`. */
  const canaryToken = (key = privateKey, aud = mds().baseUrl) =>
    new SignJWT({ iss: ISSUER, aud, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: CANARY_KID })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kid-masking-'));
    sandbox = await startSandbox({ fleetSize: 5, demoDir: false, onRequest: (e) => logged.push(e) });
    // The sandbox knows the canary kid, but with another key: its tokens fail bad_signature.
    sandbox.trust({ kid: CANARY_KID, iss: ISSUER, type: 'external-org', publicKey: createPublicKey(other.privateKey) });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maskKeyId shows an eighth of a kid at each end (at most 4 characters), nothing of one under 16 characters', () => {
    assert.equal(maskKeyId('ab12cd34ef56f9c0ab12cd34ef56f9c0'), 'ab12…f9c0');
    assert.equal(maskKeyId('ab12cd34ef56f9c0'), 'ab…c0');
    assert.equal(maskKeyId('sandbox-demo-89bffd9b'), 'sa…9b');
    assert.equal(maskKeyId('k1234567'), '…');
    assert.equal(maskKeyId('key-1234-abcdef'), '…');
    assert.equal(maskKeyId('k1'), '…');
    assert.equal(maskKeyId(123456789), '…');
    assert.equal(MASKED, `${CANARY_KID.slice(0, 4)}…${CANARY_KID.slice(-4)}`);
  });

  it('core error messages: the token rules and a signing failure name the key masked', async () => {
    const payload = { iss: 'someone-else@example.test', aud: 'https://x.test.invalid', iat: 1, exp: 2, jti: 'x' };
    const descriptions = [
      ...checkToken(
        { header: { alg: 'RS256', kid: CANARY_KID }, payload },
        { credentialType: 'iam', api: 'maas', expectedIssuer: ISSUER },
      ),
      ...checkToken({ header: { alg: 'ES256', kid: { id: CANARY_KID } }, payload }, {}),
    ]
      .map((v) => `${v.description} ${v.details.join(' ')}`)
      .join('\n');
    assert.ok(descriptions.includes(`"${MASKED}"`), descriptions);
    assertNoKid(descriptions, 'the token rules');
    const broken: Credential = { ...credential, alg: 'RS256' };
    const err = await new TokenIssuer().issue(broken, mds()).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err, 'signing an EC key as RS256 fails');
    assert.ok(errorMessage(err).includes(MASKED), errorMessage(err));
    assertNoKid(errorMessage(err), 'SIGNING_FAILED');
  });

  it('the sandbox: error bodies and the request log hold the kid masked', async () => {
    logged.length = 0;
    const answer = await fetch(`${mds().baseUrl}/vehicles`, {
      headers: { Authorization: `Bearer ${await canaryToken()}` },
    });
    const body = await answer.text();
    assert.equal(answer.status, 401);
    assert.match(body, /bad_signature/);
    assert.ok(body.includes(MASKED), body);
    assertNoKid(body, 'the 401 body');
    assertNoKid(answer.headers.get('www-authenticate') ?? '', 'WWW-Authenticate');
    const entry = logged.find((e) => e.status === 401);
    assert.ok(entry, 'the refusal is logged');
    assert.equal(entry.kid, MASKED);
    assertNoKid(JSON.stringify(logged), 'the request log');
  });

  it('the CLI: `sandbox --log` lines, its banner and --json, a refusal, and `demo` show the kid masked', async () => {
    const trustFile = path.join(dir, 'trust.json');
    fs.writeFileSync(
      trustFile,
      JSON.stringify({
        kid: CANARY_KID,
        iss: ISSUER,
        type: 'external-org',
        publicKey: createPublicKey(other.privateKey).export({ format: 'jwk' }),
      }),
    );
    const keyFile = path.join(dir, 'test-only-canary.pem');
    fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const flags = [
      '--private-key',
      keyFile,
      '--kid',
      CANARY_KID,
      '--iss',
      ISSUER,
      '--type',
      'external-org',
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ];
    for (const json of [false, true]) {
      let out = '';
      let err = '';
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      let listening = () => {};
      const started = new Promise<void>((resolve) => (listening = resolve));
      const io: CliIo = {
        out: (t) => {
          out += `${t}\n`;
          listening();
        },
        err: (t) => (err += `${t}\n`),
        readStdin: () => Promise.resolve(''),
        env: {},
        untilStopped: () => stopped,
      };
      const demoDir = path.join(dir, `demo-${String(json)}`);
      const running = runCli(
        [
          'sandbox',
          '--log',
          '--port',
          '0',
          '--fleet',
          '5',
          '--trust',
          trustFile,
          '--demo-dir',
          demoDir,
          ...(json ? ['--json'] : []),
        ],
        io,
      );
      await started;
      const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      assert.ok(base, out);
      const refused = await runCliInProcess([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        `${base}/mds-staging`,
        ...flags,
      ]);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /bad_signature/);
      assertNoKid(refused.out + refused.err, 'the CLI refusal');
      const demoKid = (
        JSON.parse(fs.readFileSync(path.join(demoDir, 'demo-credential.json'), 'utf8')) as { kid: string }
      ).kid;
      const listed = await runCliInProcess([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        `${base}/mds-staging`,
        '--credential',
        path.join(demoDir, 'demo-credential.json'),
        '--state-dir',
        path.join(dir, 'state'),
      ]);
      assert.equal(listed.code, 0, listed.err);
      // The log line of the refusal is written just after the answer.
      for (let i = 0; i < 100 && !err.includes('bad_signature'); i++)
        await new Promise((resolve) => setImmediate(resolve));
      stop();
      assert.equal(await running, 0);
      assert.match(err, /bad_signature/);
      assert.ok(err.includes(MASKED), err);
      assertNoKid(out + err, `sandbox ${json ? '--json ' : ''}--log`);
      assert.ok(out.includes(maskKeyId(demoKid)), out);
      assert.ok(!(out + err + listed.out + listed.err).includes(demoKid), 'the demo kid is masked too');
    }
    const demo = await runCliInProcess(['demo']);
    assert.equal(demo.code, 0, demo.err);
    assert.match(demo.out, /kid sa…[0-9a-f]{2}\b/);
    assert.doesNotMatch(demo.out, /sandbox-demo-[0-9a-f]{8}/);
  });

  it("the CLI: `decode` of a token the user hands in shows its kid whole (it is the user's own text)", async () => {
    const run = await runCliInProcess(['decode', await canaryToken()]);
    assert.ok(run.out.includes(CANARY_KID), run.out);
  });

  it('view models: a token signed here and its page show the kid masked; a decoded token of the user shows it', async () => {
    const env = mds();
    const token = await canaryToken();
    const decoded = decodeJwt(token);
    assert.ok(decoded.ok);
    const findings = lintToken(decoded.token, { now: Date.now(), knownAudiences: [env.baseUrl] });
    const generated = tokenResultView({
      id: 't1',
      environment: env,
      token,
      decoded: decoded.token,
      findings,
      source: 'Generated',
      now: Date.now(),
    });
    assert.equal(generated.token.header.kid, MASKED);
    assertNoKid(JSON.stringify(generated), 'the generated token view');
    const given = tokenResultView({
      id: 't2',
      token,
      decoded: decoded.token,
      findings,
      source: 'Clipboard',
      now: Date.now(),
      userGiven: true,
    });
    assert.equal(given.token.header.kid, CANARY_KID);

    // A refused listing: the page's token view and its error view.
    const listing = await new ApiClient({ issuer: new TokenIssuer() }).listVehicles(env, credential);
    const page = listing.pages[0];
    assert.equal(page.status, 401);
    const view = listingView({
      id: 'r1',
      environment: env,
      listing,
      canLoadNext: false,
      canCopyCurl: true,
      now: Date.now(),
    });
    assertNoKid(JSON.stringify(view), 'the listing view');
    assertNoKid(
      JSON.stringify(pageErrorView(page, { audience: env.baseUrl, api: 'mds', credentialType: 'external-org' })),
      'the error view',
    );
  });

  it("a gRPC server that echoes a hex-only kid (a service account's private_key_id is 40 hex digits): `grpc call` shows it masked, in its text and its --json", async () => {
    const hexKid = randomBytes(20).toString('hex');
    const server = await startGrpcTestServer({ reflection: 'none' });
    try {
      const keyFile = path.join(dir, 'test-only-grpc-echo.pem');
      fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      const flags = [
        '--target',
        server.address,
        '--plaintext',
        '--aud',
        'https://mds.echo.test.invalid',
        '--private-key',
        keyFile,
        '--kid',
        hexKid,
        '--iss',
        ISSUER,
        '--type',
        'external-org',
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
        '--proto',
        FLEET_PROTO,
        '--import-path',
        INCLUDE_DIR,
        '--data',
        '{"device_id": "echo-kid"}',
      ];
      for (const json of [false, true]) {
        const run = await runCliInProcess([
          'grpc',
          'call',
          'mobility.test.v1.Fleet/GetVehicle',
          ...flags,
          ...(json ? ['--json'] : []),
        ]);
        assert.notEqual(run.code, 0);
        const all = run.out + run.err;
        assert.match(all, /UNAUTHENTICATED/);
        assert.ok(all.includes(`unknown kid ${maskKeyId(hexKid)}`), all);
        assert.ok(
          !all.includes(hexKid) && !all.includes(hexKid.slice(8, 32)),
          `grpc call ${json ? '--json ' : ''}shows the kid:\n${all}`,
        );
      }
      assert.equal(server.seen.length, 2, 'both calls reached the server');
    } finally {
      await server.close();
    }

    // Reflection refused with the kid echoed: `grpc list` says why, the kid masked.
    const refusing = await startGrpcTestServer({ reflectionEchoesKid: true });
    try {
      const keyFile = path.join(dir, 'test-only-grpc-echo.pem');
      const list = await runCliInProcess([
        'grpc',
        'list',
        '--target',
        refusing.address,
        '--plaintext',
        '--aud',
        'https://mds.echo.test.invalid',
        '--private-key',
        keyFile,
        '--kid',
        hexKid,
        '--iss',
        ISSUER,
        '--type',
        'external-org',
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
      ]);
      assert.notEqual(list.code, 0);
      assert.ok(
        refusing.seen.length > 0 && refusing.seen.every((c) => c.authorization?.startsWith('Bearer ')),
        'the reflection calls carried tokens',
      );
      assert.ok((list.out + list.err).includes(`unknown kid ${maskKeyId(hexKid)}`), list.out + list.err);
      assert.ok(!(list.out + list.err).includes(hexKid), `grpc list shows the kid:\n${list.out + list.err}`);
    } finally {
      await refusing.close();
    }
  });

  it("a server that echoes the kid back: the CLI and the panel's views show it masked", async () => {
    const server = await startCannedServer((req) => {
      const kid = (
        JSON.parse(
          Buffer.from(String(req.headers.authorization).split(' ')[1].split('.')[0], 'base64url').toString(),
        ) as { kid: string }
      ).kid;
      // Also upper-cased, and percent-encoded in a URL it quotes.
      return {
        status: 401,
        headers: { 'WWW-Authenticate': `Bearer error="invalid_token", kid="${kid}"`, 'X-Key-Id': kid },
        body: {
          error: 'invalid_token',
          error_description: `unknown kid ${kid}`,
          error_details: [
            `kid: ${kid}`,
            `KID: ${kid.toUpperCase()}`,
            `see https://keys.example.test/?kid=${encodeURIComponent(`${kid}/`)}`,
          ],
        },
      };
    });
    try {
      const keyFile = path.join(dir, 'test-only-echo.pem');
      fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      const run = await runCliInProcess([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        server.url,
        '--private-key',
        keyFile,
        '--kid',
        CANARY_KID,
        '--iss',
        ISSUER,
        '--type',
        'external-org',
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
      ]);
      assert.equal(run.code, 1);
      assert.ok(run.err.includes(`unknown kid ${MASKED}`), run.err);
      assertNoKid(run.out + run.err, 'the CLI');
      const env: Environment = { id: 'echo', name: 'echo', api: 'mds', stage: 'staging', baseUrl: server.url };
      const listing = await new ApiClient({ issuer: new TokenIssuer() }).listVehicles(env, credential);
      const view = listingView({
        id: 'r2',
        environment: env,
        listing,
        canLoadNext: false,
        canCopyCurl: true,
        now: Date.now(),
      });
      assertNoKid(JSON.stringify(view), 'the listing view');
      const error = pageErrorView(listing.pages[0], {
        audience: env.baseUrl,
        api: 'mds',
        credentialType: 'external-org',
      });
      assert.ok(JSON.stringify(error).includes(MASKED));
      assertNoKid(JSON.stringify(error), 'the error view');
    } finally {
      await server.close();
    }
  });
});
