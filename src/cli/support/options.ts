import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Credential, CredentialInput, IssuerDomains } from '../../core/auth';
import {
  assertCredentialForApi,
  looksLikeServiceAccountKeyFile,
  NO_DOMAINS,
  parseCredential,
  TokenIssuer,
} from '../../core/auth';
import { memoryLimitOf } from '../../core/analysis';
import { MDS_MODES } from '../../core/conformance';
import type { MdsMode } from '../../core/conformance';
import type { ApiKind, Environment, UserAuthorization } from '../../core/environment';
import { isMobilityError, MobilityError } from '../../core/base';
import type { FileClockStore, SharedKeyQueue } from '../../core/clock';
import { IssueClock, openSharedClock, stateDirOption } from '../../core/clock';
import { normaliseBaseUrl, takeUserAuthorization } from '../../core/environment';
import type { CliIo } from './cliIo';
import { readFile } from './inputFiles';

/** The options that name a credential and how its tokens are signed; every signing command takes them. */
export const CREDENTIAL_OPTIONS = {
  'private-key': { type: 'string' },
  kid: { type: 'string' },
  iss: { type: 'string' },
  type: { type: 'string' },
  'key-file': { type: 'string' },
  credential: { type: 'string' },
  'external-org-domain': { type: 'string', multiple: true },
  'iam-domain': { type: 'string', multiple: true },
  'service-account-domain': { type: 'string', multiple: true },
  lifetime: { type: 'string' },
  precision: { type: 'string' },
  'state-dir': { type: 'string' },
  'aud-list': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** What `parse` infers for CREDENTIAL_OPTIONS: the values the credential and clock helpers read. */
export type CredentialValues = {
  [K in keyof typeof CREDENTIAL_OPTIONS]?: (typeof CREDENTIAL_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof CREDENTIAL_OPTIONS)[K]['type'] extends 'boolean'
      ? boolean
      : string;
};

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** `parseArgs` with `--help`, strict, keeping its inferred value types. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  allowPositionals = false,
) {
  return parseArgs({ args, options: { ...options, ...HELP_OPTION }, allowPositionals, strict: true });
}

export function domainsFrom(
  values: Pick<CredentialValues, 'external-org-domain' | 'iam-domain' | 'service-account-domain'>,
  env: NodeJS.ProcessEnv,
): IssuerDomains {
  const list = (flag: 'external-org-domain' | 'iam-domain' | 'service-account-domain', variable: string) => [
    ...(values[flag] ?? []),
    ...(env[variable] ?? '')
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean),
  ];
  return {
    ...NO_DOMAINS,
    'external-org': list('external-org-domain', 'MOBILITY_API_EXTERNAL_ORG_DOMAINS'),
    iam: list('iam-domain', 'MOBILITY_API_IAM_DOMAINS'),
    'service-account': list('service-account-domain', 'MOBILITY_API_SERVICE_ACCOUNT_DOMAINS'),
  };
}

/** Where the parts of a key credential came from, as its errors name them: flags, or CI's environment variables. */
export interface CredentialSources {
  privateKey: string;
  kid: string;
  iss: string;
  type: string;
}

const FLAG_SOURCES: CredentialSources = { privateKey: '--private-key', kid: '--kid', iss: '--iss', type: '--type' };

/** The credential named by the flags (or by `sources`, such as environment variables), validated by the core. Warnings go to stderr. */
export function loadCredential(
  values: CredentialValues,
  io: CliIo,
  api?: ApiKind,
  sources: CredentialSources = FLAG_SOURCES,
): Credential {
  const domains = domainsFrom(values, io.env);
  const given = (['private-key', 'key-file', 'credential'] as const).filter((f) => values[f] !== undefined);
  if (given.length > 1)
    throw new MobilityError('USAGE', `Give one credential, not ${given.map((f) => `--${f}`).join(' and ')}.`);
  let input: CredentialInput;
  if (values['key-file'] !== undefined) {
    input = { kind: 'service-account', keyFile: readFile(values['key-file'], '--key-file') };
  } else if (values.credential !== undefined) {
    input = credentialFileInput(values.credential);
  } else if (values['private-key'] !== undefined) {
    const keyText = readFile(values['private-key'], sources.privateKey);
    if (looksLikeServiceAccountKeyFile(keyText)) {
      input = { kind: 'service-account', keyFile: keyText };
    } else {
      const type = values.type;
      if (type !== undefined && type !== 'external-org' && type !== 'iam') {
        throw new MobilityError(
          'USAGE',
          `${sources.type} must be external-org or iam, not "${type}" (a service account is given with --key-file).`,
        );
      }
      if (values.kid === undefined)
        throw new MobilityError(
          'USAGE',
          `${sources.privateKey} needs ${sources.kid} <key id>, the key identifier delivered with the credentials.`,
        );
      if (values.iss === undefined)
        throw new MobilityError(
          'USAGE',
          `${sources.privateKey} needs ${sources.iss} <email>, the e-mail address delivered with the credentials.`,
        );
      input = { kind: 'ec', type, privateKey: keyText, kid: values.kid, issuer: values.iss };
    }
  } else {
    throw new MobilityError(
      'USAGE',
      'Give a credential: --private-key <file> with --kid and --iss, or --key-file <service-account.json>, or --credential <demo-credential.json>.',
    );
  }
  let parsed: ReturnType<typeof parseCredential>;
  try {
    parsed = parseCredential(input, { domains });
  } catch (err) {
    // The core says "state the type"; here, how: the flag or the variable, or the domain options.
    if (isMobilityError(err) && err.code === 'CREDENTIAL_TYPE_UNKNOWN') {
      throw new MobilityError(
        'CREDENTIAL_TYPE_UNKNOWN',
        `${err.message} Here: ${sources.type} external-org or ${sources.type} iam${sources.type === '--type' ? ' (in CI, MOBILITY_API_CREDENTIAL_TYPE)' : ' (or --type)'}, or the domain with --external-org-domain / --iam-domain (MOBILITY_API_EXTERNAL_ORG_DOMAINS, MOBILITY_API_IAM_DOMAINS).`,
      );
    }
    throw err;
  }
  const { credential, warnings } = parsed;
  // A credential the API refuses is an error, not a warning followed by an error.
  if (api) assertCredentialForApi(credential, api);
  for (const w of warnings) io.err(`mobility-api: warning: ${w}`);
  return credential;
}

/** `demo-credential.json`: `{ type, kid, issuer, privateKeyFile }`, the key file relative to it. */
function credentialFileInput(file: string): CredentialInput {
  const text = readFile(file, '--credential');
  let data: { type?: unknown; kid?: unknown; issuer?: unknown; privateKeyFile?: unknown };
  try {
    data = JSON.parse(text) as typeof data;
  } catch (err) {
    throw new MobilityError('USAGE', `The --credential file ${file} is not JSON (${(err as Error).message}).`);
  }
  if (
    typeof data !== 'object' ||
    data === null ||
    typeof data.kid !== 'string' ||
    typeof data.issuer !== 'string' ||
    typeof data.privateKeyFile !== 'string'
  ) {
    throw new MobilityError(
      'USAGE',
      `The --credential file ${file} must hold "kid", "issuer" and "privateKeyFile", as the demo-credential.json that \`mobility-api sandbox\` writes.`,
    );
  }
  const type = data.type === 'iam' ? 'iam' : data.type === 'external-org' ? 'external-org' : undefined;
  const keyFile = path.resolve(path.dirname(file), data.privateKeyFile);
  return { kind: 'ec', type, kid: data.kid, issuer: data.issuer, privateKey: readFile(keyFile, 'private key') };
}

/** The issuer on the clock shared with every window and script (--state-dir), and the matching request queue. */
export function issuerFrom(
  values: CredentialValues,
  io: CliIo,
): { issuer: TokenIssuer; queue: SharedKeyQueue; store: FileClockStore } {
  const precision = values.precision ?? 'seconds';
  if (precision !== 'seconds' && precision !== 'milliseconds') {
    throw new MobilityError('USAGE', `--precision must be seconds or milliseconds, not "${precision}".`);
  }
  const shared = openSharedClock(stateDirOption(values['state-dir'], io.env), {
    onProblem: (m) => io.err(`mobility-api: warning: ${m}`),
  });
  const clock = new IssueClock({ precision, store: shared.store });
  return {
    issuer: new TokenIssuer({ clock, lifetimeSeconds: lifetimeFrom(values) }),
    queue: shared.queue,
    store: shared.store,
  };
}

function lifetimeFrom(values: CredentialValues): number | undefined {
  const text = values.lifetime;
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()))
    throw new MobilityError(
      'LIFETIME_OUT_OF_RANGE',
      `--lifetime must be a whole number of seconds from 60 to 3600, not "${text}".`,
    );
  return Number(text);
}

export function apiFrom(values: { api?: string }, required: boolean): ApiKind {
  const api = values.api;
  if (api === undefined && !required) return 'mds';
  if (api !== 'mds' && api !== 'maas')
    throw new MobilityError('USAGE', `--api must be mds or maas${api === undefined ? '' : `, not "${api}"`}.`);
  return api;
}

export function environmentFrom(
  baseUrl: string | undefined,
  flag: string,
  api: ApiKind,
  values: CredentialValues,
  headers: Record<string, string> = {},
): Environment {
  if (!baseUrl)
    throw new MobilityError(
      'USAGE',
      `${flag} <base-url> is required: the base address of the environment, which is also the token's audience (spec 5.3).`,
    );
  // Checked at once, named by its flag (a base URL with a password is refused without repeating it).
  normaliseBaseUrl(baseUrl, flag);
  return {
    id: 'cli',
    name: baseUrl,
    api,
    stage: 'custom',
    baseUrl,
    audienceAsList: values['aud-list'] === true,
    headers,
  };
}

export function parseHeaders(list: string[], api: ApiKind): Record<string, string> {
  // MDS 2.0 asks for its media type; without it a provider may answer with an older version.
  const headers: Record<string, string> = api === 'mds' ? { Accept: 'application/vnd.mds+json;version=2.0' } : {};
  for (const h of list) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new MobilityError('USAGE', `--header must look like 'Name: value', not "${h}".`);
    const name = h.slice(0, colon).trim();
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = h.slice(colon + 1).trim();
  }
  return headers;
}

/** `--header` and `--send-authorization-as-is`, the options of every command that sends a request. */
export const HEADER_OPTIONS = {
  header: { type: 'string', multiple: true },
  'send-authorization-as-is': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The `--header` values; an Authorization among them is refused unless `--send-authorization-as-is`
 * asks for it (the core's one rule, `takeUserAuthorization`). `--send-authorization-as-is` without one
 * is a usage error unless `elsewhere` (a request file) may hold it.
 */
export function userHeaders(
  values: { header?: string[]; 'send-authorization-as-is'?: boolean },
  api: ApiKind,
  elsewhere = false,
): UserAuthorization {
  const asIs = values['send-authorization-as-is'] === true;
  const taken = takeUserAuthorization(parseHeaders(values.header ?? [], api), { kind: 'cli' }, asIs);
  if (asIs && taken.authorization === undefined && !elsewhere) {
    throw new MobilityError(
      'USAGE',
      "--send-authorization-as-is sends an Authorization given with --header 'Authorization: <value>' as written; no such header was given.",
    );
  }
  return taken;
}

/** Says on stderr that the user's own Authorization goes out instead of a fresh token: never silently. */
export function noteOwnAuthorization(io: CliIo): void {
  io.err(
    'mobility-api: sending your own Authorization as written, not a fresh token; a server refuses a token it has seen before (spec 5.1 rule 4).',
  );
}

export function positiveNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new MobilityError('USAGE', `${flag} must be a positive number, not "${text}".`);
  return n;
}

export function wholeNumber(text: string, flag: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new MobilityError('USAGE', `${flag} must be a whole number from ${min} to ${max}, not "${text}".`);
  return n;
}

export function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = obj[k];
  return out;
}

/** `--mode`: which mode's schema items are checked against (MDS items are `oneOf` over modes). */
export function modeOf(given: string | undefined): MdsMode | undefined {
  if (given === undefined) return undefined;
  if (!(MDS_MODES as readonly string[]).includes(given))
    throw new MobilityError('USAGE', `--mode must be one of ${MDS_MODES.join(', ')}, not "${given}".`);
  return given as MdsMode;
}

/** `--memory-limit <size>` of the analysis commands: DuckDB's memory limit (default 256MB), checked at once. */
export function memoryLimitOption(
  given: string | undefined,
  tempGiven?: string,
): { memoryLimit?: string; tempLimit?: string } {
  const limits: { memoryLimit?: string; tempLimit?: string } = {};
  if (given !== undefined) {
    const memoryLimit = memoryLimitOf(given);
    if (!memoryLimit)
      throw new MobilityError('USAGE', `--memory-limit ${given}: give a size of 64MB or more, such as 512MB or 2GB.`);
    limits.memoryLimit = memoryLimit;
  }
  if (tempGiven !== undefined) {
    const tempLimit = memoryLimitOf(tempGiven);
    if (!tempLimit)
      throw new MobilityError('USAGE', `--temp-limit ${tempGiven}: give a size of 64MB or more, such as 10GB.`);
    limits.tempLimit = tempLimit;
  }
  return limits;
}
