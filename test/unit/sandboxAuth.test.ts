import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, randomUUID, sign as cryptoSign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import { distinctKeyPair, keyFixture } from './keyFixtures';
import type { CredentialType } from '../../src/core/auth/credential';
import { AUTH_RULE_IDS } from '../../src/core/auth/authRules';
import type { AuthRuleId } from '../../src/core/auth/authRules';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxEnvironment } from '../../src/sandbox/sandboxServer';
import { TokenVerifier } from '../../src/sandbox/auth/tokenVerifier';
import { TrustStore } from '../../src/sandbox/auth/trustStore';

interface Signer {
  kid: string;
  iss: string;
  alg: 'ES256' | 'RS256';
  privateKey: KeyObject;
}

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: string; error_description?: string; error_details?: string[]; [key: string]: unknown };
}

async function get(url: string, token?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const all: Record<string, string> = { 'Content-Type': 'application/json', ...headers };
  if (token !== undefined) all.Authorization = `Bearer ${token}`;
  const res = await fetch(url, { headers: all });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

function sign(signer: Signer, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, ...header })
    .sign(signer.privateKey);
}

/** The rule named in a 401 body, after checking the parts every refusal must have. */
function ruleOf(answer: Answer): string | undefined {
  assert.equal(answer.status, 401, `expected 401, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.error, 'invalid_token');
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token", error_description="/);
  assert.equal(typeof answer.body.error_description, 'string');
  const details = answer.body.error_details ?? [];
  assert.ok(
    details.some((d) => d.startsWith('spec: ')),
    'the details name the spec section',
  );
  return details.find((d) => d.startsWith('rule: '))?.slice('rule: '.length);
}

function assertRefused(answer: Answer, rule: AuthRuleId): void {
  assert.equal(ruleOf(answer), rule, `expected rule ${rule}: ${JSON.stringify(answer.body)}`);
}

describe('sandbox authentication (spec section 5)', () => {
  const start = Date.UTC(2030, 0, 15, 12, 0, 0);
  let clock = start;
  let sandbox: RunningSandbox;
  let mds: SandboxEnvironment;
  let mdsProduction: SandboxEnvironment;
  let maas: SandboxEnvironment;
  let rsaKey: KeyObject;
  let seq = 0;
  const nowSeconds = () => clock / 1000;

  /** A new trusted key with its own kid, so each test starts with a fresh ordering history. */
  function trustedSigner(type: CredentialType = 'external-org'): Signer {
    seq += 1;
    const privateKey = type === 'service-account' ? rsaKey : distinctKeyPair('p256').privateKey;
    const iss = type === 'service-account' ? `svc-${seq}@project.sa.example.test` : `org-${seq}@${type}.example.test`;
    const signer: Signer = {
      kid: `test-${type}-${seq}`,
      iss,
      alg: type === 'service-account' ? 'RS256' : 'ES256',
      privateKey,
    };
    sandbox.trust({ kid: signer.kid, iss, type, publicKey: createPublicKey(privateKey) });
    return signer;
  }

  function claims(signer: Signer, env: SandboxEnvironment, iat = nowSeconds(), extra: JWTPayload = {}): JWTPayload {
    return { iss: signer.iss, aud: env.baseUrl, iat, exp: Math.floor(iat) + 300, jti: randomUUID(), ...extra };
  }

  before(async () => {
    rsaKey = keyFixture('rsa2048').privateKey;
    sandbox = await startSandbox({ now: () => clock, fleetSize: 50 });
    const byId = (id: SandboxEnvironment['id']) => sandbox.environments.find((e) => e.id === id) as SandboxEnvironment;
    mds = byId('mds-staging');
    mdsProduction = byId('mds-production');
    maas = byId('maas-staging');
  });
  after(() => sandbox.close());
  beforeEach(() => {
    clock = start;
  });

  it('accepts the demo credential in every environment, each at its own base URL', async () => {
    const demo = sandbox.demo;
    const signer: Signer = {
      kid: demo.kid,
      iss: demo.issuer,
      alg: 'ES256',
      privateKey: createPrivateKey(readFileSync(demo.privateKeyFile, 'utf8')),
    };
    assert.equal(sandbox.environments.length, 3);
    let iat = nowSeconds();
    for (const env of sandbox.environments) {
      assert.equal(env.baseUrl, `${sandbox.url}/${env.id}`);
      const path = env.api === 'mds' ? '/vehicles' : '/v1alpha2/vehicles';
      const answer = await get(env.baseUrl + path, await sign(signer, claims(signer, env, iat)));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.ok(Array.isArray(answer.body.vehicles));
      iat += 1;
    }
  });

  it('names a distinct rule id with a spec section for every rule', () => {
    assert.equal(new Set(AUTH_RULE_IDS).size, AUTH_RULE_IDS.length);
    assert.ok(AUTH_RULE_IDS.length >= 18);
  });

  describe('refusals, each naming its rule', () => {
    it('missing_bearer: no Authorization header, another scheme, or an empty bearer', async () => {
      const url = `${mds.baseUrl}/vehicles`;
      assertRefused(await get(url), 'missing_bearer');
      assertRefused(await get(url, undefined, { Authorization: 'Basic dXNlcjpwYXNz' }), 'missing_bearer');
      assertRefused(await get(url, undefined, { Authorization: 'Bearer ' }), 'missing_bearer');
    });

    it('malformed_token: not three parts, or a header that is not JSON', async () => {
      assertRefused(await get(`${mds.baseUrl}/vehicles`, 'only.two'), 'malformed_token');
      assertRefused(await get(`${mds.baseUrl}/vehicles`, 'bm90IGpzb24.e30.c2ln'), 'malformed_token');
    });

    it('malformed_token: "=" padding in a part (RFC 7515 section 2), even when the signature over the padded parts verifies', async () => {
      const signer = trustedSigner();
      const pad = (part: string) => part + '='.repeat((4 - (part.length % 4)) % 4);
      const json = (value: unknown) => pad(Buffer.from(JSON.stringify(value)).toString('base64url'));
      // Header and payload lengths that need padding, so that every part carries "=".
      let header = json({ alg: 'ES256', kid: signer.kid });
      for (let n = 1; !header.endsWith('='); n++)
        header = json({ alg: 'ES256', kid: signer.kid, typ: 'JWT'.padEnd(3 + n, ' ') });
      let payload = json(claims(signer, mds));
      for (let n = 1; !payload.endsWith('='); n++)
        payload = json(claims(signer, mds, nowSeconds(), { pad: 'x'.repeat(n) }));
      const signature = pad(
        cryptoSign('sha256', Buffer.from(`${header}.${payload}`), {
          key: signer.privateKey,
          dsaEncoding: 'ieee-p1363',
        }).toString('base64url'),
      );
      const answer = await get(`${mds.baseUrl}/vehicles`, `${header}.${payload}.${signature}`);
      assertRefused(answer, 'malformed_token');
      assert.match(
        answer.body.error_description ?? '',
        /header, payload, signature parts of the token end in "=" padding.*RFC 7515 section 2/,
      );
      assert.ok(answer.body.error_details?.includes('standard: RFC 7515 section 2 (base64url without "=" padding)'));
      const unpadded = (part: string) => part.replace(/=+$/, '');
      const signedUnpadded = cryptoSign('sha256', Buffer.from(`${unpadded(header)}.${unpadded(payload)}`), {
        key: signer.privateKey,
        dsaEncoding: 'ieee-p1363',
      }).toString('base64url');
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, `${unpadded(header)}.${unpadded(payload)}.${signedUnpadded}`)).status,
        200,
        'the same token without padding is accepted',
      );
    });

    it('kid_missing and unknown_kid', async () => {
      const signer = trustedSigner();
      const noKid = await new SignJWT(claims(signer, mds)).setProtectedHeader({ alg: 'ES256' }).sign(signer.privateKey);
      assertRefused(await get(`${mds.baseUrl}/vehicles`, noKid), 'kid_missing');
      const unknown = await get(
        `${mds.baseUrl}/vehicles`,
        await sign({ ...signer, kid: 'nobody-knows-this-key' }, claims(signer, mds)),
      );
      assertRefused(unknown, 'unknown_kid');
      // Named masked: a key id is a secret (spec 5.7).
      assert.match(unknown.body.error_description ?? '', /kid "no…ey" is not a key this sandbox trusts/);
      assert.doesNotMatch(JSON.stringify(unknown.body), /nobody-knows-this-key/);
    });

    it('alg_not_allowed: an RS256 token under the kid of an ES256 key', async () => {
      const signer = trustedSigner();
      const answer = await get(
        `${mds.baseUrl}/vehicles`,
        await sign({ ...signer, alg: 'RS256', privateKey: rsaKey }, claims(signer, mds)),
      );
      assertRefused(answer, 'alg_not_allowed');
      assert.match(answer.body.error_description ?? '', /RS256/);
    });

    it('bad_signature: signed by another key than the one registered for the kid', async () => {
      const signer = trustedSigner();
      const impostor = { ...signer, privateKey: distinctKeyPair('p256').privateKey };
      assertRefused(await get(`${mds.baseUrl}/vehicles`, await sign(impostor, claims(signer, mds))), 'bad_signature');
    });

    it('iss_mismatch, showing the actual and the registered issuer', async () => {
      const signer = trustedSigner();
      const answer = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, nowSeconds(), { iss: 'someone@else.example.test' })),
      );
      assertRefused(answer, 'iss_mismatch');
      assert.match(answer.body.error_description ?? '', /someone@else\.example\.test/);
      assert.ok(answer.body.error_description?.includes(signer.iss));
    });

    it('aud_mismatch for another environment, a trailing slash or no aud; a list holding the base URL is accepted', async () => {
      const signer = trustedSigner();
      let iat = nowSeconds();
      const other = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, iat, { aud: mdsProduction.baseUrl })),
      );
      assertRefused(other, 'aud_mismatch');
      assert.ok(other.body.error_description?.includes(mdsProduction.baseUrl));
      const slash = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, iat, { aud: `${mds.baseUrl}/` })),
      );
      assertRefused(slash, 'aud_mismatch');
      assert.ok(slash.body.error_details?.some((d) => d.startsWith('hint:')));
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat, { aud: undefined }))),
        'aud_mismatch',
      );
      iat += 1;
      const list = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, iat, { aud: ['https://other.example.test', mds.baseUrl] })),
      );
      assert.equal(list.status, 200);
    });

    it('exp_missing and iat_missing', async () => {
      const signer = trustedSigner();
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds(), { exp: undefined }))),
        'exp_missing',
      );
      assertRefused(
        await get(
          `${mds.baseUrl}/vehicles`,
          await sign(signer, claims(signer, mds, nowSeconds(), { exp: '1893456000' as unknown as number })),
        ),
        'exp_missing',
      );
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds(), { iat: undefined }))),
        'iat_missing',
      );
    });

    it('lifetime_out_of_range below 60 s and above 3600 s; exactly 60 s and 3600 s are accepted', async () => {
      const signer = trustedSigner();
      const iat = nowSeconds();
      const short = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, iat, { exp: iat + 59 })),
      );
      assertRefused(short, 'lifetime_out_of_range');
      assert.match(short.body.error_description ?? '', /59 s/);
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat, { exp: iat + 3601 }))),
        'lifetime_out_of_range',
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat, { exp: iat + 60 })))).status,
        200,
      );
      assert.equal(
        (
          await get(
            `${mds.baseUrl}/vehicles`,
            await sign(signer, claims(signer, mds, iat + 1, { exp: iat + 1 + 3600 })),
          )
        ).status,
        200,
      );
    });

    it('expired once the server clock passes exp', async () => {
      const signer = trustedSigner();
      const token = await sign(signer, claims(signer, mds, nowSeconds(), { exp: nowSeconds() + 60 }));
      clock = start + 61_000;
      const answer = await get(`${mds.baseUrl}/vehicles`, token);
      assertRefused(answer, 'expired');
      assert.ok(answer.body.error_description?.includes(String(nowSeconds())));
    });

    it('iat_in_future beyond the allowed skew of 60 s; within it is accepted', async () => {
      const signer = trustedSigner();
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds() + 61))),
        'iat_in_future',
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds() + 59)))).status,
        200,
      );
    });

    it('jti_missing and jti_not_uuid', async () => {
      const signer = trustedSigner();
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds(), { jti: undefined }))),
        'jti_missing',
      );
      const notUuid = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, nowSeconds(), { jti: 'request-1' })),
      );
      assertRefused(notUuid, 'jti_not_uuid');
      assert.match(notUuid.body.error_description ?? '', /request-1/);
    });

    it('nbf_in_future: a token that is not valid yet is refused (RFC 7519 4.1.5); nbf now or within the skew is accepted', async () => {
      const signer = trustedSigner();
      const late = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, nowSeconds(), { nbf: nowSeconds() + 120 })),
      );
      assertRefused(late, 'nbf_in_future');
      assert.match(late.body.error_description ?? '', /not valid yet/);
      assert.ok(late.body.error_details?.includes('spec: RFC 7519 4.1.5'));
      assertRefused(
        await get(
          `${mds.baseUrl}/vehicles`,
          await sign(signer, claims(signer, mds, nowSeconds(), { nbf: 'soon' as unknown as number })),
        ),
        'nbf_in_future',
      );
      assert.equal(
        (
          await get(
            `${mds.baseUrl}/vehicles`,
            await sign(signer, claims(signer, mds, nowSeconds(), { nbf: nowSeconds() })),
          )
        ).status,
        200,
      );
      assert.equal(
        (
          await get(
            `${mds.baseUrl}/vehicles`,
            await sign(signer, claims(signer, mds, nowSeconds() + 1, { nbf: nowSeconds() + 30 })),
          )
        ).status,
        200,
      );
    });

    it('jti_not_random: the nil UUID, a time-based (v1) or name-based (v5) UUID and a wrong variant are refused (spec 5.1 rule 7)', async () => {
      const signer = trustedSigner();
      const cases: [string, RegExp][] = [
        ['00000000-0000-0000-0000-000000000000', /nil UUID/],
        ['6ba7b810-9dad-11d1-80b4-00c04fd430c8', /version 1/],
        ['2ed6657d-e927-568b-95e1-2665a8aea6a2', /version 5/],
        ['0f8fad5b-d9cb-469f-c165-0707782b8aaa', /variant/],
      ];
      for (const [jti, reason] of cases) {
        const answer = await get(
          `${mds.baseUrl}/vehicles`,
          await sign(signer, claims(signer, mds, nowSeconds(), { jti })),
        );
        assertRefused(answer, 'jti_not_random');
        assert.match(answer.body.error_description ?? '', reason, jti);
        assert.ok(answer.body.error_details?.includes('spec: 5.1 rule 7'));
      }
      assert.equal(
        (
          await get(
            `${mds.baseUrl}/vehicles`,
            await sign(signer, claims(signer, mds, nowSeconds(), { jti: randomUUID().toUpperCase() })),
          )
        ).status,
        200,
      );
    });

    it('jti_replayed: the same token twice', async () => {
      const signer = trustedSigner();
      const token = await sign(signer, claims(signer, mds));
      assert.equal((await get(`${mds.baseUrl}/vehicles`, token)).status, 200);
      const again = await get(`${mds.baseUrl}/vehicles`, token);
      assertRefused(again, 'jti_replayed');
      assert.ok(!JSON.stringify(again.body).includes(token), 'the body never echoes the token');
      assert.ok(!(again.headers.get('www-authenticate') ?? '').includes(token));
    });

    it('iat_not_increasing: an equal iat is refused, a later one accepted, fractional iats count', async () => {
      const signer = trustedSigner();
      const iat = nowSeconds() + 0.25;
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat)))).status, 200);
      const equal = await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat)));
      assertRefused(equal, 'iat_not_increasing');
      assert.ok(equal.body.error_details?.includes(`latest accepted iat: ${iat}`));
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat - 0.001))),
        'iat_not_increasing',
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat + 0.001)))).status,
        200,
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, iat + 1)))).status,
        200,
      );
    });

    it('keeps the ordering per key: another key is not held back by the first one', async () => {
      const first = trustedSigner();
      const second = trustedSigner();
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(first, claims(first, mds, nowSeconds() + 30)))).status,
        200,
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(second, claims(second, mds, nowSeconds())))).status,
        200,
      );
    });

    it('keeps one ordering clock per public key: shared by two kids of one key, not carried over to a new key under the same kid', async () => {
      const first = trustedSigner();
      const alias: Signer = { ...first, kid: `${first.kid}-alias` };
      sandbox.trust({
        kid: alias.kid,
        iss: alias.iss,
        type: 'external-org',
        publicKey: createPublicKey(first.privateKey),
      });
      const iat = nowSeconds() + 20;
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(first, claims(first, mds, iat)))).status, 200);
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(alias, claims(alias, mds, iat))),
        'iat_not_increasing',
      );
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(alias, claims(alias, mds, iat + 1)))).status, 200);
      // The kid now names another key: its tokens are ordered on their own clock.
      const renewed: Signer = { ...first, privateKey: distinctKeyPair('p256').privateKey };
      sandbox.trust({
        kid: renewed.kid,
        iss: renewed.iss,
        type: 'external-org',
        publicKey: createPublicKey(renewed.privateKey),
      });
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(renewed, claims(renewed, mds, nowSeconds())))).status,
        200,
      );
    });

    it('records jti and iat only for accepted tokens', async () => {
      const signer = trustedSigner();
      const jti = randomUUID();
      const refused = await get(
        `${mds.baseUrl}/vehicles`,
        await sign(signer, claims(signer, mds, nowSeconds() + 10, { jti, aud: maas.baseUrl })),
      );
      assertRefused(refused, 'aud_mismatch');
      // An earlier iat and the same jti pass, since the refused token left no trace.
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, nowSeconds(), { jti })))).status,
        200,
      );
    });

    it('type_not_allowed_for_api: IAM is accepted by MDS but refused by MaaS', async () => {
      const signer = trustedSigner('iam');
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds)))).status, 200);
      const answer = await get(
        `${maas.baseUrl}/v1alpha2/vehicles`,
        await sign(signer, claims(signer, maas, nowSeconds() + 1)),
      );
      assertRefused(answer, 'type_not_allowed_for_api');
      assert.match(answer.body.error_description ?? '', /IAM/);
    });

    it('service account: RS256 with sub and email equal to iss is accepted on MDS; otherwise sub_email_mismatch; MaaS refuses it', async () => {
      const signer = trustedSigner('service-account');
      const sa = (iat: number, extra: JWTPayload = {}) =>
        claims(signer, mds, iat, { sub: signer.iss, email: signer.iss, exp: Math.floor(iat) + 360, ...extra });
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(signer, sa(nowSeconds())))).status, 200);
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, sa(nowSeconds() + 1, { email: undefined }))),
        'sub_email_mismatch',
      );
      assertRefused(
        await get(
          `${mds.baseUrl}/vehicles`,
          await sign(signer, sa(nowSeconds() + 1, { sub: 'other@project.sa.example.test' })),
        ),
        'sub_email_mismatch',
      );
      assertRefused(
        await get(`${maas.baseUrl}/v1alpha2/vehicles`, await sign(signer, sa(nowSeconds() + 1, { aud: maas.baseUrl }))),
        'type_not_allowed_for_api',
      );
      const es256 = await get(
        `${mds.baseUrl}/vehicles`,
        await sign({ ...signer, alg: 'ES256', privateKey: keyFixture('p256').privateKey }, sa(nowSeconds() + 1)),
      );
      assertRefused(es256, 'alg_not_allowed');
    });
  });

  describe('requests Node would serve wrongly', () => {
    /** A raw request, so that headers can repeat and grow beyond what fetch sends. */
    function raw(url: string, headers: string[]): Promise<{ status: number; type: string; body: Answer['body'] }> {
      return new Promise((resolve, reject) => {
        const req = request(url, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers['content-type']),
                body: JSON.parse(text) as Answer['body'],
              });
            } catch {
              reject(
                new Error(`status ${res.statusCode}: the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`),
              );
            }
          });
        });
        req.on('error', reject);
        req.end();
      });
    }

    it('refuses two Authorization headers with 400 and an MDS error body, even when the first token is valid', async () => {
      const signer = trustedSigner();
      const good = await sign(signer, claims(signer, mds));
      const host = new URL(mds.baseUrl).host;
      const answer = await raw(`${mds.baseUrl}/vehicles`, [
        'Host',
        host,
        'Authorization',
        `Bearer ${good}`,
        'Authorization',
        'Bearer second',
      ]);
      assert.equal(answer.status, 400);
      assert.match(answer.type, /^application\/json/);
      assert.equal(answer.body.error, 'bad_request');
      assert.match(answer.body.error_description ?? '', /2 Authorization headers/);
      assert.ok(!JSON.stringify(answer.body).includes(good), 'the body never echoes the token');
      // The token was not spent: sent alone, it is accepted.
      assert.equal((await get(`${mds.baseUrl}/vehicles`, good)).status, 200);
    });

    it('answers a request without Host with 400 and an MDS error body', async () => {
      const answer = await raw(`${mds.baseUrl}/vehicles`, ['Authorization', 'Bearer x']);
      assert.equal(answer.status, 400);
      assert.equal(answer.body.error, 'bad_request');
      assert.match(answer.body.error_description ?? '', /Host/);
    });

    it("answers a request header over Node's limit with 431 and an MDS error body", async () => {
      const answer = await raw(`${mds.baseUrl}/vehicles`, ['Authorization', `Bearer ${'a'.repeat(20_000)}`]);
      assert.equal(answer.status, 431);
      assert.match(answer.type, /^application\/json/);
      assert.equal(answer.body.error, 'header_too_large');
      assert.equal(typeof answer.body.error_description, 'string');
      assert.ok((answer.body.error_details?.length ?? 0) >= 1);
      // The server is still up.
      const signer = trustedSigner();
      assert.equal((await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds)))).status, 200);
    });
  });

  describe('concurrent requests on one key', () => {
    it('accepts the same token only once when it is sent twice at once', async () => {
      const signer = trustedSigner();
      const token = await sign(signer, claims(signer, mds));
      const answers = await Promise.all([get(`${mds.baseUrl}/vehicles`, token), get(`${mds.baseUrl}/vehicles`, token)]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401]);
      assertRefused(answers.find((a) => a.status === 401) as Answer, 'jti_replayed');
    });

    it('accepts only one of several tokens with the same iat sent at once', async () => {
      const signer = trustedSigner();
      const iat = nowSeconds();
      const tokens = await Promise.all(Array.from({ length: 8 }, () => sign(signer, claims(signer, mds, iat))));
      const answers = await Promise.all(tokens.map((t) => get(`${mds.baseUrl}/vehicles`, t)));
      assert.equal(answers.filter((a) => a.status === 200).length, 1);
      for (const a of answers.filter((x) => x.status !== 200)) assertRefused(a, 'iat_not_increasing');
    });

    it('with strictly increasing iats sent at once: the latest is accepted, refusals only for ordering, and the mark ends at the latest', async () => {
      const signer = trustedSigner();
      const base = nowSeconds();
      const iats = Array.from({ length: 12 }, (_, i) => base + i * 0.001);
      const tokens = await Promise.all(iats.map((iat) => sign(signer, claims(signer, mds, iat))));
      const answers = await Promise.all(tokens.map((t) => get(`${mds.baseUrl}/vehicles`, t)));
      assert.equal(answers[answers.length - 1]?.status, 200, 'the token with the latest iat cannot be overtaken');
      for (const a of answers.filter((x) => x.status !== 200)) assertRefused(a, 'iat_not_increasing');
      const latest = iats[iats.length - 1];
      assertRefused(
        await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, latest))),
        'iat_not_increasing',
      );
      assert.equal(
        (await get(`${mds.baseUrl}/vehicles`, await sign(signer, claims(signer, mds, latest + 0.001)))).status,
        200,
      );
    });
  });

  describe('replay memory', () => {
    it('forgets jtis once their tokens have expired, so memory stays bounded', async () => {
      let now = start;
      const privateKey = keyFixture('p256').privateKey;
      const key = {
        kid: 'bounded',
        iss: 'bounded@example.test',
        type: 'external-org' as const,
        publicKey: createPublicKey(privateKey),
      };
      const verifier = new TokenVerifier({ trust: new TrustStore([key]), now: () => now, maxSkewSeconds: 60 });
      const signer: Signer = { kid: key.kid, iss: key.iss, alg: 'ES256', privateKey };
      const target = { api: 'mds' as const, audience: 'http://sandbox.test/mds-staging' };
      const accept = async (iat: number) => {
        const token = await sign(signer, { iss: key.iss, aud: target.audience, iat, exp: iat + 60, jti: randomUUID() });
        const check = await verifier.verify(`Bearer ${token}`, target);
        assert.ok(check.ok, check.ok ? '' : check.refusal.description);
      };
      for (let i = 0; i < 1000; i++) await accept(start / 1000 + i * 0.001);
      assert.equal(verifier.rememberedJtis, 1000);
      now = start + 120_000;
      for (let i = 0; i < 30; i++) await accept(now / 1000 + i * 0.001);
      assert.ok(
        verifier.rememberedJtis < 100,
        `remembered ${verifier.rememberedJtis} jtis after the first ones expired`,
      );
    });
  });
});
