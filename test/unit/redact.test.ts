import assert from 'node:assert/strict';
import { keyFixture } from './keyFixtures';
import { redactSecrets } from '../../src/core/base/redact';

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
});
