import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import type { Credential } from './credential';
import type { Environment } from '../environment';
import { audienceOf } from '../environment';
import type { TokenClaims, TokenHeader } from './claims';
import { buildClaims, checkLifetime, DEFAULT_LIFETIME_SECONDS } from './claims';
import { IssueClock } from '../clock';
import { assertCredentialForApi } from './parseCredential';
import { errorMessage, maskKeyId, MobilityError } from '../base';

/** jose, once the first token has loaded it. */
let jose: typeof import('./joseOnDemand') | undefined;

/** A freshly signed token. `token` is a secret: show it only on an explicit copy, never log it. */
export interface IssuedToken {
  token: string;
  header: TokenHeader;
  claims: TokenClaims;
  environmentId: string;
}

export interface TokenIssuerOptions {
  clock?: IssueClock;
  /** Default lifetime for every token, 60..3600 s; 300 s when not given. */
  lifetimeSeconds?: number;
}

/**
 * Signs one new token per call with `jose`: claims per spec 5.4–5.6, `iat` from the per-key issue
 * clock (strictly increasing per key), a new `jti` every time. Tokens are never cached or reused.
 */
export class TokenIssuer {
  readonly clock: IssueClock;
  private readonly lifetimeSeconds: number;

  constructor(options: TokenIssuerOptions = {}) {
    this.clock = options.clock ?? new IssueClock();
    this.lifetimeSeconds = checkLifetime(options.lifetimeSeconds ?? DEFAULT_LIFETIME_SECONDS);
  }

  async issue(
    credential: Credential,
    environment: Environment,
    options: { lifetimeSeconds?: number; signal?: AbortSignal } = {},
  ): Promise<IssuedToken> {
    assertCredentialForApi(credential, environment.api);
    const audience = audienceOf(environment);
    const lifetime = checkLifetime(options.lifetimeSeconds ?? this.lifetimeSeconds);
    const iat = await this.clock.next(credential.kid, options.signal);
    const { header, claims } = buildClaims(credential, audience, iat, lifetime, randomUUID());
    // Loaded on first use, not when the extension activates: setting up jose is much of its code loading.
    const { SignJWT } = jose ?? (jose = await import('./joseOnDemand'));
    let token: string;
    try {
      // Claims are set as given: jose's setIssuedAt/setExpirationTime would round fractional times.
      token = await new SignJWT(claims).setProtectedHeader(header).sign(credential.privateKey);
    } catch (err) {
      throw new MobilityError(
        'SIGNING_FAILED',
        l10n.t(
          'Signing with key "{0}" failed: {1}. Check that the key matches the credential type ({2}).',
          maskKeyId(credential.kid),
          errorMessage(err),
          credential.alg,
        ),
        { cause: err },
      );
    }
    return { token, header, claims, environmentId: environment.id };
  }
}
