// auth: credentials and keys (the three credential types, PEM/JWK/key-file parsing), claims, signing a fresh token
// with jose, decoding and linting tokens, verifying signatures, and the one rule engine of spec 5 shared by the lint,
// the sandbox and the refusal doctor. Imports `base`, `environment` and `clock` only: no transport (http, grpc),
// no MDS, never `vscode`.

export { AUTH_RULES, AUTH_RULE_IDS } from './authRules';
export type { AuthRule, AuthRuleId } from './authRules';
export { ALGORITHM_OF, CREDENTIAL_TYPES, CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES, NO_DOMAINS } from './credential';
export type { Credential, CredentialInput, CredentialType, IssuerDomains, SigningAlgorithm } from './credential';
export { MAX_TOKEN_CHARS, decodeJwt, stripTokenText } from './decodeJwt';
export type { DecodedToken, TimeClaim } from './decodeJwt';
export { stringifyAsWritten } from './tokenJson';
export type { DuplicateMember, WrittenNumber } from './tokenJson';
export { findJwtAt, findJwts } from './findJwts';
export { lintToken } from './lintToken';
export type { LintFinding } from './lintFinding';
export { assertCredentialForApi, looksLikeServiceAccountKeyFile, parseCredential } from './parseCredential';
export { parsePrivateKey } from './privateKey';
export { parsePublicKey } from './publicKey';
export { DEFAULT_LIFETIME_SECONDS, buildClaims, checkLifetime } from './claims';
export { TokenIssuer } from './tokenIssuer';
export type { IssuedToken } from './tokenIssuer';
export {
  DEFAULT_MAX_SKEW_SECONDS,
  audienceMatches,
  checkAlgorithm,
  checkClaims,
  checkKid,
  checkPadding,
  checkToken,
  isNumericDate,
  showKeyId,
  showValue,
  typeAllowedForApi,
} from './tokenRules';
export type { RuleViolation } from './tokenRules';
export { verifyTokenSignature } from './verifySignature';
export type { SignatureCheck } from './verifySignature';
