// The readers and tables of every resource (trips, events, telemetry, stops, report CSVs), the generic table
// model (filter, sort, concat), the summary lines by outcome, and the panel's conformance view, against the
// sandbox (a real HTTP server) and against hostile items.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ApiResult } from '../../src/core/http/exchange';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import type { DataTableView } from '../../src/shared/dataTable';
import {
  cellText,
  columnById,
  groupCounts,
  queryRows,
  rowCountText,
  visibleDataColumns,
} from '../../src/shared/dataTable';
import { concatDataTables, vehicleDataTable } from '../../src/shared/dataTableBuild';
import { parseTableQuery, parseWebviewMessage } from '../../src/shared/protocol';
import { formatResult } from '../../src/cli/support/resultOutput';
import { resultConformanceView } from '../../src/results/requests/conformance';
import { MAX_CELL_CHARS } from '../../src/results/requests/fieldReaders';
import {
  csvTable,
  eventTable,
  readEvent,
  readStop,
  readTelemetry,
  readTrip,
  stopTable,
  telemetryTable,
  tripTable,
} from '../../src/results/requests/resourceReaders';
import { resultLine, resultView } from '../../src/results/requests/resultView';
import { MAX_CODES, OTHER_NAME, vehicleColumns } from '../../src/results/requests/vehicleReader';
import { clearOfPeriodEnd } from './support/clockBoundary';

const HOUR = 3_600_000;

function hourText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

function text(table: DataTableView, column: string, row: number): string {
  const c = columnById(table, column);
  assert.ok(c, `column ${column}`);
  return cellText(c, row);
}

const HOSTILE_VALUES: unknown[] = [
  null,
  undefined,
  42,
  'text',
  [],
  {},
  { lat: 'x' },
  Number.NaN,
  true,
  'x'.repeat(5_000_000),
  { toString: 'no' },
];

describe('resource readers and tables', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let credential: Credential;
  let env: Environment;
  const client = new ApiClient();
  // A processed hour in the middle of yesterday (UTC): the sandbox has trips, events and telemetry for it.
  const hour = hourText(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 12 * HOUR);

  before(async () => {
    sandbox = await startSandbox({ fleetSize: 200, pageSize: 100 });
    const demo = sandbox.demo;
    credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    const e = sandbox.environments.find((x) => x.id === 'mds-staging');
    if (!e) throw new Error('no mds-staging');
    env = { id: e.id, name: 'Sandbox MDS', api: e.api, stage: e.stage, baseUrl: e.baseUrl };
  });
  after(async () => {
    await sandbox?.close();
  });

  const get = (path: string, itemsKey?: string): Promise<ApiResult> =>
    client.request(env, credential, { path, itemsKey });
  const view = (result: ApiResult, title = 'T') =>
    resultView({
      id: 'r',
      environment: env,
      result,
      title,
      canLoadNext: false,
      canCopyCurl: false,
      canRunAgain: true,
      now: Date.now(),
    });

  it('shows the sandbox trips of an hour: one row per trip, every column read from the item, start and end positions', async () => {
    const result = await get(`/trips?end_time=${hour}`, 'trips');
    assert.equal(result.outcome, 'items', result.stoppedBecause);
    const v = view(result, 'Trips');
    const table = v.table as DataTableView;
    assert.equal(table.resource, 'trips');
    assert.equal(table.count, result.items.length);
    const item = result.items[0] as {
      trip_id: string;
      device_id: string;
      duration: number;
      distance: number;
      start_time: number;
      end_time: number;
      start_location: { lat: number; lng: number };
      end_location: { lat: number; lng: number };
    };
    assert.equal(text(table, 'tripId', 0), item.trip_id);
    assert.equal(text(table, 'deviceId', 0), item.device_id);
    assert.equal(text(table, 'duration', 0), `${Math.round(item.duration)} s`);
    assert.equal(text(table, 'distance', 0), `${Math.round(item.distance)} m`);
    assert.equal(
      text(table, 'start', 0),
      new Date(item.start_time)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z'),
    );
    assert.equal(
      text(table, 'endPosition', 0),
      `${item.end_location.lat.toFixed(5)}, ${item.end_location.lng.toFixed(5)}`,
    );
    assert.equal(
      text(table, 'startPosition', 0),
      `${item.start_location.lat.toFixed(5)}, ${item.start_location.lng.toFixed(5)}`,
    );
    assert.ok(
      !visibleDataColumns(table).some((c) => c.id === 'providerId'),
      'the provider id is not a column worth showing',
    );
    assert.equal(
      v.summary.line,
      `200 OK · ${table.count.toLocaleString('en-US')} trip${table.count === 1 ? '' : 's'} · 1 page`,
    );
    assert.equal(v.pages[0].itemCount, table.count, 'the page table counts trips too');
    const printed = formatResult(result);
    assert.match(
      printed,
      /^Trip ID\s+Device ID\s+Trip type\s+Start\s+End\s+Duration\s+Distance\s+Start position\s+End position$/m,
      "the CLI prints the panel's columns",
    );
    assert.ok(printed.includes(`${item.trip_id}  ${item.device_id}`), 'and its cells');
  });

  it('shows events, telemetry and stops with their own columns, and a report CSV as a table', async () => {
    const events = view(await get(`/events/historical?event_time=${hour}`, 'events')).table as DataTableView;
    assert.equal(events.resource, 'events');
    assert.ok(events.count > 0);
    const firstEvent = readEvent((await get(`/events/historical?event_time=${hour}`, 'events')).items[0]);
    assert.equal(text(events, 'state', 0), firstEvent.vehicleState);
    assert.equal(text(events, 'eventTypes', 0), firstEvent.eventTypes);
    assert.ok(groupCounts(events).size > 0, 'events group by vehicle state');

    const telemetryResult = await get(`/telemetry?telemetry_time=${hour}`, 'telemetry');
    const telemetry = view(telemetryResult).table as DataTableView;
    assert.equal(telemetry.count, telemetryResult.items.length);
    const point = readTelemetry(telemetryResult.items[0]);
    assert.equal(text(telemetry, 'position', 0), `${point.lat.toFixed(5)}, ${point.lng.toFixed(5)}`);
    assert.equal(text(telemetry, 'deviceId', 0), point.deviceId);

    const stopsResult = await get('/stops', 'stops');
    const stops = view(stopsResult).table as DataTableView;
    assert.equal(stops.count, stopsResult.items.length);
    const stop = readStop(stopsResult.items[0]);
    assert.equal(text(stops, 'name', 0), stop.name);
    assert.equal(text(stops, 'available', 0), Number.isNaN(stop.available) ? '' : String(Math.round(stop.available)));
    assert.match(text(stops, 'status', 0), /installed|closed/);

    const month = new Date(Date.now() - 40 * 24 * HOUR).toISOString().slice(0, 7);
    const report = await get(`/reports/${month}.csv`);
    if (report.outcome === 'items') {
      const table = view(report).table as DataTableView;
      assert.equal(table.resource, 'report');
      assert.deepEqual(
        table.columns.map((c) => c.label),
        report.columns,
      );
      assert.equal(columnById(table, 'c6')?.type, 'number', 'trip_count sorts as a number');
    }
  });

  it('names the resource and the outcome in the summary line', async () => {
    await clearOfPeriodEnd(HOUR, 10_000);
    const current = await get(`/trips?end_time=${hourText(Date.now())}`, 'trips');
    assert.equal(current.outcome, 'not_processed');
    assert.match(view(current).summary.line, /^not processed yet \(202\)( — retry after \d+ s| — try again later)$/);
    const future = await get(`/trips?end_time=${hourText(Date.now() + 48 * HOUR)}`, 'trips');
    assert.equal(future.outcome, 'not_found');
    assert.equal(view(future).summary.line, '404 Not Found: no data for that hour');
    assert.equal(
      resultLine({
        outcome: 'empty',
        status: 200,
        noun: ['trip', 'trips'],
        itemCount: 0,
        pageCount: 1,
        moreExist: false,
        hourly: true,
      }),
      '200 · no trips in this hour',
    );
    assert.equal(
      resultLine({
        outcome: 'items',
        status: 200,
        statusText: 'OK',
        noun: ['trip', 'trips'],
        itemCount: 48,
        pageCount: 1,
        moreExist: false,
        hourly: true,
      }),
      '200 OK · 48 trips · 1 page',
    );
    assert.equal(
      resultLine({
        outcome: 'not_processed',
        status: 202,
        noun: ['trip', 'trips'],
        itemCount: 0,
        pageCount: 1,
        moreExist: false,
        retryAfterSeconds: 120,
        hourly: true,
      }),
      'not processed yet (202) — retry after 120 s',
    );
  });

  it('reads hostile items without throwing: wrong types, missing fields, huge strings', () => {
    for (const value of HOSTILE_VALUES) {
      const item = {
        trip_id: value,
        device_id: value,
        start_time: value,
        end_time: value,
        duration: value,
        distance: value,
        start_location: value,
        end_location: value,
        trip_type: value,
        event_types: value,
        vehicle_state: value,
        trip_ids: value,
        location: value,
        timestamp: value,
        battery_percent: value,
        name: value,
        stop_id: value,
        status: value,
        num_vehicles_available: value,
      };
      for (const read of [readTrip, readEvent, readTelemetry, readStop]) {
        assert.doesNotThrow(() => read(item));
        assert.doesNotThrow(() => read(value));
      }
      for (const build of [tripTable, eventTable, telemetryTable, stopTable]) {
        const table = build([item, value, null]);
        assert.equal(table.count, 3);
        for (const column of table.columns)
          for (let r = 0; r < 3; r++)
            assert.ok(cellText(column, r).length <= MAX_CELL_CHARS, `${table.resource}.${column.id} is cut`);
      }
    }
    const out = readTrip({ start_location: { lat: 200, lng: 0 }, duration: '12', start_time: '2025-11-05T13:00:00Z' });
    assert.ok(Number.isNaN(out.startLat), 'a latitude beyond 90 is no position');
    assert.ok(Number.isNaN(out.durationSeconds), 'a string is no duration');
    assert.equal(out.startMs, Date.parse('2025-11-05T13:00:00Z'), 'ISO times are read');
    assert.equal(
      readStop({
        status: { is_installed: true, is_renting: false, is_returning: true },
        num_vehicles_available: { scooter_standing: 3, bicycle: 2, x: 'no' },
      }).status,
      'installed, returning',
    );
    assert.equal(readStop({ num_vehicles_available: { scooter_standing: 3, bicycle: 2, x: 'no' } }).available, 5);
  });

  it('keeps 70,000 distinct event types in a bounded code book', () => {
    const count = 70_000;
    const items = Array.from({ length: count }, (_, i) => ({
      event_types: [`type-${i}`],
      vehicle_state: 'available',
      timestamp: i,
    }));
    const table = eventTable(items);
    const types = columnById(table, 'eventTypes');
    assert.equal(types?.type, 'category');
    if (types?.type !== 'category') return;
    assert.equal(types.names.length, MAX_CODES);
    assert.equal(types.names.at(-1), OTHER_NAME);
    assert.equal(cellText(types, count - 1), OTHER_NAME, 'names past the limit are grouped');
    assert.equal(cellText(types, 5), 'type-5');
  });

  it('filters, groups and sorts any table; concatenates pages with their codes merged', () => {
    const a = tripTable([
      { trip_id: 't1', device_id: 'd-b', duration: 30, trip_type: ['rider'] },
      { trip_id: 't2', device_id: 'd-a', duration: 10, trip_type: ['rebalance'] },
      { trip_id: 't3', device_id: 'd-c', trip_type: ['rider'] },
    ]);
    assert.deepEqual([...queryRows(a, { sortColumn: 'duration' })], [1, 0, 2], 'empty cells sort last');
    assert.deepEqual([...queryRows(a, { sortColumn: 'duration', sortDescending: true })], [0, 1, 2]);
    assert.deepEqual([...queryRows(a, { filter: 'D-A' })], [1], 'the filter is case-insensitive');
    assert.deepEqual([...queryRows(a, { group: 'rider' })], [0, 2]);
    assert.deepEqual([...queryRows(a, { filter: 'rebal' })], [1], 'category names match');
    assert.deepEqual([...queryRows(a, { group: 'nothing' })], []);
    assert.deepEqual([...queryRows(a, { sortColumn: 'no-such-column' })], [0, 1, 2]);
    assert.equal(rowCountText(a, 1), '1 of 3 trips');
    const b = tripTable([
      { trip_id: 't4', trip_type: ['maintenance'] },
      { trip_id: 't5', trip_type: ['rider'] },
    ]);
    const both = concatDataTables(a, b);
    assert.equal(both.count, 5);
    assert.equal(text(both, 'tripId', 4), 't5');
    assert.equal(text(both, 'tripType', 3), 'maintenance');
    assert.equal(text(both, 'tripType', 4), 'rider');
    assert.equal(a.count, 3, 'inputs unchanged');

    const vehicles = vehicleDataTable(
      vehicleColumns([
        { device_id: 'v1', last_event: { vehicle_state: 'available' } },
        { device_id: 'v2', last_event: { vehicle_state: 'on_trip' } },
      ]),
    );
    assert.deepEqual([...queryRows(vehicles, { group: 'on_trip' })], [1]);
    assert.equal(rowCountText(vehicles, 2), '2 vehicles');
  });

  it('reads a CSV with numbers as numbers and strings as text', () => {
    const table = csvTable(
      ['provider_id', 'trip_count', 'geography_id'],
      [
        { provider_id: 'p', trip_count: '-1', geography_id: '' },
        { provider_id: 'p', trip_count: '12', geography_id: 'g' },
      ],
    );
    assert.deepEqual(
      table.columns.map((c) => c.type),
      ['text', 'number', 'text'],
    );
    assert.deepEqual([...queryRows(table, { sortColumn: 'c1', sortDescending: true })], [1, 0]);
  });

  it('checks conformance per page and points each example into its page', () => {
    const good = {
      version: '2.0.0',
      last_updated: Date.now(),
      ttl: 0,
      vehicles_status: [] as unknown[],
      links: { next: null },
    };
    const status = {
      device_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f70',
      provider_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f71',
      last_event: {
        event_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f72',
        vehicle_state: 'available',
        event_types: ['battery_charged'],
        timestamp: Date.now(),
        location: { lat: 52.5, lng: 13.4 },
        device_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f70',
        provider_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f71',
      },
      last_telemetry: {
        device_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f70',
        provider_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f71',
        telemetry_id: '3f1a6f6a-4d5e-4c3b-9f1a-2b3c4d5e6f73',
        timestamp: Date.now(),
        trip_ids: null,
        journey_id: null,
        location: { lat: 52.5, lng: 13.4 },
      },
    };
    const page = (body: unknown) => ({
      url: 'http://x/vehicles/status',
      method: 'GET' as const,
      requestHeaders: {},
      status: 200,
      statusText: 'OK',
      ok: true,
      responseHeaders: {},
      contentType: 'application/vnd.mds+json;version=2.0',
      body,
      bodyKind: 'json' as const,
      bytes: 1,
      timings: { queuedMs: 0, signMs: 0, ttfbMs: 0, totalMs: 0 },
    });
    const broken = {
      ...good,
      vehicles_status: [
        status,
        { ...status, last_event: { ...status.last_event, device_id: undefined, vehicle_state: 'flying' } },
      ],
    };
    assert.equal(
      resultConformanceView({ pages: [page({ ...good, vehicles_status: [status] })] }, 'vehicles_status').state ===
        'checked',
      true,
    );
    const fine = resultConformanceView({ pages: [page({ ...good, vehicles_status: [status] })] }, 'vehicles_status');
    assert.ok(fine.state === 'checked' && fine.conforms, JSON.stringify(fine).slice(0, 800));
    const view = resultConformanceView(
      { pages: [page({ ...good, vehicles_status: [status] }), page(broken)] },
      'vehicles_status',
    );
    assert.equal(view.state, 'checked');
    if (view.state !== 'checked') return;
    assert.equal(view.conforms, false);
    assert.equal(view.itemsChecked, 3);
    assert.ok(view.rules.length > 0);
    const example = view.rules[0].examples[0];
    assert.equal(example.pageIndex, 1, 'the example is on the second page');
    assert.match(example.path, /^\/vehicles_status\/1\//);
    assert.ok(
      view.rules.some(
        (r) => r.message === 'missing required property device_id' && r.where === '/vehicles_status/*/last_event',
      ),
      'the missing device_id is a rule',
    );
    assert.equal(resultConformanceView({ pages: [page({ hello: 'world' })] }, undefined).state, 'notMds');
  });

  it('accepts only well-formed export messages from the webview', () => {
    assert.deepEqual(
      parseWebviewMessage({
        type: 'export',
        resultId: 'r',
        format: 'csv',
        query: { filter: 'x', sortColumn: 'tripId', sortDescending: true, extra: 1 },
      }),
      {
        type: 'export',
        resultId: 'r',
        format: 'csv',
        query: { filter: 'x', sortColumn: 'tripId', sortDescending: true },
      },
    );
    assert.equal(parseWebviewMessage({ type: 'export', resultId: 'r', format: 'exe', query: {} }), undefined);
    assert.equal(parseWebviewMessage({ type: 'export', resultId: 'r', format: 'raw', pageIndex: -1 }), undefined);
    assert.deepEqual(parseTableQuery({ filter: 'y'.repeat(10_000), group: 3 }), {});
  });
});
