/**
 * The authentication rules the sandbox enforces, one stable id each. Clients, tests and docs match
 * on these ids (they appear as `rule: <id>` in every 401 body), so ids are never renamed.
 */
export type AuthRuleId =
  | 'missing_bearer'
  | 'malformed_token'
  | 'kid_missing'
  | 'unknown_kid'
  | 'alg_not_allowed'
  | 'bad_signature'
  | 'iss_mismatch'
  | 'type_not_allowed_for_api'
  | 'sub_email_mismatch'
  | 'aud_mismatch'
  | 'exp_missing'
  | 'iat_missing'
  | 'lifetime_out_of_range'
  | 'expired'
  | 'iat_in_future'
  | 'nbf_in_future'
  | 'jti_missing'
  | 'jti_not_uuid'
  | 'jti_not_random'
  | 'jti_replayed'
  | 'iat_not_increasing';

/** What a rule demands and where the spec (`auth-and-access.md`) says so. */
export interface AuthRule {
  id: AuthRuleId;
  /** Section of the authentication spec, e.g. `5.1 rule 4`. */
  spec: string;
  /** The requirement in one sentence, as a user reads it in the 401 body. */
  message: string;
}

/** Every rule in the order the verifier checks them. */
export const AUTH_RULES: Readonly<Record<AuthRuleId, AuthRule>> = {
  missing_bearer: {
    id: 'missing_bearer',
    spec: '5.1 rule 3',
    message: 'Every request must carry the header "Authorization: Bearer <JWT>".',
  },
  malformed_token: {
    id: 'malformed_token',
    spec: '5.1 rule 2',
    message:
      'The bearer token must be a compact JWS (three base64url parts) whose header and payload are JSON objects.',
  },
  kid_missing: {
    id: 'kid_missing',
    spec: '5.4',
    message: 'The token header must carry "kid", the key identifier provisioned with the credentials.',
  },
  unknown_kid: { id: 'unknown_kid', spec: '5.4', message: 'The header "kid" must name a key this server trusts.' },
  alg_not_allowed: {
    id: 'alg_not_allowed',
    spec: '5.4, 5.5, 5.6',
    message:
      'The header "alg" must be the algorithm of the credential type: ES256 for External Organization and IAM keys, RS256 for service accounts.',
  },
  bad_signature: {
    id: 'bad_signature',
    spec: '5.1 rule 2',
    message: 'The signature must verify with the public key registered for the "kid".',
  },
  iss_mismatch: {
    id: 'iss_mismatch',
    spec: '5.4, 5.5, 5.6',
    message: 'The "iss" claim must be the issuer e-mail registered with the key.',
  },
  type_not_allowed_for_api: {
    id: 'type_not_allowed_for_api',
    spec: '5.5, 5.6',
    message:
      'IAM and service-account credentials are accepted by the MDS Provider API only; the MaaS API needs an External Organization credential.',
  },
  sub_email_mismatch: {
    id: 'sub_email_mismatch',
    spec: '5.6',
    message: 'A service-account token must carry "sub" and "email" equal to "iss" (the key file\'s client_email).',
  },
  aud_mismatch: {
    id: 'aud_mismatch',
    spec: '5.3',
    message: 'The "aud" claim must be the base URL of the environment receiving the request, as a string or in a list.',
  },
  exp_missing: {
    id: 'exp_missing',
    spec: '5.1 rule 5',
    message: 'The token must carry "exp" as a NumericDate (seconds since the epoch).',
  },
  iat_missing: {
    id: 'iat_missing',
    spec: '5.1 rule 6',
    message: 'The token must carry "iat" as a NumericDate: it is the timestamp that orders tokens on one key.',
  },
  lifetime_out_of_range: {
    id: 'lifetime_out_of_range',
    spec: '5.1 rule 5',
    message: 'The lifetime exp - iat must be between 60 and 3600 seconds.',
  },
  expired: {
    id: 'expired',
    spec: '5.1 rule 5',
    message: 'The token must not have expired: "exp" must be later than the server time.',
  },
  iat_in_future: {
    id: 'iat_in_future',
    spec: '5.1 rule 6',
    message: 'The "iat" claim must not lie in the future beyond the allowed clock skew.',
  },
  nbf_in_future: {
    id: 'nbf_in_future',
    spec: 'RFC 7519 4.1.5',
    message:
      'A token must not be accepted before its "nbf" (not before) time; "nbf", when present, must be a NumericDate not later than the server time beyond the allowed clock skew.',
  },
  jti_missing: { id: 'jti_missing', spec: '5.1 rule 7', message: 'The token must carry a "jti" claim.' },
  jti_not_uuid: {
    id: 'jti_not_uuid',
    spec: '5.1 rule 7',
    message: 'The "jti" claim must be a UUID (8-4-4-4-12 hex digits), new for each token.',
  },
  jti_not_random: {
    id: 'jti_not_random',
    spec: '5.1 rule 7',
    message:
      'The "jti" claim must be a random UUID (version 4, RFC 9562 4.4), such as crypto.randomUUID() gives; the nil UUID and time- or name-based UUIDs are not random.',
  },
  jti_replayed: {
    id: 'jti_replayed',
    spec: '5.1 rule 4',
    message: 'Each request needs a newly generated token: this "jti" was already accepted.',
  },
  iat_not_increasing: {
    id: 'iat_not_increasing',
    spec: '5.1 rule 6',
    message:
      'Each token on a key must carry an "iat" strictly later than that of every token accepted before on that key.',
  },
};

/** The rule ids in checking order. */
export const AUTH_RULE_IDS: readonly AuthRuleId[] = Object.keys(AUTH_RULES) as AuthRuleId[];
