import { X509Certificate, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { CredentialType } from '../../core/auth';
import { ALGORITHM_OF, CREDENTIAL_TYPES } from '../../core/auth';
import { maskKeyId, MobilityError, withArticle } from '../../core/base';
import { isRecord } from '../../shared/isRecord';

/** A public key the sandbox accepts tokens from, with the issuer and type registered for it. */
export interface TrustedKey {
  kid: string;
  iss: string;
  type: CredentialType;
  publicKey: KeyObject;
}

/** One entry of a trust file as written on disk (the `--trust` format). */
export interface TrustFileEntry {
  kid: string;
  iss: string;
  type: CredentialType;
  /** A PEM public key (SPKI, PKCS#1 or an X.509 certificate) or a public JWK. */
  publicKey: string | JsonWebKey;
}

/**
 * Why a key cannot sign tokens of a type, or undefined when it can: ES256 types need an EC P-256
 * key, service accounts an RSA key of at least 2048 bits (what RS256 verifiers demand).
 */
export function keyMismatchFor(type: CredentialType, key: KeyObject): string | undefined {
  if (ALGORITHM_OF[type] === 'ES256') {
    if (key.asymmetricKeyType !== 'ec')
      return `${withArticle(type)} key must be an EC P-256 key (ES256), not ${key.asymmetricKeyType ?? 'unknown'}`;
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1')
      return `${withArticle(type)} key must be on the P-256 curve (ES256), not ${curve ?? 'an unknown curve'}`;
    return undefined;
  }
  if (key.asymmetricKeyType !== 'rsa')
    return `a service-account key must be an RSA key (RS256), not ${key.asymmetricKeyType ?? 'unknown'}`;
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) return `a service-account key must have at least 2048 bits, not ${bits}`;
  return undefined;
}

/** The public key of a trust entry; throws a plain Error whose message says what is wrong. */
function publicKeyOf(value: unknown): KeyObject {
  if (typeof value === 'string') {
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value))
      throw new Error('it holds a private key; put only the public key in a trust file');
    if (value.includes('-----BEGIN CERTIFICATE-----')) return new X509Certificate(value).publicKey;
    if (!value.includes('-----BEGIN')) throw new Error('it is neither a PEM public key nor a JWK object');
    return createPublicKey(value);
  }
  if (isRecord(value)) {
    if ('d' in value || 'p' in value)
      throw new Error('the JWK holds private key parameters; put only the public JWK in a trust file');
    return createPublicKey({ key: value as JsonWebKey, format: 'jwk' });
  }
  throw new Error('it must be a PEM string or a JWK object');
}

/**
 * Reads a trust file: one entry object or a list of them, each
 * `{ kid, iss, type: "external-org" | "iam" | "service-account", publicKey: <PEM or JWK> }`.
 * `source` names the file in error messages. Throws `TRUST_FILE_INVALID` naming the entry index
 * and the field on the first problem.
 */
export function parseTrustFile(text: string, source: string): TrustedKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new MobilityError(
      'TRUST_FILE_INVALID',
      `The trust file ${source} is not valid JSON (${reason}). Write one entry object or a list of { kid, iss, type, publicKey } objects.`,
    );
  }
  const entries: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  if (!Array.isArray(parsed) && !isRecord(parsed)) {
    throw new MobilityError(
      'TRUST_FILE_INVALID',
      `The trust file ${source} must hold a JSON object or a list of objects, not ${describe(parsed)}.`,
    );
  }
  if (entries.length === 0) {
    throw new MobilityError(
      'TRUST_FILE_INVALID',
      `The trust file ${source} holds an empty list. Add at least one { kid, iss, type, publicKey } entry.`,
    );
  }
  const seen = new Map<string, number>();
  return entries.map((entry, index) => {
    const fail = (field: string, problem: string): never => {
      throw new MobilityError(
        'TRUST_FILE_INVALID',
        `The trust file ${source}, entry ${index}, field "${field}": ${problem}.`,
      );
    };
    if (!isRecord(entry))
      return fail('(entry)', `the entry must be an object with kid, iss, type and publicKey, not ${describe(entry)}`);
    const kid = entry.kid;
    if (typeof kid !== 'string' || kid.trim() === '')
      return fail('kid', 'give the key identifier as a non-empty string');
    const earlier = seen.get(kid);
    if (earlier !== undefined)
      return fail('kid', `"${maskKeyId(kid)}" is already used by entry ${earlier}; each kid may appear once`);
    seen.set(kid, index);
    const iss = entry.iss;
    if (typeof iss !== 'string' || iss.trim() === '')
      return fail('iss', 'give the issuer e-mail as a non-empty string');
    const type = entry.type;
    if (typeof type !== 'string' || !(CREDENTIAL_TYPES as readonly string[]).includes(type)) {
      return fail(
        'type',
        `${describe(type)} is not a credential type; use one of ${CREDENTIAL_TYPES.map((t) => `"${t}"`).join(', ')}`,
      );
    }
    const credentialType = type as CredentialType;
    if (entry.publicKey === undefined) return fail('publicKey', 'give the public key as a PEM string or a JWK object');
    let publicKey: KeyObject;
    try {
      publicKey = publicKeyOf(entry.publicKey);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return fail('publicKey', `the key cannot be read: ${reason}`);
    }
    const mismatch = keyMismatchFor(credentialType, publicKey);
    if (mismatch) return fail('publicKey', mismatch);
    return { kid, iss, type: credentialType, publicKey };
  });
}

/**
 * Reads the trust files of `--trust` given more than once, in order. A kid bound by two of them is refused, naming
 * both files and the kid masked: one would otherwise replace the other in silence, and tokens of that kid would be
 * checked with whichever file came last.
 */
export function parseTrustFiles(files: readonly { text: string; source: string }[]): TrustedKey[] {
  const boundIn = new Map<string, string>();
  const keys: TrustedKey[] = [];
  for (const { text, source } of files) {
    for (const key of parseTrustFile(text, source)) {
      const earlier = boundIn.get(key.kid);
      if (earlier === source) {
        throw new MobilityError(
          'TRUST_FILE_INVALID',
          `The trust file ${source} is given twice with --trust. Give each trust file once.`,
        );
      }
      if (earlier !== undefined) {
        throw new MobilityError(
          'TRUST_FILE_INVALID',
          `The kid "${maskKeyId(key.kid)}" is bound by two trust files, ${earlier} and ${source}. A kid may be bound once, or a token would be checked with whichever key came last: remove the entry from one of the files.`,
        );
      }
      boundIn.set(key.kid, source);
      keys.push(key);
    }
  }
  return keys;
}

/** The trust-file entry of a key (public JWK only), e.g. to let another sandbox trust it. */
export function trustEntryOf(key: TrustedKey): TrustFileEntry {
  return { kid: key.kid, iss: key.iss, type: key.type, publicKey: key.publicKey.export({ format: 'jwk' }) };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * The keys a running sandbox trusts, by kid. Adding a kid again replaces its entry (a stored credential that changed),
 * but the keys it starts with bind each kid once.
 */
export class TrustStore {
  private readonly keys = new Map<string, TrustedKey>();

  /** Throws `TRUST_FILE_INVALID` when two of `keys` bind one kid to different keys, issuers or types. */
  constructor(keys: Iterable<TrustedKey> = []) {
    for (const key of keys) {
      const earlier = this.keys.get(key.kid);
      if (earlier && !sameBinding(earlier, key)) {
        throw new MobilityError(
          'TRUST_FILE_INVALID',
          `The kid "${maskKeyId(key.kid)}" is bound twice, to different keys or issuers (the sandbox's demo key, or a --trust file, binds it already). A kid may be bound once: give the other key its own kid.`,
        );
      }
      this.add(key);
    }
  }

  /** Adds or replaces a key; throws `TRUST_FILE_INVALID` when the key cannot sign its type's algorithm. */
  add(key: TrustedKey): void {
    if (!key.kid) throw new MobilityError('TRUST_FILE_INVALID', 'A trusted key needs a non-empty kid.');
    if (key.publicKey.type === 'secret') {
      throw new MobilityError(
        'TRUST_FILE_INVALID',
        `The trusted key "${maskKeyId(key.kid)}" must be an asymmetric public key, not a secret key.`,
      );
    }
    // A private KeyObject is accepted for convenience, but only its public half is kept.
    const publicKey = key.publicKey.type === 'private' ? createPublicKey(key.publicKey) : key.publicKey;
    const mismatch = keyMismatchFor(key.type, publicKey);
    if (mismatch)
      throw new MobilityError(
        'TRUST_FILE_INVALID',
        `The trusted key "${maskKeyId(key.kid)}" does not fit its type: ${mismatch}.`,
      );
    this.keys.set(key.kid, { kid: key.kid, iss: key.iss, type: key.type, publicKey });
  }

  get(kid: string): TrustedKey | undefined {
    return this.keys.get(kid);
  }

  /** Stops trusting a key; true when it was trusted. */
  remove(kid: string): boolean {
    return this.keys.delete(kid);
  }

  /** The kids trusted now. */
  kids(): string[] {
    return [...this.keys.keys()];
  }
}

/** The same kid, issuer, type and public key. */
function sameBinding(a: TrustedKey, b: TrustedKey): boolean {
  const publicOf = (k: KeyObject) => (k.type === 'private' ? createPublicKey(k) : k);
  return a.kid === b.kid && a.iss === b.iss && a.type === b.type && publicOf(a.publicKey).equals(publicOf(b.publicKey));
}
