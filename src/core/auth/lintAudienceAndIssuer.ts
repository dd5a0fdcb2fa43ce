// Who a token is from and for, checked by the linter: the credential type (from the stored credential or the
// issuer's domain), "aud" against the configured environments (spec 5.3), "iss" (5.2, 5.4) and a service
// account's "sub" and "email" (5.6).
import * as l10n from '@vscode/l10n';
import type { CredentialType } from './credential';
import { CREDENTIAL_TYPE_LABELS, CREDENTIAL_TYPES } from './credential';
import { jsonTypeOf, ownValue } from './decodeJwt';
import { withoutTrailingSlashes } from '../environment';
import { domainOf, typeOfIssuer } from './issuerDomain';
import type { LintAdd as Add, LintContext } from './lintFinding';
import { truncate } from './lintFinding';
import { audienceMatches } from './tokenRules';

export interface ResolvedType {
  type?: CredentialType;
  /** Where the type came from, for messages. */
  source?: 'credential' | 'issuer';
  /** The type the issuer's domain says, when domains are configured and it differs or is alone. */
  fromIssuer?: CredentialType;
}

export function resolveType(iss: string | undefined, context: LintContext): ResolvedType {
  const fromIssuer = iss !== undefined && context.domains ? typeOfIssuer(iss, context.domains) : undefined;
  if (context.credentialType) return { type: context.credentialType, source: 'credential', fromIssuer };
  if (fromIssuer) return { type: fromIssuer, source: 'issuer', fromIssuer };
  return {};
}

export function lintAudience(aud: unknown, known: string[] | undefined, add: Add): void {
  if (aud === undefined) {
    add(
      'aud-missing',
      'error',
      '5.3',
      l10n.t('The token has no "aud". Set it to the base URL of the environment that receives the request.'),
    );
    return;
  }
  const list = Array.isArray(aud) ? (aud as unknown[]) : [aud];
  if (list.length === 0) {
    add(
      'aud-missing',
      'error',
      '5.3',
      l10n.t('"aud" is an empty list. It must hold the base URL of the environment that receives the request.'),
    );
    return;
  }
  const strings = list.filter((a): a is string => typeof a === 'string');
  if (strings.length !== list.length) {
    add(
      'claim-wrong-type',
      'error',
      '5.3',
      l10n.t(
        '"aud" is {0}; it must be a string or a list of strings holding the environment\'s base URL.',
        Array.isArray(aud) ? 'a list with values that are not strings' : jsonTypeOf(aud),
      ),
    );
    return;
  }
  if (!known || known.length === 0) return;
  if (known.some((k) => audienceMatches(strings, k))) return;

  for (const a of strings) {
    for (const k of known) {
      const difference = nearMiss(a, k);
      if (difference) {
        add(
          'aud-near-miss',
          'error',
          '5.3',
          l10n.t(
            '"aud" is "{0}", which nearly matches the environment base URL "{1}" but {2}. The audience must equal the base URL exactly.',
            truncate(a),
            k,
            difference,
          ),
        );
        return;
      }
    }
  }
  const shown = strings
    .slice(0, 3)
    .map((a) => `"${truncate(a)}"`)
    .join(', ');
  add(
    'aud-unknown',
    'error',
    '5.3',
    l10n.t(
      '"aud" ({0}) matches none of the configured environments\' base URLs ({1}). Set it to the base URL of the environment that receives the request.',
      shown,
      known.map((k) => `"${k}"`).join(', '),
    ),
  );
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
  if (trailing(a) !== trailing(b))
    differences.push(
      trailing(a) ? 'ends in a slash the base URL does not have' : "lacks the base URL's trailing slash",
    );
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
    return [
      ...differences,
      `goes on with a path ("${truncate(a.slice(b.length))}"): use the base URL, not a request URL`,
    ].join(' and ');
  }
  return undefined;
}

export function lintIssuer(iss: unknown, context: LintContext, type: ResolvedType, add: Add): void {
  if (iss === undefined) {
    add(
      'iss-missing',
      'error',
      '5.4',
      l10n.t(
        'The token has no "iss". Set it to the e-mail address delivered with the credentials (for a service account: the key file\'s client_email).',
      ),
    );
    return;
  }
  if (typeof iss !== 'string') {
    add(
      'claim-wrong-type',
      'error',
      '5.4',
      l10n.t('"iss" is {0}; it must be a string: the e-mail address delivered with the credentials.', jsonTypeOf(iss)),
    );
    return;
  }
  if (!isEmail(iss)) {
    add(
      'iss-not-email',
      'error',
      '5.2',
      l10n.t(
        '"iss" is "{0}", which is not an e-mail address. It must be the e-mail delivered with the credentials; its domain tells the credential type.',
        truncate(iss),
      ),
    );
    return;
  }
  const domains = context.domains;
  const configured = domains !== undefined && CREDENTIAL_TYPES.some((t) => domains[t].some((d) => d.trim() !== ''));
  const domain = domainOf(iss) ?? '';
  if (!configured) {
    if (!context.credentialType) {
      add(
        'iss-type-undetermined',
        'info',
        '5.2',
        l10n.t(
          'The credential type could not be told from the issuer\'s domain "{0}" because no credential-type domains are configured; type-specific checks were skipped. Configure the domains to get them.',
          domain,
        ),
      );
    }
    return;
  }
  if (!type.fromIssuer) {
    add(
      'iss-domain-unknown',
      'warning',
      '5.2',
      l10n.t(
        'The issuer\'s domain "{0}" is none of the configured credential-type domains. The type is told by this domain, so check "iss" against the e-mail delivered with the credentials (or the configured domains).',
        domain,
      ),
    );
  } else if (type.source === 'credential' && type.type && type.fromIssuer !== type.type) {
    add(
      'iss-type-mismatch',
      'warning',
      '5.2',
      l10n.t(
        'The issuer\'s domain "{0}" belongs to {1} credentials, but the stored credential with this kid is {2}. Use the e-mail delivered with that credential as "iss".',
        domain,
        CREDENTIAL_TYPE_LABELS[type.fromIssuer],
        CREDENTIAL_TYPE_LABELS[type.type],
      ),
    );
  }
}

function isEmail(s: string): boolean {
  if (s.length > 320 || /\s/.test(s)) return false;
  const at = s.lastIndexOf('@');
  return at > 0 && at < s.length - 1 && s.indexOf('@') === at;
}

export function lintServiceAccount(payload: Record<string, unknown>, iss: string | undefined, add: Add): void {
  if (iss === undefined) return; // already reported
  for (const [name, id] of [
    ['sub', 'sub-not-issuer'],
    ['email', 'email-not-issuer'],
  ] as const) {
    const v = ownValue(payload, name);
    if (v === iss) continue;
    const found =
      v === undefined ? 'is missing' : typeof v === 'string' ? `is "${truncate(v)}"` : `is ${jsonTypeOf(v)}`;
    add(
      id,
      'error',
      '5.6',
      l10n.t(
        '"{0}" {1}; for a service account it must equal "iss", the key file\'s client_email ("{2}").',
        name,
        found,
        truncate(iss),
      ),
    );
  }
}
