import * as l10n from '@vscode/l10n';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from './credential';
import { MobilityError, withArticle } from '../base';
import type { PemBlock } from './keyText';
import {
  CERTIFICATE_LABELS,
  PRIVATE_LABELS,
  PUBLIC_LABELS,
  encryptedKeyError,
  isPassphraseError,
  jwkKtyLabel,
  readKeyText,
} from './keyText';

const PRIVATE_FORMATS =
  'Paste a PEM private key (PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY" between its BEGIN and END lines) or a private JWK (a JSON object with "kty" and "d").';

const CURVE_NAMES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

/**
 * Reads a private key for signing with `alg` from what a user pasted or loaded: PEM PKCS#8, SEC1
 * or PKCS#1, a private JWK, or base64 DER without the PEM lines. Tolerates surrounding whitespace,
 * CRLF, indentation, literal `\n` escapes and a key wrapped in double quotes (a JSON string value).
 * Throws a {@link MobilityError} that says what to do (never quoting the key) when the text is
 * encrypted, public, a certificate, or a key of the wrong type, curve or size for `alg`.
 */
export function parsePrivateKey(text: string, alg: SigningAlgorithm): KeyObject {
  const keyText = readKeyText(text, PRIVATE_FORMATS);
  let key: KeyObject;
  if (keyText.form === 'jwk') key = privateKeyFromJwk(keyText.jwk);
  else if (keyText.form === 'der') key = privateKeyFromDer(keyText.der);
  else key = privateKeyFromPem(keyText.blocks);
  return checkKeyForAlgorithm(key, alg);
}

function privateKeyFromJwk(jwk: JsonWebKey): KeyObject {
  if (jwk.kty === 'oct') {
    throw new MobilityError(
      'KEY_WRONG_TYPE',
      l10n.t(
        'This JWK is a shared secret (kty "oct"), not a private key; ES256 and RS256 sign with an EC or RSA private key. Use the private key delivered with the credentials.',
      ),
    );
  }
  if (jwk.d === undefined) {
    throw new MobilityError(
      'KEY_PUBLIC_NOT_PRIVATE',
      l10n.t(
        'This JWK is a public key (it has no "d" member), but signing needs the private key. Use the private key delivered with the credentials.',
      ),
    );
  }
  try {
    return createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (err) {
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t(
        'The JWK ({0}) could not be read: a member is missing or is not valid base64url. {1}',
        jwkKtyLabel(jwk.kty),
        PRIVATE_FORMATS,
      ),
      { cause: err },
    );
  }
}

function privateKeyFromPem(blocks: PemBlock[]): KeyObject {
  const privateBlock = blocks.find((b) => PRIVATE_LABELS.has(b.label) && !b.encrypted);
  if (privateBlock) {
    try {
      return createPrivateKey(privateBlock.pem);
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t(
          'The "BEGIN {0}" block could not be read as a key: its content is incomplete or damaged. Copy the key again, whole and unchanged.',
          privateBlock.label,
        ),
        { cause: err },
      );
    }
  }
  if (blocks.some((b) => b.encrypted)) throw encryptedKeyError();
  if (blocks.some((b) => PUBLIC_LABELS.has(b.label))) throw publicKeyError();
  if (blocks.some((b) => CERTIFICATE_LABELS.has(b.label))) throw certificateError();
  if (blocks.some((b) => b.label === 'OPENSSH PRIVATE KEY')) {
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t('This is an OpenSSH private key, a format this tool does not read. {0}', PRIVATE_FORMATS),
    );
  }
  const labels = blocks.map((b) => `"BEGIN ${b.label}"`).join(', ');
  throw new MobilityError(
    'KEY_NOT_RECOGNISED',
    l10n.t('The PEM text holds {0} but no private key. {1}', labels, PRIVATE_FORMATS),
  );
}

function privateKeyFromDer(der: Buffer): KeyObject {
  for (const type of ['pkcs8', 'sec1', 'pkcs1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
    }
  }
  if (isPublicKeyDer(der)) throw publicKeyError();
  if (isCertificate(der)) throw certificateError();
  throw new MobilityError(
    'KEY_NOT_RECOGNISED',
    l10n.t('The text looks like base64 but is not a private key. {0}', PRIVATE_FORMATS),
  );
}

function isPublicKeyDer(der: Buffer): boolean {
  return (['spki', 'pkcs1'] as const).some((type) => {
    try {
      createPublicKey({ key: der, format: 'der', type });
      return true;
    } catch {
      return false;
    }
  });
}

function isCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

function publicKeyError(): MobilityError {
  return new MobilityError(
    'KEY_PUBLIC_NOT_PRIVATE',
    l10n.t(
      'This is a public key, but signing needs the private key. Use the private key delivered with the credentials.',
    ),
  );
}

function certificateError(): MobilityError {
  return new MobilityError(
    'KEY_CERTIFICATE',
    l10n.t(
      'This is a certificate, which holds only the public key. Use the private key delivered with the credentials.',
    ),
  );
}

/** A short, safe description of a key's kind, e.g. `an EC key on P-384` or `an RSA key (1024 bits)`. */
export function describeKeyKind(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec':
      return `an EC key on ${curveLabel(details.namedCurve)}`;
    case 'rsa':
      return `an RSA key (${String(details.modulusLength)} bits)`;
    case 'rsa-pss':
      return 'an RSA-PSS key';
    case 'ed25519':
      return 'an Ed25519 key';
    case 'ed448':
      return 'an Ed448 key';
    default:
      return key.asymmetricKeyType === undefined
        ? 'a key of an unknown type'
        : withArticle(`${key.asymmetricKeyType.toUpperCase()} key`);
  }
}

function curveLabel(namedCurve: string | undefined): string {
  if (namedCurve === undefined) return 'an unknown curve';
  const standard = CURVE_NAMES[namedCurve];
  return standard === undefined ? namedCurve : `${standard} (${namedCurve})`;
}

function checkKeyForAlgorithm(key: KeyObject, alg: SigningAlgorithm): KeyObject {
  const kind = describeKeyKind(key);
  if (alg === 'ES256') {
    if (key.asymmetricKeyType !== 'ec') {
      throw new MobilityError(
        'KEY_WRONG_TYPE',
        l10n.t(
          'This is {0}, but ES256 (External Organization and IAM credentials) needs an EC private key on P-256 (prime256v1). Use the EC key delivered with the credentials.',
          kind,
        ),
      );
    }
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1') {
      throw new MobilityError(
        'KEY_WRONG_CURVE',
        l10n.t(
          'This EC key is on the curve {0}, but ES256 needs P-256 (prime256v1). Use the P-256 key delivered with the credentials.',
          curveLabel(curve),
        ),
      );
    }
    return key;
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new MobilityError(
      'KEY_WRONG_TYPE',
      l10n.t(
        'This is {0}, but RS256 needs an RSA private key, as held in service-account key files. Use the private_key of the service-account key file.',
        kind,
      ),
    );
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) {
    throw new MobilityError(
      'KEY_RSA_TOO_SMALL',
      l10n.t(
        'This RSA key has {0} bits, but RS256 needs at least 2048 bits. Use the key of a current service-account key file.',
        bits,
      ),
    );
  }
  return key;
}
