import { randomBytes } from 'node:crypto';
import { distinctKeyPair } from '../keyFixtures';
import type { Credential, CredentialType } from '../../../src/core/auth/credential';
import { ALGORITHM_OF } from '../../../src/core/auth/credential';

/** A credential with a key generated for this test run only (never stored). */
export function makeTestCredential(
  type: CredentialType = 'external-org',
  overrides: Partial<Credential> = {},
): Credential {
  const { privateKey, publicKey } = distinctKeyPair(type === 'service-account' ? 'rsa2048' : 'p256');
  const kid = `test-${type}-${randomBytes(4).toString('hex')}`;
  const issuer = type === 'service-account' ? `robot@sa.test.invalid` : `org-1@${type}.test.invalid`;
  return { type, alg: ALGORITHM_OF[type], kid, issuer, privateKey, publicKey, ...overrides };
}
