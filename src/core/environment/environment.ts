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
    throw new MobilityError(
      'BASE_URL_MISSING',
      l10n.t('The environment "{0}" has no base URL. Set its base URL in the settings first.', envName),
    );
  }
  // Before parsing: a text that does not parse is echoed in the message below, so it must hold no password.
  if (hasUserInfo(text)) throw userInfoRefusal(envName);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MobilityError(
      'BASE_URL_INVALID',
      l10n.t(
        'The base URL of "{0}" is not a valid URL: "{1}". Use an absolute address such as https://host/path.',
        envName,
        text,
      ),
    );
  }
  if (url.username || url.password) throw userInfoRefusal(envName);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new MobilityError(
      'BASE_URL_INVALID',
      l10n.t('The base URL of "{0}" must start with https:// or http://, not {1}//.', envName, url.protocol),
    );
  }
  if (url.search || url.hash) {
    throw new MobilityError(
      'BASE_URL_INVALID',
      l10n.t('The base URL of "{0}" must not contain a query or fragment: "{1}".', envName, text),
    );
  }
  return withoutTrailingSlashes(text);
}

/** An at sign as written, or one that looks like it (full-width ＠, small ﹫): a URL with one of those does not parse. */
const AT_SIGN = '[@\uFF20\uFE6B]';
/** A scheme, `//`, then an authority with an `@`: user info (`https://user:secret@host`), whether the rest parses or not. */
const USER_INFO = new RegExp(`^[a-z][a-z0-9+.-]*://[^/?#\\\\]*${AT_SIGN}`, 'i');
/** An authority without a scheme (`user:secret@host:443`, a gRPC target; `user:secret@host/path`) with an `@`. */
const BARE_USER_INFO = new RegExp(`^[^/?#\\\\]*${AT_SIGN}`);

/**
 * True when `text` holds a user name or password before its host: `https://user:secret@host`, `user:secret@host:443`
 * (a gRPC target, or a URL without its scheme), with an `@` or a look-alike that keeps it from parsing. The one rule
 * for every URL and target the product is given (a base URL, an audience, a gRPC target): such a text is never used or
 * shown, since the password would go into every token's audience, every message, report and generated program.
 */
export function hasUserInfo(text: string): boolean {
  const trimmed = text.trim();
  if (USER_INFO.test(trimmed)) return true;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) && BARE_USER_INFO.test(trimmed)) return true;
  try {
    const url = new URL(trimmed);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/** BASE_URL_INVALID for a base URL with user info; names the environment, never the URL (it holds a password). */
function userInfoRefusal(envName: string): MobilityError {
  return new MobilityError('BASE_URL_INVALID', baseUrlUserInfoProblem(envName));
}

/** What is wrong with a base URL that holds a user name or password, and what to do; the URL itself is not repeated. */
export function baseUrlUserInfoProblem(envName: string): string {
  return l10n.t(
    'The base URL of "{0}" holds a user name or password (the part before "@"). Remove the user name and password from the base URL: credentials go in the credential (in VS Code, Bind Credential to Environments; in the CLI, --credential or --private-key), never in the URL, which is sent as every token\'s audience.',
    envName,
  );
}

/** What is wrong with a gRPC target (or another address, `what`) that holds a user name or password; the target is not repeated. */
export function userInfoProblem(what: string): string {
  return l10n.t(
    '{0} holds a user name or password (the part before "@"). Remove them: credentials go in the credential (--credential or --private-key in the CLI), never in an address, which is shown, logged and written into reports.',
    what,
  );
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
      throw new MobilityError(
        'AUDIENCE_INVALID',
        l10n.t('The audience of "{0}" must be a non-empty string or a list of them.', env.name),
      );
    }
    if (list.some(hasUserInfo)) {
      throw new MobilityError(
        'AUDIENCE_INVALID',
        l10n.t(
          'The audience of "{0}" holds a user name or password (the part before "@"). Remove them: the audience is the base URL, sent in every token, and credentials never go in a URL.',
          env.name,
        ),
      );
    }
    return env.audience;
  }
  const base = normaliseBaseUrl(env.baseUrl, env.name);
  return env.audienceAsList ? [base] : base;
}
