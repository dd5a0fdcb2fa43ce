import * as l10n from '@vscode/l10n';
import type { HttpExchange } from '../../core/http';
import type { DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import { decodeJwt, lintToken, stringifyAsWritten } from '../../core/auth';
import type { Environment } from '../../core/environment';
import { withoutTrailingSlashes } from '../../core/environment';
import type { FindingView, TimeView, TokenResultView, TokenView } from '../../shared/tokenViews';
import { environmentView } from '../requests/environmentView';
import { plural } from '../../shared/format';
import { maskKeyId } from '../../core/base';
import { scrub, shortenToken } from './tokenPreview';

function timeView(t: { seconds: number; iso: string } | undefined): TimeView | undefined {
  return t ? { seconds: t.seconds, iso: t.iso } : undefined;
}

function findingViews(findings: readonly LintFinding[]): FindingView[] {
  return findings.map((f) => ({ id: f.id, severity: f.severity, message: f.message, rule: f.rule }));
}

/** The header as shown: its kid masked (spec 5.7), unless the user handed the token in. */
function shownHeader(header: Record<string, unknown>, userGiven: boolean): Record<string, unknown> {
  if (userGiven || !Object.prototype.hasOwnProperty.call(header, 'kid')) return header;
  return { ...header, kid: maskKeyId(header.kid) };
}

/**
 * A token view without the token: `token` is read only for its length and shortened form. The
 * header's kid is masked unless `userGiven` (Decode JWT of a token the user handed in).
 */
export function tokenView(args: {
  token: string;
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  signature?: SignatureCheck;
  source: string;
  alreadyUsed: boolean;
  userGiven?: boolean;
}): TokenView {
  const { token, decoded } = args;
  const header = shownHeader(decoded.header, args.userGiven === true);
  const written = (part: 'header' | 'payload') => (decoded.writtenNumbers ?? []).filter((n) => n.part === part);
  const view: TokenView = {
    source: scrub(args.source, token),
    preview: shortenToken(token),
    length: token.length,
    header,
    payload: decoded.payload,
    headerText: stringifyAsWritten(header, written('header'), 2),
    payloadText: stringifyAsWritten(decoded.payload, written('payload'), 2),
    findings: findingViews(args.findings).map((f) => ({ ...f, message: scrub(f.message, token) })),
    signature: args.signature ? { ...args.signature } : { state: 'unchecked' },
    canCopy: token.length > 0,
    alreadyUsed: args.alreadyUsed,
  };
  const iat = timeView(decoded.times.iat);
  const nbf = timeView(decoded.times.nbf);
  const exp = timeView(decoded.times.exp);
  if (iat) view.iat = iat;
  if (nbf) view.nbf = nbf;
  if (exp) view.exp = exp;
  if (decoded.lifetimeSeconds !== undefined) view.lifetimeSeconds = decoded.lifetimeSeconds;
  return view;
}

/** The token a page (or a gRPC call: `source`) was sent with, decoded and checked against the environment. */
export function pageTokenView(
  page: HttpExchange,
  pageNumber: number,
  env: Environment,
  now: number,
  source?: string,
): TokenView | undefined {
  const raw = page.token?.token;
  if (!raw) return undefined;
  const decoded = decodeJwt(raw, { now });
  if (!decoded.ok) return undefined;
  // Checked against the base URL, the audience the server expects (spec 5.3), so a mistaken custom `audience` shows too.
  const findings = lintToken(decoded.token, { now, knownAudiences: [withoutTrailingSlashes(env.baseUrl)] });
  return tokenView({
    token: raw,
    decoded: decoded.token,
    findings,
    source: source ?? l10n.t('Sent with page {0}', pageNumber),
    alreadyUsed: true,
  });
}

/**
 * The view of a decoded token (Generate Token, Decode JWT). The token itself stays with the caller;
 * its kid is shown whole only when `userGiven` (the user handed the token in: Decode JWT).
 */
export function tokenResultView(args: {
  id: string;
  environment?: Environment;
  token: string;
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  signature?: SignatureCheck;
  source: string;
  now: number;
  userGiven?: boolean;
}): TokenResultView {
  const token = tokenView({
    token: args.token,
    decoded: args.decoded,
    findings: args.findings,
    signature: args.signature,
    source: args.source,
    alreadyUsed: false,
    userGiven: args.userGiven,
  });
  const errors = args.findings.filter((f) => f.severity === 'error').length;
  const warnings = args.findings.filter((f) => f.severity === 'warning').length;
  const title = l10n.t('Token · {0}', args.environment?.name ?? token.source);
  const view: TokenResultView = {
    kind: 'token',
    id: args.id,
    title,
    createdAt: args.now,
    token,
    summary: {
      kind: 'token',
      title,
      line: `${token.source} · ${errors ? plural(errors, 'error') : l10n.t('no errors')}, ${plural(warnings, 'warning')}`,
      createdAt: args.now,
      canRunAgain: false,
    },
  };
  if (args.environment) {
    view.environment = environmentView(args.environment);
    view.summary.environmentId = args.environment.id;
    view.summary.environmentName = args.environment.name;
  }
  return view;
}
