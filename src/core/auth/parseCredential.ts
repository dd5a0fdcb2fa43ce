import * as l10n from '@vscode/l10n';
import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { ALGORITHM_OF, CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES, NO_DOMAINS } from './credential';
import type {
  Credential,
  CredentialInput,
  CredentialType,
  EcCredentialInput,
  IssuerDomains,
  ParsedCredential,
  ServiceAccountCredentialInput,
  ServiceAccountKeyFile,
  SigningAlgorithm,
} from './credential';
import type { ApiKind } from '../environment';
import { API_LABELS } from '../environment';
import { MobilityError, isMobilityError, withArticle } from '../base';
import { domainOf, typeOfIssuer } from './issuerDomain';
import { parsePrivateKey } from './privateKey';
import { checkKeyTextSize } from './keyText';
import { isRecord } from '../../shared/isRecord';

/** The ten fields of a service-account key file, in the order of spec 5.6. */
const KEY_FILE_FIELDS: readonly (keyof ServiceAccountKeyFile)[] = [
  'type',
  'project_id',
  'private_key_id',
  'private_key',
  'client_email',
  'client_id',
  'auth_uri',
  'token_uri',
  'auth_provider_x509_cert_url',
  'client_x509_cert_url',
];

/** `local@domain`, the domain made of host-name labels. */
const ISSUER_PATTERN = /^[^@\s]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;

/** What may be shown in logs and UI about a credential: no key material. */
export interface CredentialSummary {
  type: CredentialType;
  alg: SigningAlgorithm;
  kid: string;
  issuer: string;
}

/**
 * Validates what a user entered and turns it into a credential ready to sign with. The type comes
 * from the issuer's e-mail domain when `options.domains` lists it (spec 5.2), otherwise from the
 * type the user stated. Deprecated types (IAM, service account) are accepted with a warning.
 * Throws a {@link MobilityError} that says what to fix; messages never contain key material.
 */
export function parseCredential(input: CredentialInput, options: { domains?: IssuerDomains } = {}): ParsedCredential {
  const domains = options.domains ?? NO_DOMAINS;
  const { type, kid, issuer, privateKey, warnings } =
    input.kind === 'service-account' ? readServiceAccount(input, domains) : readEcCredential(input, domains);
  const credential: Credential = {
    type,
    alg: ALGORITHM_OF[type],
    kid,
    issuer,
    privateKey,
    publicKey: createPublicKey(privateKey),
  };
  if (DEPRECATED_TYPES.has(type)) {
    warnings.push(
      `${CREDENTIAL_TYPE_LABELS[type]}: this credential type is deprecated and no longer issued to new consumers, and it works with the MDS Provider API only. Move to an External Organization credential when you can.`,
    );
  }
  return { credential, warnings };
}

interface CredentialParts {
  type: CredentialType;
  kid: string;
  issuer: string;
  privateKey: KeyObject;
  warnings: string[];
}

function readEcCredential(input: EcCredentialInput, domains: IssuerDomains): CredentialParts {
  const kid = typeof input.kid === 'string' ? input.kid.trim() : '';
  if (kid === '') {
    throw new MobilityError(
      'KID_MISSING',
      l10n.t('The key ID (kid) is empty. Enter the key identifier delivered with the credentials.'),
    );
  }
  const issuer = typeof input.issuer === 'string' ? input.issuer.trim() : '';
  if (!ISSUER_PATTERN.test(issuer)) {
    const shown = issuer === '' ? 'The issuer is empty' : `The issuer "${shortened(issuer)}" is not an e-mail address`;
    throw new MobilityError(
      'ISSUER_INVALID',
      l10n.t(
        '{0}. Enter the e-mail delivered with the credentials, in the form <organization-id>@<your-domain>.',
        shown,
      ),
    );
  }
  const type = resolveEcType(issuer, input.type, domains);
  return { type, kid, issuer, privateKey: parsePrivateKey(input.privateKey, 'ES256'), warnings: [] };
}

function resolveEcType(issuer: string, stated: EcCredentialInput['type'], domains: IssuerDomains): CredentialType {
  const domain = domainOf(issuer) ?? '';
  const configured = typeOfIssuer(issuer, domains);
  if (stated !== undefined && stated !== 'external-org' && stated !== 'iam') {
    throw new MobilityError(
      'CREDENTIAL_TYPE_MISMATCH',
      l10n.t(
        'A key with key ID and issuer is an External Organization or IAM credential, not "{0}". Load a service-account credential as its key file instead.',
        String(stated),
      ),
    );
  }
  if (configured === 'service-account') {
    throw new MobilityError(
      'CREDENTIAL_TYPE_MISMATCH',
      l10n.t(
        'The issuer\'s domain "{0}" is configured for service accounts, which sign with the RSA key of a key file. Load the service-account key file instead, or correct the issuer or the issuer-domain configuration.',
        domain,
      ),
    );
  }
  if (configured !== undefined && stated !== undefined && configured !== stated) {
    throw new MobilityError(
      'CREDENTIAL_TYPE_MISMATCH',
      l10n.t(
        'You chose {0}, but the issuer\'s domain "{1}" is configured for {2}. Choose {3}, or correct the issuer or the issuer-domain configuration.',
        CREDENTIAL_TYPE_LABELS[stated],
        domain,
        CREDENTIAL_TYPE_LABELS[configured],
        CREDENTIAL_TYPE_LABELS[configured],
      ),
    );
  }
  const type = configured ?? stated;
  if (type === undefined) {
    throw new MobilityError(
      'CREDENTIAL_TYPE_UNKNOWN',
      l10n.t(
        'The issuer\'s domain "{0}" is not in the issuer-domain configuration, so the credential type is unknown. State the type (External Organization or IAM), or add the domain to the issuer-domain configuration.',
        domain,
      ),
    );
  }
  return type;
}

function readServiceAccount(input: ServiceAccountCredentialInput, domains: IssuerDomains): CredentialParts {
  const file = readKeyFile(typeof input.keyFile === 'string' ? input.keyFile : '');
  const problems = KEY_FILE_FIELDS.flatMap((field) => {
    const found = describeFieldProblem(file, field);
    return found === undefined ? [] : [`"${field}" is ${found}`];
  });
  if (problems.length > 0) {
    throw new MobilityError(
      'KEY_FILE_INVALID',
      l10n.t(
        'The service-account key file is incomplete: {0}. Use the key file exactly as it was downloaded.',
        problems.join(', '),
      ),
    );
  }
  const field = (name: keyof ServiceAccountKeyFile): string => (file[name] as string).trim();
  const issuer = field('client_email');
  if (!ISSUER_PATTERN.test(issuer)) {
    throw new MobilityError(
      'KEY_FILE_INVALID',
      l10n.t(
        'The key file\'s "client_email" ("{0}") is not an e-mail address. Use the key file exactly as it was downloaded.',
        shortened(issuer),
      ),
    );
  }
  const configured = typeOfIssuer(issuer, domains);
  if (configured !== undefined && configured !== 'service-account') {
    throw new MobilityError(
      'CREDENTIAL_TYPE_MISMATCH',
      l10n.t(
        'The key file\'s client_email domain "{0}" is configured for {1}, not for service accounts. Enter that credential as a key with its key ID and issuer, or correct the issuer-domain configuration.',
        domainOf(issuer) ?? '',
        CREDENTIAL_TYPE_LABELS[configured],
      ),
    );
  }
  const warnings: string[] = [];
  if (field('type') !== 'service_account') {
    warnings.push(
      `The key file's "type" is "${shortened(field('type'))}", not "service_account"; check that this is a service-account key file.`,
    );
  }
  return {
    type: 'service-account',
    kid: field('private_key_id'),
    issuer,
    privateKey: keyFilePrivateKey(file.private_key as string),
    warnings,
  };
}

/** Parses key-file text into a plain object; JSON.parse's own message is not passed on because it can quote the key. */
function readKeyFile(text: string): Record<string, unknown> {
  checkKeyTextSize(text, 'KEY_FILE_INVALID', l10n.t('a service-account key file'));
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') {
    throw new MobilityError(
      'KEY_FILE_INVALID',
      l10n.t('The service-account key file is empty. Load the JSON key file downloaded for the service account.'),
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
    // A key file pasted as a JSON string value (quoted, with escaped quotes) is still the key file.
    if (typeof value === 'string' && value.trim().startsWith('{')) value = JSON.parse(value);
  } catch (err) {
    throw new MobilityError(
      'KEY_FILE_INVALID',
      l10n.t(
        'The service-account key file is not valid JSON{0}. Load the key file exactly as it was downloaded.',
        jsonErrorLocation(err, trimmed),
      ),
    );
  }
  if (!isRecord(value)) {
    const found = value === null ? 'null' : Array.isArray(value) ? 'a list' : withArticle(typeof value);
    throw new MobilityError(
      'KEY_FILE_INVALID',
      l10n.t(
        'The service-account key file must be a JSON object, but it is {0}. Load the JSON key file downloaded for the service account.',
        found,
      ),
    );
  }
  return value;
}

function jsonErrorLocation(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  if (/end of (JSON )?input|Unterminated/i.test(message) && !/position \d+/.test(message))
    return ' (the text ends early: it looks truncated)';
  const match = /position (\d+)/.exec(message);
  if (!match) return '';
  const position = Number(match[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return ` (error at line ${line}, column ${column})`;
}

function describeFieldProblem(file: Record<string, unknown>, field: string): string | undefined {
  if (!Object.hasOwn(file, field)) return 'missing';
  const value = file[field];
  if (typeof value === 'string') return value.trim() === '' ? 'empty' : undefined;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return withArticle(typeof value);
}

function keyFilePrivateKey(text: string): KeyObject {
  try {
    return parsePrivateKey(text, 'RS256');
  } catch (err) {
    if (isMobilityError(err) && err.code === 'KEY_WRONG_TYPE') {
      throw new MobilityError(
        'KEY_WRONG_TYPE',
        l10n.t(
          "The key file's private_key is not an RSA key, but service-account key files hold RSA keys that sign with RS256. If this is an External Organization or IAM key, enter it with its key ID and issuer instead.",
        ),
        { cause: err },
      );
    }
    if (isMobilityError(err)) {
      throw new MobilityError(err.code, l10n.t("In the key file's private_key: {0}", err.message), { cause: err });
    }
    throw err;
  }
}

function shortened(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * True when the text has the shape of a service-account key file (a JSON object with
 * `private_key` and `client_email`), so that one input can take "a key or a key file".
 */
export function looksLikeServiceAccountKeyFile(text: string): boolean {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('"')) return false;
  try {
    const file = readKeyFile(text);
    return Object.hasOwn(file, 'private_key') && Object.hasOwn(file, 'client_email');
  } catch {
    return false;
  }
}

/**
 * Refuses a credential the API does not accept: IAM and service-account credentials work with the
 * MDS Provider API only (spec 5.5, 5.6).
 */
export function assertCredentialForApi(credential: Credential, api: ApiKind): void {
  if (api === 'maas' && DEPRECATED_TYPES.has(credential.type)) {
    throw new MobilityError(
      'CREDENTIAL_NOT_FOR_API',
      l10n.t(
        '{0} credentials work with the {1} only, not the {2}. Use an External Organization credential for this environment.',
        CREDENTIAL_TYPE_LABELS[credential.type],
        API_LABELS.mds,
        API_LABELS.maas,
      ),
    );
  }
}

/** The safe summary of a credential for logs and UI: type, algorithm, key ID and issuer, no key material. */
export function describeCredential(c: Credential): CredentialSummary {
  return { type: c.type, alg: c.alg, kid: c.kid, issuer: c.issuer };
}
