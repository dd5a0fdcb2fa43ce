import * as l10n from '@vscode/l10n';
import type { KeyObject } from 'node:crypto';

/** The three credential types of spec 5.2. */
export type CredentialType = 'external-org' | 'iam' | 'service-account';

export const CREDENTIAL_TYPES: readonly CredentialType[] = ['external-org', 'iam', 'service-account'];

/** Human names, as users read them in pickers and messages. */
export const CREDENTIAL_TYPE_LABELS: Readonly<Record<CredentialType, string>> = {
  // Getters, so that each read is translated with the bundle configured by then, not at load.
  get 'external-org'() {
    return l10n.t('External Organization');
  },
  get iam() {
    return l10n.t('IAM (deprecated)');
  },
  get 'service-account'() {
    return l10n.t('Service account (deprecated)');
  },
};

export type SigningAlgorithm = 'ES256' | 'RS256';

/** Which algorithm each type signs with (spec 5.4, 5.5, 5.6). */
export const ALGORITHM_OF: Record<CredentialType, SigningAlgorithm> = {
  'external-org': 'ES256',
  iam: 'ES256',
  'service-account': 'RS256',
};

/** IAM and service-account credentials are deprecated and accepted by the MDS Provider API only. */
export const DEPRECATED_TYPES: ReadonlySet<CredentialType> = new Set(['iam', 'service-account']);

/**
 * The e-mail domains that identify each credential type (spec 5.2). The real domains are not
 * known to us: they come from configuration (settings, CLI flags). Lists may be empty.
 */
export interface IssuerDomains {
  'external-org': string[];
  iam: string[];
  'service-account': string[];
}

export const NO_DOMAINS: IssuerDomains = { 'external-org': [], iam: [], 'service-account': [] };

/** The ten fields of a service-account key file (spec 5.6). */
export interface ServiceAccountKeyFile {
  type: string;
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
}

/** What a user provides for an ES256 credential: key text (PEM or JWK JSON), key id, issuer e-mail. */
export interface EcCredentialInput {
  kind: 'ec';
  /** The type the user states; may be omitted when the issuer's domain is configured. */
  type?: 'external-org' | 'iam';
  privateKey: string;
  kid: string;
  issuer: string;
}

/** What a user provides for a service account: the key file's text. */
export interface ServiceAccountCredentialInput {
  kind: 'service-account';
  keyFile: string;
}

export type CredentialInput = EcCredentialInput | ServiceAccountCredentialInput;

/** A validated credential, ready to sign. Holds key material: never log or serialise it. */
export interface Credential {
  type: CredentialType;
  alg: SigningAlgorithm;
  kid: string;
  /** `iss` claim: the issuer e-mail, or the key file's `client_email`. */
  issuer: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface ParsedCredential {
  credential: Credential;
  /** Non-fatal notes for the user, e.g. that the type is deprecated. */
  warnings: string[];
}
