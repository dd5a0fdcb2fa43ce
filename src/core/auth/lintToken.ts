import * as l10n from '@vscode/l10n';
import type { AuthRuleId } from './authRules';
import type { CredentialType, IssuerDomains, SigningAlgorithm } from './credential';
import { MAX_LIFETIME_SECONDS, MIN_LIFETIME_SECONDS } from './claims';
import { CREDENTIAL_TYPE_LABELS, CREDENTIAL_TYPES, DEPRECATED_TYPES } from './credential';
import type { DecodedToken } from './decodeJwt';
import { jsonTypeOf, ownValue } from './decodeJwt';
import { withoutTrailingSlashes } from '../environment';
import { domainOf, typeOfIssuer } from './issuerDomain';
import { describeRelative, formatDuration, secondsWithSpan, withArticle } from '../base';
import type { LintFinding, LintId, LintSeverity } from './lintFinding';
import { audienceMatches, checkKid, checkTimes, expectedAlgorithm, isRandomUuid, isUuid, lifetimeInRange } from './tokenRules';

/** Which sandbox rule (core/tokenRules) each lint finding stands for, where one does. */
const AUTH_RULE_OF: Partial<Record<LintId, AuthRuleId>> = {
  'alg-none': 'alg_not_allowed',
  'alg-hmac': 'alg_not_allowed',
  'alg-not-allowed': 'alg_not_allowed',
  'alg-wrong-for-type': 'alg_not_allowed',
  'signature-missing': 'malformed_token',
  'base64url-padding': 'malformed_token',
  'kid-missing': 'kid_missing',
  'jti-missing': 'jti_missing',
  'jti-not-uuid': 'jti_not_uuid',
  'jti-not-v4': 'jti_not_random',
  'exp-missing': 'exp_missing',
  'iat-missing': 'iat_missing',
  'lifetime-out-of-range': 'lifetime_out_of_range',
  expired: 'expired',
  'iat-in-future': 'iat_in_future',
  'nbf-in-future': 'nbf_in_future',
  'aud-missing': 'aud_mismatch',
  'aud-unknown': 'aud_mismatch',
  'aud-near-miss': 'aud_mismatch',
  'iss-missing': 'iss_mismatch',
  'sub-not-issuer': 'sub_email_mismatch',
  'email-not-issuer': 'sub_email_mismatch',
};

/** What the linter knows besides the token. */
export interface LintContext {
  /** "Now" in ms, for expiry and clock checks. */
  now: number;
  /** Configured e-mail domains of the credential types (spec 5.2). */
  domains?: IssuerDomains;
  /** Base URLs of the configured environments: the audiences a token may carry (spec 5.3). */
  knownAudiences?: string[];
  /** The type of the stored credential whose `kid` matches the token's, when there is one. */
  credentialType?: CredentialType;
}

/** How far `iat` may lie ahead of our clock before it is more than ordinary clock skew. */
export const IAT_FUTURE_TOLERANCE_SECONDS = 60;
/**
 * Seconds since 1970 stay below this until the year 5138; a larger `exp`/`iat` is almost
 * certainly milliseconds (Date.now() used where seconds were meant).
 */
const MILLISECONDS_THRESHOLD = 1e11;

/** The spec section that describes a credential type's token. */
const SECTION_OF: Record<CredentialType, string> = { 'external-org': '5.4', iam: '5.5', 'service-account': '5.6' };

/**
 * Checks a decoded token against the authentication spec (shared/spec/auth-and-access.md) and
 * returns every finding, errors first. The signature is not checked here (see verifyTokenSignature).
 * A well-formed External Organization token, checked within its lifetime, yields no errors or warnings.
 */
export function lintToken(token: DecodedToken, context: LintContext): LintFinding[] {
  const findings: LintFinding[] = [];
  const add = (id: LintId, severity: LintSeverity, rule: string, message: string): void => {
    const authRule = AUTH_RULE_OF[id];
    findings.push(authRule ? { id, severity, rule, message, authRule } : { id, severity, rule, message });
  };
  const { header, payload } = token;

  const iss = ownValue(payload, 'iss');
  const issuerText = typeof iss === 'string' ? iss : undefined;
  const type = resolveType(issuerText, context);
  const section = type.type ? SECTION_OF[type.type] : '5.4';

  if (token.paddedParts?.length) {
    add('base64url-padding', 'error', 'RFC 7515 2', l10n.t('Parts written with "=" padding: {0}. A JWT (compact JWS) writes every part as base64url without padding (RFC 7515 section 2), and a server enforcing spec 5 refuses it as malformed_token. Encode the parts without "=" and sign that text.', token.paddedParts.join(', ')));
  }
  for (const duplicate of token.duplicateMembers ?? []) lintDuplicate(duplicate, add);
  lintAlgorithm(String(ownValue(header, 'alg')), token.signaturePresent, type, add);
  lintKid(header, section, add);
  lintJti(ownValue(payload, 'jti'), add);
  const writtenClaims = new Map((token.writtenNumbers ?? []).filter((n) => n.part === 'payload' && n.path.length === 1).map((n) => [String(n.path[0]), n.text]));
  lintTimes(payload, context.now, add, writtenClaims);
  lintAudience(ownValue(payload, 'aud'), context.knownAudiences, add);
  lintIssuer(iss, context, type, add);

  if (type.type && DEPRECATED_TYPES.has(type.type)) {
    add('type-deprecated', 'info', '5.2', l10n.t('{0} credentials are deprecated, are not issued to new consumers, and work with the MDS Provider API only (not the MaaS API). Move to an External Organization credential when you can.', CREDENTIAL_TYPE_LABELS[type.type]));
  }
  if (type.type === 'service-account') lintServiceAccount(payload, issuerText, add);

  const order: Record<LintSeverity, number> = { error: 0, warning: 1, info: 2 };
  return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

type Add = (id: LintId, severity: LintSeverity, rule: string, message: string) => void;

interface ResolvedType {
  type?: CredentialType;
  /** Where the type came from, for messages. */
  source?: 'credential' | 'issuer';
  /** The type the issuer's domain says, when domains are configured and it differs or is alone. */
  fromIssuer?: CredentialType;
}

function resolveType(iss: string | undefined, context: LintContext): ResolvedType {
  const fromIssuer = iss !== undefined && context.domains ? typeOfIssuer(iss, context.domains) : undefined;
  if (context.credentialType) return { type: context.credentialType, source: 'credential', fromIssuer };
  if (fromIssuer) return { type: fromIssuer, source: 'issuer', fromIssuer };
  return {};
}

function lintAlgorithm(alg: string, signaturePresent: boolean, type: ResolvedType, add: Add): void {
  if (alg.toLowerCase() === 'none') {
    add('alg-none', 'error', '5.1 rule 2', l10n.t('The header says "alg": "{0}", an unsigned token. Every token must be signed with the provisioned private key (ES256, or RS256 for a service account).', alg));
    return;
  }
  if (/^HS\d+$/i.test(alg)) {
    add('alg-hmac', 'error', '5.1 rule 2', l10n.t('The header says "alg": "{0}", a shared-secret (HMAC) signature. The APIs accept only tokens signed with the provisioned private key: ES256, or RS256 for a service account.', alg));
    return;
  }
  if (type.type) {
    const expected: SigningAlgorithm = expectedAlgorithm(type.type);
    if (alg !== expected) {
      const why = type.source === 'credential' ? 'the stored credential with this kid is' : "the issuer's domain makes this";
      add('alg-wrong-for-type', 'error', SECTION_OF[type.type], l10n.t('The header says "alg": "{0}", but {1} {2} token, which must be signed with {3}.', alg, why, withArticle(CREDENTIAL_TYPE_LABELS[type.type]), expected));
    }
  } else if (alg !== 'ES256' && alg !== 'RS256') {
    add('alg-not-allowed', 'error', '5.4', l10n.t('The header says "alg": "{0}". The APIs use only ES256 (External Organization and IAM) and RS256 (service account).', alg));
  }
  if (!signaturePresent) {
    add('signature-missing', 'error', '5.1 rule 2', l10n.t('The token has no signature (nothing after the second dot). Send the whole signed token.'));
  }
}

function lintKid(header: Record<string, unknown>, section: string, add: Add): void {
  const kid = ownValue(header, 'kid');
  // The engine decides whether the rule is broken; the wording here tells which way.
  const broken = checkKid(header) !== undefined;
  if (broken && kid === undefined) {
    add('kid-missing', 'error', section, l10n.t('The header has no "kid". Set it to the key identifier provisioned with the credentials (for a service account: the key file\'s private_key_id).'));
  } else if (typeof kid !== 'string') {
    add('claim-wrong-type', 'error', section, l10n.t('The header\'s "kid" is {0}; it must be a string: the provisioned key identifier.', jsonTypeOf(kid)));
  } else if (broken || kid.trim() === '') {
    add('kid-missing', 'error', section, l10n.t('The header\'s "kid" is empty. Set it to the key identifier provisioned with the credentials.'));
  }
}

function lintJti(jti: unknown, add: Add): void {
  if (jti === undefined) {
    add('jti-missing', 'error', '5.1 rule 7', l10n.t('The token has no "jti". Each token must carry a random UUID in "jti", new for every token.'));
  } else if (typeof jti !== 'string') {
    add('claim-wrong-type', 'error', '5.1 rule 7', l10n.t('"jti" is {0}; it must be a string holding a random UUID.', jsonTypeOf(jti)));
  } else if (!isUuid(jti)) {
    add('jti-not-uuid', 'error', '5.1 rule 7', l10n.t('"jti" is not a UUID ("{0}"). It must be a random UUID such as crypto.randomUUID() makes, new for every token.', truncate(jti)));
  } else if (!isRandomUuid(jti)) {
    add('jti-not-v4', 'info', '5.1 rule 7', l10n.t('"jti" is a UUID but not a random (version 4) one. The spec asks for a random UUID; crypto.randomUUID() makes one.'));
  }
}

/** A member name written twice: JSON.parse (and so this view) keeps the last value; RFC 7515/7519 section 4 want it unique. */
function lintDuplicate(duplicate: NonNullable<DecodedToken['duplicateMembers']>[number], add: Add): void {
  const name = String(duplicate.path[duplicate.path.length - 1]);
  const inside = duplicate.path.slice(0, -1).map(String).join('.');
  const times = duplicate.count === 2 ? l10n.t('twice') : l10n.t('{0} times', duplicate.count);
  if (duplicate.part === 'header') {
    add('duplicate-member', 'error', 'RFC 7515 4', inside
      ? l10n.t('The header writes "{0}" {1} inside "{2}". Names in a JOSE header must be unique (RFC 7515 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.', name, times, inside)
      : l10n.t('The header writes "{0}" {1}. Header parameter names must be unique (RFC 7515 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.', name, times));
  } else {
    add('duplicate-member', 'error', 'RFC 7519 4', inside
      ? l10n.t('The payload writes "{0}" {1} inside "{2}". Names in the claims must be unique (RFC 7519 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.', name, times, inside)
      : l10n.t('The payload writes the claim "{0}" {1}. Claim names must be unique (RFC 7519 section 4): a server may refuse the token, or read only the last value, as shown here. Write each claim once.', name, times));
  }
}

function lintTimes(payload: Record<string, unknown>, now: number, add: Add, written: ReadonlyMap<string, string>): void {
  const nowSeconds = now / 1000;
  const iat = numericClaim(payload, 'iat', nowSeconds, add, written);
  const nbf = numericClaim(payload, 'nbf', nowSeconds, add, written);
  const exp = numericClaim(payload, 'exp', nowSeconds, add, written);

  if (exp === 'missing') {
    add('exp-missing', 'error', '5.1 rule 5', l10n.t('The token has no "exp". Every token must expire {0} to {1} seconds after it is issued.', MIN_LIFETIME_SECONDS, MAX_LIFETIME_SECONDS));
  }
  if (iat === 'missing') {
    add('iat-missing', 'warning', '5.1 rule 6', l10n.t('The token has no "iat". Tokens on one key must carry a timestamp later than every earlier one, and the local sandbox refuses tokens without "iat"; set it to the issue time in seconds.'));
  }

  const inMs = (name: string, v: number): boolean => {
    if (Math.abs(v) < MILLISECONDS_THRESHOLD) return false;
    add('time-in-milliseconds', 'error', '5.1 rule 5', l10n.t('"{0}" is {1}, which looks like milliseconds. JWT times are whole seconds since 1970 (Math.floor(Date.now() / 1000)).', name, v));
    return true;
  };
  const iatOk = typeof iat === 'number' && !inMs('iat', iat);
  const nbfOk = typeof nbf === 'number' && !inMs('nbf', nbf);
  const expOk = typeof exp === 'number' && !inMs('exp', exp);

  // Expiry and clock rules as the sandbox decides them (tolerating the same skew for iat and nbf).
  const broken = new Set(checkTimes(payload, now, IAT_FUTURE_TOLERANCE_SECONDS).map((v) => v.rule));
  if (iatOk && expOk) {
    const lifetime = exp - iat;
    if (!lifetimeInRange(iat, exp)) {
      const found = lifetime <= 0
        ? `"exp" is ${lifetime === 0 ? 'equal to' : `${formatDuration(-lifetime)} before`} "iat"`
        : `the lifetime (exp − iat) is ${secondsWithSpan(lifetime)}`;
      add('lifetime-out-of-range', 'error', '5.1 rule 5', l10n.t('{0}. A token must expire {1} to {2} seconds (1 min to 1 h) after it is issued.', capitalise(found), MIN_LIFETIME_SECONDS, MAX_LIFETIME_SECONDS));
    }
  }
  if (expOk && broken.has('expired')) {
    add('expired', 'error', '5.1 rule 5', l10n.t('The token expired {0} (exp {1}). Tokens live at most an hour and are used once: generate a new one for each request.', describeRelative(exp * 1000, now), isoOf(exp)));
  }
  if (iatOk && broken.has('iat_in_future')) {
    add('iat-in-future', 'error', '5.1 rule 6', l10n.t('"iat" is {0} in the future ({1}). The clock that made the token is ahead of this one; check clock skew (sync the clock with NTP) or how the issue time is computed.', formatDuration(iat - nowSeconds), isoOf(iat)));
  }
  if (nbfOk && broken.has('nbf_in_future')) {
    add('nbf-in-future', 'warning', '5.1 rule 5', l10n.t('"nbf" says the token becomes valid {0} ({1}), so it is refused until then. Leave "nbf" out or set it no later than "iat".', describeRelative(nbf * 1000, now), isoOf(nbf)));
  }
}

/** The claim's number, 'missing', or 'wrong' (reported here). */
function numericClaim(payload: Record<string, unknown>, name: 'iat' | 'nbf' | 'exp', nowSeconds: number, add: Add, written: ReadonlyMap<string, string>): number | 'missing' | 'wrong' {
  const v = ownValue(payload, name);
  if (v === undefined) return 'missing';
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const rule = name === 'iat' ? '5.1 rule 6' : '5.1 rule 5';
  if (typeof v === 'number') {
    // `1e400`: JSON, but beyond what a number (and so any date) holds; JSON.parse makes it Infinity.
    add('claim-wrong-type', 'error', rule, l10n.t('"{0}" is {1}, which is not a finite NumericDate: no date is that far away, and a JSON parser reads it as infinity (or refuses it). It must be a number of seconds since 1970, e.g. {2} for now.', name, truncate(written.get(name) ?? String(v)), Math.floor(nowSeconds)));
    return 'wrong';
  }
  const shown = typeof v === 'string' ? ` ("${truncate(v)}")` : '';
  add('claim-wrong-type', 'error', rule, l10n.t('"{0}" is {1}{2}; it must be a JSON number of seconds since 1970, e.g. {3} for now.', name, typeof v === 'number' ? 'not a finite number' : jsonTypeOf(v), shown, Math.floor(nowSeconds)));
  return 'wrong';
}

function lintAudience(aud: unknown, known: string[] | undefined, add: Add): void {
  if (aud === undefined) {
    add('aud-missing', 'error', '5.3', l10n.t('The token has no "aud". Set it to the base URL of the environment that receives the request.'));
    return;
  }
  const list = Array.isArray(aud) ? (aud as unknown[]) : [aud];
  if (list.length === 0) {
    add('aud-missing', 'error', '5.3', l10n.t('"aud" is an empty list. It must hold the base URL of the environment that receives the request.'));
    return;
  }
  const strings = list.filter((a): a is string => typeof a === 'string');
  if (strings.length !== list.length) {
    add('claim-wrong-type', 'error', '5.3', l10n.t('"aud" is {0}; it must be a string or a list of strings holding the environment\'s base URL.', Array.isArray(aud) ? 'a list with values that are not strings' : jsonTypeOf(aud)));
    return;
  }
  if (!known || known.length === 0) return;
  if (known.some((k) => audienceMatches(strings, k))) return;

  for (const a of strings) {
    for (const k of known) {
      const difference = nearMiss(a, k);
      if (difference) {
        add('aud-near-miss', 'error', '5.3', l10n.t('"aud" is "{0}", which nearly matches the environment base URL "{1}" but {2}. The audience must equal the base URL exactly.', truncate(a), k, difference));
        return;
      }
    }
  }
  const shown = strings.slice(0, 3).map((a) => `"${truncate(a)}"`).join(', ');
  add('aud-unknown', 'error', '5.3', l10n.t('"aud" ({0}) matches none of the configured environments\' base URLs ({1}). Set it to the base URL of the environment that receives the request.', shown, known.map((k) => `"${k}"`).join(', ')));
}

/** How `aud` differs from a known base URL when the difference is a common slip, else undefined. */
function nearMiss(aud: string, base: string): string | undefined {
  const differences: string[] = [];
  let a = aud;
  let b = base;
  if (a.trim() !== a) {
    differences.push('has surrounding spaces');
    a = a.trim();
  }
  const trailing = (s: string): boolean => s.endsWith('/');
  if (trailing(a) !== trailing(b)) differences.push(trailing(a) ? 'ends in a slash the base URL does not have' : 'lacks the base URL\'s trailing slash');
  a = withoutTrailingSlashes(a);
  b = withoutTrailingSlashes(b);
  const scheme = (s: string): string => s.slice(0, s.indexOf('://') + 3).toLowerCase();
  if (a.includes('://') && b.includes('://') && scheme(a) !== scheme(b)) {
    differences.push(`uses ${scheme(a)} instead of ${scheme(b)}`);
    a = a.slice(a.indexOf('://') + 3);
    b = b.slice(b.indexOf('://') + 3);
  }
  if (a === b) return differences.join(' and ') || undefined;
  if (a.toLowerCase() === b.toLowerCase()) return [...differences, 'differs in upper/lower case'].join(' and ');
  if (a.startsWith(`${b}/`)) {
    return [...differences, `goes on with a path ("${truncate(a.slice(b.length))}"): use the base URL, not a request URL`].join(' and ');
  }
  return undefined;
}

function lintIssuer(iss: unknown, context: LintContext, type: ResolvedType, add: Add): void {
  if (iss === undefined) {
    add('iss-missing', 'error', '5.4', l10n.t('The token has no "iss". Set it to the e-mail address delivered with the credentials (for a service account: the key file\'s client_email).'));
    return;
  }
  if (typeof iss !== 'string') {
    add('claim-wrong-type', 'error', '5.4', l10n.t('"iss" is {0}; it must be a string: the e-mail address delivered with the credentials.', jsonTypeOf(iss)));
    return;
  }
  if (!isEmail(iss)) {
    add('iss-not-email', 'error', '5.2', l10n.t('"iss" is "{0}", which is not an e-mail address. It must be the e-mail delivered with the credentials; its domain tells the credential type.', truncate(iss)));
    return;
  }
  const domains = context.domains;
  const configured = domains !== undefined && CREDENTIAL_TYPES.some((t) => domains[t].some((d) => d.trim() !== ''));
  const domain = domainOf(iss) ?? '';
  if (!configured) {
    if (!context.credentialType) {
      add('iss-type-undetermined', 'info', '5.2', l10n.t('The credential type could not be told from the issuer\'s domain "{0}" because no credential-type domains are configured; type-specific checks were skipped. Configure the domains to get them.', domain));
    }
    return;
  }
  if (!type.fromIssuer) {
    add('iss-domain-unknown', 'warning', '5.2', l10n.t('The issuer\'s domain "{0}" is none of the configured credential-type domains. The type is told by this domain, so check "iss" against the e-mail delivered with the credentials (or the configured domains).', domain));
  } else if (type.source === 'credential' && type.type && type.fromIssuer !== type.type) {
    add('iss-type-mismatch', 'warning', '5.2', l10n.t('The issuer\'s domain "{0}" belongs to {1} credentials, but the stored credential with this kid is {2}. Use the e-mail delivered with that credential as "iss".', domain, CREDENTIAL_TYPE_LABELS[type.fromIssuer], CREDENTIAL_TYPE_LABELS[type.type]));
  }
}

function isEmail(s: string): boolean {
  if (s.length > 320 || /\s/.test(s)) return false;
  const at = s.lastIndexOf('@');
  return at > 0 && at < s.length - 1 && s.indexOf('@') === at;
}

function lintServiceAccount(payload: Record<string, unknown>, iss: string | undefined, add: Add): void {
  if (iss === undefined) return; // already reported
  for (const [name, id] of [['sub', 'sub-not-issuer'], ['email', 'email-not-issuer']] as const) {
    const v = ownValue(payload, name);
    if (v === iss) continue;
    const found = v === undefined ? 'is missing' : typeof v === 'string' ? `is "${truncate(v)}"` : `is ${jsonTypeOf(v)}`;
    add(id, 'error', '5.6', l10n.t('"{0}" {1}; for a service account it must equal "iss", the key file\'s client_email ("{2}").', name, found, truncate(iss)));
  }
}

function truncate(s: string, max = 80): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function isoOf(seconds: number): string {
  return Math.abs(seconds) <= 8.64e12 ? new Date(seconds * 1000).toISOString() : 'out of range';
}
