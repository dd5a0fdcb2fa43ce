import * as l10n from '@vscode/l10n';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { MobilityError } from '../base';
import {
  CERTIFICATE_LABELS,
  PRIVATE_LABELS,
  PUBLIC_LABELS,
  encryptedKeyError,
  isPassphraseError,
  jwkKtyLabel,
  readKeyText,
} from './keyText';
import type { PemBlock } from './keyText';

const PUBLIC_FORMATS =
  'Use a PEM public key (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY), an X.509 certificate (BEGIN CERTIFICATE), a JWK, or a PEM private key.';

/**
 * Reads a key for verifying signatures: PEM SPKI or PKCS#1 public key, an X.509 certificate, a
 * public or private JWK, a PEM private key (its public half is derived), or base64 DER of these.
 * Tolerates the same paste damage as `parsePrivateKey`; the key type is not checked here, since
 * the verifier reports a key that does not fit the token's `alg`.
 */
export function parsePublicKey(text: string): KeyObject {
  const keyText = readKeyText(text, PUBLIC_FORMATS);
  if (keyText.form === 'jwk') return publicKeyFromJwk(keyText.jwk);
  if (keyText.form === 'der') return publicKeyFromDer(keyText.der);
  return publicKeyFromPem(keyText.blocks);
}

function publicKeyFromJwk(jwk: JsonWebKey): KeyObject {
  if (jwk.kty === 'oct') {
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t(
        'This JWK is a shared secret (kty "oct"), which cannot verify ES256 or RS256 signatures. {0}',
        PUBLIC_FORMATS,
      ),
    );
  }
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch (err) {
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t(
        'The JWK ({0}) could not be read: a member is missing or is not valid base64url. {1}',
        jwkKtyLabel(jwk.kty),
        PUBLIC_FORMATS,
      ),
      { cause: err },
    );
  }
}

function publicKeyFromPem(blocks: PemBlock[]): KeyObject {
  for (const block of blocks) {
    if (block.encrypted) continue;
    try {
      if (PUBLIC_LABELS.has(block.label) || PRIVATE_LABELS.has(block.label)) return createPublicKey(block.pem);
      if (CERTIFICATE_LABELS.has(block.label)) return new X509Certificate(block.pem).publicKey;
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t(
          'The "BEGIN {0}" block could not be read: its content is incomplete or damaged. Copy it again, whole and unchanged.',
          block.label,
        ),
        { cause: err },
      );
    }
  }
  if (blocks.some((b) => b.encrypted)) throw encryptedKeyError();
  const labels = blocks.map((b) => `"BEGIN ${b.label}"`).join(', ');
  throw new MobilityError(
    'KEY_NOT_RECOGNISED',
    l10n.t('The PEM text holds {0} but no key or certificate. {1}', labels, PUBLIC_FORMATS),
  );
}

function publicKeyFromDer(der: Buffer): KeyObject {
  const attempts: (() => KeyObject)[] = [
    () => createPublicKey({ key: der, format: 'der', type: 'spki' }),
    () => createPublicKey({ key: der, format: 'der', type: 'pkcs1' }),
    () => new X509Certificate(der).publicKey,
    ...(['pkcs8', 'sec1', 'pkcs1'] as const).map(
      (type) => () => createPublicKey(createPrivateKey({ key: der, format: 'der', type })),
    ),
  ];
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
    }
  }
  throw new MobilityError(
    'KEY_NOT_RECOGNISED',
    l10n.t('The text looks like base64 but is not a key or certificate. {0}', PUBLIC_FORMATS),
  );
}
