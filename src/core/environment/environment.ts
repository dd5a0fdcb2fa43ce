import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';

/** The two APIs of the spec. */
export type ApiKind = 'mds' | 'maas';

export const API_LABELS: Record<ApiKind, string> = {
  mds: 'MDS Provider API',
  maas: 'MaaS API',
};

/**
 * Where requests go. The audience (`aud`) is the base URL (spec 5.3), sent as a string or, when
 * `audienceAsList` is set, as a one-element list. `audience` overrides it for custom setups.
 */
export interface Environment {
  id: string;
  name: string;
  api: ApiKind;
  stage: string;
  baseUrl: string;
  audience?: string | string[];
  audienceAsList?: boolean;
  /** Extra request headers, e.g. `Accept: application/vnd.mds+json;version=2.0`. */
  headers?: Record<string, string>;
  /** Where the environment's gRPC endpoints are, when it has them (same audience as REST, spec 5.3). */
  grpc?: GrpcEndpoint;
}

/** An environment's gRPC target and schema source, as the user set them. Nothing secret. */
export interface GrpcEndpoint {
  /** `host:port` (a host alone means port 443). */
  target: string;
  /** No TLS: allowed only to this computer (loopback). */
  plaintext?: boolean;
  /** A PEM file of CA certificates to trust instead of the system's. */
  caFile?: string;
  /** `.proto` files that define the services, used instead of server reflection. */
  protoFiles?: string[];
  /** Folders the `.proto` files' imports are looked up in. */
  importPaths?: string[];
  /** A descriptor set (`protoc --descriptor_set_out`), used instead of reflection. */
  protoset?: string;
  /**
   * For a server read by reflection whose `.proto` files are known all the same (the local sandbox's, shipped with the
   * extension): the files and import folders the programs of Copy as Code load or compile. Never a schema source.
   */
  codeProtos?: { protoFiles: string[]; importPaths: string[] };
}

/**
 * Base URLs already checked, with their normal form: every token (its audience) and every request
 * checks the base URL again, and parsing it was a good part of what a request costs besides
 * signing and sending. Only good ones are kept (a bad one throws each time); the answer depends on
 * the text alone. Bounded: cleared when full.
 */
const checkedBaseUrls = new Map<string, string>();
const MAX_CHECKED_BASE_URLS = 64;

/** Checks that a base URL is an absolute http(s) URL and returns it without a trailing slash. */
export function normaliseBaseUrl(baseUrl: string | undefined, envName: string): string {
  const known = baseUrl === undefined ? undefined : checkedBaseUrls.get(baseUrl);
  if (known !== undefined) return known;
  const normalised = checkBaseUrl(baseUrl, envName);
  if (baseUrl !== undefined) {
    if (checkedBaseUrls.size >= MAX_CHECKED_BASE_URLS) checkedBaseUrls.clear();
    checkedBaseUrls.set(baseUrl, normalised);
  }
  return normalised;
}

function checkBaseUrl(baseUrl: string | undefined, envName: string): string {
  const text = (baseUrl ?? '').trim();
  if (!text) {
    throw new MobilityError('BASE_URL_MISSING', l10n.t('The environment "{0}" has no base URL. Set its base URL in the settings first.', envName));
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MobilityError('BASE_URL_INVALID', l10n.t('The base URL of "{0}" is not a valid URL: "{1}". Use an absolute address such as https://host/path.', envName, text));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new MobilityError('BASE_URL_INVALID', l10n.t('The base URL of "{0}" must start with https:// or http://, not {1}//.', envName, url.protocol));
  }
  if (url.search || url.hash) {
    throw new MobilityError('BASE_URL_INVALID', l10n.t('The base URL of "{0}" must not contain a query or fragment: "{1}".', envName, text));
  }
  return withoutTrailingSlashes(text);
}

/** `text` without its trailing slashes. A loop, not /\/+$/: that regex is quadratic on a long run of slashes not at the end. */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

/** The `aud` claim for an environment (spec 5.3). */
export function audienceOf(env: Environment): string | string[] {
  if (env.audience !== undefined) {
    const list = Array.isArray(env.audience) ? env.audience : [env.audience];
    if (list.length === 0 || list.some((a) => typeof a !== 'string' || a.trim() === '')) {
      throw new MobilityError('AUDIENCE_INVALID', l10n.t('The audience of "{0}" must be a non-empty string or a list of them.', env.name));
    }
    return env.audience;
  }
  const base = normaliseBaseUrl(env.baseUrl, env.name);
  return env.audienceAsList ? [base] : base;
}
