import { MobilityError } from './errors';

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
}

/** Checks that a base URL is an absolute http(s) URL and returns it without a trailing slash. */
export function normaliseBaseUrl(baseUrl: string | undefined, envName: string): string {
  const text = (baseUrl ?? '').trim();
  if (!text) {
    throw new MobilityError('BASE_URL_MISSING', `The environment "${envName}" has no base URL. Set its base URL in the settings first.`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MobilityError('BASE_URL_INVALID', `The base URL of "${envName}" is not a valid URL: "${text}". Use an absolute address such as https://host/path.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new MobilityError('BASE_URL_INVALID', `The base URL of "${envName}" must start with https:// or http://, not ${url.protocol}//.`);
  }
  if (url.search || url.hash) {
    throw new MobilityError('BASE_URL_INVALID', `The base URL of "${envName}" must not contain a query or fragment: "${text}".`);
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
      throw new MobilityError('AUDIENCE_INVALID', `The audience of "${env.name}" must be a non-empty string or a list of them.`);
    }
    return env.audience;
  }
  const base = normaliseBaseUrl(env.baseUrl, env.name);
  return env.audienceAsList ? [base] : base;
}

/** Which vehicles listing to request. */
export interface VehiclesQuery {
  /** MDS only: `/vehicles/status` instead of `/vehicles`. */
  status?: boolean;
  /** MDS only: one vehicle by `device_id`. */
  deviceId?: string;
}

/** `{base}/vehicles[/status][/{device_id}]` for MDS, `{base}/v1alpha2/vehicles` for MaaS (spec 4). */
export function vehiclesUrl(env: Environment, query: VehiclesQuery = {}): string {
  const base = normaliseBaseUrl(env.baseUrl, env.name);
  if (env.api === 'maas') {
    if (query.status || query.deviceId) {
      throw new MobilityError('USAGE', 'The MaaS API shows only the vehicles listing (/v1alpha2/vehicles); vehicle status and single vehicles are MDS requests.');
    }
    return `${base}/v1alpha2/vehicles`;
  }
  let path = '/vehicles';
  if (query.status) path += '/status';
  if (query.deviceId) path += `/${encodeURIComponent(query.deviceId)}`;
  return base + path;
}
