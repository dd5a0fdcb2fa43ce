// Keys for the credential tests, generated when first asked for so that no private key is ever
// committed. Not a test file: tests import it.
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyExportOptions, KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FixtureKind = 'p256' | 'p384' | 'p521' | 'secp256k1' | 'rsa2048' | 'rsa1024' | 'ed25519';

/** One generated key pair in every form a user might paste. */
export interface KeyFixture {
  kind: FixtureKind;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** `BEGIN PRIVATE KEY`. */
  pkcs8: string;
  /** `BEGIN EC PRIVATE KEY` (SEC1) or `BEGIN RSA PRIVATE KEY` (PKCS#1); undefined for Ed25519. */
  traditional: string | undefined;
  /** Private JWK as JSON text. */
  jwk: string;
  /** Public JWK as JSON text. */
  publicJwk: string;
  /** `BEGIN PUBLIC KEY` (SPKI). */
  publicPem: string;
  /** `BEGIN RSA PUBLIC KEY` for RSA keys, else undefined. */
  pkcs1PublicPem: string | undefined;
  /** `BEGIN ENCRYPTED PRIVATE KEY`, protected by {@link FIXTURE_PASSPHRASE}. */
  encryptedPkcs8: string;
  /** Traditional PEM with `Proc-Type: 4,ENCRYPTED`; undefined for Ed25519. */
  encryptedTraditional: string | undefined;
  /** The base64 lines of the PKCS#8 body and the private JWK's `d`: text no error message may contain. */
  secretParts: string[];
}

export const FIXTURE_PASSPHRASE = 'test-passphrase';

const cache = new Map<FixtureKind, KeyFixture>();

function generate(kind: FixtureKind): { privateKey: KeyObject; publicKey: KeyObject } {
  switch (kind) {
    case 'p256':
      return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    case 'p384':
      return generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    case 'p521':
      return generateKeyPairSync('ec', { namedCurve: 'secp521r1' });
    case 'secp256k1':
      return generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    case 'rsa2048':
      return generateKeyPairSync('rsa', { modulusLength: 2048 });
    case 'rsa1024':
      return generateKeyPairSync('rsa', { modulusLength: 1024 });
    case 'ed25519':
      return generateKeyPairSync('ed25519');
  }
}

/** The key pair of `kind`, generated once per test run. */
export function keyFixture(kind: FixtureKind): KeyFixture {
  const cached = cache.get(kind);
  if (cached) return cached;
  const { privateKey, publicKey } = generate(kind);
  const isRsa = kind.startsWith('rsa');
  const traditionalType = isRsa ? 'pkcs1' : 'sec1';
  const hasTraditional = kind !== 'ed25519';
  const pem = (options: KeyExportOptions<'pem'>): string => privateKey.export(options).toString();
  const pkcs8 = pem({ format: 'pem', type: 'pkcs8' });
  const jwk = privateKey.export({ format: 'jwk' });
  const fixture: KeyFixture = {
    kind,
    privateKey,
    publicKey,
    pkcs8,
    traditional: hasTraditional ? pem({ format: 'pem', type: traditionalType }) : undefined,
    jwk: JSON.stringify(jwk),
    publicJwk: JSON.stringify(publicKey.export({ format: 'jwk' })),
    publicPem: String(publicKey.export({ format: 'pem', type: 'spki' })),
    pkcs1PublicPem: isRsa ? String(publicKey.export({ format: 'pem', type: 'pkcs1' })) : undefined,
    encryptedPkcs8: pem({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: FIXTURE_PASSPHRASE }),
    encryptedTraditional: hasTraditional
      ? pem({ format: 'pem', type: traditionalType, cipher: 'aes-256-cbc', passphrase: FIXTURE_PASSPHRASE })
      : undefined,
    secretParts: [...pkcs8.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')), String(jwk.d)],
  };
  cache.set(kind, fixture);
  return fixture;
}

/**
 * A key pair of `kind` that no other call returns: for a test that relies on two different keys (a
 * stranger's key, an impostor, two credentials that must not be the same key). Tests that just need
 * a key take {@link keyFixture}, generated once per run.
 */
export function distinctKeyPair(kind: FixtureKind): { privateKey: KeyObject; publicKey: KeyObject } {
  return generate(kind);
}

/** A distinct key's private key as PEM: PKCS#8, or SEC1 / PKCS#1 with `traditional`. */
export function distinctKeyPem(kind: FixtureKind, form: 'pkcs8' | 'traditional' = 'pkcs8'): string {
  const type = form === 'pkcs8' ? 'pkcs8' : kind.startsWith('rsa') ? 'pkcs1' : 'sec1';
  return distinctKeyPair(kind).privateKey.export({ format: 'pem', type }).toString();
}

/** True when the `openssl` command can be run. */
export function hasOpenssl(): boolean {
  const result = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  return result.status === 0;
}

/**
 * A self-signed certificate (PEM) for the fixture's key, made with `openssl req -x509`. The key is
 * written to a private temporary folder that is removed before returning.
 */
export function selfSignedCertificate(fixture: KeyFixture): string {
  const dir = mkdtempSync(join(tmpdir(), 'mobility-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    writeFileSync(keyPath, fixture.pkcs8, { mode: 0o600 });
    return execFileSync('openssl', ['req', '-x509', '-new', '-key', keyPath, '-subj', '/CN=test', '-days', '1'], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
