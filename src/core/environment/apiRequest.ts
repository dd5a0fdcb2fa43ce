// What a request asks of an environment, before any transport: its path under the base URL (checked so that it can
// never leave it), its query, and the vehicles path of each API (spec 4).
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { Environment } from './environment';
import { normaliseBaseUrl } from './environment';

/** Any GET on an environment: a path under its base URL, a query and extra headers. */
export interface ApiRequest {
  /**
   * Relative to the base URL (`/trips`, `vehicles/status`, may carry a query), or an absolute URL
   * under the base URL. Anything that leaves the base URL is refused (PATH_INVALID).
   */
  path: string;
  /** Appended after any query in `path`. */
  query?: QueryInput;
  /** Over the environment's headers; Authorization, Content-Type, Host and Content-Length are ours. */
  headers?: Record<string, string>;
  /** The key of the answer that holds the items (from the catalogue); detected when absent or missing. */
  itemsKey?: string;
  /** The catalogue endpoint this request was built from, when it was. */
  endpointId?: string;
}

/** One query value: repeated for a list; `undefined` and `null` leave the parameter out. */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/** Query parameters, as a record (in insertion order) or as URLSearchParams. */
export type QueryInput = URLSearchParams | Readonly<Record<string, QueryValue>>;

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// Control characters would be stripped or rejected by the URL parser and hide what is sent.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Refuses request paths that could leave the base URL whatever the base: dot segments (also
 * percent-encoded), backslashes, protocol-relative `//host`, fragments and control characters.
 * Absolute URLs pass here; `requestUrl` checks them against the environment.
 */
export function checkRequestPath(path: string): void {
  const text = path.trim();
  const refuse = (why: string, fix = 'Give a path under the base URL, such as /trips or vehicles/status.') =>
    new MobilityError('PATH_INVALID', l10n.t('The path {0} {1}. {2}', JSON.stringify(text), why, fix));
  if (CONTROL.test(text)) throw refuse('contains control characters (such as a line break or tab)');
  if (text.includes('\\'))
    throw refuse('contains a backslash, which some servers read as "/"', 'Use "/" between segments.');
  if (text.includes('#'))
    throw refuse(
      'contains a fragment ("#..."), which is never sent to the server',
      'Leave it out, or write "%23" for a "#" inside a segment.',
    );
  if (text.startsWith('//')) throw refuse('starts with "//", which names another host');
  const pathPart = text.split('?', 1)[0] ?? '';
  const segments = (SCHEME.test(pathPart) ? pathPart.replace(/^[^:]+:\/\/[^/]*/, '') : pathPart).split('/');
  if (segments.some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) {
    throw refuse(
      'has a "." or ".." segment, which could leave the base URL',
      'Write the path from the base URL without "." or "..".',
    );
  }
}

/**
 * The URL of `path` under the environment's base URL, with `query` appended (after any query
 * already in `path`). `path` is relative to the base URL (`/trips`, `vehicles/status`,
 * `?x=1`), or an absolute URL on the same origin under the base URL (a pasted `links.next`).
 * Anything that would leave the base URL is refused with PATH_INVALID, before any token exists.
 */
export function requestUrl(env: Environment, path: string, query?: QueryInput): string {
  const base = normaliseBaseUrl(env.baseUrl, env.name);
  // Without a query the URL depends on the base URL and the path alone: the same listing asked again is not checked again.
  if (query) return checkedRequestUrl(env, base, path, query);
  const key = `${base}\n${path}`;
  let url = checkedUrls.get(key);
  if (url === undefined) {
    url = checkedRequestUrl(env, base, path, undefined);
    if (checkedUrls.size >= MAX_CHECKED_URLS) checkedUrls.clear();
    checkedUrls.set(key, url);
  }
  return url;
}

/** URLs of query-less requests already built, by base URL and path; only good ones (a bad path throws each time). */
const checkedUrls = new Map<string, string>();
const MAX_CHECKED_URLS = 256;

function checkedRequestUrl(env: Environment, base: string, path: string, query: QueryInput | undefined): string {
  const baseUrl = new URL(base);
  const basePath = baseUrl.pathname === '/' ? '' : baseUrl.pathname;
  const text = path.trim();
  checkRequestPath(text);
  let url: URL;
  if (SCHEME.test(text)) {
    try {
      url = new URL(text);
    } catch {
      throw new MobilityError(
        'PATH_INVALID',
        l10n.t('{0} is not a valid URL. Give a path under the base URL, such as /trips.', JSON.stringify(text)),
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new MobilityError(
        'PATH_INVALID',
        l10n.t(
          '{0} reads as a {1} URL, not a path. Start paths with "/", such as /trips.',
          JSON.stringify(text),
          url.protocol,
        ),
      );
    }
    if (url.origin !== baseUrl.origin) {
      throw new MobilityError(
        'PATH_INVALID',
        l10n.t(
          '{0} is on {1}, another origin than the environment "{2}" ({3}); the token is not sent there. Give a path under {4}.',
          JSON.stringify(text),
          url.origin,
          env.name,
          baseUrl.origin,
          base,
        ),
      );
    }
  } else {
    const relative = text === '' || text.startsWith('/') || text.startsWith('?') ? text : `/${text}`;
    url = new URL(base + relative);
  }
  if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
    throw new MobilityError(
      'PATH_INVALID',
      l10n.t(
        '{0} is outside the base URL of "{1}" ({2}); the token is not sent there. Give a path under it, such as /trips.',
        JSON.stringify(text),
        env.name,
        base,
      ),
    );
  }
  if (query) appendQuery(url.searchParams, query);
  return url.href;
}

/** Appends `query` to `params`: lists repeat the name, `undefined` and `null` are left out. */
export function appendQuery(params: URLSearchParams, query: QueryInput): void {
  const entries: Iterable<[string, QueryValue]> =
    query instanceof URLSearchParams ? query.entries() : Object.entries(query);
  for (const [name, value] of entries) {
    if (value === undefined || value === null) continue;
    const values: readonly (string | number | boolean)[] = Array.isArray(value)
      ? (value as readonly (string | number | boolean)[])
      : [value as string | number | boolean];
    for (const one of values) params.append(name, String(one));
  }
}

/** Which vehicles listing to request. */
export interface VehiclesQuery {
  /** MDS only: `/vehicles/status` instead of `/vehicles`. */
  status?: boolean;
  /** MDS only: one vehicle by `device_id`. */
  deviceId?: string;
}

/** `/vehicles[/status][/{device_id}]` for MDS, `/v1alpha2/vehicles` for MaaS (spec 4), relative to the base URL. */
export function vehiclesPath(env: Environment, query: VehiclesQuery = {}): string {
  if (env.api === 'maas') {
    if (query.status || query.deviceId) {
      throw new MobilityError(
        'USAGE',
        l10n.t(
          'The MaaS API shows only the vehicles listing (/v1alpha2/vehicles); vehicle status and single vehicles are MDS requests.',
        ),
      );
    }
    return '/v1alpha2/vehicles';
  }
  let path = '/vehicles';
  if (query.status) path += '/status';
  if (query.deviceId) path += `/${encodeURIComponent(query.deviceId)}`;
  return path;
}

/** `{base}/vehicles[/status][/{device_id}]` for MDS, `{base}/v1alpha2/vehicles` for MaaS (spec 4). */
export function vehiclesUrl(env: Environment, query: VehiclesQuery = {}): string {
  return requestUrl(env, vehiclesPath(env, query));
}
