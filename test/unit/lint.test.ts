import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { keyFixture } from './keyFixtures';
import type { IssuerDomains } from '../../src/core/auth/credential';
import { NO_DOMAINS } from '../../src/core/auth/credential';
import { decodeJwt } from '../../src/core/auth/decodeJwt';
import type { DecodedToken } from '../../src/core/auth/decodeJwt';
import { lintToken } from '../../src/core/auth/lintToken';
import type { LintContext } from '../../src/core/auth/lintFinding';
import type { LintFinding, LintId } from '../../src/core/auth/lintFinding';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const MDS = 'https://mds.example.test/provider';
const MAAS = 'https://maas.example.test';
const DOMAINS: IssuerDomains = {
  'external-org': ['ext.example'],
  iam: ['iam.example'],
  'service-account': ['sa.example'],
};
const CONTEXT: LintContext = { now: NOW, domains: DOMAINS, knownAudiences: [MDS, MAAS] };

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A well-formed External Organization token's parts; tests change one thing at a time. */
function goodHeader(): Record<string, unknown> {
  return { alg: 'ES256', kid: 'kid-1' };
}
function goodPayload(): Record<string, unknown> {
  return { iss: 'org-1@ext.example', aud: MDS, iat: NOW_S - 10, exp: NOW_S + 290, jti: randomUUID() };
}

/** Decodes a token built from JSON parts (lint does not look at the signature bytes). */
function tokenOf(header: Record<string, unknown>, payload: Record<string, unknown>, signature = 'c2ln'): DecodedToken {
  const r = decodeJwt(`${b64(header)}.${b64(payload)}.${signature}`, { now: NOW });
  if (!r.ok) throw new Error(r.reason);
  return r.token;
}

function lint(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  context: Partial<LintContext> = {},
): LintFinding[] {
  return lintToken(tokenOf(header, payload), { ...CONTEXT, ...context });
}

function ids(findings: LintFinding[]): LintId[] {
  return findings.map((f) => f.id);
}

/** The one finding with `id`, checked for severity and rule, with a message matching `message`. */
function finding(
  findings: LintFinding[],
  id: LintId,
  severity: LintFinding['severity'],
  rule: string,
  message?: RegExp,
): LintFinding {
  const found = findings.filter((f) => f.id === id);
  assert.equal(found.length, 1, `expected one ${id}, got ${JSON.stringify(findings, null, 1)}`);
  assert.equal(found[0].severity, severity, id);
  assert.equal(found[0].rule, rule, id);
  if (message) assert.match(found[0].message, message);
  return found[0];
}

const withPayload = (change: Record<string, unknown>, remove: string[] = []): Record<string, unknown> => {
  const p = { ...goodPayload(), ...change };
  for (const k of remove) delete p[k];
  return p;
};

describe('lintToken', () => {
  describe('clean tokens signed with jose', () => {
    it('a well-formed External Organization token yields no findings at all', async () => {
      const { privateKey } = keyFixture('p256');
      const jwt = await new SignJWT({ jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'kid-1' })
        .setIssuer('org-1@ext.example')
        .setAudience(MDS)
        .setIssuedAt(NOW_S)
        .setExpirationTime(NOW_S + 3600)
        .sign(privateKey);
      const r = decodeJwt(jwt, { now: NOW });
      assert.ok(r.ok);
      assert.deepEqual(lintToken(r.token, CONTEXT), []);
      assert.deepEqual(lintToken(r.token, { ...CONTEXT, credentialType: 'external-org' }), []);
      // With nothing configured only an information note remains: no errors, no warnings.
      assert.deepEqual(ids(lintToken(r.token, { now: NOW })), ['iss-type-undetermined']);
      assert.deepEqual(ids(lintToken(r.token, { now: NOW, domains: NO_DOMAINS })), ['iss-type-undetermined']);
    });

    it('a well-formed service-account token yields only the deprecation note', async () => {
      const { privateKey } = keyFixture('rsa2048');
      const email = 'robot@sa.example';
      const jwt = await new SignJWT({ jti: randomUUID(), sub: email, email })
        .setProtectedHeader({ alg: 'RS256', kid: 'private-key-id' })
        .setIssuer(email)
        .setAudience([MDS])
        .setIssuedAt(NOW_S)
        .setExpirationTime(NOW_S + 360)
        .sign(privateKey);
      const r = decodeJwt(jwt, { now: NOW });
      assert.ok(r.ok);
      const findings = lintToken(r.token, CONTEXT);
      assert.deepEqual(ids(findings), ['type-deprecated']);
      finding(findings, 'type-deprecated', 'info', '5.2', /deprecated.*MDS Provider API only/);
    });
  });

  describe('algorithm', () => {
    it('alg none and HS256 are always errors', () => {
      finding(lint({ ...goodHeader(), alg: 'none' }, goodPayload()), 'alg-none', 'error', '5.1 rule 2', /unsigned/);
      finding(
        lint({ ...goodHeader(), alg: 'HS256' }, goodPayload(), { domains: undefined }),
        'alg-hmac',
        'error',
        '5.1 rule 2',
        /shared-secret/,
      );
      finding(lint({ ...goodHeader(), alg: 'HS512' }, goodPayload()), 'alg-hmac', 'error', '5.1 rule 2');
    });
    it('RS256 for an External Organization issuer, from its domain', () => {
      finding(
        lint({ ...goodHeader(), alg: 'RS256' }, goodPayload()),
        'alg-wrong-for-type',
        'error',
        '5.4',
        /issuer's domain.*External Organization.*ES256/,
      );
    });
    it('ES256 for a service account, from the stored credential', () => {
      const email = 'robot@sa.example';
      const f = lint(goodHeader(), withPayload({ iss: email, sub: email, email }), {
        credentialType: 'service-account',
        domains: undefined,
      });
      finding(f, 'alg-wrong-for-type', 'error', '5.6', /stored credential.*Service account.*RS256/);
    });
    it('an algorithm the APIs never use when the type is unknown', () => {
      finding(
        lint({ ...goodHeader(), alg: 'ES384' }, goodPayload(), { domains: undefined }),
        'alg-not-allowed',
        'error',
        '5.4',
        /only ES256.*RS256/,
      );
      assert.ok(
        !ids(lint({ ...goodHeader(), alg: 'RS256' }, goodPayload(), { domains: undefined })).includes(
          'alg-not-allowed',
        ),
      );
    });
    it('a missing signature', () => {
      const f = lintToken(tokenOf(goodHeader(), goodPayload(), ''), CONTEXT);
      finding(f, 'signature-missing', 'error', '5.1 rule 2');
    });
  });

  describe('encoding', () => {
    it('"=" padding: an error naming RFC 7515 section 2 and the padded parts, which the sandbox refuses as malformed_token', () => {
      const header = b64(goodHeader());
      const padded = `${header}${'='.repeat((4 - (header.length % 4)) % 4)}`;
      assert.ok(padded.endsWith('='), 'the test header needs padding');
      const r = decodeJwt(`${padded}.${b64(goodPayload())}.c2ln`, { now: NOW });
      assert.ok(r.ok);
      const f = finding(
        lintToken(r.token, CONTEXT),
        'base64url-padding',
        'error',
        'RFC 7515 2',
        /padding: header\. .*RFC 7515 section 2/,
      );
      assert.equal(f.authRule, 'malformed_token');
      assert.deepEqual(ids(lint(goodHeader(), goodPayload())), []);
    });
  });

  describe('member names written twice (JSON.parse keeps the last in silence)', () => {
    const encoded = (text: string) => Buffer.from(text).toString('base64url');
    it('"alg" twice in the header: an error naming RFC 7515 section 4', () => {
      const r = decodeJwt(`${encoded('{"alg":"none","kid":"kid-1","alg":"ES256"}')}.${b64(goodPayload())}.c2ln`, {
        now: NOW,
      });
      assert.ok(r.ok);
      const findings = lintToken(r.token, CONTEXT);
      finding(
        findings,
        'duplicate-member',
        'error',
        'RFC 7515 4',
        /The header writes "alg" twice\. Header parameter names must be unique \(RFC 7515 section 4\).*only the last value.*Write each name once/,
      );
      assert.deepEqual(ids(findings), ['duplicate-member'], 'the rest is read from the last value');
    });
    it('a claim twice in the payload: an error naming RFC 7519 section 4; nested names too', () => {
      const payload = JSON.stringify(goodPayload()).replace(
        /^\{/,
        '{"iss":"other@ext.example","cnf":{"kid":"a","kid":"b","kid":"c"},',
      );
      const r = decodeJwt(`${b64(goodHeader())}.${encoded(payload)}.c2ln`, { now: NOW });
      assert.ok(r.ok);
      const found = lintToken(r.token, CONTEXT).filter((f) => f.id === 'duplicate-member');
      assert.deepEqual(
        found.map((f) => f.rule),
        ['RFC 7519 4', 'RFC 7519 4'],
      );
      // In the order the second name is met: cnf's kids come before the second "iss".
      assert.match(found[0].message, /The payload writes "kid" 3 times inside "cnf"/);
      assert.match(
        found[1].message,
        /The payload writes the claim "iss" twice\. Claim names must be unique \(RFC 7519 section 4\)/,
      );
    });
  });

  describe('required header and claims', () => {
    it('missing kid, jti, exp (errors) and iat (a warning that names the ordering rule)', () => {
      finding(lint({ alg: 'ES256' }, goodPayload()), 'kid-missing', 'error', '5.4', /key identifier/);
      finding(lint({ ...goodHeader(), kid: ' ' }, goodPayload()), 'kid-missing', 'error', '5.4', /empty/);
      finding(lint(goodHeader(), withPayload({}, ['jti'])), 'jti-missing', 'error', '5.1 rule 7', /random UUID/);
      finding(lint(goodHeader(), withPayload({}, ['exp'])), 'exp-missing', 'error', '5.1 rule 5', /60 to 3600 seconds/);
      finding(lint(goodHeader(), withPayload({}, ['iat'])), 'iat-missing', 'warning', '5.1 rule 6', /sandbox refuses/);
    });
    it('jti that is not a UUID is an error; a UUID that is not v4 an information note', () => {
      finding(lint(goodHeader(), withPayload({ jti: 'token-1' })), 'jti-not-uuid', 'error', '5.1 rule 7', /"token-1"/);
      const v1 = lint(goodHeader(), withPayload({ jti: 'c232ab00-9414-11ec-b3c8-9f6bdeced846' }));
      finding(v1, 'jti-not-v4', 'info', '5.1 rule 7');
      assert.equal(v1.length, 1);
      assert.deepEqual(lint(goodHeader(), withPayload({ jti: randomUUID().toUpperCase() })), []);
    });
    it('claims of the wrong JSON type', () => {
      finding(
        lint(goodHeader(), withPayload({ exp: String(NOW_S + 100) })),
        'claim-wrong-type',
        'error',
        '5.1 rule 5',
        /"exp" is a string .*JSON number/,
      );
      finding(
        lint(goodHeader(), withPayload({ iat: null })),
        'claim-wrong-type',
        'error',
        '5.1 rule 6',
        /"iat" is null/,
      );
      finding(
        lint(goodHeader(), withPayload({ nbf: [1] })),
        'claim-wrong-type',
        'error',
        '5.1 rule 5',
        /"nbf" is an array/,
      );
      finding(
        lint(goodHeader(), withPayload({ jti: 7 })),
        'claim-wrong-type',
        'error',
        '5.1 rule 7',
        /"jti" is a number/,
      );
      finding(
        lint({ ...goodHeader(), kid: 12 }, goodPayload()),
        'claim-wrong-type',
        'error',
        '5.4',
        /"kid" is a number/,
      );
      finding(lint(goodHeader(), withPayload({ aud: [MDS, 3] })), 'claim-wrong-type', 'error', '5.3', /not strings/);
      finding(
        lint(goodHeader(), withPayload({ iss: { email: 'x' } })),
        'claim-wrong-type',
        'error',
        '5.4',
        /"iss" is an object/,
      );
      // 1e400 is JSON, but no finite number: the finding shows what the token writes.
      const huge = decodeJwt(
        `${b64(goodHeader())}.${Buffer.from(JSON.stringify(goodPayload()).replace(/"exp":[^,}]+/, '"exp":1e400')).toString('base64url')}.c2ln`,
        { now: NOW },
      );
      assert.ok(huge.ok);
      finding(
        lintToken(huge.token, CONTEXT),
        'claim-wrong-type',
        'error',
        '5.1 rule 5',
        /"exp" is 1e400, which is not a finite NumericDate.*must be a number of seconds since 1970/,
      );
      // A wrong type is not also reported as missing.
      assert.ok(!ids(lint(goodHeader(), withPayload({ exp: 'x' }))).includes('exp-missing'));
    });
  });

  describe('times', () => {
    it('a lifetime outside 60..3600 s, saying the lifetime found', () => {
      finding(
        lint(goodHeader(), withPayload({ iat: NOW_S, exp: NOW_S + 7200 })),
        'lifetime-out-of-range',
        'error',
        '5.1 rule 5',
        /7200 s \(2 h\)/,
      );
      finding(
        lint(goodHeader(), withPayload({ iat: NOW_S, exp: NOW_S + 30 })),
        'lifetime-out-of-range',
        'error',
        '5.1 rule 5',
        /is 30 s\. /,
      );
      finding(
        lint(goodHeader(), withPayload({ iat: NOW_S, exp: NOW_S })),
        'lifetime-out-of-range',
        'error',
        '5.1 rule 5',
        /equal to "iat"/,
      );
      assert.deepEqual(lint(goodHeader(), withPayload({ iat: NOW_S, exp: NOW_S + 60 })), []);
      assert.deepEqual(lint(goodHeader(), withPayload({ iat: NOW_S - 100, exp: NOW_S + 3500 })), []);
    });
    it('an expired token, saying how long ago', () => {
      const f = lint(goodHeader(), withPayload({ iat: NOW_S - 600, exp: NOW_S - 180 }));
      finding(f, 'expired', 'error', '5.1 rule 5', /expired 3 min ago \(exp 2025-06-01T11:57:00.000Z\)/);
      finding(
        lint(goodHeader(), withPayload({ iat: NOW_S - 60, exp: NOW_S })),
        'expired',
        'error',
        '5.1 rule 5',
        /just now/,
      );
    });
    it('iat ahead of the clock beyond 60 s, mentioning clock skew', () => {
      finding(
        lint(goodHeader(), withPayload({ iat: NOW_S + 300, exp: NOW_S + 600 })),
        'iat-in-future',
        'error',
        '5.1 rule 6',
        /5 min in the future.*clock skew/,
      );
      assert.deepEqual(
        lint(goodHeader(), withPayload({ iat: NOW_S + 60, exp: NOW_S + 600 })),
        [],
        'within the tolerance',
      );
    });
    it('nbf in the future', () => {
      finding(
        lint(goodHeader(), withPayload({ nbf: NOW_S + 120 })),
        'nbf-in-future',
        'warning',
        '5.1 rule 5',
        /becomes valid in 2 min/,
      );
      assert.deepEqual(lint(goodHeader(), withPayload({ nbf: NOW_S - 10 })), []);
    });
    it('times in milliseconds', () => {
      const f = lint(goodHeader(), withPayload({ iat: NOW, exp: NOW + 300_000 }));
      assert.deepEqual(ids(f), ['time-in-milliseconds', 'time-in-milliseconds']);
      assert.match(f[0].message, /looks like milliseconds/);
    });
  });

  describe('audience', () => {
    it('missing or an empty list', () => {
      finding(lint(goodHeader(), withPayload({}, ['aud'])), 'aud-missing', 'error', '5.3', /base URL/);
      finding(lint(goodHeader(), withPayload({ aud: [] })), 'aud-missing', 'error', '5.3', /empty list/);
    });
    it('a string or a list holding a known base URL passes; other values are unknown', () => {
      assert.deepEqual(lint(goodHeader(), withPayload({ aud: MAAS })), []);
      assert.deepEqual(lint(goodHeader(), withPayload({ aud: ['https://other.example', MDS] })), []);
      assert.deepEqual(lint(goodHeader(), withPayload({ aud: 'https://anything' }), { knownAudiences: undefined }), []);
      finding(
        lint(goodHeader(), withPayload({ aud: 'https://other.example' })),
        'aud-unknown',
        'error',
        '5.3',
        /matches none.*mds\.example\.test/,
      );
    });
    it('points out near misses: trailing slash, scheme, case, request URL', () => {
      finding(lint(goodHeader(), withPayload({ aud: `${MDS}/` })), 'aud-near-miss', 'error', '5.3', /ends in a slash/);
      finding(
        lint(goodHeader(), withPayload({ aud: MDS.replace('https', 'http') })),
        'aud-near-miss',
        'error',
        '5.3',
        /uses http:\/\/ instead of https:\/\//,
      );
      finding(
        lint(goodHeader(), withPayload({ aud: MAAS.toUpperCase() })),
        'aud-near-miss',
        'error',
        '5.3',
        /upper\/lower case/,
      );
      finding(
        lint(goodHeader(), withPayload({ aud: [`${MAAS}/v1alpha2/vehicles`] })),
        'aud-near-miss',
        'error',
        '5.3',
        /"\/v1alpha2\/vehicles".*not a request URL/,
      );
      finding(
        lint(goodHeader(), withPayload({ aud: `http://mds.example.test/provider/` })),
        'aud-near-miss',
        'error',
        '5.3',
        /does not have and uses http:\/\//,
      );
    });
  });

  it('handles pathological claim values of hundreds of kilobytes without stalling', () => {
    const slashes = `${'/'.repeat(300_000)}x`;
    finding(
      lint(goodHeader(), withPayload({ aud: slashes, iss: `${' '.repeat(300_000)}@x` })),
      'aud-unknown',
      'error',
      '5.3',
    );
    const f = lint(goodHeader(), withPayload({ aud: `${MDS}${'/'.repeat(300_000)}`, jti: 'a'.repeat(300_000) }));
    finding(f, 'aud-near-miss', 'error', '5.3', /ends in a slash/);
    assert.ok(
      f.every((x) => x.message.length < 600),
      'long values are shortened in messages',
    );
  });

  describe('issuer and credential type', () => {
    it('missing, not an e-mail, unknown domain', () => {
      finding(lint(goodHeader(), withPayload({}, ['iss'])), 'iss-missing', 'error', '5.4', /e-mail/);
      finding(
        lint(goodHeader(), withPayload({ iss: 'org-1' })),
        'iss-not-email',
        'error',
        '5.2',
        /"org-1".*not an e-mail/,
      );
      finding(lint(goodHeader(), withPayload({ iss: 'a b@ext.example' })), 'iss-not-email', 'error', '5.2');
      finding(
        lint(goodHeader(), withPayload({ iss: 'org-1@elsewhere.example' })),
        'iss-domain-unknown',
        'warning',
        '5.2',
        /"elsewhere\.example"/,
      );
    });
    it('an information note when no domains are configured, and none when the type is known', () => {
      finding(
        lint(goodHeader(), goodPayload(), { domains: undefined }),
        'iss-type-undetermined',
        'info',
        '5.2',
        /could not be told.*"ext\.example"/,
      );
      assert.deepEqual(lint(goodHeader(), goodPayload(), { domains: undefined, credentialType: 'external-org' }), []);
    });
    it('an issuer domain of another type than the stored credential', () => {
      finding(
        lint(goodHeader(), withPayload({ iss: 'x@iam.example' }), { credentialType: 'external-org' }),
        'iss-type-mismatch',
        'warning',
        '5.2',
        /IAM.*External Organization/,
      );
    });
    it('deprecated types get an information note', () => {
      const f = lint(goodHeader(), withPayload({ iss: 'id-1@iam.example' }));
      assert.deepEqual(ids(f), ['type-deprecated']);
      finding(f, 'type-deprecated', 'info', '5.2', /IAM.*deprecated/);
    });
    it('service account: sub and email must equal iss', () => {
      const iss = 'robot@sa.example';
      const f = lint({ alg: 'RS256', kid: 'pk' }, withPayload({ iss, sub: 'someone@sa.example' }));
      finding(f, 'sub-not-issuer', 'error', '5.6', /"sub" is "someone@sa\.example".*"robot@sa\.example"/);
      finding(f, 'email-not-issuer', 'error', '5.6', /"email" is missing/);
      assert.deepEqual(ids(lint({ alg: 'RS256', kid: 'pk' }, withPayload({ iss, sub: iss, email: iss }))), [
        'type-deprecated',
      ]);
    });
  });

  it('sorts errors before warnings before information notes', () => {
    const f = lint(
      { alg: 'ES256', kid: 'k' },
      withPayload({ iss: 'x@iam.example', jti: 'c232ab00-9414-11ec-b3c8-9f6bdeced846', nbf: NOW_S + 100 }, ['aud']),
    );
    assert.deepEqual(
      f.map((x) => x.severity),
      ['error', 'warning', 'info', 'info'],
    );
  });

  it('ignores claims hidden in __proto__ and leaves Object.prototype alone', () => {
    const payload = JSON.parse(
      `{"__proto__":{"exp":1,"jti":"x"},"iss":"org-1@ext.example","aud":"${MDS}","iat":${NOW_S},"exp":${NOW_S + 100},"jti":"${randomUUID()}"}`,
    ) as Record<string, unknown>;
    const r = decodeJwt(`${b64(goodHeader())}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`, {
      now: NOW,
    });
    assert.ok(r.ok);
    assert.deepEqual(lintToken(r.token, CONTEXT), []);
    assert.equal(({} as Record<string, unknown>).exp, undefined);
  });
});
