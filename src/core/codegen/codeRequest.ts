import type { ApiKind, ApiRequest, Environment } from '../environment';
import type { Credential, CredentialType, SigningAlgorithm } from '../auth';
import { ALGORITHM_OF, checkLifetime } from '../auth';
import { API_LABELS, audienceOf, normaliseBaseUrl, requestHeadersFor, requestUrl } from '../environment';
import { catalogueOf } from '../mds';

/** The languages a program can be generated in. */
export type CodeLanguage = 'python' | 'typescript' | 'go' | 'java' | 'shell';

export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'typescript', 'go', 'java', 'shell'];

/** The environment variables every program reads: the secrets (spec 5.7) and how many workers run. */
export const KEY_FILE_VARIABLE = 'MOBILITY_API_KEY_FILE';
export const KEY_ID_VARIABLE = 'MOBILITY_API_KEY_ID';
export const WORKERS_VARIABLE = 'MOBILITY_API_WORKERS';
/** The state folder of every signer, the per-key clock files in its `clock/` (spec 5.1 rule 6); see sharedClockLines. */
export const STATE_DIR_VARIABLE = 'MOBILITY_API_STATE_DIR';

/** Default token lifetime of generated programs, in seconds (spec 5.1 rule 5 allows 60..3600). */
export const DEFAULT_CODE_LIFETIME = 300;

/**
 * One REST request as a program sends it. A gRPC call is the other member of `CodeRequest`
 * (`GrpcCodeRequest`, made by grpcCodeRequest.ts); each language's generator shares its signing part
 * between the two, so only the sending part differs.
 */
export interface RestCodeRequest {
  kind: 'rest';
  method: 'GET';
  /** Path and query under the base URL, starting with `/`: `/trips?end_time=2024-05-01T10`. */
  path: string;
  /** Headers sent with every request, except `Authorization` (each request signs its own). */
  headers: Record<string, string>;
  /** Follow `links.next`, with a new token for every page. */
  pages: boolean;
  /** The top-level key of the JSON answer that holds the items, when known. */
  itemsKey?: string;
  /** The answer is CSV text (monthly reports), printed as it is. */
  csv: boolean;
}

/** One `.proto` file of a program: its path as given, and its name under the include folder it is found in. */
export interface CodeProtoFile {
  given: string;
  /** The name protoc and proto-loader know it by: `mobility/sandbox/v1/vehicles.proto`. */
  name: string;
}

export interface GrpcCodeRequest {
  kind: 'grpc';
  /** `package.Service/Method`. */
  method: string;
  /** `package.Service`, and `package`. */
  service: string;
  packageName: string;
  methodName: string;
  serverStreaming: boolean;
  /** The request type's name inside its package (`GetVehicleRequest`, `Outer.Inner`). */
  inputName: string;
  target: string;
  plaintext: boolean;
  caFile?: string;
  /** The request message as JSON. */
  message: Record<string, unknown>;
  /** Metadata sent with every call besides `authorization` (each call signs its own). */
  metadata: [string, string][];
  /** The include folders (`-I` of protoc, `includeDirs` of proto-loader), as given. */
  includeDirs: string[];
  /** The files to compile or load: the given ones and, when the service or request type is in an import, that one. */
  protoFiles: CodeProtoFile[];
  /** The names (as in `protoFiles`) of the files that define the service and the request type. */
  serviceProto: string;
  inputProto: string;
  /**
   * A descriptor set (path as given) the program takes its schema from instead of .proto files: a server known by
   * reflection only. `protoFiles` are then the files in the set (given = name), `includeDirs` empty.
   */
  protoset?: string;
}

export type CodeRequest = RestCodeRequest | GrpcCodeRequest;

/** What a program knows of its credential: nothing secret (no key, no key id; spec 5.7). */
export interface CodeCredential {
  type: CredentialType;
  alg: SigningAlgorithm;
  /** `iss` of External Organization and IAM credentials; a service account's is read from its key file. */
  issuer?: string;
}

/** Everything a generator needs for one program. */
export interface CodeProgram<R extends CodeRequest = CodeRequest> {
  request: R;
  credential: CodeCredential;
  api: ApiKind;
  baseUrl: string;
  /** The `aud` claim (spec 5.3): the base URL, or a list holding it. */
  audience: string | string[];
  lifetimeSeconds: number;
}

export type RestCodeProgram = CodeProgram<RestCodeRequest>;

/** The non-secret part of a credential, as a program may carry it. */
export function codeCredentialOf(credential: Pick<Credential, 'type' | 'issuer'>): CodeCredential {
  return {
    type: credential.type,
    alg: ALGORITHM_OF[credential.type],
    ...(credential.type === 'service-account' ? {} : { issuer: credential.issuer }),
  };
}

/**
 * The program for `request` on `environment`: the URL and headers exactly as the product would
 * send them (User-Agent aside), whether to follow pages (catalogue endpoints that page, and any
 * path the catalogue does not know), and the lifetime checked against spec 5.1 rule 5.
 */
export function codeProgramFor(
  environment: Environment,
  credential: Pick<Credential, 'type' | 'issuer'>,
  request: ApiRequest,
  lifetimeSeconds = DEFAULT_CODE_LIFETIME,
): RestCodeProgram {
  checkLifetime(lifetimeSeconds);
  const baseUrl = normaliseBaseUrl(environment.baseUrl, environment.name);
  const url = requestUrl(environment, request.path, request.query);
  const headers = requestHeadersFor(environment, request.headers);
  delete headers['User-Agent'];
  const endpoint =
    request.endpointId === undefined
      ? undefined
      : catalogueOf(environment.api).find((e) => e.id === request.endpointId);
  const itemsKey = request.itemsKey ?? endpoint?.itemsKey;
  return {
    request: {
      kind: 'rest',
      method: 'GET',
      path: url.slice(baseUrl.length) || '/',
      headers,
      pages: endpoint ? endpoint.paginates : true,
      ...(itemsKey ? { itemsKey } : {}),
      csv: endpoint?.body === 'csv',
    },
    credential: codeCredentialOf(credential),
    api: environment.api,
    baseUrl,
    audience: audienceOf(environment),
    lifetimeSeconds,
  };
}

/** `lines` as a C-style block comment (`/**` for TypeScript's JSDoc, `/*` for Java), blank lines kept as ` *`. */
export function blockComment(lines: string[], open: '/**' | '/*' = '/**'): string {
  return [open, ...lines.map((l) => (l ? ` * ${l}` : ' *')), ' */'].join('\n');
}

/** What the program signs with and where the secrets come from, shared by every language's header. */
export function headerLines(program: CodeProgram): string[] {
  const { request, credential } = program;
  const what =
    request.kind === 'rest'
      ? [
          `${request.method} ${request.path} on the ${API_LABELS[program.api]} at ${program.baseUrl},`,
          `signed with ${credentialLabel(credential.type)} credentials; every request carries a fresh token (spec 5.1).`,
        ]
      : [
          `gRPC ${request.method} on ${request.target} (${request.plaintext ? 'plaintext, this computer only' : 'TLS'}),`,
          `for the ${API_LABELS[program.api]} at ${program.baseUrl} (the audience REST and gRPC share, spec 5.3),`,
          `signed with ${credentialLabel(credential.type)} credentials; every call carries a fresh token (spec 5.1).`,
        ];
  const secrets =
    credential.type === 'service-account'
      ? [
          `No secret is written here (spec 5.7): the service-account key file named by ${KEY_FILE_VARIABLE}`,
          'gives the private key (private_key), the key id (private_key_id) and the issuer (client_email).',
        ]
      : [
          `No secret is written here (spec 5.7): the private key is read from the PEM file named by`,
          `${KEY_FILE_VARIABLE}, the key id from ${KEY_ID_VARIABLE}.`,
        ];
  return [
    ...what,
    `Generated by Mobility API Explorer (Copy as Code).`,
    '',
    ...secrets,
    `${WORKERS_VARIABLE}=2 sends from two workers at once on the same key (rule 6 still holds).`,
  ];
}

/** Where the one protocol of the per-key clock is stated, for every program's header. */
export const CLOCK_PROTOCOL_URL =
  'https://github.com/mobility-api-explorer/mobility-api-explorer/blob/main/docs/copy-as-code.md#one-clock-per-key-for-every-signer-spec-51-rule-6';

/**
 * The numbers of the key lock, the same in every signer (proper-lockfile's `stale` and `update` in the
 * extension and the CLI: LOCK_STALE_MS and LOCK_UPDATE_MS of core/clock, which a test compares).
 */
export const CLOCK_LOCK_STALE_SECONDS = 5;
export const CLOCK_LOCK_REFRESH_SECONDS = 1;
/** How long a program waits for another signer's lock before it gives up with one line. */
export const CLOCK_LOCK_WAIT_SECONDS = 120;

/**
 * What every program's header says of the clock it shares with every other signer of the key (spec 5.1
 * rule 6), one text for all languages; the protocol itself is stated in docs/copy-as-code.md.
 */
export function sharedClockLines(): string[] {
  return [
    'Spec 5.1 rule 6 across every signer of the key on this computer: every program Copy as Code',
    'writes (Python, Go, TypeScript, Java, shell; REST and gRPC), Mobility API Explorer and its CLI',
    'keep the last iat of a key in one file, clock/iat-<first 32 hex digits of the SHA-256 of the',
    `key id> in the state folder ($${STATE_DIR_VARIABLE}, else $XDG_STATE_HOME/mobility-api, else`,
    '$LOCALAPPDATA/mobility-api, else $HOME/.local/state/mobility-api; an absolute path), under one',
    `lock: the folder <that file>.lock, made with mkdir, refreshed every ${CLOCK_LOCK_REFRESH_SECONDS} s while held, taken over`,
    `when ${CLOCK_LOCK_STALE_SECONDS} s old, held from reading the file until the answer has begun. Any mix of them on`,
    'one key at once is accepted. Not covered: other software signing with the key, a signer with',
    'another state folder, two computers on one key. The protocol:',
    CLOCK_PROTOCOL_URL,
  ];
}

function credentialLabel(type: CredentialType): string {
  // English in the program whatever the display language: the program is code, not UI.
  return type === 'external-org' ? 'External Organization' : type === 'iam' ? 'IAM' : 'service-account';
}

/** A word for what is counted per page: the items key, or "items". */
export function itemsWord(request: RestCodeRequest): string {
  return request.itemsKey ?? 'items';
}
