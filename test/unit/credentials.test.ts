import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { distinctKeyPair, hasOpenssl, keyFixture, selfSignedCertificate } from './keyFixtures';
import type { Credential, IssuerDomains } from '../../src/core/auth/credential';
import { MobilityError } from '../../src/core/base/errors';
import type { ErrorCode } from '../../src/core/base/errors';
import {
  assertCredentialForApi,
  describeCredential,
  looksLikeServiceAccountKeyFile,
  parseCredential,
} from '../../src/core/auth/parseCredential';
import { parsePrivateKey } from '../../src/core/auth/privateKey';
import { parsePublicKey } from '../../src/core/auth/publicKey';
import type { KeyFixture } from './keyFixtures';

const domains: IssuerDomains = {
  'external-org': ['ext.example.test'],
  iam: ['iam.example.test'],
  'service-account': ['sa.example.test'],
};

const KEY_FILE_FIELDS = [
  'type',
  'project_id',
  'private_key_id',
  'private_key',
  'client_email',
  'client_id',
  'auth_uri',
  'token_uri',
  'auth_provider_x509_cert_url',
  'client_x509_cert_url',
];

/** Runs `fn`, expects a MobilityError with `code` whose message matches `pattern`, and returns it. */
function refusal(fn: () => unknown, code: ErrorCode, pattern: RegExp, secrets: string[] = []): MobilityError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof MobilityError, `expected MobilityError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.match(caught.message, pattern);
  assert.doesNotMatch(caught.message, /\n\s+at /, 'the message must not hold a stack trace');
  for (const secret of secrets) {
    assert.ok(!caught.message.includes(secret), `the message contains key material: ${caught.message}`);
  }
  return caught;
}

function spki(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ format: 'der', type: 'spki' });
}

function assertSameKeyPair(actual: KeyObject, fixture: KeyFixture): void {
  assert.ok(spki(actual).equals(spki(fixture.publicKey)), 'the parsed key is not the fixture key');
}

/** The ways a PEM gets damaged on its way through a clipboard, a JSON file or a terminal. */
function pasteVariants(pem: string): [string, string][] {
  const body = pem
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----'))
    .join('');
  const [begin] = pem.split('\n');
  const end = pem.trim().split('\n').at(-1);
  return [
    ['as is', pem],
    ['surrounded by whitespace', `\n\n   ${pem}   \n\t`],
    ['with CRLF line ends', pem.replace(/\n/g, '\r\n')],
    [
      'indented',
      pem
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n'),
    ],
    ['with literal \\n escapes', pem.replace(/\n/g, '\\n')],
    ['with literal \\r\\n escapes', pem.replace(/\n/g, '\\r\\n')],
    ['as a JSON string value', JSON.stringify(pem)],
    ['as a JSON string value with whitespace around', `  ${JSON.stringify(pem)}\n`],
    ['wrapped in double quotes with real line breaks', `"${pem}"`],
    ['with the body on one line', `${begin}\n${body}\n${end}\n`],
    ['on a single line', `${begin} ${body} ${end}`],
    ['as base64 DER without the PEM lines', body],
  ];
}

describe('credentials: parsePrivateKey', () => {
  const p256 = keyFixture('p256');
  const rsa = keyFixture('rsa2048');

  describe('accepts', () => {
    const accepted: [string, () => string, () => KeyFixture, 'ES256' | 'RS256'][] = [
      ['a P-256 PKCS#8 PEM for ES256', () => p256.pkcs8, () => p256, 'ES256'],
      ['a P-256 SEC1 PEM for ES256', () => p256.traditional ?? '', () => p256, 'ES256'],
      ['an RSA 2048 PKCS#8 PEM for RS256', () => rsa.pkcs8, () => rsa, 'RS256'],
      ['an RSA 2048 PKCS#1 PEM for RS256', () => rsa.traditional ?? '', () => rsa, 'RS256'],
    ];
    for (const [what, text, fixture, alg] of accepted) {
      for (const [variant, damage] of pasteVariants(text())) {
        it(`${what}, ${variant}`, () => {
          const key = parsePrivateKey(damage, alg);
          assert.equal(key.type, 'private');
          assertSameKeyPair(key, fixture());
        });
      }
    }

    it('a P-256 private JWK, plain, quoted as a JSON string and with whitespace', () => {
      for (const text of [
        p256.jwk,
        JSON.stringify(p256.jwk),
        `\n  ${JSON.stringify(JSON.parse(p256.jwk), null, 2).replace(/\n/g, '\r\n')}  \n`,
      ]) {
        assertSameKeyPair(parsePrivateKey(text, 'ES256'), p256);
      }
    });
    it('an RSA 2048 private JWK for RS256', () => {
      assertSameKeyPair(parsePrivateKey(rsa.jwk, 'RS256'), rsa);
    });
    it('a JWK set holding exactly one private key', () => {
      assertSameKeyPair(parsePrivateKey(JSON.stringify({ keys: [JSON.parse(p256.jwk)] }), 'ES256'), p256);
    });
    it('a SEC1 key preceded by its EC PARAMETERS block, as openssl ecparam -genkey writes it', () => {
      const params = '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n';
      assertSameKeyPair(parsePrivateKey(params + (p256.traditional ?? ''), 'ES256'), p256);
    });
    it('a JWK with extra members such as kid, use and __proto__ (which are not copied)', () => {
      const text = p256.jwk.replace('{', '{"__proto__":{"polluted":"yes"},"kid":"k1","use":"sig",');
      assertSameKeyPair(parsePrivateKey(text, 'ES256'), p256);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });

  describe('refuses', () => {
    it('an encrypted PKCS#8 key, saying to decrypt it with openssl', () => {
      refusal(
        () => parsePrivateKey(p256.encryptedPkcs8, 'ES256'),
        'KEY_ENCRYPTED',
        /Decrypt it first.*openssl pkey -in key\.pem -out key-plain\.pem/,
      );
      refusal(
        () => parsePrivateKey(rsa.encryptedPkcs8.replace(/\n/g, '\r\n'), 'RS256'),
        'KEY_ENCRYPTED',
        /openssl pkey/,
      );
    });
    it('an encrypted traditional PEM (Proc-Type: 4,ENCRYPTED)', () => {
      assert.match(p256.encryptedTraditional ?? '', /Proc-Type: 4,ENCRYPTED/);
      refusal(() => parsePrivateKey(p256.encryptedTraditional ?? '', 'ES256'), 'KEY_ENCRYPTED', /Decrypt it first/);
      refusal(
        () => parsePrivateKey(JSON.stringify(rsa.encryptedTraditional), 'RS256'),
        'KEY_ENCRYPTED',
        /Decrypt it first/,
      );
    });
    it('a public key PEM (SPKI and PKCS#1), asking for the private key', () => {
      refusal(
        () => parsePrivateKey(p256.publicPem, 'ES256'),
        'KEY_PUBLIC_NOT_PRIVATE',
        /public key.*private key delivered with the credentials/,
      );
      refusal(() => parsePrivateKey(rsa.publicPem, 'RS256'), 'KEY_PUBLIC_NOT_PRIVATE', /public key/);
      refusal(() => parsePrivateKey(rsa.pkcs1PublicPem ?? '', 'RS256'), 'KEY_PUBLIC_NOT_PRIVATE', /public key/);
    });
    it('a public JWK (no "d")', () => {
      refusal(() => parsePrivateKey(p256.publicJwk, 'ES256'), 'KEY_PUBLIC_NOT_PRIVATE', /no "d" member/);
      refusal(() => parsePrivateKey(rsa.publicJwk, 'RS256'), 'KEY_PUBLIC_NOT_PRIVATE', /private key/);
    });
    it('a public key as base64 DER without PEM lines', () => {
      const body = p256.publicPem
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('-----'))
        .join('');
      refusal(() => parsePrivateKey(body, 'ES256'), 'KEY_PUBLIC_NOT_PRIVATE', /public key/);
    });

    for (const [kind, curve, standard] of [
      ['p384', 'secp384r1', 'P-384'],
      ['p521', 'secp521r1', 'P-521'],
      ['secp256k1', 'secp256k1', 'secp256k1'],
    ] as const) {
      it(`an EC key on ${standard} for ES256, in every form, naming the curve and P-256`, () => {
        const f = keyFixture(kind);
        for (const text of [f.pkcs8, f.traditional ?? '', f.jwk]) {
          const err = refusal(
            () => parsePrivateKey(text, 'ES256'),
            'KEY_WRONG_CURVE',
            /needs P-256 \(prime256v1\)/,
            f.secretParts,
          );
          assert.ok(err.message.includes(curve) && err.message.includes(standard), err.message);
        }
      });
    }
    it('an RSA key for ES256', () => {
      refusal(() => parsePrivateKey(rsa.pkcs8, 'ES256'), 'KEY_WRONG_TYPE', /RSA key.*ES256.*P-256/, rsa.secretParts);
      refusal(() => parsePrivateKey(rsa.jwk, 'ES256'), 'KEY_WRONG_TYPE', /RSA key/);
    });
    it('an Ed25519 key for ES256 and for RS256', () => {
      const ed = keyFixture('ed25519');
      refusal(() => parsePrivateKey(ed.pkcs8, 'ES256'), 'KEY_WRONG_TYPE', /Ed25519/, ed.secretParts);
      refusal(() => parsePrivateKey(ed.jwk, 'RS256'), 'KEY_WRONG_TYPE', /Ed25519.*RS256 needs an RSA private key/);
    });
    it('an EC key for RS256, pointing at service-account key files', () => {
      refusal(
        () => parsePrivateKey(p256.pkcs8, 'RS256'),
        'KEY_WRONG_TYPE',
        /EC key.*RS256 needs an RSA private key.*service-account key files/,
        p256.secretParts,
      );
      refusal(() => parsePrivateKey(p256.jwk, 'RS256'), 'KEY_WRONG_TYPE', /EC key/);
    });
    it('an RSA key under 2048 bits for RS256, naming its size', () => {
      const small = keyFixture('rsa1024');
      for (const text of [small.pkcs8, small.traditional ?? '', small.jwk]) {
        refusal(
          () => parsePrivateKey(text, 'RS256'),
          'KEY_RSA_TOO_SMALL',
          /1024 bits.*at least 2048/,
          small.secretParts,
        );
      }
    });
    it('a shared-secret JWK (kty "oct")', () => {
      refusal(
        () => parsePrivateKey('{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQ"}', 'ES256'),
        'KEY_WRONG_TYPE',
        /shared secret/,
      );
    });

    const notRecognised: [string, () => string, RegExp][] = [
      ['empty text', () => '', /empty/],
      ['whitespace only', () => '  \r\n\t ', /empty/],
      [
        'garbage',
        () => 'this is not a key',
        /PKCS#8 "PRIVATE KEY".*SEC1 "EC PRIVATE KEY".*PKCS#1 "RSA PRIVATE KEY".*private JWK/,
      ],
      [
        'a PEM cut off before its END line',
        () => p256.pkcs8.slice(0, Math.floor(p256.pkcs8.length / 2)),
        /no matching END line.*truncated/,
      ],
      [
        'a PEM whose body lost lines',
        () => {
          const lines = rsa.pkcs8.trim().split('\n');
          return [...lines.slice(0, 4), lines.at(-1)].join('\n');
        },
        /incomplete or damaged/,
      ],
      ['a PEM with broken base64', () => p256.pkcs8.replace(/\n(.{10})/, '\n!!$1'), /not valid base64/],
      [
        'a PEM whose END label differs from its BEGIN label',
        () => p256.pkcs8.replace('END PRIVATE KEY', 'END RSA PRIVATE KEY'),
        /damaged/,
      ],
      ['an empty PEM block', () => '-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----', /not valid base64/],
      [
        'a PEM holding only unrelated blocks',
        () => '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----',
        /no private key/,
      ],
      ['JSON that is not a JWK', () => '{"name": "my key", "value": 3}', /no "kty" member/],
      ['a JSON list', () => '[1, 2, 3]', /not a key in a format/],
      ['invalid JSON', () => '{"kty": "EC", "crv": "P-256", ', /not valid JSON/],
      [
        'a JWK set with two keys',
        () => JSON.stringify({ keys: [JSON.parse(p256.jwk), JSON.parse(rsa.jwk)] }),
        /2 keys/,
      ],
      ['a JWK missing members', () => '{"kty":"EC","crv":"P-256","d":"c2VjcmV0"}', /could not be read/],
      [
        'a service-account key file',
        () => JSON.stringify({ private_key: 'x', client_email: 'a@b.test' }),
        /service-account key file/,
      ],
      [
        'base64 that is not a key',
        () => Buffer.from('not a key at all, only some text, long enough to look like base64 DER').toString('base64'),
        /not a private key/,
      ],
      [
        'an OpenSSH private key',
        () => '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
        /OpenSSH/,
      ],
    ];
    for (const [what, text, pattern] of notRecognised) {
      it(`${what}, saying which formats are accepted`, () => {
        refusal(() => parsePrivateKey(text(), 'ES256'), 'KEY_NOT_RECOGNISED', pattern, [
          ...p256.secretParts,
          ...rsa.secretParts,
        ]);
      });
    }
  });

  describe('certificates (made with the openssl command; skipped when openssl is not installed)', () => {
    let certificate = '';
    before(function () {
      if (!hasOpenssl()) this.skip();
      certificate = selfSignedCertificate(p256);
    });
    it('refuses a certificate, saying it holds only the public key', () => {
      assert.match(certificate, /BEGIN CERTIFICATE/);
      refusal(
        () => parsePrivateKey(certificate, 'ES256'),
        'KEY_CERTIFICATE',
        /holds only the public key.*private key delivered with the credentials/,
      );
      refusal(() => parsePrivateKey(JSON.stringify(certificate), 'ES256'), 'KEY_CERTIFICATE', /certificate/);
    });
    it('refuses a certificate given as base64 DER', () => {
      const body = certificate
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('-----'))
        .join('');
      refusal(() => parsePrivateKey(body, 'ES256'), 'KEY_CERTIFICATE', /certificate/);
    });
    it('uses the private key block of a PEM that also holds the certificate, in either order', () => {
      assertSameKeyPair(parsePrivateKey(certificate + p256.pkcs8, 'ES256'), p256);
      assertSameKeyPair(parsePrivateKey((p256.traditional ?? '') + certificate, 'ES256'), p256);
    });
    it("parsePublicKey reads the certificate's public key, also with CRLF and quoted", () => {
      for (const text of [certificate, certificate.replace(/\n/g, '\r\n'), JSON.stringify(certificate)]) {
        const key = parsePublicKey(text);
        assert.equal(key.type, 'public');
        assertSameKeyPair(key, p256);
      }
    });
  });
});

describe('credentials: parsePublicKey', () => {
  const p256 = keyFixture('p256');
  const rsa = keyFixture('rsa2048');

  const accepted: [string, () => string, () => KeyFixture][] = [
    ['an SPKI PEM (EC)', () => p256.publicPem, () => p256],
    ['an SPKI PEM (RSA)', () => rsa.publicPem, () => rsa],
    ['a PKCS#1 RSA public key PEM', () => rsa.pkcs1PublicPem ?? '', () => rsa],
    ['a public JWK', () => p256.publicJwk, () => p256],
    ['a private JWK (its public half)', () => rsa.jwk, () => rsa],
    ['a PKCS#8 private key PEM (its public half)', () => p256.pkcs8, () => p256],
    ['a SEC1 private key PEM (its public half)', () => p256.traditional ?? '', () => p256],
    ['a PKCS#1 private key PEM (its public half)', () => rsa.traditional ?? '', () => rsa],
  ];
  for (const [what, text, fixture] of accepted) {
    it(`reads ${what}`, () => {
      const key = parsePublicKey(text());
      assert.equal(key.type, 'public');
      assertSameKeyPair(key, fixture());
    });
  }
  for (const [variant, damage] of pasteVariants(keyFixture('p256').publicPem)) {
    it(`reads an SPKI PEM ${variant}`, () => {
      assertSameKeyPair(parsePublicKey(damage), p256);
    });
  }
  it('reads a private key given as base64 DER (PKCS#1)', () => {
    const body = (rsa.traditional ?? '')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('-----'))
      .join('');
    assertSameKeyPair(parsePublicKey(body), rsa);
  });
  it('refuses an encrypted private key, saying to decrypt it', () => {
    refusal(() => parsePublicKey(p256.encryptedPkcs8), 'KEY_ENCRYPTED', /Decrypt it first/);
  });
  it('refuses garbage, truncated PEM and JSON that is not a JWK, saying which formats are accepted', () => {
    for (const text of [
      '',
      'garbage',
      p256.publicPem.slice(0, 60),
      '{"a": 1}',
      '{"kty":"oct","k":"c2VjcmV0"}',
      '{"kty":"EC","crv":"P-256"}',
    ]) {
      refusal(() => parsePublicKey(text), 'KEY_NOT_RECOGNISED', /PEM public key|BEGIN PUBLIC KEY|Copy|empty/);
    }
  });
});

/** A service-account key file as downloaded, with `overrides` applied and `omit` left out. */
function keyFileText(overrides: Record<string, unknown> = {}, omit: string[] = []): string {
  const file: Record<string, unknown> = {
    type: 'service_account',
    project_id: 'test-project',
    private_key_id: 'sa-key-id-1',
    private_key: keyFixture('rsa2048').pkcs8,
    client_email: 'robot@sa.example.test',
    client_id: '1234567890',
    auth_uri: 'https://auth.example.test/auth',
    token_uri: 'https://auth.example.test/token',
    auth_provider_x509_cert_url: 'https://auth.example.test/certs',
    client_x509_cert_url: 'https://auth.example.test/certs/robot',
    ...overrides,
  };
  for (const field of omit) delete file[field];
  return JSON.stringify(file, null, 2);
}

describe('credentials: parseCredential (EC)', () => {
  const p256 = keyFixture('p256');
  const ec = (
    extra: Partial<{ type: 'external-org' | 'iam'; kid: string; issuer: string; privateKey: string }> = {},
  ) => ({ kind: 'ec' as const, privateKey: p256.pkcs8, kid: 'key-1', issuer: 'org-123@ext.example.test', ...extra });

  it('takes the type from a configured issuer domain, trims the kid, and derives the public key', () => {
    const { credential, warnings } = parseCredential(ec({ kid: '  key-1 \n', issuer: ' org-123@EXT.example.test ' }), {
      domains,
    });
    assert.equal(credential.type, 'external-org');
    assert.equal(credential.alg, 'ES256');
    assert.equal(credential.kid, 'key-1');
    assert.equal(credential.issuer, 'org-123@EXT.example.test');
    assert.deepEqual(warnings, []);
    assert.equal(credential.publicKey.type, 'public');
    assertSameKeyPair(credential.publicKey, p256);
  });
  it('uses the stated type when the domain is not configured', () => {
    assert.equal(
      parseCredential(ec({ type: 'external-org', issuer: 'org@other.example.test' })).credential.type,
      'external-org',
    );
  });
  it('accepts the stated type when it agrees with the configured one', () => {
    assert.equal(
      parseCredential(ec({ type: 'iam', issuer: 'me@iam.example.test' }), { domains }).credential.type,
      'iam',
    );
  });
  it('accepts IAM credentials with a deprecation warning', () => {
    const { credential, warnings } = parseCredential(ec({ issuer: 'identity-9@iam.example.test' }), { domains });
    assert.equal(credential.type, 'iam');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /deprecated.*not issued to new consumers|no longer issued to new consumers/);
    assert.match(warnings[0] ?? '', /MDS Provider API only/);
  });
  it('accepts a private JWK pasted with literal \\n escapes around it', () => {
    const { credential } = parseCredential(ec({ privateKey: JSON.stringify(p256.pkcs8).slice(1, -1) }), { domains });
    assertSameKeyPair(credential.privateKey, p256);
  });
  it('refuses a stated type that contradicts the configured domain, naming both', () => {
    refusal(
      () => parseCredential(ec({ type: 'external-org', issuer: 'me@iam.example.test' }), { domains }),
      'CREDENTIAL_TYPE_MISMATCH',
      /External Organization.*IAM/,
    );
    refusal(
      () => parseCredential(ec({ type: 'iam' }), { domains }),
      'CREDENTIAL_TYPE_MISMATCH',
      /IAM.*ext\.example\.test.*External Organization/,
    );
  });
  it('refuses an EC credential whose issuer domain is configured for service accounts', () => {
    refusal(
      () => parseCredential(ec({ issuer: 'robot@sa.example.test' }), { domains }),
      'CREDENTIAL_TYPE_MISMATCH',
      /service accounts.*key file/,
    );
  });
  it('refuses an unknown type when the domain is not configured and no type is stated', () => {
    refusal(
      () => parseCredential(ec({ issuer: 'org@unknown.example.test' }), { domains }),
      'CREDENTIAL_TYPE_UNKNOWN',
      /State the type \(External Organization or IAM\).*issuer-domain configuration/,
    );
    refusal(() => parseCredential(ec()), 'CREDENTIAL_TYPE_UNKNOWN', /ext\.example\.test/);
  });
  it('refuses an empty or blank kid', () => {
    for (const kid of ['', '   ', '\n']) {
      refusal(
        () => parseCredential(ec({ kid }), { domains }),
        'KID_MISSING',
        /key ID.*key identifier delivered with the credentials/,
      );
    }
  });
  it('refuses an issuer that is not local@domain, showing the expected form', () => {
    for (const issuer of [
      '',
      'org-123',
      '@ext.example.test',
      'org-123@',
      'org 123@ext.example.test',
      'a@b@ext.example.test',
      'org@ext example.test',
    ]) {
      refusal(() => parseCredential(ec({ issuer }), { domains }), 'ISSUER_INVALID', /<organization-id>@<your-domain>/);
    }
  });
  it('passes on key refusals, without the key text', () => {
    refusal(
      () => parseCredential(ec({ privateKey: keyFixture('rsa2048').pkcs8 }), { domains }),
      'KEY_WRONG_TYPE',
      /ES256/,
      keyFixture('rsa2048').secretParts,
    );
    refusal(
      () => parseCredential(ec({ privateKey: keyFixture('p384').jwk }), { domains }),
      'KEY_WRONG_CURVE',
      /P-384/,
      keyFixture('p384').secretParts,
    );
    refusal(
      () => parseCredential(ec({ privateKey: p256.publicPem }), { domains }),
      'KEY_PUBLIC_NOT_PRIVATE',
      /private key/,
    );
  });
  it('signs a token that its derived public key verifies, and another key does not', async () => {
    const { credential } = parseCredential(ec({ privateKey: JSON.stringify(p256.traditional) }), { domains });
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: credential.alg, kid: credential.kid })
      .setIssuer(credential.issuer)
      .setAudience('https://mds.example.test')
      .setExpirationTime('5m')
      .sign(credential.privateKey);
    const { payload, protectedHeader } = await jwtVerify(token, credential.publicKey, {
      issuer: 'org-123@ext.example.test',
      audience: 'https://mds.example.test',
    });
    assert.equal(protectedHeader.kid, 'key-1');
    assert.equal(payload.iss, 'org-123@ext.example.test');
    await jwtVerify(token, parsePublicKey(p256.publicPem));
    const stranger = distinctKeyPair('p256');
    await assert.rejects(jwtVerify(token, stranger.publicKey));
  });
});

describe('credentials: parseCredential (service account)', () => {
  const rsa = keyFixture('rsa2048');
  const sa = (keyFile: string) => ({ kind: 'service-account' as const, keyFile });

  it('reads a key file: client_email is the issuer, private_key_id the kid, with a deprecation warning', () => {
    const { credential, warnings } = parseCredential(sa(keyFileText()), { domains });
    assert.equal(credential.type, 'service-account');
    assert.equal(credential.alg, 'RS256');
    assert.equal(credential.kid, 'sa-key-id-1');
    assert.equal(credential.issuer, 'robot@sa.example.test');
    assertSameKeyPair(credential.privateKey, rsa);
    assertSameKeyPair(credential.publicKey, rsa);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /deprecated.*MDS Provider API only/);
  });
  it('reads a key file whose domain is not configured, with CRLF, a BOM and surrounding whitespace', () => {
    const text = `\uFEFF\n ${keyFileText({ client_email: 'robot@elsewhere.example.test' }).replace(/\n/g, '\r\n')} \r\n`;
    assert.equal(parseCredential(sa(text), { domains }).credential.type, 'service-account');
    assert.equal(parseCredential(sa(text)).credential.issuer, 'robot@elsewhere.example.test');
  });
  it('reads a PKCS#1 private_key and one with CRLF line ends', () => {
    assertSameKeyPair(parseCredential(sa(keyFileText({ private_key: rsa.traditional }))).credential.privateKey, rsa);
    assertSameKeyPair(
      parseCredential(sa(keyFileText({ private_key: rsa.pkcs8.replace(/\n/g, '\r\n') }))).credential.privateKey,
      rsa,
    );
  });
  it('warns when "type" is not service_account', () => {
    const { warnings } = parseCredential(sa(keyFileText({ type: 'authorized_user' })));
    assert.ok(
      warnings.some((w) => /"authorized_user", not "service_account"/.test(w)),
      warnings.join(' | '),
    );
  });
  it('signs an RS256 token that its derived public key verifies', async () => {
    const { credential } = parseCredential(sa(keyFileText()), { domains });
    const token = await new SignJWT({ email: credential.issuer })
      .setProtectedHeader({ alg: credential.alg, kid: credential.kid })
      .setIssuer(credential.issuer)
      .setSubject(credential.issuer)
      .setAudience('https://mds.example.test')
      .setExpirationTime('6m')
      .sign(credential.privateKey);
    const { protectedHeader } = await jwtVerify(token, credential.publicKey, { algorithms: ['RS256'] });
    assert.equal(protectedHeader.kid, 'sa-key-id-1');
    await assert.rejects(jwtVerify(token, keyFixture('rsa1024').publicKey));
  });

  it('refuses text that is not JSON, giving the position but not the text', () => {
    const broken = keyFileText().replace('"project_id"', '"project_id" "oops"');
    const err = refusal(
      () => parseCredential(sa(broken)),
      'KEY_FILE_INVALID',
      /not valid JSON \(error at line 3, column \d+\)/,
      rsa.secretParts,
    );
    assert.doesNotMatch(err.message, /oops/);
  });
  it('refuses a key file cut off inside private_key, without quoting the key', () => {
    const text = keyFileText();
    refusal(
      () => parseCredential(sa(text.slice(0, text.indexOf('private_key"') + 400))),
      'KEY_FILE_INVALID',
      /not valid JSON/,
      rsa.secretParts,
    );
  });
  it('refuses empty text and JSON that is not an object', () => {
    refusal(() => parseCredential(sa('  ')), 'KEY_FILE_INVALID', /empty/);
    refusal(() => parseCredential(sa('[1]')), 'KEY_FILE_INVALID', /must be a JSON object, but it is a list/);
    refusal(() => parseCredential(sa('null')), 'KEY_FILE_INVALID', /but it is null/);
    refusal(() => parseCredential(sa('42')), 'KEY_FILE_INVALID', /but it is a number/);
  });
  for (const field of KEY_FILE_FIELDS) {
    it(`refuses a key file whose "${field}" is missing, a number, null or empty, naming it`, () => {
      refusal(
        () => parseCredential(sa(keyFileText({}, [field]))),
        'KEY_FILE_INVALID',
        new RegExp(`"${field}" is missing`),
        rsa.secretParts,
      );
      refusal(
        () => parseCredential(sa(keyFileText({ [field]: 7 }))),
        'KEY_FILE_INVALID',
        new RegExp(`"${field}" is a number`),
      );
      refusal(
        () => parseCredential(sa(keyFileText({ [field]: null }))),
        'KEY_FILE_INVALID',
        new RegExp(`"${field}" is null`),
      );
      refusal(
        () => parseCredential(sa(keyFileText({ [field]: '  ' }))),
        'KEY_FILE_INVALID',
        new RegExp(`"${field}" is empty`),
      );
    });
  }
  it('puts the right article before the kind of value found ("an object", never "a object")', () => {
    const err = refusal(
      () => parseCredential(sa(keyFileText({ client_id: { id: 1 } }))),
      'KEY_FILE_INVALID',
      /"client_id" is an object/,
    );
    assert.doesNotMatch(err.message, /\ba object\b/);
    refusal(
      () => parseCredential(sa(keyFileText({ client_id: true }))),
      'KEY_FILE_INVALID',
      /"client_id" is a boolean/,
    );
    refusal(() => parseCredential(sa('true')), 'KEY_FILE_INVALID', /but it is a boolean\./);
  });
  it('names every problem field at once', () => {
    const err = refusal(
      () => parseCredential(sa(keyFileText({ client_id: 12 }, ['token_uri']))),
      'KEY_FILE_INVALID',
      /"client_id" is a number/,
    );
    assert.match(err.message, /"token_uri" is missing/);
  });
  it('refuses a client_email that is not an e-mail address', () => {
    refusal(
      () => parseCredential(sa(keyFileText({ client_email: 'robot' }))),
      'KEY_FILE_INVALID',
      /client_email.*not an e-mail address/,
    );
  });
  it('refuses an EC private_key, saying that service-account key files hold RSA keys', () => {
    const p256 = keyFixture('p256');
    refusal(
      () => parseCredential(sa(keyFileText({ private_key: p256.pkcs8 }))),
      'KEY_WRONG_TYPE',
      /service-account key files hold RSA keys/,
      p256.secretParts,
    );
  });
  it('refuses an RSA private_key under 2048 bits and an encrypted one', () => {
    const small = keyFixture('rsa1024');
    refusal(
      () => parseCredential(sa(keyFileText({ private_key: small.pkcs8 }))),
      'KEY_RSA_TOO_SMALL',
      /private_key.*1024 bits/,
      small.secretParts,
    );
    refusal(
      () => parseCredential(sa(keyFileText({ private_key: rsa.encryptedPkcs8 }))),
      'KEY_ENCRYPTED',
      /Decrypt it first/,
    );
  });
  it('refuses a client_email whose domain is configured for another type', () => {
    refusal(
      () => parseCredential(sa(keyFileText({ client_email: 'robot@ext.example.test' })), { domains }),
      'CREDENTIAL_TYPE_MISMATCH',
      /External Organization.*not for service accounts/,
    );
  });
  it('ignores __proto__ and other unknown keys: nothing is copied, nothing polluted', () => {
    const text = keyFileText().replace(
      '{',
      '{\n  "__proto__": { "polluted": "yes", "private_key_id": "from-proto" },\n  "constructor": { "prototype": { "polluted": "yes" } },\n  "extra": "x",',
    );
    const { credential } = parseCredential(sa(text), { domains });
    assert.equal(credential.kid, 'sa-key-id-1');
    assert.deepEqual(Object.keys(credential).sort(), ['alg', 'issuer', 'kid', 'privateKey', 'publicKey', 'type']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  });
  it('does not take a field from a __proto__ member', () => {
    const text = keyFileText({}, ['private_key']).replace(
      '{',
      `{ "__proto__": { "private_key": ${JSON.stringify(rsa.pkcs8)} },`,
    );
    refusal(() => parseCredential(sa(text)), 'KEY_FILE_INVALID', /"private_key" is missing/, rsa.secretParts);
  });
});

describe('credentials: looksLikeServiceAccountKeyFile', () => {
  it('recognises a key file by its shape, also with whitespace or quoted as a JSON string', () => {
    assert.equal(looksLikeServiceAccountKeyFile(keyFileText()), true);
    assert.equal(looksLikeServiceAccountKeyFile(`\n  ${keyFileText()}\n`), true);
    assert.equal(looksLikeServiceAccountKeyFile(JSON.stringify(keyFileText())), true);
    assert.equal(looksLikeServiceAccountKeyFile('{"private_key": "x", "client_email": "a@b.test"}'), true);
  });
  it('does not take keys, JWKs, broken JSON or other objects for a key file', () => {
    const p256 = keyFixture('p256');
    for (const text of [
      p256.pkcs8,
      p256.jwk,
      JSON.stringify(p256.pkcs8),
      '',
      '{"private_key": "x"',
      '[{"private_key": "x", "client_email": "y"}]',
      '{"private_key": "x"}',
      '{"__proto__": {"private_key": "x", "client_email": "y"}}',
    ]) {
      assert.equal(looksLikeServiceAccountKeyFile(text), false, text.slice(0, 40));
    }
  });
});

describe('credentials: assertCredentialForApi and describeCredential', () => {
  const p256 = keyFixture('p256');
  const ecCredential = (issuer: string): Credential =>
    parseCredential({ kind: 'ec', privateKey: p256.pkcs8, kid: 'key-1', issuer }, { domains }).credential;

  it('refuses IAM and service-account credentials for the MaaS API, suggesting External Organization', () => {
    const iam = ecCredential('me@iam.example.test');
    const serviceAccount = parseCredential({ kind: 'service-account', keyFile: keyFileText() }, { domains }).credential;
    for (const credential of [iam, serviceAccount]) {
      refusal(
        () => assertCredentialForApi(credential, 'maas'),
        'CREDENTIAL_NOT_FOR_API',
        /MDS Provider API only.*External Organization credential/,
      );
      assert.doesNotThrow(() => assertCredentialForApi(credential, 'mds'));
    }
  });
  it('lets External Organization credentials through for both APIs', () => {
    const ext = ecCredential('org@ext.example.test');
    assert.doesNotThrow(() => assertCredentialForApi(ext, 'maas'));
    assert.doesNotThrow(() => assertCredentialForApi(ext, 'mds'));
  });
  it('describes a credential by type, alg, kid and issuer only', () => {
    const summary = describeCredential(ecCredential('org@ext.example.test'));
    assert.deepEqual(summary, { type: 'external-org', alg: 'ES256', kid: 'key-1', issuer: 'org@ext.example.test' });
    const serialised = JSON.stringify(summary);
    for (const secret of p256.secretParts) assert.ok(!serialised.includes(secret));
  });
});

describe('credentials: a text longer than any key', () => {
  const p256 = keyFixture('p256');
  const rsa = keyFixture('rsa2048');
  // A key in front of 2 MB of blank lines: the reader would find it, but no key file is that long.
  const twoMegabytes = (text: string) => `${text}${'\n'.repeat(2 * 1024 * 1024)}`;

  it('refuses it by its size, naming the size and the limit, before reading it, and quotes none of it', () => {
    refusal(
      () => parsePrivateKey(twoMegabytes(p256.pkcs8), 'ES256'),
      'KEY_NOT_RECOGNISED',
      /is 2(\.0)? MB long.*a key is a few kilobytes.*at most 1(\.0)? MB/,
      p256.secretParts,
    );
    refusal(() => parsePublicKey(twoMegabytes(p256.publicPem)), 'KEY_NOT_RECOGNISED', /is 2(\.0)? MB long/);
    const keyFile = JSON.stringify({ type: 'service_account', private_key: rsa.pkcs8 });
    refusal(
      () => parseCredential({ kind: 'service-account', keyFile: twoMegabytes(keyFile) }),
      'KEY_FILE_INVALID',
      /is 2(\.0)? MB long.*a service-account key file is a few kilobytes/,
      rsa.secretParts,
    );
  });

  it('still reads a key with paste damage up to the limit', () => {
    const atLimit = `${p256.pkcs8}${'\n'.repeat(1024 * 1024 - p256.pkcs8.length)}`;
    assert.equal(atLimit.length, 1024 * 1024);
    assertSameKeyPair(parsePrivateKey(atLimit, 'ES256'), p256);
  });
});
