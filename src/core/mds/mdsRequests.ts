/**
 * Requests from the catalogue: an endpoint id and parameter values become an `ApiRequest`, with
 * every value checked (and defaults filled) before anything is signed; and free requests, any
 * path with any query on either API.
 */
import * as l10n from '@vscode/l10n';
import type { ApiKind, ApiRequest, QueryInput } from '../environment';
import { API_LABELS, appendQuery, checkRequestPath } from '../environment';
import { MobilityError } from '../base';
import type { CatalogueEndpoint } from './catalogueEndpoint';
import { catalogueOf } from './mdsCatalogue';
import { checkParameterValue } from './parameterFormats';

/** Parameter values as given: strings (from a command line or a form) or numbers; empty means not given. */
export type ParameterValues = Readonly<Record<string, string | number | undefined>>;

/** A request built from the catalogue, with what was used to build it. */
export interface EndpointRequest extends ApiRequest {
  api: ApiKind;
  endpointId: string;
  /** Every parameter value used, checked and normalised, defaults included. */
  values: Record<string, string>;
  /** The parameters that were not given and got their default. */
  defaulted: string[];
}

export interface EndpointValueOptions {
  /** "Now" for defaults and for the two-week window of `/events/recent` (ms since the epoch; default `Date.now()`). */
  nowMs?: number;
  /** Fill a missing parameter that has a default (default true); otherwise it is PARAMETER_MISSING. */
  useDefaults?: boolean;
}

export interface BuildRequestOptions extends EndpointValueOptions {
  /** Query parameters the catalogue does not know, sent after the endpoint's own (not checked). */
  extraQuery?: QueryInput;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** The endpoint `id` of `api`, or ENDPOINT_UNKNOWN naming the ids there are. */
export function findEndpoint(api: ApiKind, id: string): CatalogueEndpoint {
  const catalogue = catalogueOf(api);
  const found = catalogue.find((e) => e.id === id);
  if (found) return found;
  throw new MobilityError(
    'ENDPOINT_UNKNOWN',
    l10n.t(
      '{0} is not an endpoint of the {1} catalogue; it has {2}. Send any other path as a free request.',
      JSON.stringify(id),
      API_LABELS[api],
      catalogue.map((e) => e.id).join(', '),
    ),
  );
}

/**
 * The catalogue endpoint whose path template matches `path` (relative to the base URL, a query
 * ignored), preferring literal paths: `/vehicles/status` is `vehicles_status`, not `vehicle`.
 */
export function matchEndpoint(api: ApiKind, path: string): CatalogueEndpoint | undefined {
  const text = path.trim().split('?', 1)[0] ?? '';
  const rel = text.startsWith('/') ? text : `/${text}`;
  const candidates = catalogueOf(api).filter((e) => templatePattern(e.pathTemplate).test(rel));
  candidates.sort((a, b) => pathParameterCount(a) - pathParameterCount(b));
  return candidates[0];
}

/** The default of every parameter of `endpoint` that has one, at `nowMs`. */
export function endpointDefaults(endpoint: CatalogueEndpoint, nowMs: number): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const p of endpoint.parameters) if (p.defaultValue) defaults[p.name] = p.defaultValue(nowMs);
  return defaults;
}

/**
 * Checks `given` against the parameters of `endpoint`, fills defaults, and returns the values
 * normalised. Throws, listing every problem of the kind found first: PARAMETER_UNKNOWN (a name the
 * endpoint does not take), PARAMETER_MISSING (a required one without value or default),
 * PARAMETER_INVALID (a value not in its format, or a range that does not hold, e.g. the two weeks
 * of `/events/recent`). Each message shows the value given and the format expected.
 */
export function checkEndpointValues(
  endpoint: CatalogueEndpoint,
  given: ParameterValues,
  options: EndpointValueOptions = {},
): { values: Record<string, string>; defaulted: string[] } {
  const nowMs = options.nowMs ?? Date.now();
  const label = `${endpoint.pathTemplate} (${endpoint.id})`;
  const known = new Set(endpoint.parameters.map((p) => p.name));
  const unknown = Object.keys(given).filter((name) => !known.has(name) && !isEmpty(given[name]));
  if (unknown.length) {
    const takes = endpoint.parameters.length
      ? `it takes ${endpoint.parameters.map((p) => p.name).join(', ')}`
      : 'it takes none';
    throw new MobilityError(
      'PARAMETER_UNKNOWN',
      l10n.t(
        '{0} has no parameter {1}: {2}. Send other query parameters as extra query parameters or a free request.',
        label,
        unknown.map((n) => JSON.stringify(n)).join(', '),
        takes,
      ),
    );
  }
  const values: Record<string, string> = {};
  const defaulted: string[] = [];
  const missing: string[] = [];
  const invalid: string[] = [];
  for (const p of endpoint.parameters) {
    const value = Object.hasOwn(given, p.name) ? given[p.name] : undefined;
    if (isEmpty(value)) {
      if (p.defaultValue && options.useDefaults !== false) {
        values[p.name] = p.defaultValue(nowMs);
        defaulted.push(p.name);
      } else if (p.required) {
        missing.push(`${p.name} (${p.formatDescription})`);
      }
      continue;
    }
    const checked = checkParameterValue(p.name, p.format, value as string | number);
    if (checked.ok) values[p.name] = checked.value;
    else invalid.push(checked.problem);
  }
  if (missing.length)
    throw new MobilityError('PARAMETER_MISSING', l10n.t('{0} needs {1}.', label, missing.join(' and ')));
  if (invalid.length === 0 && endpoint.crossCheck) invalid.push(...endpoint.crossCheck(values, nowMs));
  if (invalid.length) throw new MobilityError('PARAMETER_INVALID', l10n.t('{0}.', invalid.join('; ')));
  return { values, defaulted };
}

/**
 * The request for endpoint `id` of `api` with `given` parameter values: the path with its path
 * parameters filled in, the query parameters, the endpoint's Accept when it has its own (reports),
 * and the key of the items. Refuses bad values before anything is signed (see `checkEndpointValues`).
 */
export function buildEndpointRequest(
  api: ApiKind,
  id: string,
  given: ParameterValues = {},
  options: BuildRequestOptions = {},
): EndpointRequest {
  const endpoint = findEndpoint(api, id);
  const { values, defaulted } = checkEndpointValues(endpoint, given, options);
  let path = endpoint.pathTemplate;
  const query = new URLSearchParams();
  for (const p of endpoint.parameters) {
    const value = values[p.name];
    if (value === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else query.append(p.name, value);
  }
  if (options.extraQuery) {
    const extra = new URLSearchParams();
    appendQuery(extra, options.extraQuery);
    const clash = [...new Set(extra.keys())].filter((name) => endpoint.parameters.some((p) => p.name === name));
    if (clash.length) {
      throw new MobilityError(
        'PARAMETER_INVALID',
        l10n.t(
          '{0} {1} of {2}: give {3} as endpoint parameters, where {4} checked, not as extra query parameters.',
          clash.join(', '),
          clash.length === 1 ? 'is a parameter' : 'are parameters',
          endpoint.pathTemplate,
          clash.length === 1 ? 'it' : 'them',
          clash.length === 1 ? 'it is' : 'they are',
        ),
      );
    }
    for (const [name, value] of extra) query.append(name, value);
  }
  const request: EndpointRequest = { api, endpointId: endpoint.id, path, values, defaulted };
  if (query.size) request.query = query;
  if (endpoint.itemsKey) request.itemsKey = endpoint.itemsKey;
  const headers = { ...(endpoint.accept ? { Accept: endpoint.accept } : {}), ...(options.headers ?? {}) };
  if (Object.keys(headers).length) request.headers = headers;
  return request;
}

/**
 * A free request: any path (relative to the base URL, may carry a query) with any query on either
 * API, nothing checked but the path's shape (PATH_INVALID for dot segments, backslashes, `//host`,
 * fragments; the client checks the rest against the environment). When the path is that of a
 * catalogue endpoint, its items key and id are attached, so that items are found as for the endpoint.
 */
export function freeRequest(
  api: ApiKind,
  path: string,
  query?: QueryInput,
  headers?: Record<string, string>,
): ApiRequest {
  checkRequestPath(path);
  const request: ApiRequest = { path: path.trim() };
  if (query) request.query = query;
  if (headers) request.headers = headers;
  const endpoint = /^[a-z][a-z0-9+.-]*:/i.test(path.trim()) ? undefined : matchEndpoint(api, path);
  if (endpoint) {
    request.endpointId = endpoint.id;
    if (endpoint.itemsKey) request.itemsKey = endpoint.itemsKey;
  }
  return request;
}

function isEmpty(value: string | number | undefined): boolean {
  return value === undefined || (typeof value === 'string' && value.trim() === '');
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[a-z_]+\})/)
    .map((part) => (/^\{[a-z_]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

function pathParameterCount(endpoint: CatalogueEndpoint): number {
  return endpoint.parameters.filter((p) => p.in === 'path').length;
}
