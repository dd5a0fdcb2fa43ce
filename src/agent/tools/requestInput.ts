// What a tool's input names to request, as `mobility-api request` takes it: an endpoint id of the catalogue (its
// parameters checked, defaults filled in) or a path under the base URL (`{"path": "/vehicles"}`), with a query.
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../../core/base';
import type { ApiKind, ApiRequest } from '../../core/environment';
import { buildEndpointRequest, catalogueOf, freeRequest } from '../../core/mds';

/** The input properties that name a request. */
export const REQUEST_INPUT = {
  endpoint: {
    type: 'string',
    maxLength: 100,
    description: 'An endpoint id of describe_endpoints, such as vehicles, trips or events_recent.',
  },
  path: {
    type: 'string',
    maxLength: 2000,
    pattern: '^/',
    description:
      'Instead of an endpoint id: a path under the base URL, such as /vehicles or /vehicles/status?page_size=10.',
  },
  query: {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 2000 },
    description: 'Query parameters by name, such as {"end_time": "2024-11-05T14"}.',
  },
} as const;

/** The request an input names; a clear error when it names none, or both an endpoint and a path. */
export function requestOf(api: ApiKind, input: Record<string, unknown>): ApiRequest {
  const query = Object.entries((input.query ?? {}) as Record<string, string>);
  if (typeof input.endpoint === 'string' && typeof input.path === 'string')
    throw new MobilityError('AGENT_INPUT_INVALID', l10n.t('Give an endpoint id or a path, not both.'));
  if (typeof input.endpoint === 'string') {
    if (!catalogueOf(api).some((e) => e.id === input.endpoint)) {
      throw new MobilityError(
        'AGENT_INPUT_INVALID',
        l10n.t(
          '"{0}" is not an endpoint of this API: use one of {1}, or give a path.',
          input.endpoint.slice(0, 100),
          catalogueOf(api)
            .map((e) => e.id)
            .join(', '),
        ),
      );
    }
    return buildEndpointRequest(api, input.endpoint, Object.fromEntries(query));
  }
  if (typeof input.path === 'string') return freeRequest(api, input.path, new URLSearchParams(query));
  throw new MobilityError(
    'AGENT_INPUT_INVALID',
    l10n.t('Name what to request: an endpoint id (describe_endpoints) or a path such as /vehicles.'),
  );
}

/** The request as the answer names it: its endpoint id, or its path. */
export function targetOf(input: Record<string, unknown>): string {
  return typeof input.endpoint === 'string' ? input.endpoint : typeof input.path === 'string' ? input.path : '';
}
