import * as l10n from '@vscode/l10n';
import type { AuthRuleId } from './authRules';
import type { CredentialType, SigningAlgorithm } from './credential';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES } from './credential';
import type { DecodedToken } from './decodeJwt';
import { jsonTypeOf, ownValue } from './decodeJwt';
import { withArticle } from '../base';
import type { LintAdd as Add, LintContext, LintFinding, LintId, LintSeverity } from './lintFinding';
import { truncate } from './lintFinding';
import type { ResolvedType } from './lintAudienceAndIssuer';
import { lintAudience, lintIssuer, lintServiceAccount, resolveType } from './lintAudienceAndIssuer';
import { lintTimes } from './lintTimeClaims';
import { checkKid, expectedAlgorithm, isRandomUuid, isUuid } from './tokenRules';

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
    add(
      'base64url-padding',
      'error',
      'RFC 7515 2',
      l10n.t(
        'Parts written with "=" padding: {0}. A JWT (compact JWS) writes every part as base64url without padding (RFC 7515 section 2), and a server enforcing spec 5 refuses it as malformed_token. Encode the parts without "=" and sign that text.',
        token.paddedParts.join(', '),
      ),
    );
  }
  for (const duplicate of token.duplicateMembers ?? []) lintDuplicate(duplicate, add);
  lintAlgorithm(String(ownValue(header, 'alg')), token.signaturePresent, type, add);
  lintKid(header, section, add);
  lintJti(ownValue(payload, 'jti'), add);
  const writtenClaims = new Map(
    (token.writtenNumbers ?? [])
      .filter((n) => n.part === 'payload' && n.path.length === 1)
      .map((n) => [String(n.path[0]), n.text]),
  );
  lintTimes(payload, context.now, add, writtenClaims);
  lintAudience(ownValue(payload, 'aud'), context.knownAudiences, add);
  lintIssuer(iss, context, type, add);

  if (type.type && DEPRECATED_TYPES.has(type.type)) {
    add(
      'type-deprecated',
      'info',
      '5.2',
      l10n.t(
        '{0} credentials are deprecated, are not issued to new consumers, and work with the MDS Provider API only (not the MaaS API). Move to an External Organization credential when you can.',
        CREDENTIAL_TYPE_LABELS[type.type],
      ),
    );
  }
  if (type.type === 'service-account') lintServiceAccount(payload, issuerText, add);

  const order: Record<LintSeverity, number> = { error: 0, warning: 1, info: 2 };
  return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

function lintAlgorithm(alg: string, signaturePresent: boolean, type: ResolvedType, add: Add): void {
  if (alg.toLowerCase() === 'none') {
    add(
      'alg-none',
      'error',
      '5.1 rule 2',
      l10n.t(
        'The header says "alg": "{0}", an unsigned token. Every token must be signed with the provisioned private key (ES256, or RS256 for a service account).',
        alg,
      ),
    );
    return;
  }
  if (/^HS\d+$/i.test(alg)) {
    add(
      'alg-hmac',
      'error',
      '5.1 rule 2',
      l10n.t(
        'The header says "alg": "{0}", a shared-secret (HMAC) signature. The APIs accept only tokens signed with the provisioned private key: ES256, or RS256 for a service account.',
        alg,
      ),
    );
    return;
  }
  if (type.type) {
    const expected: SigningAlgorithm = expectedAlgorithm(type.type);
    if (alg !== expected) {
      const why =
        type.source === 'credential' ? 'the stored credential with this kid is' : "the issuer's domain makes this";
      add(
        'alg-wrong-for-type',
        'error',
        SECTION_OF[type.type],
        l10n.t(
          'The header says "alg": "{0}", but {1} {2} token, which must be signed with {3}.',
          alg,
          why,
          withArticle(CREDENTIAL_TYPE_LABELS[type.type]),
          expected,
        ),
      );
    }
  } else if (alg !== 'ES256' && alg !== 'RS256') {
    add(
      'alg-not-allowed',
      'error',
      '5.4',
      l10n.t(
        'The header says "alg": "{0}". The APIs use only ES256 (External Organization and IAM) and RS256 (service account).',
        alg,
      ),
    );
  }
  if (!signaturePresent) {
    add(
      'signature-missing',
      'error',
      '5.1 rule 2',
      l10n.t('The token has no signature (nothing after the second dot). Send the whole signed token.'),
    );
  }
}

function lintKid(header: Record<string, unknown>, section: string, add: Add): void {
  const kid = ownValue(header, 'kid');
  // The engine decides whether the rule is broken; the wording here tells which way.
  const broken = checkKid(header) !== undefined;
  if (broken && kid === undefined) {
    add(
      'kid-missing',
      'error',
      section,
      l10n.t(
        'The header has no "kid". Set it to the key identifier provisioned with the credentials (for a service account: the key file\'s private_key_id).',
      ),
    );
  } else if (typeof kid !== 'string') {
    add(
      'claim-wrong-type',
      'error',
      section,
      l10n.t('The header\'s "kid" is {0}; it must be a string: the provisioned key identifier.', jsonTypeOf(kid)),
    );
  } else if (broken || kid.trim() === '') {
    add(
      'kid-missing',
      'error',
      section,
      l10n.t('The header\'s "kid" is empty. Set it to the key identifier provisioned with the credentials.'),
    );
  }
}

function lintJti(jti: unknown, add: Add): void {
  if (jti === undefined) {
    add(
      'jti-missing',
      'error',
      '5.1 rule 7',
      l10n.t('The token has no "jti". Each token must carry a random UUID in "jti", new for every token.'),
    );
  } else if (typeof jti !== 'string') {
    add(
      'claim-wrong-type',
      'error',
      '5.1 rule 7',
      l10n.t('"jti" is {0}; it must be a string holding a random UUID.', jsonTypeOf(jti)),
    );
  } else if (!isUuid(jti)) {
    add(
      'jti-not-uuid',
      'error',
      '5.1 rule 7',
      l10n.t(
        '"jti" is not a UUID ("{0}"). It must be a random UUID such as crypto.randomUUID() makes, new for every token.',
        truncate(jti),
      ),
    );
  } else if (!isRandomUuid(jti)) {
    add(
      'jti-not-v4',
      'info',
      '5.1 rule 7',
      l10n.t(
        '"jti" is a UUID but not a random (version 4) one. The spec asks for a random UUID; crypto.randomUUID() makes one.',
      ),
    );
  }
}

/** A member name written twice: JSON.parse (and so this view) keeps the last value; RFC 7515/7519 section 4 want it unique. */
function lintDuplicate(duplicate: NonNullable<DecodedToken['duplicateMembers']>[number], add: Add): void {
  const name = String(duplicate.path[duplicate.path.length - 1]);
  const inside = duplicate.path.slice(0, -1).map(String).join('.');
  const times = duplicate.count === 2 ? l10n.t('twice') : l10n.t('{0} times', duplicate.count);
  if (duplicate.part === 'header') {
    add(
      'duplicate-member',
      'error',
      'RFC 7515 4',
      inside
        ? l10n.t(
            'The header writes "{0}" {1} inside "{2}". Names in a JOSE header must be unique (RFC 7515 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.',
            name,
            times,
            inside,
          )
        : l10n.t(
            'The header writes "{0}" {1}. Header parameter names must be unique (RFC 7515 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.',
            name,
            times,
          ),
    );
  } else {
    add(
      'duplicate-member',
      'error',
      'RFC 7519 4',
      inside
        ? l10n.t(
            'The payload writes "{0}" {1} inside "{2}". Names in the claims must be unique (RFC 7519 section 4): a server may refuse the token, or read only the last value, as shown here. Write each name once.',
            name,
            times,
            inside,
          )
        : l10n.t(
            'The payload writes the claim "{0}" {1}. Claim names must be unique (RFC 7519 section 4): a server may refuse the token, or read only the last value, as shown here. Write each claim once.',
            name,
            times,
          ),
    );
  }
}
