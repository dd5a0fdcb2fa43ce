import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CREDENTIAL_TYPE_LABELS, NO_DOMAINS } from '../../src/core/auth/credential';
import { decodeJwt } from '../../src/core/auth/decodeJwt';
import { lintToken } from '../../src/core/auth/lintToken';
import type { LintFinding } from '../../src/core/auth/lintFinding';
import { secondsWithSpan, withArticle } from '../../src/core/base/wording';
import { generateKeyPairSync } from 'node:crypto';
import { describeKeyKind } from '../../src/core/auth/privateKey';
import { checkToken } from '../../src/core/auth/tokenRules';
import { listingLine } from '../../src/results/requests/listingView';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const AUD = 'https://mds.example.test/provider';
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function lint(header: Record<string, unknown>, payload: Record<string, unknown>): LintFinding[] {
  const decoded = decodeJwt(`${b64(header)}.${b64(payload)}.c2ln`, { now: NOW });
  if (!decoded.ok) throw new Error(decoded.reason);
  return lintToken(decoded.token, {
    now: NOW,
    domains: { 'external-org': ['ext.example'], iam: ['iam.example'], 'service-account': ['sa.example'] },
    knownAudiences: [AUD],
  });
}
const messageOf = (findings: LintFinding[], id: string) =>
  findings.find((f) => f.id === id)?.message ?? `(no ${id} finding)`;
const payload = (iss: string, lifetime = 300) => ({
  iss,
  aud: AUD,
  iat: NOW_S - 10,
  exp: NOW_S - 10 + lifetime,
  jti: randomUUID(),
});

/** Message templates rendered with names that start with a vowel and with the numbers 1 and 2. */
describe('message templates read as English', () => {
  it('"a" or "an" by the sound of the name that follows', () => {
    assert.equal(withArticle(CREDENTIAL_TYPE_LABELS['external-org']), 'an External Organization');
    assert.equal(withArticle(CREDENTIAL_TYPE_LABELS.iam), 'an IAM (deprecated)');
    assert.equal(withArticle(CREDENTIAL_TYPE_LABELS['service-account']), 'a Service account (deprecated)');
    assert.deepEqual(
      ['MDS', 'RSA key', 'EC key', 'HTTP answer', 'UUID', 'JWT', 'issuer', 'user', 'object', 'Organization'].map(
        withArticle,
      ),
      [
        'an MDS',
        'an RSA key',
        'an EC key',
        'an HTTP answer',
        'a UUID',
        'a JWT',
        'an issuer',
        'a user',
        'an object',
        'an Organization',
      ],
    );
  });

  it('a token signed with the wrong alg names its type with the right article', () => {
    assert.match(
      messageOf(lint({ alg: 'RS256', kid: 'k' }, payload('org-1@ext.example')), 'alg-wrong-for-type'),
      /makes this an External Organization token, which/,
    );
    assert.match(
      messageOf(lint({ alg: 'RS256', kid: 'k' }, payload('id-1@iam.example')), 'alg-wrong-for-type'),
      /makes this an IAM \(deprecated\) token, which/,
    );
    assert.match(
      messageOf(
        lint(
          { alg: 'ES256', kid: 'k' },
          { ...payload('sa-1@sa.example'), sub: 'sa-1@sa.example', email: 'sa-1@sa.example' },
        ),
        'alg-wrong-for-type',
      ),
      /makes this a Service account \(deprecated\) token, which/,
    );
    assert.doesNotMatch(
      messageOf(lint({ alg: 'RS256', kid: 'k' }, payload('org-1@ext.example')), 'alg-wrong-for-type'),
      /\ba External/,
    );
  });

  it('a duration in seconds is shown once, with larger units only when they add something', () => {
    assert.deepEqual([1, 2, 30, 59, 60, 90, 7200].map(secondsWithSpan), [
      '1 s',
      '2 s',
      '30 s',
      '59 s',
      '60 s (1 min)',
      '90 s (1 min)',
      '7200 s (2 h)',
    ]);
    for (const lifetime of [1, 2]) {
      const message = messageOf(
        lint({ alg: 'ES256', kid: 'k' }, payload('org-1@ext.example', lifetime)),
        'lifetime-out-of-range',
      );
      assert.match(message, new RegExp(`^The lifetime \\(exp − iat\\) is ${lifetime} s\\. `), message);
    }
    assert.match(
      messageOf(lint({ alg: 'ES256', kid: 'k' }, payload('org-1@ext.example', 7200)), 'lifetime-out-of-range'),
      /is 7200 s \(2 h\)\. /,
    );
  });

  it('counts agree with their nouns: 1 vehicle, 2 vehicles, 1 page, 2 pages', () => {
    assert.equal(
      listingLine({ status: 200, statusText: 'OK', itemCount: 1, pageCount: 1, moreExist: false }),
      '200 OK · 1 vehicle · 1 page',
    );
    assert.equal(
      listingLine({ status: 200, statusText: 'OK', itemCount: 2, pageCount: 2, moreExist: true }),
      '200 OK · 2 vehicles so far · 2 pages',
    );
  });

  it('no domains configured: the type is unknown and nothing is said about it', () => {
    const decoded = decodeJwt(`${b64({ alg: 'ES256', kid: 'k' })}.${b64(payload('org-1@ext.example'))}.c2ln`, {
      now: NOW,
    });
    assert.ok(decoded.ok);
    const findings = lintToken(decoded.token, { now: NOW, domains: NO_DOMAINS, knownAudiences: [AUD] });
    assert.ok(!findings.some((f) => / a [AEIOU]/.test(f.message)), findings.map((f) => f.message).join(' | '));
  });

  it('the token rules and key descriptions put "an" before a vowel sound (issue #24)', () => {
    const claims = payload('org@ext.example');
    const descriptions = (credentialType: 'external-org' | 'iam' | 'service-account', alg: string) =>
      checkToken({ header: { alg, kid: 'key-id-for-wording' }, payload: claims }, { credentialType, api: 'maas' })
        .map((v) => v.description)
        .join(' | ');
    assert.match(descriptions('external-org', 'RS256'), /is an External Organization key, which signs with ES256/);
    assert.match(descriptions('iam', 'ES256'), /is an IAM \(deprecated\) credential, which the MaaS API refuses/);
    assert.match(descriptions('service-account', 'RS256'), /is a Service account \(deprecated\) credential/);
    for (const type of ['external-org', 'iam', 'service-account'] as const) {
      assert.doesNotMatch(descriptions(type, 'HS256'), / a [AEIOU]/);
    }
    assert.equal(describeKeyKind(generateKeyPairSync('x25519').privateKey), 'an X25519 key');
    assert.equal(describeKeyKind(generateKeyPairSync('x448').privateKey), 'an X448 key');
    assert.equal(
      describeKeyKind(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey),
      'an EC key on P-256 (prime256v1)',
    );
  });
});
