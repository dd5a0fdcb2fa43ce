// The view model of "Compare Tokens": two decoded tokens side by side, claim by claim. Pure (no
// `vscode` import) and, like every view model, without the token texts.
import * as l10n from '@vscode/l10n';
import type { DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import type { Environment } from '../../core/environment';
import type { ClaimDiffView, CompareResultView } from '../../shared/tokenViews';
import { maskKeyId } from '../../core/base';
import { environmentView } from '../requests/environmentView';
import { tokenView } from './tokenView';

/** One side of a comparison, as the host holds it. */
export interface ComparedToken {
  token: string;
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  signature?: SignatureCheck;
  /** "Issued for MDS staging at 10:42:03", "Selection". */
  source: string;
}

/** The header parameters and claims a reader looks at first, in this order; the rest follow by name. */
const FIRST = ['alg', 'kid', 'typ', 'iss', 'sub', 'email', 'aud', 'iat', 'nbf', 'exp', 'jti'];

/** Why a difference in this name can decide acceptance (spec sections in parentheses). Read when used (l10n). */
const NOTES = (): Record<string, string> => ({
  'header.alg': l10n.t('The signing algorithm differs: each credential type signs with one algorithm (5.4–5.6).'),
  'header.kid': l10n.t('The key id differs: the server looks up the verification key by kid (5.4–5.6).'),
  'payload.iss': l10n.t(
    'The issuer differs: it must be the e-mail delivered with the credentials, and its domain tells the credential type (5.2).',
  ),
  'payload.aud': l10n.t(
    'The audience differs: it must equal the base URL of the environment that receives the request (5.3).',
  ),
  'payload.exp': l10n.t('The expiry differs: a token must expire 60 to 3600 s after it is issued (5.1 rule 5).'),
  'payload.iat': l10n.t(
    'The issue time differs: on one key, each token must carry a later timestamp than the one before (5.1 rule 6).',
  ),
  'payload.sub': l10n.t('The subject differs: for a service account it must equal the client_email (5.6).'),
  'payload.email': l10n.t('The email claim differs: for a service account it must equal the client_email (5.6).'),
});

/** Two tokens with the same jti: the second one is a reuse, which the spec forbids (5.1 rules 4 and 7). */
const SAME_JTI_NOTE = (): string =>
  l10n.t('Both tokens carry the same jti: a token (and its jti) is used for one request only (5.1 rules 4 and 7).');

/**
 * Compares two claim sets key by key: values are compared as JSON (so `["a"]` and `"a"` differ, and
 * key order inside objects matters only through the JSON text). Rows come in a reading order: the
 * spec's claims first, then the rest by name.
 */
export function diffClaims(
  part: 'header' | 'payload',
  left: Record<string, unknown>,
  right: Record<string, unknown>,
): ClaimDiffView[] {
  const names = new Set([...Object.keys(left), ...Object.keys(right)]);
  const ordered = [...FIRST.filter((n) => names.has(n)), ...[...names].filter((n) => !FIRST.includes(n)).sort()];
  return ordered.map((name) => {
    const l = Object.prototype.hasOwnProperty.call(left, name) ? json(left[name]) : undefined;
    const r = Object.prototype.hasOwnProperty.call(right, name) ? json(right[name]) : undefined;
    const state: ClaimDiffView['state'] =
      l === undefined ? 'onlyRight' : r === undefined ? 'onlyLeft' : l === r ? 'same' : 'different';
    const row: ClaimDiffView = { part, name, state };
    if (l !== undefined) row.left = l;
    if (r !== undefined) row.right = r;
    const note =
      state === 'same'
        ? part === 'payload' && name === 'jti'
          ? SAME_JTI_NOTE()
          : undefined
        : NOTES()[`${part}.${name}`];
    if (note) row.note = note;
    return row;
  });
}

/** The comparison view of two tokens (left: the one that works, by convention; the UI says "first" and "second"). */
export function compareResultView(args: {
  id: string;
  left: ComparedToken;
  right: ComparedToken;
  environment?: Environment;
  now: number;
}): CompareResultView {
  const side = (t: ComparedToken) =>
    tokenView({
      token: t.token,
      decoded: t.decoded,
      findings: t.findings,
      signature: t.signature,
      source: t.source,
      alreadyUsed: false,
    });
  const left = side(args.left);
  const right = side(args.right);
  // Compared as they are, shown with the kid masked (spec 5.7), as in each side's header.
  const header = diffClaims('header', args.left.decoded.header, args.right.decoded.header).map((row) =>
    row.name === 'kid' ? maskedKidRow(row, args.left.decoded.header.kid, args.right.decoded.header.kid) : row,
  );
  const claims = [...header, ...diffClaims('payload', args.left.decoded.payload, args.right.decoded.payload)];
  const differences = claims.filter((c) => c.state !== 'same').length;
  const title = l10n.t('Compare tokens');
  const line = `${left.source} ↔ ${right.source} · ${differences === 0 ? l10n.t('no claim differs') : differences === 1 ? l10n.t('{0} claim differs', differences) : l10n.t('{0} claims differ', differences)}`;
  const view: CompareResultView = {
    kind: 'compare',
    id: args.id,
    title,
    createdAt: args.now,
    left,
    right,
    claims,
    differences,
    summary: { kind: 'compare', title, line, createdAt: args.now, canRunAgain: false },
  };
  if (args.environment) {
    view.environment = environmentView(args.environment);
    view.summary.environmentId = args.environment.id;
    view.summary.environmentName = args.environment.name;
  }
  return view;
}

function maskedKidRow(row: ClaimDiffView, left: unknown, right: unknown): ClaimDiffView {
  const masked = { ...row };
  if (row.left !== undefined) masked.left = json(maskKeyId(left));
  if (row.right !== undefined) masked.right = json(maskKeyId(right));
  return masked;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
