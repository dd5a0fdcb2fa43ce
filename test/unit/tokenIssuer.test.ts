import assert from 'node:assert/strict';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { IssueClock } from '../../src/core/clock/issueClock';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { makeTestCredential } from './support/testCredentials';

const mds: Environment = {
  id: 'mds-staging',
  name: 'MDS staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.test.invalid/api',
};
const maas: Environment = {
  id: 'maas-staging',
  name: 'MaaS staging',
  api: 'maas',
  stage: 'staging',
  baseUrl: 'https://maas.test.invalid',
};
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('TokenIssuer', () => {
  it('signs an External Organization token with exactly the claims of spec 5.4 (ES256, kid, iss, aud, iat, exp, jti)', async () => {
    const cred = makeTestCredential('external-org');
    const issued = await new TokenIssuer().issue(cred, mds);
    const { payload, protectedHeader } = await jwtVerify(issued.token, cred.publicKey, {
      algorithms: ['ES256'],
      audience: 'https://mds.test.invalid/api',
      issuer: cred.issuer,
    });
    assert.deepEqual(protectedHeader, { alg: 'ES256', kid: cred.kid, typ: 'JWT' });
    assert.deepEqual(Object.keys(payload).sort(), ['aud', 'exp', 'iat', 'iss', 'jti']);
    assert.equal(payload.exp! - payload.iat!, 300, 'default lifetime 300 s');
    assert.match(payload.jti!, UUID_V4);
    assert.deepEqual(issued.claims, payload);
  });

  it('signs a service-account token with RS256 and sub = email = iss (spec 5.6)', async () => {
    const cred = makeTestCredential('service-account');
    const issued = await new TokenIssuer({ lifetimeSeconds: 360 }).issue(cred, mds);
    const { payload } = await jwtVerify(issued.token, cred.publicKey, { algorithms: ['RS256'] });
    assert.equal(decodeProtectedHeader(issued.token).alg, 'RS256');
    assert.deepEqual(Object.keys(payload).sort(), ['aud', 'email', 'exp', 'iat', 'iss', 'jti', 'sub']);
    assert.equal(payload.sub, cred.issuer);
    assert.equal(payload.email, cred.issuer);
    assert.equal(payload.exp! - payload.iat!, 360);
  });

  it('never reuses a token: a new jti and a later iat every time', async () => {
    const cred = makeTestCredential();
    const issuer = new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => issuer.issue(cred, mds)));
    assert.equal(new Set(tokens.map((t) => t.claims.jti)).size, 50);
    assert.equal(new Set(tokens.map((t) => t.token)).size, 50);
    const iats = tokens.map((t) => t.claims.iat).sort((a, b) => a - b);
    assert.equal(new Set(iats).size, 50);
  });

  it('sends aud as a one-element list when the environment asks for it (spec 5.3)', async () => {
    const cred = makeTestCredential();
    const issued = await new TokenIssuer().issue(cred, { ...mds, audienceAsList: true });
    assert.deepEqual(issued.claims.aud, ['https://mds.test.invalid/api']);
  });

  it('refuses, not clamps, lifetimes outside 60..3600 s', async () => {
    const cred = makeTestCredential();
    for (const lifetime of [0, 59, 3601, 90.5, Number.NaN]) {
      await assert.rejects(
        new TokenIssuer().issue(cred, mds, { lifetimeSeconds: lifetime }),
        (e: unknown) =>
          e instanceof MobilityError && e.code === 'LIFETIME_OUT_OF_RANGE' && /60 to 3600/.test(e.message),
      );
    }
    assert.throws(
      () => new TokenIssuer({ lifetimeSeconds: 7200 }),
      (e: unknown) => e instanceof MobilityError && e.code === 'LIFETIME_OUT_OF_RANGE',
    );
    const edge = await new TokenIssuer().issue(cred, mds, { lifetimeSeconds: 3600 });
    assert.equal(edge.claims.exp - edge.claims.iat, 3600);
  });

  it('refuses deprecated types for the MaaS API and accepts External Organization', async () => {
    await assert.rejects(
      new TokenIssuer().issue(makeTestCredential('iam'), maas),
      (e: unknown) => e instanceof MobilityError && e.code === 'CREDENTIAL_NOT_FOR_API',
    );
    await assert.rejects(
      new TokenIssuer().issue(makeTestCredential('service-account'), maas),
      (e: unknown) => e instanceof MobilityError && e.code === 'CREDENTIAL_NOT_FOR_API',
    );
    const ok = await new TokenIssuer().issue(makeTestCredential('external-org'), maas);
    assert.equal(ok.claims.aud, 'https://maas.test.invalid');
  });

  it('refuses an environment without a base URL before signing anything', async () => {
    await assert.rejects(
      new TokenIssuer().issue(makeTestCredential(), { ...mds, baseUrl: '' }),
      (e: unknown) => e instanceof MobilityError && e.code === 'BASE_URL_MISSING',
    );
  });
});
