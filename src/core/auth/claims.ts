import * as l10n from '@vscode/l10n';
import type { Credential, SigningAlgorithm } from './credential';
import { MobilityError } from '../base';

export const MIN_LIFETIME_SECONDS = 60;
export const MAX_LIFETIME_SECONDS = 3600;
export const DEFAULT_LIFETIME_SECONDS = 300;

/** The protected header of a token (spec 5.4–5.6). */
export type TokenHeader = {
  alg: SigningAlgorithm;
  kid: string;
  typ: 'JWT';
};

/** The claims of a token, exactly those of spec 5.4–5.6 plus `iat` (the timestamp of rule 6). */
export type TokenClaims = {
  iss: string;
  sub?: string;
  email?: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
};

/** Refuses, rather than clamps, a lifetime outside 60..3600 s (spec 5.1 rule 5). */
export function checkLifetime(lifetimeSeconds: number): number {
  if (
    !Number.isInteger(lifetimeSeconds) ||
    lifetimeSeconds < MIN_LIFETIME_SECONDS ||
    lifetimeSeconds > MAX_LIFETIME_SECONDS
  ) {
    throw new MobilityError(
      'LIFETIME_OUT_OF_RANGE',
      l10n.t(
        'A token lifetime of {0} s is not allowed: tokens must expire 60 to 3600 seconds after they are issued (spec 5.1 rule 5). Choose a whole number of seconds in that range.',
        String(lifetimeSeconds),
      ),
    );
  }
  return lifetimeSeconds;
}

/**
 * Builds header and claims for one token. `iat` comes from the per-key issue clock, `jti` is a
 * fresh random UUID. Service-account tokens also carry `sub` and `email` equal to `iss` (spec 5.6).
 */
export function buildClaims(
  credential: Credential,
  audience: string | string[],
  iat: number,
  lifetimeSeconds: number,
  jti: string,
): { header: TokenHeader; claims: TokenClaims } {
  const header: TokenHeader = { alg: credential.alg, kid: credential.kid, typ: 'JWT' };
  const claims: TokenClaims = {
    iss: credential.issuer,
    aud: audience,
    iat,
    exp: iat + checkLifetime(lifetimeSeconds),
    jti,
  };
  if (credential.type === 'service-account') {
    claims.sub = credential.issuer;
    claims.email = credential.issuer;
  }
  return { header, claims };
}
