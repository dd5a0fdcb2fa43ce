import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import type { AuthRuleId, RuleViolation } from '../../core/auth';
import {
  ALGORITHM_OF,
  AUTH_RULES,
  checkAlgorithm,
  checkClaims,
  checkKid,
  checkPadding,
  showKeyId,
  showValue as show,
} from '../../core/auth';
import type { ApiKind } from '../../core/environment';
import type { TrustedKey, TrustStore } from './trustStore';
import { plural } from '../../shared/format';

/** Where a token is presented: the API (for the type rule) and the audience (the base URL). */
export interface TokenTarget {
  api: ApiKind;
  audience: string;
}

/** Why a token was refused: the rule it broke, with the actual values that were wrong. */
export interface TokenRefusal {
  rule: AuthRuleId;
  /** Spec section of the rule. */
  spec: string;
  /** What was wrong, with the offending values (never the token itself). */
  description: string;
  /** `rule: <id>`, `spec: <section>`, then further facts such as `kid: …` or `hint: …`. */
  details: string[];
  /** The header kid, when the token got far enough to have one. */
  kid?: string;
  /**
   * Every other rule of the claims the token breaks, in checking order (the answer names the first
   * only; the report card charges them all). Empty or absent before the signature is verified.
   */
  further?: RuleViolation[];
}

export type TokenCheck = { ok: true; key: TrustedKey; claims: JWTPayload } | { ok: false; refusal: TokenRefusal };

export interface TokenVerifierOptions {
  trust: TrustStore;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** How far `iat` may lie in the future, in seconds. */
  maxSkewSeconds: number;
}

const MIN_PRUNE_SIZE = 1024;

function refuse(rule: AuthRuleId, description: string, kid?: string, extra: string[] = []): TokenCheck {
  const { spec, message } = AUTH_RULES[rule];
  const details = [`rule: ${rule}`, `spec: ${spec}`, `requirement: ${message}`];
  if (kid !== undefined) details.push(`kid: ${showKeyId(kid)}`);
  return { ok: false, refusal: { rule, spec, description, details: [...details, ...extra], kid } };
}

function refuseFor(found: RuleViolation, kid?: string, further: RuleViolation[] = []): TokenCheck {
  const check = refuse(found.rule, found.description, kid, found.details);
  if (!check.ok && further.length > 0) check.refusal.further = further;
  return check;
}

/**
 * The identity of a public key: its JWK thumbprint (RFC 7638). Spec 5.1 rule 6 orders tokens per
 * key, not per kid: one key trusted under two kids has one clock, and a kid given a new key starts
 * a new one. Computed once per key object.
 */
const thumbprints = new WeakMap<TrustedKey['publicKey'], Promise<string>>();
function keyIdentity(key: TrustedKey): Promise<string> {
  let thumbprint = thumbprints.get(key.publicKey);
  if (!thumbprint) {
    thumbprint = calculateJwkThumbprint(key.publicKey.export({ format: 'jwk' }));
    thumbprints.set(key.publicKey, thumbprint);
  }
  return thumbprint;
}

/**
 * Verifies bearer tokens by the rules of spec section 5 and remembers, per key (its thumbprint,
 * whatever kid names it), the jtis and the latest `iat` of accepted tokens. Signature first, then
 * the claims; the clock is `now()`, never jose's, so tests can move time.
 */
export class TokenVerifier {
  private readonly usedJtis = new Map<string, number>();
  private readonly latestIat = new Map<string, number>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private nextPruneAt = MIN_PRUNE_SIZE;

  constructor(private readonly options: TokenVerifierOptions) {}

  /** Checks the `Authorization` header value of a request sent to `target`. Never throws. */
  async verify(authorization: string | undefined, target: TokenTarget): Promise<TokenCheck> {
    if (authorization === undefined || authorization.trim() === '') {
      return refuse(
        'missing_bearer',
        'The request has no Authorization header. Send "Authorization: Bearer <JWT>" with a newly signed token.',
      );
    }
    const match = /^(\S+)(?:\s+(.*))?$/.exec(authorization.trim());
    const scheme = match?.[1] ?? '';
    if (scheme.toLowerCase() !== 'bearer') {
      return refuse(
        'missing_bearer',
        `The Authorization header uses the scheme ${show(scheme.slice(0, 20))}, not "Bearer".`,
      );
    }
    const token = (match?.[2] ?? '').trim();
    if (token === '')
      return refuse('missing_bearer', 'The Authorization header says "Bearer" but carries no token after it.');

    const parts = token.split('.');
    if (parts.length !== 3) {
      return refuse(
        'malformed_token',
        `The bearer token has ${plural(parts.length, 'dot-separated part')}, not 3 (header.payload.signature).`,
      );
    }
    // jose decodes padded base64url, and a signature over padded parts verifies: refuse it here.
    const padding = checkPadding(parts);
    if (padding) return refuseFor(padding);
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return refuse(
        'malformed_token',
        'The first part of the bearer token is not a base64url-encoded JSON object (the JWS header).',
      );
    }
    const kidViolation = checkKid(header);
    if (kidViolation) return refuseFor(kidViolation);
    const kid = header.kid as string;
    const key = this.options.trust.get(kid);
    if (!key) {
      return refuse(
        'unknown_kid',
        `The header kid ${showKeyId(kid)} is not a key this sandbox trusts. Sign with a trusted key, such as the sandbox's demo credential, or start the sandbox with a trust file that lists your public key.`,
        kid,
      );
    }
    const algViolation = checkAlgorithm(header, key.type, kid);
    if (algViolation) return refuseFor(algViolation, kid);
    // Registered in arrival order: every request on one key awaits the same cached thumbprint.
    const identity = await keyIdentity(key);
    return this.inArrivalOrder(identity, () => this.checkSigned(token, key, identity, target));
  }

  /**
   * Runs checks for one key one after the other, in the order requests arrived: signature checks
   * finish in any order, and a later token overtaking an earlier one would make the earlier one
   * fail the ordering rule for no fault of the client.
   */
  private inArrivalOrder<T>(identity: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(identity) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(identity, tail);
    void tail.then(() => {
      if (this.queues.get(identity) === tail) this.queues.delete(identity);
    });
    return result;
  }

  private async checkSigned(
    token: string,
    key: TrustedKey,
    identity: string,
    target: TokenTarget,
  ): Promise<TokenCheck> {
    const kid = key.kid;
    let payloadBytes: Uint8Array;
    try {
      ({ payload: payloadBytes } = await compactVerify(token, key.publicKey, { algorithms: [ALGORITHM_OF[key.type]] }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEAlgNotAllowed) {
        return refuse(
          'alg_not_allowed',
          `The token's algorithm is not ${ALGORITHM_OF[key.type]}, the algorithm of key ${showKeyId(kid)}.`,
          kid,
        );
      }
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
        return refuse(
          'bad_signature',
          `The signature does not verify with the public key registered for kid ${showKeyId(kid)}. Sign with the private key that belongs to this kid.`,
          kid,
        );
      }
      const reason = err instanceof Error ? err.message : String(err);
      return refuse('malformed_token', `The token is not a valid compact JWS: ${reason}`, kid);
    }
    let claims: unknown;
    try {
      claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
    } catch {
      return refuse('malformed_token', 'The token payload is not UTF-8 JSON.', kid);
    }
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
      return refuse('malformed_token', 'The token payload must be a JSON object of claims.', kid);
    }
    // Everything from here on is synchronous, so two requests cannot both pass the jti and iat
    // checks before either is recorded.
    return this.checkClaims(claims as JWTPayload, key, identity, target);
  }

  private checkClaims(claims: JWTPayload, key: TrustedKey, identity: string, target: TokenTarget): TokenCheck {
    const kid = key.kid;
    const nowSeconds = this.options.now() / 1000;
    // The stateless rules, shared with the client's lint and the rejection doctor; the first broken one is named.
    const [first, ...further] = checkClaims(
      claims,
      {
        credentialType: key.type,
        expectedIssuer: key.iss,
        api: target.api,
        audience: target.audience,
        nowMs: nowSeconds * 1000,
        maxSkewSeconds: this.options.maxSkewSeconds,
      },
      kid,
    );
    const ordering = this.orderingViolations(claims, identity, kid);
    if (first) return refuseFor(first, kid, [...further, ...ordering]);
    if (ordering.length > 0) return refuseFor(ordering[0], kid, ordering.slice(1));
    const jti = claims.jti as string;
    const iat = claims.iat as number;
    const exp = claims.exp as number;
    const jtiKey = `${identity}\n${jti.toLowerCase()}`;
    this.usedJtis.set(jtiKey, exp);
    this.latestIat.set(identity, iat);
    this.pruneIfLarge(nowSeconds);
    return { ok: true, key, claims };
  }

  /**
   * `jti_replayed` and `iat_not_increasing` against the tokens accepted so far on the key, recording
   * nothing. A replayed token's iat is one already accepted: rule 6 would only restate the replay, so
   * it is named when the jti is new.
   */
  private orderingViolations(claims: JWTPayload, identity: string, kid: string): RuleViolation[] {
    const { jti, iat } = claims;
    if (typeof jti === 'string' && this.usedJtis.has(`${identity}\n${jti.toLowerCase()}`)) {
      return [
        {
          rule: 'jti_replayed',
          description: `jti ${show(jti)} was already used by an accepted token on the public key of kid ${showKeyId(kid)}. Sign a new token for every request.`,
          details: [],
        },
      ];
    }
    const latest = this.latestIat.get(identity);
    if (typeof iat === 'number' && Number.isFinite(iat) && latest !== undefined && iat <= latest) {
      return [
        {
          rule: 'iat_not_increasing',
          description: `iat ${iat} is not later than ${latest}, the iat of the latest token accepted on the public key of kid ${showKeyId(kid)} (under any kid it is trusted as). Give each new token a strictly later iat.`,
          details: [`latest accepted iat: ${latest}`],
        },
      ];
    }
    return [];
  }

  /** Forgets jtis whose tokens have expired: they can no longer be replayed. Amortised O(1). */
  private pruneIfLarge(nowSeconds: number): void {
    if (this.usedJtis.size < this.nextPruneAt) return;
    for (const [jtiKey, exp] of this.usedJtis) {
      if (exp <= nowSeconds) this.usedJtis.delete(jtiKey);
    }
    this.nextPruneAt = Math.max(MIN_PRUNE_SIZE, this.usedJtis.size * 2);
  }

  /** How many jtis are remembered (for tests and diagnostics). */
  get rememberedJtis(): number {
    return this.usedJtis.size;
  }
}
