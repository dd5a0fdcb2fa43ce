import assert from 'node:assert/strict';
import { keyFixture } from './keyFixtures';
import { maskKidIn, ownSecretsMasker, redactSecrets, withoutOwnSecrets } from '../../src/core/base/redact';

describe('redactSecrets', () => {
  it('removes PEM private keys, tokens, JWK private members and bearer values, keeps the rest', () => {
    const { privateKey } = keyFixture('p256');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const jwk = JSON.stringify(privateKey.export({ format: 'jwk' }));
    const token = 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJhQGIifQ.c2lnbmF0dXJl';
    const text = `failed for kid k1: ${pem} and ${token}; jwk ${jwk}; header Authorization: Bearer abc.def-123`;
    const out = redactSecrets(text);
    assert.ok(!out.includes(pem.split('\n')[1]), 'PEM body gone');
    assert.ok(!out.includes(token));
    assert.ok(!out.includes((JSON.parse(jwk) as { d: string }).d), 'JWK d gone');
    assert.ok(!out.includes('abc.def-123'));
    assert.match(out, /failed for kid k1/);
    assert.match(out, /"crv":"P-256"/, 'public members stay');
  });

  it('handles a truncated PEM and large input', () => {
    assert.equal(redactSecrets('x -----BEGIN PRIVATE KEY-----\nMIIB'), 'x <private key redacted>');
    const big = 'eyJ'.repeat(700_000);
    const out = redactSecrets(big);
    assert.ok(out.length < 11_000, 'cut to a bounded length');
    assert.match(out, /more characters not logged/);
  });

  it('keeps a server\'s own words after "bearer" and redacts what is shaped like a secret', () => {
    assert.equal(redactSecrets('invalid_token: bearer token expired'), 'invalid_token: bearer token expired');
    assert.equal(redactSecrets('Bearer authentication required'), 'Bearer authentication required');
    const token = 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJhQGIifQ.c2lnbmF0dXJl';
    assert.equal(redactSecrets(`bearer ${token} expired`), 'bearer <token redacted> expired');
    // Three long base64url segments without the usual JSON header start.
    const opaque = 'QWxhZGRpbjpvcGVuIHNlc2FtZQ.c2Vjb25kLXNlZ21lbnQtaGVyZQ.dGhpcmQtc2VnbWVudC1oZXJl';
    assert.ok(!redactSecrets(`got ${opaque}`).includes(opaque));
    // A long random-looking string (an API secret), on its own or as an Authorization value.
    const secret = 'Zk8qP2xR7vN4mW9tY3bJ6hL1cD5sF0gA';
    assert.equal(redactSecrets(`key ${secret} refused`), 'key <secret redacted> refused');
    assert.ok(!redactSecrets(`Authorization: Bearer ${secret}`).includes(secret));
    assert.ok(
      !redactSecrets('Authorization: Bearer abc.def-123').includes('abc.def-123'),
      'an Authorization header value is a credential whatever its shape',
    );
    // Ordinary log text stays as it is: UUIDs, hex digests, URLs, paths, host names, versions.
    const ordinary =
      'jti 3f2b8c1e-9a4d-4e2f-8b1c-7d6e5f4a3b2c sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ' +
      'GET https://mds.provider.example.com/mds-staging/vehicles/status?page_size=100 file /home/someone/Projects/MobilityExplorer2026/harvest/2026-01-01T00.json v1.2.3';
    assert.equal(redactSecrets(ordinary), ordinary);
  });
});

describe('ownSecretsMasker: our own secrets hidden by value, never by shape', () => {
  const token = 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxMjM0NTY3In0.eyJpc3MiOiJhQGIifQ.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZw';

  it('shortens the token and masks the kid wherever a server echoes them, and leaves every other value as it came', () => {
    const mask = ownSecretsMasker({ tokens: [token], kid: 'ServiceKey-0123456789abcdef' });
    const random = 'Xq7Lm2Pz9Kd4Rt6Wb1Nc8Hv3Js5Gf0YaE2uQ7iO4';
    assert.equal(mask(random), random, 'a random-looking value of the server stays');
    assert.equal(mask(`got ${token}`), `got ${token.slice(0, 10)}…${token.slice(-6)}`);
    assert.equal(
      mask('kid SERVICEKEY-0123456789ABCDEF, ServiceKey-0123456789abcdef'),
      'kid Ser…def, Ser…def',
      'in any case',
    );
    assert.equal(mask('/keys/ServiceKey-0123456789abcdef'), '/keys/Ser…def');
  });

  it('masks a short kid whole, where it stands as a word, and nothing inside a longer word', () => {
    const mask = ownSecretsMasker({ kid: 'k1' });
    assert.equal(mask('unknown kid k1; "k1"'), 'unknown kid …; "…"');
    assert.equal(mask('k12 sk1 ok'), 'k12 sk1 ok');
    assert.equal(ownSecretsMasker({ kid: 'k1234567' })(`kid=k1234567`), 'kid=…');
    assert.equal(maskKidIn('a kid of k1234567.', 'k1234567'), 'a kid of ….');
  });

  it('takes linear time and no stack on a text of many megabytes', () => {
    const big = 'aB3'.repeat(1_600_000) + 'k1234567';
    const out = ownSecretsMasker({ tokens: [token], kid: 'k1234567' })(big);
    assert.equal(out.length, big.length - 7);
  });

  it('withoutOwnSecrets: a report is copied with the secrets masked wherever they stand, and left as it is without them', () => {
    const clean = { outcomes: [{ message: 'expected 200, actual 200' }], status: 200 };
    assert.equal(
      withoutOwnSecrets(clean, { tokens: [token], kid: 'k1' }),
      clean,
      'no secret: the same object, no copy',
    );
    // A short kid after a newline: in the JSON text it follows `\n`'s letter n, so only a per-string mask finds it.
    const echoed = { outcomes: [{ message: `line one\nk1 echoed, and the token ${token}` }], kids: ['K1'] };
    const masked = withoutOwnSecrets(echoed, { tokens: [token], kid: 'k1' });
    assert.notEqual(masked, echoed);
    assert.equal(
      masked.outcomes[0].message,
      `line one\n… echoed, and the token ${token.slice(0, 10)}…${token.slice(-6)}`,
    );
    assert.deepEqual(masked.kids, ['…']);
    assert.equal(echoed.kids[0], 'K1', 'the original is left alone');
    // A kid JSON escapes (a quote in it) always takes the copy.
    assert.deepEqual(withoutOwnSecrets({ m: 'kid "q"-key-long' }, { kid: '"q"-key-long' }), { m: 'kid …' });
  });
});
