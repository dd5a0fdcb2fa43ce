import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import type { SigningAlgorithm } from './credential';
import { decodeJwt, stripTokenText } from './decodeJwt';

/** The outcome of checking a token's signature against one public key. */
export type SignatureCheck = { state: 'verified' } | { state: 'failed'; reason: string };

/**
 * Checks only the signature of a compact JWS against `publicKey` (a private key is reduced to its
 * public half). Claims such as `exp` are not checked: that is lintToken's job, and an expired
 * token's signature is still worth knowing. The algorithm is pinned by the key: ES256 for an EC
 * P-256 key, RS256 for an RSA key, so a token cannot choose a weaker one. Never throws.
 */
export async function verifyTokenSignature(token: string, publicKey: KeyObject): Promise<SignatureCheck> {
  try {
    return await verifyUnsafe(token, publicKey);
  } catch (err) {
    return failed(`The signature could not be checked: ${errorMessage(err)}.`);
  }
}

async function verifyUnsafe(token: string, key: KeyObject): Promise<SignatureCheck> {
  const decoded = decodeJwt(token);
  if (!decoded.ok) return failed(`The token is malformed: ${decoded.reason}`);
  if (!decoded.token.signaturePresent)
    return failed('The token has no signature (nothing after the second dot), so there is nothing to verify.');

  const keyAlg = algorithmOfKey(key);
  if (typeof keyAlg !== 'string') return failed(keyAlg.reason);
  const tokenAlg = String(decoded.token.header.alg);
  if (tokenAlg !== keyAlg) {
    return failed(
      `The token says "alg": "${tokenAlg.slice(0, 40)}", but the key is ${keyAlg === 'ES256' ? 'an EC P-256 key, which verifies ES256' : 'an RSA key, which verifies RS256'} only. Check with the key of the credential that signed the token.`,
    );
  }

  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  // Loaded on first use, not when the extension activates (see tokenIssuer.ts).
  const { compactVerify } = await import('./joseOnDemand');
  try {
    await compactVerify(stripTokenText(token), publicKey, { algorithms: [keyAlg] });
    return { state: 'verified' };
  } catch (err) {
    if (errorCode(err) === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
      return failed(
        'The signature does not match this public key: the token was signed with another key, or was changed after signing.',
      );
    }
    return failed(`The signature could not be checked: ${errorMessage(err)}.`);
  }
}

function algorithmOfKey(key: KeyObject): SigningAlgorithm | { reason: string } {
  if (key.type === 'secret')
    return { reason: 'A shared secret was given, but these tokens are checked with a public key (EC P-256 or RSA).' };
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    return {
      reason: `The key is an EC key on curve ${curve ?? 'unknown'}; ES256 tokens are checked with a P-256 key.`,
    };
  }
  return {
    reason: `The key is of type ${key.asymmetricKeyType ?? 'unknown'}; tokens are checked with an EC P-256 key (ES256) or an RSA key (RS256).`,
  };
}

function failed(reason: string): SignatureCheck {
  return { state: 'failed', reason };
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\.$/, '').slice(0, 200) || 'unknown error';
}
