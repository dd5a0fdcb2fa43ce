/**
 * The MDS 2.0 Provider routes of the sandbox, after the token has been accepted: every endpoint
 * of the catalogue (`src/core/mds/mdsEndpoints.ts`), answered from the synthetic world at `now()`.
 */
import type { MdsEndpointId, MdsHourEndpointId } from '../../core/mds';
import type { FleetCursor } from '../world/syntheticWorld';
import type { FaultInjector } from '../faults/requestFaults';
import type { PageRequest, Reply } from './mdsResponses';
import {
  MAX_PAGE_SIZE,
  MDS_CONTENT_TYPE,
  MDS_TTL_MS,
  MDS_VERSION,
  errorReply,
  negotiateMds,
  parsePage,
  singleVehicle,
  singleVehicleStatus,
  vehiclesPage,
  vehiclesStatusPage,
} from './mdsResponses';
import {
  MDS_CSV_CONTENT_TYPE,
  monthlyReportRows,
  parseReportMonth,
  reportCsv,
  reportMonthBounds,
} from '../world/monthlyReports';
import type { SyntheticFleet } from '../world/syntheticFleet';
import { stopsAt } from '../world/syntheticStops';
import { HOUR_MS } from '../../core/mds';
import { hourAvailability, readHour, readRecentWindow, worldStartMs } from './timeWindows';
import { routeGeographies } from './geographyRoutes';

/** What the MDS routes need from the running sandbox. */
export interface MdsRouteContext {
  fleet: SyntheticFleet;
  now: () => number;
  /** How many days before today the world starts. */
  historyDays: number;
  /** Default vehicles per page. */
  pageSize: number;
  faults: FaultInjector;
}

/** The routes, for 404 messages. */
export const MDS_ROUTES =
  '/vehicles, /vehicles/{device_id}, /vehicles/status, /vehicles/status/{device_id}, /trips?end_time=, /telemetry?telemetry_time=, /events/historical?event_time=, /events/recent?start_time=&end_time=, /stops, /stops/{stop_id}, /reports/{YYYY-MM}.csv, /geographies, /geographies/{geography_id}';

/** Telemetry and recent events per page unless the client asks for fewer. */
const ITEM_PAGE_SIZE = MAX_PAGE_SIZE;

function mds(body: unknown): Reply {
  return { status: 200, contentType: MDS_CONTENT_TYPE, body };
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Which endpoint a path names, with its path parameter. */
function endpointOf(rest: string[]): { id: MdsEndpointId; param?: string } | undefined {
  const [a, b, c, ...more] = rest;
  if (more.length > 0) return undefined;
  if (a === 'vehicles') {
    if (b === undefined) return { id: 'vehicles' };
    if (b === 'status')
      return c === undefined ? { id: 'vehicles_status' } : { id: 'vehicle_status', param: decodeSegment(c) };
    return c === undefined ? { id: 'vehicle', param: decodeSegment(b) } : undefined;
  }
  if (c !== undefined) return undefined;
  if (a === 'trips' && b === undefined) return { id: 'trips' };
  if (a === 'telemetry' && b === undefined) return { id: 'telemetry' };
  if (a === 'events' && b === 'historical') return { id: 'events_historical' };
  if (a === 'events' && b === 'recent') return { id: 'events_recent' };
  if (a === 'stops') return b === undefined ? { id: 'stops' } : { id: 'stop', param: decodeSegment(b) };
  if (a === 'reports' && b !== undefined) return { id: 'reports', param: decodeSegment(b) };
  return undefined;
}

function injected(status: 202 | 500, id: MdsEndpointId): Reply {
  if (status === 202)
    return errorReply(
      202,
      'not_ready',
      `The data of ${id} is not processed yet (a fault injected by the sandbox's faults option). Retry later.`,
      ['injected: 202', 'retry after: 1 s'],
      { 'Retry-After': '1' },
    );
  return errorReply(
    500,
    'server_error',
    `The sandbox failed on purpose (a fault injected by the faults option of ${id}). Retry.`,
    ['injected: 500'],
  );
}

/** Reads `cursor` (`<vehicle>-<skip>`) and `page_size` of a paged item list. */
function readCursor(
  query: URLSearchParams,
  fleetSize: number,
): { ok: true; cursor: FleetCursor; limit: number; explicitSize: boolean } | { ok: false; reply: Reply } {
  const text = query.get('cursor');
  let cursor: FleetCursor = { vehicle: 0, skip: 0 };
  if (text !== null) {
    const match = /^(\d{1,7})-(\d{1,5})$/.exec(text);
    const vehicle = Number(match?.[1]);
    if (!match || vehicle >= Math.max(1, fleetSize)) {
      return {
        ok: false,
        reply: errorReply(
          400,
          'bad_param',
          `cursor ${JSON.stringify(text.slice(0, 40))} is not one this sandbox gave out; follow links.next as it is.`,
          [`cursor: ${text.slice(0, 40)}`],
        ),
      };
    }
    cursor = { vehicle, skip: Number(match[2]) };
  }
  const sizeText = query.get('page_size') ?? query.get('page[size]');
  let limit = ITEM_PAGE_SIZE;
  if (sizeText !== null) {
    if (!/^\d{1,9}$/.test(sizeText) || Number(sizeText) < 1) {
      return {
        ok: false,
        reply: errorReply(
          400,
          'bad_param',
          `page_size ${JSON.stringify(sizeText.slice(0, 40))} is not a positive whole number.`,
          [`page_size is capped at ${MAX_PAGE_SIZE}`],
        ),
      };
    }
    limit = Math.min(Number(sizeText), MAX_PAGE_SIZE);
  }
  return { ok: true, cursor, limit, explicitSize: sizeText !== null };
}

/** JSON:API links of a cursor page: `first` and `next` (null on the last page). */
function cursorLinks(
  endpoint: string,
  query: URLSearchParams,
  next: FleetCursor | null,
  limit: number,
  explicitSize: boolean,
): { first: string; next: string | null } {
  const at = (cursor?: FleetCursor) => {
    const params = new URLSearchParams();
    for (const [k, v] of query) if (k !== 'cursor' && k !== 'page_size' && k !== 'page[size]') params.set(k, v);
    if (explicitSize) params.set('page_size', String(limit));
    if (cursor) params.set('cursor', `${cursor.vehicle}-${cursor.skip}`);
    return `${endpoint}?${params.toString()}`;
  };
  return { first: at(), next: next ? at(next) : null };
}

/** Answers one MDS request whose token was accepted. `endpointUrl` is the absolute URL without query. */
export function routeMds(
  ctx: MdsRouteContext,
  rest: string[],
  query: URLSearchParams,
  endpointUrl: string,
  accept: string | undefined,
  notFound: () => Reply,
): Reply {
  const found = endpointOf(rest);
  if (!found) {
    // The Geography API is not a Provider endpoint of the catalogue, but JSON of MDS 2.0 like one.
    const geographies = routeGeographies(rest);
    if (!geographies) return notFound();
    return negotiateMds(accept).ok
      ? geographies
      : errorReply(406, 'not_acceptable', 'The sandbox serves MDS version 2.0 only.', [
          'supported: application/vnd.mds+json;version=2.0',
        ]);
  }
  const { fleet } = ctx;
  const world = fleet.world;
  const nowMs = ctx.now();
  const startMs = worldStartMs(nowMs, ctx.historyDays);

  if (found.id !== 'reports') {
    const decision = negotiateMds(accept);
    if (!decision.ok) {
      return errorReply(
        406,
        'not_acceptable',
        `The sandbox serves MDS version 2.0 only, not ${decision.requested.map((v) => JSON.stringify(v)).join(', ')}.`,
        ['supported: application/vnd.mds+json;version=2.0'],
      );
    }
  }

  const hourEndpoint = (id: MdsHourEndpointId, serve: (hourMs: number) => Reply): Reply => {
    const hour = readHour(id, query);
    if (!hour.ok) return hour.reply;
    const fault = ctx.faults.take(id, hour.hour);
    if (fault) return injected(fault, id);
    const unavailable = hourAvailability(id, hour.hour, hour.hourMs, nowMs, startMs);
    if (unavailable) return unavailable;
    if (world.faults?.isStuckHour(hour.hourMs / HOUR_MS)) {
      return errorReply(
        202,
        'not_ready',
        `${hour.hour} is not processed yet (an hour that stays 202: a data fault of sandbox --data-faults hour-coverage). Retry later.`,
        [`hour: ${hour.hour}`, 'data fault: hour-coverage'],
        { 'Retry-After': '3600' },
      );
    }
    if (world.faults?.isUnpublished(hour.hourMs / HOUR_MS, nowMs)) {
      return errorReply(
        202,
        'not_ready',
        `${hour.hour} is not processed yet (an hour published late: a data fault of sandbox --data-faults publication-late). Retry later.`,
        [`hour: ${hour.hour}`, 'data fault: publication-late'],
        { 'Retry-After': '3600' },
      );
    }
    return serve(hour.hourMs);
  };
  const fault =
    found.id === 'trips' || found.id === 'telemetry' || found.id === 'events_historical'
      ? undefined
      : ctx.faults.take(found.id);
  if (fault) return injected(fault, found.id);

  /** The vehicle of `/vehicles/{device_id}` or `/vehicles/status/{device_id}`: only one its listing holds. */
  const vehicleIndex = (listed: (id: string) => number | undefined): number | Reply => {
    const id = found.param ?? '';
    const index = listed(id);
    if (index !== undefined) return index;
    return errorReply(404, 'not_found', `No vehicle has the device_id ${JSON.stringify(id.slice(0, 80))}.`, [
      `device_id: ${id.slice(0, 80)}`,
    ]);
  };
  const page = (total: number): { ok: true; page: PageRequest } | { ok: false; reply: Reply } => {
    const parsed = parsePage(query, ctx.pageSize, total);
    if (parsed.ok) return parsed;
    return {
      ok: false,
      reply: errorReply(400, 'bad_param', `The page parameters are wrong: ${parsed.problem}.`, [
        `page_size is capped at ${MAX_PAGE_SIZE}`,
      ]),
    };
  };

  switch (found.id) {
    case 'vehicles': {
      const p = page(fleet.vehicleListing().count);
      return p.ok ? mds(vehiclesPage(fleet, endpointUrl, p.page, nowMs)) : p.reply;
    }
    case 'vehicles_status': {
      const p = page(fleet.statusListing(nowMs).count);
      return p.ok ? mds(vehiclesStatusPage(fleet, endpointUrl, p.page, nowMs)) : p.reply;
    }
    case 'vehicle': {
      const index = vehicleIndex((id) => fleet.listedIndexOf(id));
      return typeof index === 'number' ? mds(singleVehicle(fleet, index, nowMs)) : index;
    }
    case 'vehicle_status': {
      const index = vehicleIndex((id) => fleet.statusIndexOf(id, nowMs));
      return typeof index === 'number' ? mds(singleVehicleStatus(fleet, index, nowMs)) : index;
    }
    case 'trips':
      // MDS: "/trips and /events/historical endpoints must not use pagination".
      return hourEndpoint('trips', (hourMs) => mds({ version: MDS_VERSION, trips: world.tripsEndingIn(hourMs) }));
    case 'events_historical':
      return hourEndpoint('events_historical', (hourMs) =>
        mds({ version: MDS_VERSION, events: world.eventsIn(hourMs, hourMs + HOUR_MS) }),
      );
    case 'telemetry':
      return hourEndpoint('telemetry', (hourMs) => {
        const c = readCursor(query, fleet.size);
        if (!c.ok) return c.reply;
        const result = world.page((v) => world.vehicleTelemetry(v, hourMs, hourMs + HOUR_MS), c.cursor, c.limit);
        return mds({
          version: MDS_VERSION,
          telemetry: result.items,
          links: cursorLinks(endpointUrl, query, result.next, c.limit, c.explicitSize),
        });
      });
    case 'events_recent': {
      const window = readRecentWindow(query, nowMs);
      if (!window.ok) return window.reply;
      const c = readCursor(query, fleet.size);
      if (!c.ok) return c.reply;
      const from = Math.max(window.startMs, startMs);
      const result =
        window.endMs <= from
          ? { items: [], next: null }
          : world.page((v) => world.vehicleEvents(v, from, window.endMs), c.cursor, c.limit);
      return mds({
        version: MDS_VERSION,
        events: result.items,
        links: cursorLinks(endpointUrl, query, result.next, c.limit, c.explicitSize),
      });
    }
    case 'stops':
      return mds({
        version: MDS_VERSION,
        last_updated: nowMs,
        ttl: MDS_TTL_MS,
        stops: stopsAt(fleet.seed, fleet.providerId, nowMs),
      });
    case 'stop': {
      const stop = stopsAt(fleet.seed, fleet.providerId, nowMs).find(
        (s) => s.stop_id === (found.param ?? '').toLowerCase(),
      );
      if (!stop)
        return errorReply(
          404,
          'not_found',
          `No stop has the stop_id ${JSON.stringify((found.param ?? '').slice(0, 80))}.`,
          [`stop_id: ${(found.param ?? '').slice(0, 80)}`],
        );
      return mds({ version: MDS_VERSION, last_updated: nowMs, ttl: MDS_TTL_MS, stops: [stop] });
    }
    case 'reports':
      return report(ctx, found.param ?? '', nowMs, startMs);
  }
}

const reportCache = new WeakMap<SyntheticFleet, Map<string, string>>();

function report(ctx: MdsRouteContext, file: string, nowMs: number, startMs: number): Reply {
  const match = /^(.*)\.csv$/.exec(file);
  const month = match ? parseReportMonth(match[1] ?? '') : undefined;
  if (!month) {
    return errorReply(
      404,
      'not_found',
      `There is no report ${JSON.stringify(file.slice(0, 40))}; reports are named YYYY-MM.csv, such as 2025-10.csv.`,
      [`file: ${file.slice(0, 40)}`],
    );
  }
  const { startMs: monthStart, endMs: monthEnd } = reportMonthBounds(month.year, month.month);
  const name = `${match?.[1]}.csv`;
  if (monthEnd > nowMs) {
    return errorReply(
      404,
      'not_found',
      `The report ${name} does not exist yet: reports cover whole months, and this one has not ended.`,
      [`file: ${name}`, `now: ${new Date(nowMs).toISOString()}`],
    );
  }
  if (monthEnd <= startMs) {
    return errorReply(
      404,
      'not_found',
      `The report ${name} does not exist: the provider began operating on ${new Date(startMs).toISOString().slice(0, 10)}.`,
      [`file: ${name}`],
    );
  }
  const from = Math.max(monthStart, startMs);
  let cache = reportCache.get(ctx.fleet);
  if (!cache) {
    cache = new Map();
    reportCache.set(ctx.fleet, cache);
  }
  const key = `${name}@${from}`;
  let text = cache.get(key);
  if (text === undefined) {
    if (cache.size > 24) cache.clear();
    text = reportCsv(monthlyReportRows(ctx.fleet.world, month.year, month.month, from));
    cache.set(key, text);
  }
  return { status: 200, contentType: MDS_CSV_CONTENT_TYPE, body: undefined, text };
}
