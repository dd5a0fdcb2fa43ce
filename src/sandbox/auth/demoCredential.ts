import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { MobilityError } from '../../core/base';
import type { TrustedKey } from './trustStore';
import { keyMismatchFor, trustEntryOf } from './trustStore';

/**
 * The demo issuer. The `.invalid` TLD (RFC 2606) can never be a real domain, so nobody mistakes
 * the demo credential for a provisioned one.
 */
export const DEMO_ISSUER = 'demo@sandbox.mobility-api.invalid';

export const DEMO_PRIVATE_KEY_FILE = 'demo-private-key.pem';
export const DEMO_CREDENTIAL_FILE = 'demo-credential.json';
export const DEMO_TRUST_FILE = 'demo-trust.json';

/** Where the demo credential was written. `credentialFile` holds no key material. */
export interface DemoCredential {
  type: 'external-org';
  kid: string;
  issuer: string;
  /** Absolute path of the PKCS#8 PEM private key (mode 0600). */
  privateKeyFile: string;
  /** Absolute path of `demo-credential.json`: `{ type, kid, issuer, privateKeyFile }`. */
  credentialFile: string;
  /** The folder holding the three files. */
  dir: string;
}

/** The demo credential on disk and the key the sandbox trusts for it. */
export interface DemoSetup {
  demo: DemoCredential;
  trusted: TrustedKey;
  /** True when the folder was created here (a fresh temp folder), so the sandbox may remove it. */
  createdDir: boolean;
}

function demoPrivateKey(pem: string | undefined): KeyObject {
  if (pem === undefined) return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new MobilityError(
      'DEMO_KEY_INVALID',
      'The demo private key could not be read. Pass a PKCS#8 PEM EC P-256 private key, such as a demo-private-key.pem written by an earlier sandbox.',
      { cause: err },
    );
  }
  const mismatch = keyMismatchFor('external-org', key);
  if (mismatch)
    throw new MobilityError(
      'DEMO_KEY_INVALID',
      `The demo private key does not fit: ${mismatch}. Pass an EC P-256 private key.`,
    );
  return key;
}

/**
 * Creates (or reuses) the demo key and writes `demo-private-key.pem`, `demo-credential.json` and
 * `demo-trust.json` to `dir` (default: a new folder under the OS temp folder; `false`: no files,
 * for a caller that keeps the key itself, such as the extension in SecretStorage). The kid comes
 * from the public key's JWK thumbprint, so a reused key keeps its kid.
 */
export async function writeDemoCredential(dir: string | false | undefined, privateKeyPem?: string): Promise<DemoSetup> {
  const privateKey = demoPrivateKey(privateKeyPem);
  const publicKey = createPublicKey(privateKey);
  const thumbprint = await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }), 'sha256');
  const kid = `sandbox-demo-${Buffer.from(thumbprint, 'base64url').toString('hex').slice(0, 8)}`;
  if (dir === false) {
    const trusted: TrustedKey = { kid, iss: DEMO_ISSUER, type: 'external-org', publicKey };
    return {
      demo: { type: 'external-org', kid, issuer: DEMO_ISSUER, privateKeyFile: '', credentialFile: '', dir: '' },
      trusted,
      createdDir: false,
    };
  }

  let folder: string;
  const createdDir = dir === undefined;
  try {
    if (dir === undefined) {
      folder = mkdtempSync(join(tmpdir(), 'mobility-api-sandbox-'));
    } else {
      folder = resolve(dir);
      mkdirSync(folder, { recursive: true });
    }
    const privateKeyFile = join(folder, DEMO_PRIVATE_KEY_FILE);
    writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    // The mode of writeFileSync applies only to new files; an older file may be more open.
    chmodSync(privateKeyFile, 0o600);
    const credentialFile = join(folder, DEMO_CREDENTIAL_FILE);
    writeFileSync(
      credentialFile,
      `${JSON.stringify({ type: 'external-org', kid, issuer: DEMO_ISSUER, privateKeyFile }, null, 2)}\n`,
    );
    const trusted: TrustedKey = { kid, iss: DEMO_ISSUER, type: 'external-org', publicKey };
    writeFileSync(join(folder, DEMO_TRUST_FILE), `${JSON.stringify(trustEntryOf(trusted), null, 2)}\n`);
    return {
      demo: { type: 'external-org', kid, issuer: DEMO_ISSUER, privateKeyFile, credentialFile, dir: folder },
      trusted,
      createdDir,
    };
  } catch (err) {
    if (err instanceof MobilityError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new MobilityError(
      'SANDBOX_START_FAILED',
      `The demo credential could not be written to ${dir ?? tmpdir()} (${reason}). Choose a writable folder for it.`,
      { cause: err },
    );
  }
}
