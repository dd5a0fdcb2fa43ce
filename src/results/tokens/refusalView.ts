// Why a server refused a request (401 or 403): the likely cause in one line, then the evidence,
// for the panel's error section and the CLI alike. The token is checked by the same rule engine
// as the sandbox's (core/tokenRules), against the server's own clock when it sent a Date header.
import * as l10n from '@vscode/l10n';
import type { HttpExchange } from '../../core/http';
import type { AuthRuleId, CredentialType, RuleViolation } from '../../core/auth';
import {
  audienceMatches,
  AUTH_RULES,
  checkToken,
  CREDENTIAL_TYPE_LABELS,
  DEFAULT_MAX_SKEW_SECONDS,
  showValue,
  typeAllowedForApi,
} from '../../core/auth';
import { clockSkewOf } from '../../core/clock';
import type { ApiKind } from '../../core/environment';
import { API_LABELS } from '../../core/environment';
import { scrubSent } from './tokenPreview';
import type { SentToken } from './tokenPreview';

/** One fact that speaks for or against a cause. */
export interface RefusalEvidence {
  label: string;
  detail: string;
  /** `problem`: this would make a server refuse; `ok`: it would not; `unknown`: could not be told. */
  verdict: 'ok' | 'problem' | 'unknown';
}

/** The likely cause of a refusal in one line, the rule it is when one is known, and the evidence. */
export interface RefusalExplanation {
  cause: string;
  causeRule?: AuthRuleId;
  evidence: RefusalEvidence[];
}

/** What is known besides the exchange. */
export interface RefusalContext {
  /** The audience the server expects: the environment's base URL (spec 5.3). */
  audience?: string;
  api?: ApiKind;
  /** The type of the credential that signed the token. */
  credentialType?: CredentialType;
  /** The shared clock's mark for the token's key (the latest iat any window or process signed with it), in seconds. */
  keyMark?: number;
  /** Fallback "now" in ms when the answer has neither a Date header nor an arrival time. */
  now?: number;
  /** How far `iat` may lie ahead of the server; default 60 s, as the sandbox allows. */
  maxSkewSeconds?: number;
}

const TIME_RULES: ReadonlySet<AuthRuleId> = new Set<AuthRuleId>(['expired', 'iat_in_future', 'nbf_in_future']);

/** A server's or a token's text as shown: one line, cut short, the request's token shortened. */
function quote(text: string, raw: SentToken | undefined, max = 300): string {
  const line = scrubSent(text, raw).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The rule a server names as `rule: <id>` in the error details, when it is one of ours. */
function namedRule(exchange: HttpExchange): AuthRuleId | undefined {
  for (const detail of exchange.mdsError?.error_details ?? []) {
    const m = /^rule:\s*([a-z_]+)\s*$/i.exec(detail);
    if (m && Object.prototype.hasOwnProperty.call(AUTH_RULES, m[1])) return m[1] as AuthRuleId;
  }
  return undefined;
}

function isoOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}

/**
 * Why a 401 or 403 answer refused the request, or undefined for any other status. Pure: the
 * shared clock's mark for the key is read by the caller (see `keyMarkOf` in core/sharedClock).
 */
export function explainRefusal(exchange: HttpExchange, context: RefusalContext = {}): RefusalExplanation | undefined {
  if (exchange.status !== 401 && exchange.status !== 403) return undefined;
  const raw = exchange.token;
  const evidence: RefusalEvidence[] = [];
  const causes: { rank: number; cause: string; rule?: AuthRuleId }[] = [];

  // What the server says.
  const rule = namedRule(exchange);
  const md = exchange.mdsError;
  const said = md
    ? `${md.error}${md.error_description ? `: ${md.error_description}` : ''}`
    : typeof exchange.body === 'string' && exchange.body.trim()
      ? exchange.body
      : undefined;
  if (said !== undefined) {
    // A refused gRPC call stands in as a 401/403 exchange; its own words begin with its status name (UNAUTHENTICATED).
    const status = exchange.contentType === 'application/grpc' ? '' : `${exchange.status} `;
    evidence.push({
      label: l10n.t('Server says'),
      detail: `${status}${quote(said, raw)}${rule ? ` (rule: ${rule})` : ''}`,
      verdict: 'problem',
    });
  } else {
    const status =
      exchange.contentType === 'application/grpc' ? exchange.statusText : `${exchange.status} ${exchange.statusText}`;
    evidence.push({
      label: l10n.t('Server says'),
      detail: l10n.t('{0} with no reason in the body', status.trim()),
      verdict: 'unknown',
    });
  }
  if (rule) {
    const description = md?.error_description ? quote(md.error_description, raw) : AUTH_RULES[rule].message;
    causes.push({
      rank: 0,
      rule,
      cause: l10n.t('The server names rule {0} (spec {1}): {2}', rule, AUTH_RULES[rule].spec, description),
    });
  }

  // The server's clock against this one.
  const skew = clockSkewOf(exchange);
  const serverNowMs =
    exchange.serverDateMs !== undefined ? exchange.serverDateMs + 500 : (exchange.receivedAtMs ?? context.now);
  if (exchange.serverDateMs === undefined)
    evidence.push({
      label: l10n.t('Clock'),
      detail: l10n.t('The server sent no Date header: its clock is unknown.'),
      verdict: 'unknown',
    });
  else if (skew) evidence.push({ label: l10n.t('Clock'), detail: skew.message, verdict: 'problem' });
  else
    evidence.push({
      label: l10n.t('Clock'),
      detail: l10n.t(
        "This computer's clock agrees with the server's Date header ({0}) within a few seconds.",
        new Date(exchange.serverDateMs).toISOString(),
      ),
      verdict: 'ok',
    });

  const token = exchange.token;
  if (!token) {
    evidence.push({
      label: l10n.t('Token'),
      detail: l10n.t('The request carried an Authorization of its own, not a token signed here: it was not checked.'),
      verdict: 'unknown',
    });
  } else {
    const payload = token.claims as unknown as Record<string, unknown>;
    const header = token.header as unknown as Record<string, unknown>;
    const skewSeconds = context.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS;
    const violations = checkToken(
      { header, payload },
      {
        credentialType: context.credentialType,
        api: context.api,
        audience: context.audience,
        nowMs: serverNowMs,
        maxSkewSeconds: skewSeconds,
      },
    );
    const byRule = new Map<AuthRuleId, RuleViolation>(violations.map((v) => [v.rule, v]));
    addAudience(evidence, token.claims.aud, context.audience, raw);
    addTimes(evidence, token.claims, byRule, exchange.serverDateMs !== undefined ? serverNowMs : undefined);
    addType(evidence, context);
    const others = violations.filter(
      (v) => v.rule !== 'aud_mismatch' && v.rule !== 'type_not_allowed_for_api' && !TIME_RULES.has(v.rule),
    );
    for (const v of others)
      evidence.push({ label: l10n.t('Rule {0}', v.rule), detail: quote(v.description, raw), verdict: 'problem' });
    if (!others.length)
      evidence.push({
        label: l10n.t('Other spec 5 rules'),
        detail: l10n.t('kid, alg, iss, exp, iat, the lifetime and jti of the token follow spec 5.'),
        verdict: 'ok',
      });

    const time = violations.find((v) => TIME_RULES.has(v.rule));
    if (time && skew)
      causes.push({
        rank: 1,
        rule: time.rule,
        cause: l10n.t(
          "{0}, so for the server {1} (rule {2}). Sync this computer's clock (NTP) and try again.",
          skew.summary,
          time.rule === 'expired'
            ? 'the token had already expired'
            : time.rule === 'iat_in_future'
              ? 'the token was issued in the future'
              : 'the token is not valid yet',
          time.rule,
        ),
      });
    for (const v of violations)
      causes.push({
        rank: 2,
        rule: v.rule,
        cause: l10n.t('Rule {0} (spec {1}): {2}', v.rule, AUTH_RULES[v.rule].spec, quote(v.description, raw)),
      });

    const iat = token.claims.iat;
    if (context.keyMark === undefined) {
      evidence.push({
        label: l10n.t('Key ordering'),
        detail: l10n.t("The shared clock's mark for this key was not read."),
        verdict: 'unknown',
      });
    } else if (context.keyMark > iat) {
      evidence.push({
        label: l10n.t('Key ordering'),
        detail: l10n.t(
          'This key signed a later token (iat {0}, {1}) after this one (iat {2}), in another window or process on this computer.',
          context.keyMark,
          isoOf(context.keyMark),
          iat,
        ),
        verdict: 'problem',
      });
      causes.push({
        rank: 3,
        rule: 'iat_not_increasing',
        cause: l10n.t(
          "Another window or process signed a later token with this key (iat {0} after this token's {1}); a server that saw that one first refuses this one (rule iat_not_increasing, spec 5.1 rule 6). Send again: the next token gets a later iat.",
          context.keyMark,
          iat,
        ),
      });
    } else if (rule === 'iat_not_increasing') {
      // The server saw a later token, and the shared clock file does not hold it: a signer it cannot see.
      evidence.push({
        label: l10n.t('Key ordering'),
        detail: l10n.t(
          "The key's shared clock file holds no time later than this token's iat {0}, yet the server saw a later or equal one: it came from a signer that does not write that file (other software signing with this key, a program or window with another state folder, another computer).",
          iat,
        ),
        verdict: 'unknown',
      });
    } else {
      evidence.push({
        label: l10n.t('Key ordering'),
        detail: l10n.t(
          "The key's shared clock file holds no time later than this token's iat {0}. Every VS Code window, mobility-api run and Copy as Code program with the same state folder writes it; other software signing with this key, another state folder or another computer is not seen here.",
          iat,
        ),
        verdict: 'ok',
      });
    }
  }
  if (skew)
    causes.push({
      rank: 4,
      cause: l10n.t(
        "{0}: tokens signed here may look {1} to the server. Sync this computer's clock (NTP).",
        skew.summary,
        skew.direction === 'ahead' ? 'issued in the future' : 'expired',
      ),
    });
  if (said !== undefined) causes.push({ rank: 5, cause: l10n.t('The server says: "{0}".', quote(said, raw, 200)) });
  causes.push({
    rank: 6,
    cause:
      exchange.status === 403
        ? l10n.t(
            'The server accepted the token but this credential may not see this resource: ask the provider what it may read.',
          )
        : l10n.t(
            'The server refused the token without a reason, and every check made here passed: the likely causes are ones only the server can see (a kid it does not know, a key that does not match it, a token it saw before).',
          ),
  });
  causes.sort((a, b) => a.rank - b.rank);
  const best = causes[0];
  return best.rule ? { cause: best.cause, causeRule: best.rule, evidence } : { cause: best.cause, evidence };
}

function addAudience(
  evidence: RefusalEvidence[],
  aud: string | string[],
  expected: string | undefined,
  raw: SentToken | undefined,
): void {
  const shown = quote(showValue(aud), raw, 200);
  if (expected === undefined)
    evidence.push({
      label: l10n.t('Audience'),
      detail: l10n.t("aud is {0}; the environment's base URL is not known here.", shown),
      verdict: 'unknown',
    });
  else if (audienceMatches(aud, expected))
    evidence.push({
      label: l10n.t('Audience'),
      detail: l10n.t("aud {0} holds the environment's base URL {1}.", shown, expected),
      verdict: 'ok',
    });
  else
    evidence.push({
      label: l10n.t('Audience'),
      detail: l10n.t('aud is {0}, but the environment\'s base URL (its audience, spec 5.3) is "{1}".', shown, expected),
      verdict: 'problem',
    });
}

function addTimes(
  evidence: RefusalEvidence[],
  claims: { iat: number; exp: number },
  byRule: Map<AuthRuleId, RuleViolation>,
  serverNowMs: number | undefined,
): void {
  const times = `iat ${isoOf(claims.iat)}, exp ${isoOf(claims.exp)}`;
  if (serverNowMs === undefined) {
    evidence.push({
      label: l10n.t('Token times'),
      detail: l10n.t("{0}; not compared with the server's clock (no Date header).", times),
      verdict: byRule.has('expired') || byRule.has('iat_in_future') ? 'problem' : 'unknown',
    });
    return;
  }
  const broken = [...TIME_RULES].filter((r) => byRule.has(r));
  const at = `the server's time ${new Date(serverNowMs).toISOString().replace(/\.\d+Z$/, 'Z')}`;
  if (broken.length)
    evidence.push({
      label: l10n.t('Token times'),
      detail: l10n.t(
        '{0}: at {1} {2}.',
        times,
        at,
        broken
          .map((r) =>
            r === 'expired'
              ? 'it had expired'
              : r === 'iat_in_future'
                ? 'iat lies in the future'
                : 'nbf lies in the future',
          )
          .join(' and '),
      ),
      verdict: 'problem',
    });
  else evidence.push({ label: l10n.t('Token times'), detail: l10n.t('{0}: valid at {1}.', times, at), verdict: 'ok' });
}

function addType(evidence: RefusalEvidence[], context: RefusalContext): void {
  const { credentialType: type, api } = context;
  if (!type || !api) return;
  if (typeAllowedForApi(type, api))
    evidence.push({
      label: l10n.t('Credential type'),
      detail: l10n.t('{0} credentials are accepted by the {1}.', CREDENTIAL_TYPE_LABELS[type], API_LABELS[api]),
      verdict: 'ok',
    });
  else
    evidence.push({
      label: l10n.t('Credential type'),
      detail: l10n.t(
        '{0} credentials are refused by the {1}: it takes External Organization credentials only.',
        CREDENTIAL_TYPE_LABELS[type],
        API_LABELS[api],
      ),
      verdict: 'problem',
    });
}

/** The explanation as lines for a terminal: the cause, then one line per piece of evidence. */
export function refusalLines(explanation: RefusalExplanation): string[] {
  const mark: Record<RefusalEvidence['verdict'], string> = { ok: 'ok', problem: 'PROBLEM', unknown: '?' };
  return [
    `Likely cause: ${explanation.cause}`,
    ...explanation.evidence.map((e) => `  [${mark[e.verdict]}] ${e.label}: ${e.detail}`),
  ];
}
