/**
 * Grades the client that talks to the sandbox: a verdict for every request against the rules of spec
 * section 5 (the verifier's refusal, by rule id) and warnings for tokens that are accepted but
 * fragile, summed up as a report card. Pure: the server feeds it what it saw; gRPC requests feed
 * it the same way with `transport: 'grpc'`. Keeps counts and the first example of each kind only,
 * so memory stays bounded however long the sandbox runs. Never keeps a token or a whole kid.
 */
import type { AuthRuleId, RuleViolation } from '../../core/auth';
import { audienceMatches, AUTH_RULE_IDS, AUTH_RULES, decodeJwt, isNumericDate, stripTokenText } from '../../core/auth';
import { maskKeyId, redactSecrets } from '../../core/base';
import type { TokenCheck } from './tokenVerifier';

/** How the request reached the sandbox. */
export type Transport = 'http' | 'grpc';

/** Accepted but fragile: a server with a stricter clock or policy may refuse it. */
export type GradeWarningId = 'long_lifetime' | 'iat_ahead' | 'aud_list_extra';

/** Lifetimes above this many seconds are fragile (a leaked token stays usable long). */
export const FRAGILE_LIFETIME_SECONDS = 30 * 60;
/** An `iat` this many seconds ahead of the sandbox clock is fragile (a server with less skew refuses it). */
export const FRAGILE_IAT_AHEAD_SECONDS = 5;

/** What the server saw of one request. */
export interface GradeInput {
  transport: Transport;
  /** HTTP method, or the gRPC method name. */
  method: string;
  /** The path with its query as sent (`/vehicles?page=2`), or the gRPC method path. */
  path: string;
  /** The sandbox's clock when the request was answered, in ms. */
  atMs: number;
  /** The HTTP status (or the gRPC status code) of the answer. */
  status: number;
  /** The Authorization value (or metadata) as sent; read for claims, never kept. */
  authorization?: string;
  /** The token verifier's verdict; absent when the request was answered without checking a token. */
  check?: TokenCheck;
  /** The audience of the environment the request was sent to. */
  audience?: string;
}

/** The verdict on one request. */
export interface RequestVerdict {
  transport: Transport;
  method: string;
  path: string;
  /** ISO 8601, the sandbox's clock. */
  time: string;
  status: number;
  /** `unchecked`: answered before any token check (not an environment's path, a method other than GET, two Authorization headers). */
  outcome: 'accepted' | 'refused' | 'unchecked';
  /** For a refusal: the rule the answer named (the first the token broke). */
  rule?: AuthRuleId;
  /** For a refusal: the other rules the token broke, when there are any. */
  further?: AuthRuleId[];
  /** What makes the token fragile (for a refused one: besides the rules it broke). */
  warnings: GradeWarningId[];
}

/** The first request of one kind, as the report card shows it. */
export interface GradeExample {
  transport: Transport;
  method: string;
  path: string;
  time: string;
  /** What was wrong, as the sandbox told the client (the kid masked). */
  description: string;
  /** The decoded claims (and header fields) that broke the rule or make the token fragile. */
  claims: Record<string, unknown>;
  /** Further facts, e.g. `latest accepted iat: …` (never the kid). */
  details: string[];
}

export interface RuleTally {
  rule: AuthRuleId;
  spec: string;
  requirement: string;
  count: number;
  first: GradeExample;
}

export interface WarningTally {
  id: GradeWarningId;
  message: string;
  count: number;
  first: GradeExample;
}

/** The report card: everything the grader saw, in one JSON-ready object. */
export interface ClientReport {
  /** ISO 8601 (sandbox clock): when grading began and when this card was made. */
  since: string;
  until: string;
  requests: { seen: number; accepted: number; refused: number; unchecked: number };
  byTransport: Partial<Record<Transport, number>>;
  /** Refusals by rule, in the verifier's checking order. */
  refusals: RuleTally[];
  /** Warnings on tokens a stricter server may refuse (accepted ones, and refused ones for what their broken rules do not say already). */
  warnings: WarningTally[];
  /** `pass` when no token was refused (warnings do not fail a client). */
  grade: 'pass' | 'fail' | 'no requests';
}

/** What each warning means, for the report card. */
export const GRADE_WARNINGS: Readonly<Record<GradeWarningId, string>> = {
  long_lifetime: `The token lives longer than ${FRAGILE_LIFETIME_SECONDS / 60} minutes (exp - iat). Spec 5.1 rule 5 allows up to 1 hour, but a token is used once: a short lifetime (a few minutes) limits what a leaked token can do.`,
  iat_ahead: `iat lies more than ${FRAGILE_IAT_AHEAD_SECONDS} s ahead of the server's clock. The sandbox allows some skew; a server that allows less refuses it (iat_in_future). Sync the clock, or take iat from the clock as the token is signed.`,
  aud_list_extra:
    "aud is a list that holds other values besides this environment's base URL. Spec 5.3 accepts a list holding the address, but a token for one environment should name only it: send aud as the one base URL.",
};

/** Which claims (and header fields) each rule is about: what the report shows of a refused token. */
const CLAIMS_OF: Partial<Record<AuthRuleId, readonly string[]>> = {
  kid_missing: ['kid'],
  unknown_kid: ['kid'],
  alg_not_allowed: ['alg', 'kid'],
  bad_signature: ['alg', 'kid'],
  iss_mismatch: ['iss'],
  type_not_allowed_for_api: ['iss'],
  sub_email_mismatch: ['iss', 'sub', 'email'],
  aud_mismatch: ['aud'],
  exp_missing: ['exp'],
  iat_missing: ['iat'],
  lifetime_out_of_range: ['iat', 'exp'],
  expired: ['iat', 'exp'],
  iat_in_future: ['iat'],
  nbf_in_future: ['nbf'],
  jti_missing: ['jti'],
  jti_not_uuid: ['jti'],
  jti_not_random: ['jti'],
  jti_replayed: ['jti', 'iat'],
  iat_not_increasing: ['iat', 'jti'],
};
const WARNING_CLAIMS: Record<GradeWarningId, readonly string[]> = {
  long_lifetime: ['iat', 'exp'],
  iat_ahead: ['iat'],
  aud_list_extra: ['aud'],
};

/** `text` with every occurrence of the kid (as is and as JSON writes it) masked. */
function withoutKid(text: string, kid: string | undefined): string {
  if (!kid) return text;
  const masked = maskKeyId(kid);
  return text.split(JSON.stringify(kid).slice(1, -1)).join(masked).split(kid).join(masked);
}

function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

/** The header and claims of the token in an Authorization value, decoded without verifying; empty when there is none. */
function decodedParts(authorization: string | undefined): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  if (!authorization) return { header: {}, payload: {} };
  const decoded = decodeJwt(stripTokenText(authorization));
  return decoded.ok ? { header: decoded.token.header, payload: decoded.token.payload } : { header: {}, payload: {} };
}

function pick(
  names: readonly string[],
  parts: { header: Record<string, unknown>; payload: Record<string, unknown> },
): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) {
    const source = name === 'alg' || name === 'kid' ? parts.header : parts.payload;
    if (!Object.hasOwn(source, name)) continue;
    const value = source[name];
    picked[name] = name === 'kid' && typeof value === 'string' ? maskKeyId(value) : value;
  }
  return picked;
}

/** What is fragile about an accepted token's claims, against the sandbox clock `nowMs` and its audience. */
export function fragileClaims(
  payload: Record<string, unknown>,
  nowMs: number,
  audience: string | undefined,
): GradeWarningId[] {
  const found: GradeWarningId[] = [];
  const { iat, exp, aud } = payload;
  if (isNumericDate(iat) && isNumericDate(exp) && exp - iat > FRAGILE_LIFETIME_SECONDS) found.push('long_lifetime');
  if (isNumericDate(iat) && iat > nowMs / 1000 + FRAGILE_IAT_AHEAD_SECONDS) found.push('iat_ahead');
  if (
    Array.isArray(aud) &&
    (audience === undefined ? aud.length > 1 : audienceMatches(aud, audience) && aud.some((a) => a !== audience))
  )
    found.push('aud_list_extra');
  return found;
}

/** The warnings that only restate a broken rule: a lifetime over an hour breaks rule 5, an iat past the skew breaks iat_in_future. */
const WARNING_RESTATES: Record<GradeWarningId, AuthRuleId | undefined> = {
  long_lifetime: 'lifetime_out_of_range',
  iat_ahead: 'iat_in_future',
  aud_list_extra: undefined,
};

/** Keeps the tallies of one sandbox run; `record` each answered request, `report` at any time. */
export class ClientGrader {
  private readonly sinceMs: number;
  private readonly counts = { seen: 0, accepted: 0, refused: 0, unchecked: 0 };
  private readonly transports: Partial<Record<Transport, number>> = {};
  private readonly refusals = new Map<AuthRuleId, RuleTally>();
  private readonly warnings = new Map<GradeWarningId, WarningTally>();

  constructor(private readonly now: () => number) {
    this.sinceMs = now();
  }

  /** Grades one request; returns its verdict (the grader keeps only counts and first examples). */
  record(input: GradeInput): RequestVerdict {
    const verdict: RequestVerdict = {
      transport: input.transport,
      method: input.method,
      path: input.path,
      time: iso(input.atMs),
      status: input.status,
      outcome: 'unchecked',
      warnings: [],
    };
    this.counts.seen++;
    this.transports[input.transport] = (this.transports[input.transport] ?? 0) + 1;
    const check = input.check;
    if (!check) {
      this.counts.unchecked++;
      return verdict;
    }
    const example = (description: string, claims: Record<string, unknown>, details: string[]): GradeExample => ({
      transport: input.transport,
      method: input.method,
      path: redactSecrets(input.path),
      time: verdict.time,
      description,
      claims,
      details,
    });
    const parts = decodedParts(input.authorization);
    const warn = (ids: GradeWarningId[], payload: Record<string, unknown>) => {
      for (const id of ids) {
        const tally = this.warnings.get(id);
        if (tally) tally.count++;
        else
          this.warnings.set(id, {
            id,
            message: GRADE_WARNINGS[id],
            count: 1,
            first: example(GRADE_WARNINGS[id], pick(WARNING_CLAIMS[id], { header: {}, payload }), []),
          });
      }
    };
    if (!check.ok) {
      const { rule, kid, further = [] } = check.refusal;
      verdict.outcome = 'refused';
      verdict.rule = rule;
      if (further.length > 0) verdict.further = further.map((f) => f.rule);
      this.counts.refused++;
      // Every rule the token broke is charged, the one the answer named first.
      const broken: RuleViolation[] = [
        { rule, description: check.refusal.description, details: check.refusal.details },
        ...further,
      ];
      for (const violation of broken) {
        const tally = this.refusals.get(violation.rule);
        if (tally) {
          tally.count++;
          continue;
        }
        const details = violation.details
          .filter((d) => !/^(rule|spec|requirement|kid): /.test(d))
          .map((d) => withoutKid(d, kid));
        const first = example(
          withoutKid(violation.description, kid),
          pick(CLAIMS_OF[violation.rule] ?? [], parts),
          details,
        );
        this.refusals.set(violation.rule, {
          rule: violation.rule,
          spec: AUTH_RULES[violation.rule].spec,
          requirement: AUTH_RULES[violation.rule].message,
          count: 1,
          first,
        });
      }
      const brokenRules = new Set(broken.map((b) => b.rule));
      verdict.warnings = fragileClaims(parts.payload, input.atMs, input.audience).filter((id) => {
        const restated = WARNING_RESTATES[id];
        return !(restated && brokenRules.has(restated));
      });
      warn(verdict.warnings, parts.payload);
      return verdict;
    }
    verdict.outcome = 'accepted';
    this.counts.accepted++;
    verdict.warnings = fragileClaims(check.claims, input.atMs, input.audience);
    warn(verdict.warnings, check.claims);
    return verdict;
  }

  /** The report card so far (a copy: later requests do not change it). */
  report(): ClientReport {
    const refusals = AUTH_RULE_IDS.flatMap((rule) => {
      const tally = this.refusals.get(rule);
      return tally ? [structuredClone(tally)] : [];
    });
    const warnings = (Object.keys(GRADE_WARNINGS) as GradeWarningId[]).flatMap((id) => {
      const tally = this.warnings.get(id);
      return tally ? [structuredClone(tally)] : [];
    });
    const checked = this.counts.accepted + this.counts.refused;
    return {
      since: iso(this.sinceMs),
      until: iso(this.now()),
      requests: { ...this.counts },
      byTransport: { ...this.transports },
      refusals,
      warnings,
      grade: checked === 0 ? 'no requests' : this.counts.refused === 0 ? 'pass' : 'fail',
    };
  }
}
