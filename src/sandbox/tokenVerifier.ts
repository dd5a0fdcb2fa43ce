import { withoutTrailingSlashes } from '../core/environment';
import { compactVerify, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import { ALGORITHM_OF, CREDENTIAL_TYPE_LABELS } from '../core/credential';
import type { ApiKind } from '../core/environment';
import { API_LABELS } from '../core/environment';
import type { AuthRuleId } from './authRules';
import { AUTH_RULES } from './authRules';
import type { TrustStore, TrustedKey } from './trustStore';

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
}

export type TokenCheck =
  | { ok: true; key: TrustedKey; claims: JWTPayload }
  | { ok: false; refusal: TokenRefusal };

export interface TokenVerifierOptions {
  trust: TrustStore;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** How far `iat` may lie in the future, in seconds. */
  maxSkewSeconds: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A random UUID: version 4 with the RFC 9562 variant (10xx). */
const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Why a UUID is not a random one, in words a user can act on. */
function notRandomReason(uuid: string): string {
  if (/^[0-]+$/.test(uuid)) return 'it is the nil UUID';
  if (/^[f-]+$/i.test(uuid)) return 'it is the max UUID';
  const version = uuid[14] ?? '?';
  const variant = parseInt(uuid[19] ?? '0', 16);
  if (version !== '4') return `it is a version ${version} UUID, not version 4 (random)`;
  return `its variant bits (digit ${uuid[19]}, ${(variant >> 2).toString(2).padStart(2, '0')}xx) are not the RFC 9562 variant 10xx`;
}
const MIN_LIFETIME = 60;
const MAX_LIFETIME = 3600;
const MIN_PRUNE_SIZE = 1024;

/** A value as it may appear in a message: JSON, cut short so a message stays readable. */
function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  let text: string;
  try {
    // JSON.stringify gives undefined only for functions and symbols, which JSON claims cannot hold.
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    // A value nested thousands of levels deep overflows the stack; it is not worth showing.
    text = Array.isArray(value) ? '(a deeply nested list)' : '(a deeply nested value)';
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function isoOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? 'invalid date' : date.toISOString();
}

function refuse(rule: AuthRuleId, description: string, kid?: string, extra: string[] = []): TokenCheck {
  const { spec, message } = AUTH_RULES[rule];
  const details = [`rule: ${rule}`, `spec: ${spec}`, `requirement: ${message}`];
  if (kid !== undefined) details.push(`kid: ${show(kid)}`);
  return { ok: false, refusal: { rule, spec, description, details: [...details, ...extra], kid } };
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Verifies bearer tokens by the rules of spec section 5 and remembers, per key, the jtis and the
 * latest `iat` of accepted tokens. Signature first, then the claims; the clock is `now()`, never
 * jose's, so tests can move time.
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
      return refuse('missing_bearer', 'The request has no Authorization header. Send "Authorization: Bearer <JWT>" with a newly signed token.');
    }
    const match = /^(\S+)(?:\s+(.*))?$/.exec(authorization.trim());
    const scheme = match?.[1] ?? '';
    if (scheme.toLowerCase() !== 'bearer') {
      return refuse('missing_bearer', `The Authorization header uses the scheme ${show(scheme.slice(0, 20))}, not "Bearer".`);
    }
    const token = (match?.[2] ?? '').trim();
    if (token === '') return refuse('missing_bearer', 'The Authorization header says "Bearer" but carries no token after it.');

    const parts = token.split('.');
    if (parts.length !== 3) {
      return refuse('malformed_token', `The bearer token has ${parts.length} dot-separated part(s), not 3 (header.payload.signature).`);
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return refuse('malformed_token', 'The first part of the bearer token is not a base64url-encoded JSON object (the JWS header).');
    }
    const kid = header.kid;
    if (typeof kid !== 'string' || kid === '') {
      return refuse('kid_missing', `The token header has no "kid" (header kid is ${show(kid)}). Put the key identifier of your credentials in the header.`);
    }
    const key = this.options.trust.get(kid);
    if (!key) {
      return refuse('unknown_kid', `The header kid ${show(kid)} is not a key this sandbox trusts. Sign with a trusted key, such as the sandbox's demo credential, or start the sandbox with a trust file that lists your public key.`, kid);
    }
    const expectedAlg = ALGORITHM_OF[key.type];
    if (header.alg !== expectedAlg) {
      return refuse('alg_not_allowed', `The header alg is ${show(header.alg)}, but key ${show(kid)} is a ${CREDENTIAL_TYPE_LABELS[key.type]} key, which signs with ${expectedAlg}.`, kid);
    }
    return this.inArrivalOrder(kid, () => this.checkSigned(token, key, target));
  }

  /**
   * Runs checks for one key one after the other, in the order requests arrived: signature checks
   * finish in any order, and a later token overtaking an earlier one would make the earlier one
   * fail the ordering rule for no fault of the client.
   */
  private inArrivalOrder<T>(kid: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(kid) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(kid, tail);
    void tail.then(() => {
      if (this.queues.get(kid) === tail) this.queues.delete(kid);
    });
    return result;
  }

  private async checkSigned(token: string, key: TrustedKey, target: TokenTarget): Promise<TokenCheck> {
    const kid = key.kid;
    let payloadBytes: Uint8Array;
    try {
      ({ payload: payloadBytes } = await compactVerify(token, key.publicKey, { algorithms: [ALGORITHM_OF[key.type]] }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEAlgNotAllowed) {
        return refuse('alg_not_allowed', `The token's algorithm is not ${ALGORITHM_OF[key.type]}, the algorithm of key ${show(kid)}.`, kid);
      }
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
        return refuse('bad_signature', `The signature does not verify with the public key registered for kid ${show(kid)}. Sign with the private key that belongs to this kid.`, kid);
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
    return this.checkClaims(claims as JWTPayload, key, target);
  }

  private checkClaims(claims: JWTPayload, key: TrustedKey, target: TokenTarget): TokenCheck {
    const kid = key.kid;
    if (claims.iss !== key.iss) {
      return refuse('iss_mismatch', `iss is ${show(claims.iss)}, but key ${show(kid)} is registered for ${show(key.iss)}.`, kid);
    }
    if (target.api === 'maas' && key.type !== 'external-org') {
      return refuse('type_not_allowed_for_api', `Key ${show(kid)} is a ${CREDENTIAL_TYPE_LABELS[key.type]} credential, which the ${API_LABELS.maas} refuses. Use an External Organization credential for the MaaS API.`, kid);
    }
    if (key.type === 'service-account' && (claims.sub !== key.iss || claims.email !== key.iss)) {
      return refuse('sub_email_mismatch', `sub is ${show(claims.sub)} and email is ${show(claims.email)}; both must be ${show(key.iss)}, the key file's client_email.`, kid);
    }
    const aud = claims.aud;
    const audOk = typeof aud === 'string' ? aud === target.audience : Array.isArray(aud) && aud.includes(target.audience);
    if (!audOk) {
      const extra: string[] = [`expected aud: ${target.audience}`];
      const near = (typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []).some(
        (a) => typeof a === 'string' && a !== target.audience && withoutTrailingSlashes(a).toLowerCase() === target.audience.toLowerCase(),
      );
      if (near) extra.push('hint: the audience is the base URL exactly as listed, without a trailing slash');
      return refuse('aud_mismatch', `aud is ${show(aud)}, but this environment's audience is ${show(target.audience)}.`, kid, extra);
    }
    const { exp, iat } = claims;
    if (!isNumericDate(exp)) return refuse('exp_missing', `exp is ${show(exp)}; it must be a number of seconds since the epoch.`, kid);
    if (!isNumericDate(iat)) return refuse('iat_missing', `iat is ${show(iat)}; it must be a number of seconds since the epoch.`, kid);
    const lifetime = exp - iat;
    if (lifetime < MIN_LIFETIME || lifetime > MAX_LIFETIME) {
      return refuse('lifetime_out_of_range', `exp - iat is ${lifetime} s (iat ${iat}, exp ${exp}); it must be between ${MIN_LIFETIME} and ${MAX_LIFETIME} s.`, kid);
    }
    const nowSeconds = this.options.now() / 1000;
    if (exp <= nowSeconds) {
      return refuse('expired', `exp ${exp} (${isoOf(exp)}) is not later than the server time ${nowSeconds} (${isoOf(nowSeconds)}). Sign a new token.`, kid);
    }
    const skew = this.options.maxSkewSeconds;
    if (iat > nowSeconds + skew) {
      return refuse('iat_in_future', `iat ${iat} (${isoOf(iat)}) is ${(iat - nowSeconds).toFixed(3)} s ahead of the server time ${nowSeconds} (${isoOf(nowSeconds)}); at most ${skew} s is allowed. Check your clock.`, kid);
    }
    const nbf = claims.nbf;
    if (nbf !== undefined && (!isNumericDate(nbf) || nbf > nowSeconds + skew)) {
      const what = isNumericDate(nbf) ? `nbf ${nbf} (${isoOf(nbf)}) is ${(nbf - nowSeconds).toFixed(3)} s after the server time ${nowSeconds} (${isoOf(nowSeconds)}); the token is not valid yet (at most ${skew} s of clock skew is allowed).` : `nbf is ${show(nbf)}; when present it must be a number of seconds since the epoch.`;
      return refuse('nbf_in_future', `${what} Leave nbf out, or set it to the issue time.`, kid);
    }
    const jti = claims.jti;
    if (jti === undefined || jti === null || jti === '') return refuse('jti_missing', 'The token has no jti claim. Put a new random UUID (crypto.randomUUID()) in jti for each token.', kid);
    if (typeof jti !== 'string' || !UUID.test(jti)) return refuse('jti_not_uuid', `jti is ${show(jti)}, which is not a UUID. Use a new random UUID (crypto.randomUUID()) for each token.`, kid);
    if (!RANDOM_UUID.test(jti)) return refuse('jti_not_random', `jti is ${show(jti)}, which is not a random UUID: ${notRandomReason(jti)}. Use crypto.randomUUID() for each token.`, kid);
    const jtiKey = `${kid}\n${jti.toLowerCase()}`;
    if (this.usedJtis.has(jtiKey)) {
      return refuse('jti_replayed', `jti ${show(jti)} was already used by an accepted token on key ${show(kid)}. Sign a new token for every request.`, kid);
    }
    const latest = this.latestIat.get(kid);
    if (latest !== undefined && iat <= latest) {
      return refuse('iat_not_increasing', `iat ${iat} is not later than ${latest}, the iat of the latest token accepted on key ${show(kid)}. Give each new token a strictly later iat.`, kid, [`latest accepted iat: ${latest}`]);
    }
    this.usedJtis.set(jtiKey, exp);
    this.latestIat.set(kid, iat);
    this.pruneIfLarge(nowSeconds);
    return { ok: true, key, claims };
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
