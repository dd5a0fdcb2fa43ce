// A credential from CI's environment variables: `test` and `mcp` read the key file, key id, issuer and type from
// MOBILITY_API_* when no credential flag is given, so that no secret stands on a command line.
import { MobilityError } from '../../core/base';
import type { CredentialValues } from './options';

/** The environment variables a CI job gives the credential in, so that no secret stands on a command line. */
export const CREDENTIAL_VARIABLES = {
  keyFile: 'MOBILITY_API_KEY_FILE',
  keyId: 'MOBILITY_API_KEY_ID',
  issuer: 'MOBILITY_API_ISSUER',
  type: 'MOBILITY_API_CREDENTIAL_TYPE',
} as const;

/** The names a credential from the environment variables is told by in its errors. */
export const ENV_SOURCES = {
  privateKey: CREDENTIAL_VARIABLES.keyFile,
  kid: `${CREDENTIAL_VARIABLES.keyId} (or --kid)`,
  iss: `${CREDENTIAL_VARIABLES.issuer} (or --iss)`,
  type: CREDENTIAL_VARIABLES.type,
};

/**
 * The credential flags, or else the environment variables (`MOBILITY_API_KEY_FILE`: a PEM or JWK private key, or a
 * service account's key file; `MOBILITY_API_KEY_ID`, `MOBILITY_API_ISSUER`, `MOBILITY_API_CREDENTIAL_TYPE`).
 */
export function credentialValues(values: CredentialValues, env: NodeJS.ProcessEnv): CredentialValues {
  if (values['private-key'] !== undefined || values['key-file'] !== undefined || values.credential !== undefined)
    return values;
  const keyFile = env[CREDENTIAL_VARIABLES.keyFile];
  if (!keyFile) {
    throw new MobilityError(
      'USAGE',
      `Give a credential: --private-key <file> with --kid and --iss, --key-file <service-account.json> or --credential <demo-credential.json>; or, in CI, the variables ${CREDENTIAL_VARIABLES.keyFile} (the key file), ${CREDENTIAL_VARIABLES.keyId}, ${CREDENTIAL_VARIABLES.issuer} and ${CREDENTIAL_VARIABLES.type}.`,
    );
  }
  return {
    ...values,
    'private-key': keyFile,
    kid: values.kid ?? env[CREDENTIAL_VARIABLES.keyId],
    iss: values.iss ?? env[CREDENTIAL_VARIABLES.issuer],
    type: values.type ?? env[CREDENTIAL_VARIABLES.type],
  };
}
