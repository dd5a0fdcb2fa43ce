// The shape of a catalogue entry (mdsCatalogue.ts): an endpoint, its parameters and what its answer holds, and the
// builder of a parameter whose words are translated when read.
import type { ApiKind } from '../environment';
import type { MdsEndpointId } from './mdsEndpoints';
import type { ParameterFormat } from './parameterFormats';
import { PARAMETER_FORMATS } from './parameterFormats';

/** One parameter of an endpoint. */
export interface EndpointParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  format: ParameterFormat;
  /** How to write the value, for people: "YYYY-MM-DDTHH (UTC), for example 2024-11-05T14". */
  formatDescription: string;
  /** What the parameter selects. */
  description: string;
  example: string;
  /** The default in words ("the last complete UTC hour"), when there is one. */
  defaultDescription?: string;
  /** The default at `nowMs` (ms since the epoch), when there is one. */
  defaultValue?: (nowMs: number) => string;
}

/** One endpoint: where it is, what it takes, and what its answer holds. */
export interface CatalogueEndpoint {
  api: ApiKind;
  /** Stable id (MDS: one of `MDS_ENDPOINT_IDS`). */
  id: string;
  title: string;
  description: string;
  /** Relative to the base URL; `{name}` stands for a path parameter: `/vehicles/{device_id}`. */
  pathTemplate: string;
  parameters: readonly EndpointParameter[];
  /** The top-level key of the JSON answer that holds the items; undefined for CSV. */
  itemsKey?: string;
  /** The answer's format: JSON, or CSV for the monthly reports. */
  body: 'json' | 'csv';
  /**
   * True when the spec lets the endpoint paginate with JSON:API `links` (the client follows
   * `links.next` on any endpoint whose answer has it; `/trips` and `/events/historical` must not
   * paginate).
   */
  paginates: boolean;
  /** Serves one UTC hour per request (`YYYY-MM-DDTHH`): 202 while the hour is not processed, 404 for hours without operations. */
  hourEndpoint: boolean;
  /** Near-realtime: the answer carries `last_updated` and `ttl`. */
  nearRealtime: boolean;
  /** A beta feature in MDS 2.0. */
  beta: boolean;
  /** The HTTP statuses the spec lists for it (empty when unknown). */
  statuses: readonly number[];
  /** The Accept header this endpoint needs instead of the API's default. */
  accept?: string;
  /**
   * Checks that involve several parameters (values already checked one by one and normalised);
   * returns the problems, each a sentence without a final period.
   */
  crossCheck?: (values: Readonly<Record<string, string>>, nowMs: number) => string[];
}

/** An endpoint of the MDS 2.0 Provider API. */
export interface MdsEndpoint extends CatalogueEndpoint {
  api: 'mds';
  id: MdsEndpointId;
}

export function parameter(
  name: string,
  where: 'path' | 'query',
  format: ParameterFormat,
  description: () => string,
  defaults?: { description: () => string; value: (nowMs: number) => string },
): EndpointParameter {
  // Getters for the words, so that each read is translated with the bundle configured by then, not at load.
  const p: EndpointParameter = {
    name,
    in: where,
    required: true,
    format,
    get formatDescription() {
      return PARAMETER_FORMATS[format].description;
    },
    get description() {
      return description();
    },
    example: PARAMETER_FORMATS[format].example,
  };
  if (defaults) {
    Object.defineProperty(p, 'defaultDescription', { get: defaults.description, enumerable: true });
    p.defaultValue = defaults.value;
  }
  return p;
}
