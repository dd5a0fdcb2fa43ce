// The stateless rules of spec section 5, checked on a decoded token: one engine for the sandbox
// (which adds the rules that need server state: trusted keys, replay, ordering), the client's lint
// and the rejection doctor, so that the three can never disagree on what a rule demands.
import type { AuthRuleId } from './authRules';
import { AUTH_RULES } from './authRules';
import { MAX_LIFETIME_SECONDS, MIN_LIFETIME_SECONDS } from './claims';
import type { CredentialType, SigningAlgorithm } from './credential';
import { ALGORITHM_OF, CREDENTIAL_TYPE_LABELS } from './credential';
import type { ApiKind } from '../environment';
import { API_LABELS, withoutTrailingSlashes } from '../environment';
import { maskKeyId, withArticle } from '../base';

/** How far `iat` and `nbf` may lie ahead of the server's clock, in seconds, unless told otherwise. */
export const DEFAULT_MAX_SKEW_SECONDS = 60;

/** One rule a token breaks, with the offending values (never the token itself). */
export interface RuleViolation {
  rule: AuthRuleId;
  /** What is wrong and what to do, with the values found. */
  description: string;
  /** Further `name: value` facts, e.g. `expected aud: …` or `hint: …`. */
  details: string[];
}

/** What the checks know besides the token. Every field is optional: a rule whose input is missing is skipped. */
export interface TokenRuleContext {
  /** The credential type of the key (from a trust store, a stored credential or the issuer's domain). */
  credentialType?: CredentialType;
  /** The issuer registered with the key; without it, `iss` need only be a non-empty string. */
  expectedIssuer?: string;
  /** The API receiving the token. */
  api?: ApiKind;
  /** The audience of the environment receiving the token (its base URL). */
  audience?: string;
  /** The server's time in ms since the epoch; without it no time rule (expired, iat or nbf ahead) is checked. */
  nowMs?: number;
  /** Default {@link DEFAULT_MAX_SKEW_SECONDS}. */
  maxSkewSeconds?: number;
}

/** A token's JOSE header and claims, as decoded. */
export interface TokenParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A random UUID: version 4 with the RFC 9562 variant (10xx). */
const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID in its 8-4-4-4-12 text form. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Whether a UUID is a random one (version 4, RFC 9562 variant), as spec 5.1 rule 7 asks. */
export function isRandomUuid(value: string): boolean {
  return RANDOM_UUID.test(value);
}

/** Whether a value is a JSON NumericDate: a finite number. */
export function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Whether `exp − iat` is within 60..3600 s (spec 5.1 rule 5). */
export function lifetimeInRange(iat: number, exp: number): boolean {
  const lifetime = exp - iat;
  return lifetime >= MIN_LIFETIME_SECONDS && lifetime <= MAX_LIFETIME_SECONDS;
}

/** Whether `aud` (a string or a list of strings) holds `audience` exactly (spec 5.3). */
export function audienceMatches(aud: unknown, audience: string): boolean {
  return typeof aud === 'string' ? aud === audience : Array.isArray(aud) && aud.includes(audience);
}

/** The algorithm a credential type signs with (spec 5.4, 5.5, 5.6). */
export function expectedAlgorithm(type: CredentialType): SigningAlgorithm {
  return ALGORITHM_OF[type];
}

/** Whether the API takes tokens of this credential type (IAM and service accounts: MDS only). */
export function typeAllowedForApi(type: CredentialType, api: ApiKind): boolean {
  return api !== 'maas' || type === 'external-org';
}

/** Why a UUID is not a random one, in words a user can act on. */
export function notRandomReason(uuid: string): string {
  if (/^[0-]+$/.test(uuid)) return 'it is the nil UUID';
  if (/^[f-]+$/i.test(uuid)) return 'it is the max UUID';
  const version = uuid[14] ?? '?';
  const variant = parseInt(uuid[19] ?? '0', 16);
  if (version !== '4') return `it is a version ${version} UUID, not version 4 (random)`;
  return `its variant bits (digit ${uuid[19]}, ${(variant >> 2).toString(2).padStart(2, '0')}xx) are not the RFC 9562 variant 10xx`;
}

/** A value as it may appear in a message: JSON, cut short so a message stays readable. */
export function showValue(value: unknown): string {
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

/** Reads an own property only: claims named `__proto__` or `constructor` are data, not prototype links. */
function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** A header kid in a message: masked, since the key identifier is a secret (spec 5.7). */
export function showKeyId(kid: unknown): string {
  if (kid === undefined || kid === '') return showValue(kid);
  return typeof kid === 'string' ? `"${maskKeyId(kid)}"` : maskKeyId(kid);
}

function violation(rule: AuthRuleId, description: string, details: string[] = []): RuleViolation {
  return { rule, description, details };
}

/** The three parts of a compact JWS, in order. */
export const COMPACT_PARTS = ['header', 'payload', 'signature'] as const;
export type CompactPart = (typeof COMPACT_PARTS)[number];

/** The parts of a compact JWS (its dot-separated segments) that end in "=" padding. */
export function paddedParts(segments: readonly string[]): CompactPart[] {
  return COMPACT_PARTS.filter((_, i) => segments[i]?.endsWith('='));
}

/**
 * `malformed_token` when a part carries "=" padding: JWS compact serialisation (RFC 7515 section 7.1)
 * writes each part as base64url with every trailing "=" omitted (RFC 7515 section 2).
 */
export function checkPadding(segments: readonly string[]): RuleViolation | undefined {
  const padded = paddedParts(segments);
  if (padded.length === 0) return undefined;
  return violation(
    'malformed_token',
    `The ${padded.join(', ')} part${padded.length > 1 ? 's' : ''} of the token end${padded.length > 1 ? '' : 's'} in "=" padding. A compact JWS writes every part as base64url without padding (RFC 7515 section 2: all trailing "=" omitted); encode the parts without "=" and sign that text.`,
    ['standard: RFC 7515 section 2 (base64url without "=" padding)', `padded parts: ${padded.join(', ')}`],
  );
}

/** `kid_missing`: the header has no non-empty string `kid`. */
export function checkKid(header: Record<string, unknown>): RuleViolation | undefined {
  const kid = own(header, 'kid');
  if (typeof kid === 'string' && kid !== '') return undefined;
  return violation(
    'kid_missing',
    `The token header has no "kid" (header kid is ${showKeyId(kid)}). Put the key identifier of your credentials in the header.`,
  );
}

/** `alg_not_allowed`: the header's `alg` is not the algorithm of the key's credential type. */
export function checkAlgorithm(
  header: Record<string, unknown>,
  type: CredentialType,
  kid: unknown = own(header, 'kid'),
): RuleViolation | undefined {
  const alg = own(header, 'alg');
  const expected = expectedAlgorithm(type);
  if (alg === expected) return undefined;
  return violation(
    'alg_not_allowed',
    `The header alg is ${showValue(alg)}, but key ${showKeyId(kid)} is ${withArticle(CREDENTIAL_TYPE_LABELS[type])} key, which signs with ${expected}.`,
  );
}

/**
 * Every claim rule the token breaks, in the order the sandbox checks them (the first is the one it
 * names): iss, credential type for the API, sub/email of a service account, aud, exp and iat
 * present, lifetime, expired, iat and nbf ahead of the server, jti present, a UUID, random.
 */
export function checkClaims(
  payload: Record<string, unknown>,
  context: TokenRuleContext,
  kid?: string,
): RuleViolation[] {
  const found: RuleViolation[] = [];
  const type = context.credentialType;
  const iss = own(payload, 'iss');
  if (context.expectedIssuer !== undefined ? iss !== context.expectedIssuer : typeof iss !== 'string' || iss === '') {
    const registered =
      context.expectedIssuer !== undefined
        ? `, but key ${showKeyId(kid)} is registered for ${showValue(context.expectedIssuer)}`
        : '; it must be the e-mail address delivered with the credentials';
    found.push(violation('iss_mismatch', `iss is ${showValue(iss)}${registered}.`));
  }
  if (type && context.api && !typeAllowedForApi(type, context.api)) {
    found.push(
      violation(
        'type_not_allowed_for_api',
        `Key ${showKeyId(kid)} is ${withArticle(CREDENTIAL_TYPE_LABELS[type])} credential, which the ${API_LABELS[context.api]} refuses. Use an External Organization credential for the MaaS API.`,
      ),
    );
  }
  if (type === 'service-account') {
    const want = context.expectedIssuer ?? iss;
    const sub = own(payload, 'sub');
    const email = own(payload, 'email');
    if (sub !== want || email !== want) {
      found.push(
        violation(
          'sub_email_mismatch',
          `sub is ${showValue(sub)} and email is ${showValue(email)}; both must be ${showValue(want)}, the key file's client_email.`,
        ),
      );
    }
  }
  const aud = own(payload, 'aud');
  if (context.audience !== undefined && !audienceMatches(aud, context.audience)) {
    const audience = context.audience;
    const details = [`expected aud: ${audience}`];
    const near = (typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []).some(
      (a) =>
        typeof a === 'string' && a !== audience && withoutTrailingSlashes(a).toLowerCase() === audience.toLowerCase(),
    );
    if (near) details.push('hint: the audience is the base URL exactly as listed, without a trailing slash');
    found.push(
      violation(
        'aud_mismatch',
        `aud is ${showValue(aud)}, but this environment's audience is ${showValue(audience)}.`,
        details,
      ),
    );
  }
  const exp = own(payload, 'exp');
  const iat = own(payload, 'iat');
  if (!isNumericDate(exp))
    found.push(violation('exp_missing', `exp is ${showValue(exp)}; it must be a number of seconds since the epoch.`));
  if (!isNumericDate(iat))
    found.push(violation('iat_missing', `iat is ${showValue(iat)}; it must be a number of seconds since the epoch.`));
  if (isNumericDate(exp) && isNumericDate(iat) && !lifetimeInRange(iat, exp)) {
    found.push(
      violation(
        'lifetime_out_of_range',
        `exp - iat is ${exp - iat} s (iat ${iat}, exp ${exp}); it must be between ${MIN_LIFETIME_SECONDS} and ${MAX_LIFETIME_SECONDS} s.`,
      ),
    );
  }
  if (context.nowMs !== undefined)
    found.push(...checkTimes(payload, context.nowMs, context.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS));
  found.push(...checkJti(payload));
  return found;
}

/** `expired`, `iat_in_future` and `nbf_in_future` against the server time `nowMs`, allowing `skew` seconds. */
export function checkTimes(payload: Record<string, unknown>, nowMs: number, skew: number): RuleViolation[] {
  const found: RuleViolation[] = [];
  const nowSeconds = nowMs / 1000;
  const exp = own(payload, 'exp');
  const iat = own(payload, 'iat');
  const nbf = own(payload, 'nbf');
  if (isNumericDate(exp) && exp <= nowSeconds) {
    found.push(
      violation(
        'expired',
        `exp ${exp} (${isoOf(exp)}) is not later than the server time ${nowSeconds} (${isoOf(nowSeconds)}). Sign a new token.`,
      ),
    );
  }
  if (isNumericDate(iat) && iat > nowSeconds + skew) {
    found.push(
      violation(
        'iat_in_future',
        `iat ${iat} (${isoOf(iat)}) is ${(iat - nowSeconds).toFixed(3)} s ahead of the server time ${nowSeconds} (${isoOf(nowSeconds)}); at most ${skew} s is allowed. Check your clock.`,
      ),
    );
  }
  if (nbf !== undefined && (!isNumericDate(nbf) || nbf > nowSeconds + skew)) {
    const what = isNumericDate(nbf)
      ? `nbf ${nbf} (${isoOf(nbf)}) is ${(nbf - nowSeconds).toFixed(3)} s after the server time ${nowSeconds} (${isoOf(nowSeconds)}); the token is not valid yet (at most ${skew} s of clock skew is allowed).`
      : `nbf is ${showValue(nbf)}; when present it must be a number of seconds since the epoch.`;
    found.push(violation('nbf_in_future', `${what} Leave nbf out, or set it to the issue time.`));
  }
  return found;
}

/** `jti_missing`, `jti_not_uuid` or `jti_not_random` (spec 5.1 rule 7); at most one. */
export function checkJti(payload: Record<string, unknown>): RuleViolation[] {
  const jti = own(payload, 'jti');
  if (jti === undefined || jti === null || jti === '')
    return [
      violation(
        'jti_missing',
        'The token has no jti claim. Put a new random UUID (crypto.randomUUID()) in jti for each token.',
      ),
    ];
  if (!isUuid(jti))
    return [
      violation(
        'jti_not_uuid',
        `jti is ${showValue(jti)}, which is not a UUID. Use a new random UUID (crypto.randomUUID()) for each token.`,
      ),
    ];
  if (!isRandomUuid(jti))
    return [
      violation(
        'jti_not_random',
        `jti is ${showValue(jti)}, which is not a random UUID: ${notRandomReason(jti)}. Use crypto.randomUUID() for each token.`,
      ),
    ];
  return [];
}

/**
 * Every stateless rule of spec 5 the token breaks, header first (kid, alg when the type is known),
 * then the claims in the sandbox's order. An empty list means a server enforcing spec 5 can only
 * refuse it for what needs its state: an unknown key, a bad signature, a replay or the ordering.
 */
export function checkToken(token: TokenParts, context: TokenRuleContext): RuleViolation[] {
  const found: RuleViolation[] = [];
  const kidViolation = checkKid(token.header);
  if (kidViolation) found.push(kidViolation);
  const kid = own(token.header, 'kid');
  if (context.credentialType) {
    const alg = checkAlgorithm(token.header, context.credentialType, kid);
    if (alg) found.push(alg);
  }
  found.push(...checkClaims(token.payload, context, typeof kid === 'string' ? kid : undefined));
  return found;
}

/** The requirement of a rule in one sentence and its spec section, for explanations. */
export function requirementOf(rule: AuthRuleId): { spec: string; message: string } {
  const { spec, message } = AUTH_RULES[rule];
  return { spec, message };
}
