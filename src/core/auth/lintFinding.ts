import type { AuthRuleId } from './authRules';
import type { CredentialType, IssuerDomains } from './credential';

/** Stable identifiers of lint findings, for filtering, tests and code actions. */
export type LintId =
  | 'alg-none'
  | 'alg-hmac'
  | 'alg-not-allowed'
  | 'alg-wrong-for-type'
  | 'signature-missing'
  | 'base64url-padding'
  | 'duplicate-member'
  | 'kid-missing'
  | 'claim-wrong-type'
  | 'jti-missing'
  | 'jti-not-uuid'
  | 'jti-not-v4'
  | 'exp-missing'
  | 'iat-missing'
  | 'time-in-milliseconds'
  | 'lifetime-out-of-range'
  | 'expired'
  | 'iat-in-future'
  | 'nbf-in-future'
  | 'aud-missing'
  | 'aud-unknown'
  | 'aud-near-miss'
  | 'iss-missing'
  | 'iss-not-email'
  | 'iss-domain-unknown'
  | 'iss-type-undetermined'
  | 'iss-type-mismatch'
  | 'type-deprecated'
  | 'sub-not-issuer'
  | 'email-not-issuer';

export type LintSeverity = 'error' | 'warning' | 'info';

/** One thing that is wrong (or worth knowing) about a token, against a section of the spec. */
export interface LintFinding {
  id: LintId;
  severity: LintSeverity;
  /** What is wrong and what the spec wants, in one or two sentences. */
  message: string;
  /** The section of shared/spec/auth-and-access.md, e.g. "5.1 rule 5", "5.3". */
  rule: string;
  /** The rule a server enforcing spec 5 (the sandbox) names when it refuses a token for this, if any. */
  authRule?: AuthRuleId;
}

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

/** How a check reports a finding. */
export type LintAdd = (id: LintId, severity: LintSeverity, rule: string, message: string) => void;

/** A value quoted in a finding, cut at `max` characters. */
export function truncate(s: string, max = 80): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
