import type { MdsErrorBody as CoreMdsErrorBody, MdsVehicle } from '../../core/mds';
import type { AuthRuleId } from '../../core/auth';
import type { SyntheticFleet } from '../world/syntheticFleet';
import type { WorldVehicleStatus } from '../world/syntheticWorld';

/** The media type of MDS 2.0 responses (MDS `general-information.md`, versioning). */
export const MDS_CONTENT_TYPE = 'application/vnd.mds+json;version=2.0';
export const JSON_CONTENT_TYPE = 'application/json';
/** The MDS release whose text the sandbox follows. */
export const MDS_VERSION = '2.0.2';
/** How long clients may cache a listing, in ms (MDS allows 0..300000). */
export const MDS_TTL_MS = 30_000;
export const MAX_PAGE_SIZE = 1000;

/** The MDS error body, used for every non-2xx answer; the sandbox always fills every field. */
export type MdsErrorBody = Required<CoreMdsErrorBody>;

/** An MDS error body; `error_details` is never empty (mds-openapi `response/error.yaml`: minItems 1). */
export function errorBody(error: string, description: string, details: string[] = []): MdsErrorBody {
  return { error, error_description: description, error_details: details.length > 0 ? details : [`error: ${error}`] };
}

/** One answer of the sandbox, before it is written. */
export interface Reply {
  status: number;
  /** JSON-serialised unless `text` is set. */
  body: unknown;
  /** A body sent as is (CSV reports). */
  text?: string;
  contentType: string;
  headers?: Record<string, string>;
  rule?: AuthRuleId;
  kid?: string;
}

/** An answer with an MDS error body. */
export function errorReply(
  status: number,
  error: string,
  description: string,
  details: string[] = [],
  headers?: Record<string, string>,
): Reply {
  return { status, body: errorBody(error, description, details), contentType: JSON_CONTENT_TYPE, headers };
}

/** JSON:API pagination links; `next` is null on the last page. */
export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

/**
 * `/vehicles`: MDS 2.0.2's text asks `last_updated` and `ttl` of `/vehicles/status` only, but the
 * official schema still requires them here and nothing forbids them: served, so that a stock validator
 * with the unmodified schema finds nothing (the validator's correction still accepts providers that leave them out).
 */
export interface MdsVehiclesBody {
  version: string;
  last_updated: number;
  ttl: number;
  vehicles: MdsVehicle[];
  links?: PageLinks;
}

export interface MdsVehiclesStatusBody {
  version: string;
  last_updated: number;
  ttl: number;
  vehicles_status: WorldVehicleStatus[];
  links?: PageLinks;
}

/** One vehicle in the MaaS listing: the sandbox's own shape, since the spec does not show one. */
export interface MaasVehicle {
  id: string;
  vehicle_type: string;
  propulsion_types: string[];
  state: string;
  battery_percent: number | null;
  location: { lat: number; lng: number };
  last_reported: string;
}

export interface MaasVehiclesBody {
  vehicles: MaasVehicle[];
  links: { next: string | null };
}

/** The outcome of reading the Accept header for an MDS route. */
export type AcceptDecision = { ok: true } | { ok: false; requested: string[] };

/**
 * Decides whether an MDS 2.0 body satisfies `Accept`. Absent, `*\/*`, `application/*`,
 * `application/json` and `application/vnd.mds+json` with a 2.x (or no) version are fine. Only when
 * the client asks for MDS versions exclusively, and none is 2.x, the answer is 406; other media
 * types alone are ignored, so browsers and curl still see JSON.
 */
export function negotiateMds(accept: string | undefined): AcceptDecision {
  if (accept === undefined || accept.trim() === '') return { ok: true };
  const requested: string[] = [];
  let sawMds = false;
  for (const range of accept.split(',')) {
    const [mediaRaw, ...paramsRaw] = range.split(';');
    const media = (mediaRaw ?? '').trim().toLowerCase();
    const params = new Map<string, string>();
    for (const p of paramsRaw) {
      const eq = p.indexOf('=');
      if (eq > 0)
        params.set(
          p.slice(0, eq).trim().toLowerCase(),
          p
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, ''),
        );
    }
    if (params.get('q') !== undefined && Number(params.get('q')) === 0) continue;
    if (media === '*/*' || media === 'application/*' || media === 'application/json') return { ok: true };
    if (media === 'application/vnd.mds+json') {
      sawMds = true;
      const version = params.get('version');
      if (version === undefined || /^2(\.\d+){0,2}$/.test(version)) return { ok: true };
      requested.push(version);
    }
  }
  return sawMds ? { ok: false, requested } : { ok: true };
}

/** Page request: 1-based page number and page size, from `page`/`page[number]` and `page_size`/`page[size]`. */
export interface PageRequest {
  number: number;
  size: number;
  /** Whether the client set the size, so links repeat it. */
  explicitSize: boolean;
}

export type PageParse = { ok: true; page: PageRequest } | { ok: false; problem: string };

function positiveInt(text: string): number | undefined {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 ? n : undefined;
}

/** Reads the page parameters of a query; a page beyond the last one is a problem too. */
export function parsePage(query: URLSearchParams, defaultSize: number, total: number): PageParse {
  const numberText = query.get('page[number]') ?? query.get('page');
  const sizeText = query.get('page[size]') ?? query.get('page_size');
  let size = defaultSize;
  if (sizeText !== null) {
    const n = positiveInt(sizeText);
    if (n === undefined)
      return { ok: false, problem: `page_size ${JSON.stringify(sizeText)} is not a positive whole number` };
    size = Math.min(n, MAX_PAGE_SIZE);
  }
  let number = 1;
  if (numberText !== null) {
    const n = positiveInt(numberText);
    if (n === undefined)
      return {
        ok: false,
        problem: `page ${JSON.stringify(numberText)} is not a positive whole number (pages start at 1)`,
      };
    number = n;
  }
  const last = lastPage(total, size);
  if (number > last) return { ok: false, problem: `page ${number} is beyond the last page, ${last}` };
  return { ok: true, page: { number, size, explicitSize: sizeText !== null } };
}

function lastPage(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

/** Absolute links for a page of `total` items at `endpoint` (an absolute URL without query). */
export function pageLinks(endpoint: string, page: PageRequest, total: number): PageLinks {
  const last = lastPage(total, page.size);
  const at = (n: number) => {
    const params = new URLSearchParams({ page: String(n) });
    if (page.explicitSize) params.set('page_size', String(page.size));
    return `${endpoint}?${params.toString()}`;
  };
  return {
    first: at(1),
    last: at(last),
    prev: page.number > 1 ? at(page.number - 1) : null,
    next: page.number < last ? at(page.number + 1) : null,
  };
}

/** `GET /vehicles`, one page. */
function indexesOf(page: PageRequest, total: number): number[] {
  const from = (page.number - 1) * page.size;
  const out: number[] = [];
  for (let i = from; i < Math.min(total, from + page.size); i++) out.push(i);
  return out;
}

/** `GET /vehicles`, one page, answered at `nowMs` (default the fleet's `createdAt`). */
export function vehiclesPage(
  fleet: SyntheticFleet,
  endpoint: string,
  page: PageRequest,
  nowMs: number = fleet.createdAt,
): MdsVehiclesBody {
  const listing = fleet.vehicleListing();
  return {
    version: MDS_VERSION,
    last_updated: nowMs,
    ttl: MDS_TTL_MS,
    vehicles: indexesOf(page, listing.count).map((p) => fleet.vehicleAt(listing.indexAt(p))),
    links: pageLinks(endpoint, page, listing.count),
  };
}

/** `GET /vehicles/status`, one page, as the world is at `nowMs` (default the fleet's `createdAt`). */
export function vehiclesStatusPage(
  fleet: SyntheticFleet,
  endpoint: string,
  page: PageRequest,
  nowMs: number = fleet.createdAt,
): MdsVehiclesStatusBody {
  const listing = fleet.statusListing(nowMs);
  return {
    version: MDS_VERSION,
    last_updated: nowMs,
    ttl: MDS_TTL_MS,
    vehicles_status: indexesOf(page, listing.count).map((p) => fleet.statusAt(listing.indexAt(p), nowMs)),
    links: pageLinks(endpoint, page, listing.count),
  };
}

/** `GET /vehicles/{device_id}`: the listing shape with exactly one vehicle. */
export function singleVehicle(fleet: SyntheticFleet, index: number, nowMs: number = fleet.createdAt): MdsVehiclesBody {
  return { version: MDS_VERSION, last_updated: nowMs, ttl: MDS_TTL_MS, vehicles: [fleet.vehicleAt(index)] };
}

/** `GET /vehicles/status/{device_id}`: the status shape with exactly one item. */
export function singleVehicleStatus(
  fleet: SyntheticFleet,
  index: number,
  nowMs: number = fleet.createdAt,
): MdsVehiclesStatusBody {
  return {
    version: MDS_VERSION,
    last_updated: nowMs,
    ttl: MDS_TTL_MS,
    vehicles_status: [fleet.statusAt(index, nowMs)],
  };
}

/** Vehicle `index` as the MaaS listing shows it at `nowMs` (the REST page and the gRPC stream alike). */
export function maasVehicleAt(fleet: SyntheticFleet, index: number, nowMs: number = fleet.createdAt): MaasVehicle {
  const vehicle = fleet.vehicleAt(index);
  const status = fleet.statusAt(index, nowMs);
  return {
    id: vehicle.device_id,
    vehicle_type: vehicle.vehicle_type,
    propulsion_types: vehicle.propulsion_types,
    state: status.last_event.vehicle_state,
    battery_percent: status.last_telemetry.battery_percent ?? null,
    location: { lat: status.last_telemetry.location.lat, lng: status.last_telemetry.location.lng },
    last_reported: new Date(status.last_telemetry.timestamp).toISOString(),
  };
}

/** `GET /v1alpha2/vehicles` of the MaaS environment, one page, in the sandbox's own shape. */
export function maasVehiclesPage(
  fleet: SyntheticFleet,
  endpoint: string,
  page: PageRequest,
  nowMs: number = fleet.createdAt,
): MaasVehiclesBody {
  const vehicles = indexesOf(page, fleet.size).map((i) => maasVehicleAt(fleet, i, nowMs));
  return { vehicles, links: { next: pageLinks(endpoint, page, fleet.size).next } };
}
