import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keyFixture } from './keyFixtures';
import type { VehicleListing } from '../../src/core/http/exchange';
import { ApiClient } from '../../src/core/http/apiClient';
import { decodeJwt } from '../../src/core/auth/decodeJwt';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { lintToken } from '../../src/core/auth/lintToken';
import { parseCredential } from '../../src/core/auth/parseCredential';
import type { Credential } from '../../src/core/auth/credential';
import { maskKeyId } from '../../src/core/base/redact';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { concatVehicleColumns } from '../../src/shared/listingViews';
import type { VehicleColumns } from '../../src/shared/vehicleColumns';
import {
  cellText as dataCellText,
  columnById,
  DataTableSorter,
  filterTableRows,
  groupCounts,
  visibleDataColumns,
} from '../../src/shared/dataTable';
import { vehicleDataTable } from '../../src/shared/dataTableBuild';
import { urlBreakPieces } from '../../src/webview-ui/urlBreaks';
import { bodyView } from '../../src/results/requests/bodyView';
import { buildCurlCommand } from '../../src/results/requests/environmentView';
import { listingView, requestErrorView } from '../../src/results/requests/listingView';
import { shortenToken } from '../../src/results/tokens/tokenPreview';
import { tokenResultView } from '../../src/results/tokens/tokenView';
import { MAX_CODES, OTHER_NAME, vehicleColumns } from '../../src/results/requests/vehicleReader';
import { runCliInProcess } from './support/cliRunner';
import { startTestServer } from './support/testServer';

/** Every raw token a listing carried. */
function tokensOf(listing: VehicleListing): string[] {
  return listing.pages.map((p) => p.token?.token ?? '');
}

/** Asserts that no raw token appears anywhere in a view (as the webview would receive it). */
function assertNoToken(view: unknown, tokens: string[]): void {
  const text = JSON.stringify(view, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v));
  for (const token of tokens) {
    assert.ok(token.length > 100, 'a real token');
    assert.ok(!text.includes(token), 'the raw token is in the view');
    // Its signature part alone would be enough to reuse it.
    assert.ok(!text.includes(token.split('.')[2]), 'the token signature is in the view');
  }
}

// The vehicle table through the one table model of every resource (src/shared/dataTable.ts), by the vehicle column ids.
function cellText(cols: VehicleColumns, row: number, id: string): string {
  const column = columnById(vehicleDataTable(cols), id);
  assert.ok(column, `a vehicle column ${id}`);
  return dataCellText(column, row);
}
function visibleColumns(cols: VehicleColumns) {
  return visibleDataColumns(vehicleDataTable(cols));
}
function filterRows(cols: VehicleColumns, filter: { text?: string; state?: string }): Uint32Array {
  return filterTableRows(vehicleDataTable(cols), { filter: filter.text, group: filter.state });
}
function stateCounts(cols: VehicleColumns): Map<string, number> {
  return groupCounts(vehicleDataTable(cols));
}
class TableSorter extends DataTableSorter {
  constructor(cols: VehicleColumns) {
    super(vehicleDataTable(cols));
  }
}

describe('results panel view models', function () {
  this.timeout(30_000);
  let sandbox: RunningSandbox;
  let credential: Credential;
  let client: ApiClient;
  const env = (id: 'mds-staging' | 'maas-staging', overrides: Partial<Environment> = {}): Environment => {
    const e = sandbox.environments.find((x) => x.id === id);
    if (!e) throw new Error(`no sandbox environment ${id}`);
    return { id: e.id, name: `Sandbox ${e.id}`, api: e.api, stage: e.stage, baseUrl: e.baseUrl, ...overrides };
  };

  before(async () => {
    sandbox = await startSandbox({ fleetSize: 250, pageSize: 100 });
    const demo = sandbox.demo;
    credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    client = new ApiClient();
  });
  after(async () => {
    await sandbox?.close();
  });

  describe('a listing of MDS vehicles', () => {
    it('shows the request with the token shortened, the response, and one table row per vehicle', async () => {
      const listing = await client.listVehicles(env('mds-staging'), credential);
      const view = listingView({
        id: 'r1',
        environment: env('mds-staging'),
        listing,
        canLoadNext: true,
        canCopyCurl: true,
        now: Date.now(),
      });
      assert.equal(view.kind, 'listing');
      assert.equal(view.shape, 'mds-vehicles');
      assert.equal(view.vehicles.count, 100);
      assert.equal(view.pages.length, 1);
      assert.equal(view.canLoadNext, true, 'the sandbox has 250 vehicles in pages of 100');
      assert.match(view.nextUrl ?? '', /page=2/);
      const page = view.pages[0];
      assert.equal(page.response.status, 200);
      assert.equal(page.itemCount, 100);
      const token = listing.pages[0].token?.token ?? '';
      const auth = page.request.headers.find((h) => h.name === 'Authorization');
      assert.equal(auth?.value, `Bearer ${token.slice(0, 10)}…${token.slice(-6)}`);
      assert.equal(auth?.secret, true);
      assert.equal(page.request.tokenPreview, shortenToken(token));
      assert.match(page.request.curlPreview, /"Authorization: Bearer \$TOKEN"/);
      assert.equal(page.token?.alreadyUsed, true);
      assert.deepEqual(
        page.token?.findings.filter((f) => f.severity !== 'info'),
        [],
        'a token the sandbox accepted has no errors or warnings',
      );
      assert.equal(view.summary.line, '200 OK · 100 vehicles so far · 1 page');
      assert.equal(view.summary.rerun, 'vehicles');
      // MDS /vehicles has ids, type and propulsion but no state or position.
      const body = listing.pages[0].body as {
        vehicles: { device_id: string; vehicle_id: string; vehicle_type: string; propulsion_types: string[] }[];
      };
      assert.equal(cellText(view.vehicles, 0, 'deviceId'), body.vehicles[0].device_id);
      assert.equal(cellText(view.vehicles, 0, 'vehicleId'), body.vehicles[0].vehicle_id);
      assert.equal(cellText(view.vehicles, 0, 'type'), body.vehicles[0].vehicle_type);
      assert.equal(cellText(view.vehicles, 0, 'propulsion'), body.vehicles[0].propulsion_types.join(', '));
      assert.equal(cellText(view.vehicles, 0, 'position'), '');
      assert.deepEqual(
        visibleColumns(view.vehicles).map((c) => c.id),
        ['deviceId', 'vehicleId', 'type', 'propulsion'],
        'no empty state or position columns',
      );
      assertNoToken(view, tokensOf(listing));
    });

    it('appends a next page to the columns, keeping categories consistent', async () => {
      const first = await client.listVehicles(env('mds-staging'), credential, { query: { status: true } });
      const nextUrl = first.nextUrl ?? '';
      const second = { ...first, pages: [await client.get(nextUrl, env('mds-staging'), credential)] };
      const body = second.pages[0].body as { vehicles_status: unknown[] };
      const a = vehicleColumns(first.items);
      const b = vehicleColumns(body.vehicles_status);
      const merged = concatVehicleColumns(a, b);
      assert.equal(merged.count, 200);
      for (const i of [0, 99, 100, 199]) {
        const [cols, row] = i < 100 ? [a, i] : [b, i - 100];
        for (const column of ['deviceId', 'state', 'type', 'propulsion', 'battery', 'lastEvent', 'position'] as const) {
          assert.equal(cellText(merged, i, column), cellText(cols, row, column), `row ${i}, ${column}`);
        }
      }
    });
  });

  describe('a listing of MDS vehicle status', () => {
    it('reads state, battery, last event time and position from last_event and last_telemetry', async () => {
      const listing = await client.listVehicles(env('mds-staging'), credential, { query: { status: true } });
      const view = listingView({
        id: 'r2',
        environment: env('mds-staging'),
        listing,
        canLoadNext: false,
        canCopyCurl: false,
        now: Date.now(),
      });
      assert.equal(view.shape, 'mds-status');
      assert.equal(view.title, 'Vehicle status · Sandbox mds-staging');
      assert.equal(view.canLoadNext, false, 'no loader was given');
      assert.equal(view.summary.rerun, 'status', '"Run again" asks for the status listing again');
      const item = listing.items[3] as {
        device_id: string;
        last_event: { vehicle_state: string; timestamp: number };
        last_telemetry: { battery_percent?: number; location: { lat: number; lng: number } };
      };
      const cols = view.vehicles;
      assert.equal(cols.deviceId[3], item.device_id);
      assert.equal(cellText(cols, 3, 'state'), item.last_event.vehicle_state);
      assert.equal(cols.lastEvent[3], item.last_event.timestamp);
      assert.equal(cols.lat[3], item.last_telemetry.location.lat);
      assert.equal(cols.lng[3], item.last_telemetry.location.lng);
      if (item.last_telemetry.battery_percent !== undefined)
        assert.equal(cols.battery[3], item.last_telemetry.battery_percent);
      // How many states the synthetic fleet shows depends on the hour (its nights are quiet): every one is named once.
      const states = new Set(
        listing.items.map((i) => (i as { last_event: { vehicle_state: string } }).last_event.vehicle_state),
      );
      assert.deepEqual(
        cols.stateNames.filter(Boolean).sort(),
        [...states].sort(),
        'each state of the fleet is named once ("" stands for none)',
      );
      assert.deepEqual(
        visibleColumns(cols).map((c) => c.id),
        ['deviceId', 'state', 'battery', 'lastEvent', 'position'],
        'status items carry no type or propulsion',
      );
      assertNoToken(view, tokensOf(listing));
    });
  });

  describe('a MaaS listing', () => {
    it('reads the MaaS item shape: id, state, battery_percent, location, last_reported', async () => {
      const listing = await client.listVehicles(env('maas-staging'), credential);
      const view = listingView({
        id: 'r3',
        environment: env('maas-staging'),
        listing,
        canLoadNext: true,
        canCopyCurl: true,
        now: Date.now(),
      });
      assert.equal(view.shape, 'maas');
      assert.equal(view.environment.apiLabel, 'MaaS API');
      const item = listing.items[0] as {
        id: string;
        state: string;
        battery_percent: number | null;
        location: { lat: number; lng: number };
        last_reported: string;
      };
      assert.equal(cellText(view.vehicles, 0, 'deviceId'), item.id);
      assert.equal(cellText(view.vehicles, 0, 'state'), item.state);
      assert.equal(view.vehicles.lastEvent[0], Date.parse(item.last_reported));
      assert.equal(
        cellText(view.vehicles, 0, 'position'),
        `${item.location.lat.toFixed(5)}, ${item.location.lng.toFixed(5)}`,
      );
      assert.equal(
        cellText(view.vehicles, 0, 'battery'),
        item.battery_percent === null ? '' : `${Math.round(item.battery_percent)} %`,
      );
      assert.ok(
        !visibleColumns(view.vehicles).some((c) => c.id === 'vehicleId'),
        'MaaS items have no vehicle_id column',
      );
      assertNoToken(view, tokensOf(listing));
    });
  });

  describe('an error listing', () => {
    it('names the sandbox rule, its spec section, the HTTP status meaning and what to try next', async () => {
      const wrong = env('mds-staging', { audience: 'https://not-the-base-url.test.invalid' });
      const listing = await client.listVehicles(wrong, credential);
      const view = listingView({
        id: 'r4',
        environment: wrong,
        listing,
        canLoadNext: true,
        canCopyCurl: true,
        now: Date.now(),
      });
      assert.equal(view.vehicles.count, 0);
      const error = view.error;
      assert.ok(error, 'the error is shown above everything');
      assert.equal(error.status, 401);
      assert.equal(error.title, '401 Unauthorized');
      assert.match(error.statusMeaning ?? '', /refused the bearer token/);
      assert.equal(error.mdsError?.error, 'invalid_token');
      assert.equal(error.rule?.id, 'aud_mismatch');
      assert.equal(error.rule?.spec, '5.3');
      assert.match(error.rule?.requirement ?? '', /aud/);
      assert.match(error.tips[0], /base URL/, "the rule's own advice comes first");
      assert.ok(error.tips.length >= 2, 'then the advice for the status');
      assert.match(view.stoppedBecause ?? '', /401/);
      assert.equal(view.canLoadNext, false);
      assert.ok(
        view.pages[0].token?.findings.some((f) => f.id === 'aud-unknown'),
        'the lint finding names the same problem',
      );
      assertNoToken(view, tokensOf(listing));
    });

    it('shows a non-JSON error body as the message, and the WWW-Authenticate challenge', () => {
      const listing: VehicleListing = {
        pages: [
          {
            url: 'https://api.test.invalid/vehicles',
            method: 'GET',
            requestHeaders: { Authorization: 'Bearer <redacted>' },
            token: {
              token: 'x'.repeat(200),
              header: { alg: 'ES256', kid: 'k', typ: 'JWT' },
              claims: {} as never,
              environmentId: 'e',
            },
            status: 502,
            statusText: 'Bad Gateway',
            ok: false,
            responseHeaders: { 'www-authenticate': 'Bearer' },
            contentType: 'text/html',
            body: '<html>upstream down</html>',
            bodyKind: 'text',
            text: '<html>upstream down</html>',
            bytes: 26,
            timings: { queuedMs: 0, signMs: 1, ttfbMs: 10, totalMs: 11 },
          },
        ],
        items: [],
      };
      const e: Environment = { id: 'e', name: 'E', api: 'mds', stage: 'staging', baseUrl: 'https://api.test.invalid' };
      const view = listingView({
        id: 'r5',
        environment: e,
        listing,
        canLoadNext: false,
        canCopyCurl: false,
        now: Date.now(),
      });
      assert.equal(view.error?.message, '<html>upstream down</html>');
      assert.match(view.error?.statusMeaning ?? '', /proxy/);
      assert.deepEqual(view.error?.facts, [{ name: 'WWW-Authenticate', value: 'Bearer' }]);
      assert.equal(view.pages[0].token, undefined, 'a text that is not a JWT gives no token view');
      assertNoToken(view, ['x'.repeat(200)]);
    });
  });

  describe('a request that got no answer', () => {
    it('shows the error code, the message and what to try next', async () => {
      const closed = await startSandbox({ fleetSize: 1 });
      const stopped = { ...env('mds-staging'), baseUrl: `${closed.url}/mds-staging` };
      await closed.close();
      const err = await client.listVehicles(stopped, credential).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof MobilityError, 'a refused connection is a MobilityError');
      const view = requestErrorView({
        id: 'r6',
        environment: stopped,
        error: err,
        url: `${stopped.baseUrl}/vehicles`,
        now: Date.now(),
      });
      assert.equal(view.kind, 'requestError');
      assert.equal(view.error.code, 'HTTP_CONNECTION_REFUSED');
      assert.equal(view.error.title, 'The request got no answer');
      assert.equal(view.error.message, err.message);
      assert.match(view.error.tips[0], /Start Local Sandbox/);
      assert.equal(view.summary.canRunAgain, true);
      assert.equal(view.summary.environmentId, 'mds-staging');
    });

    it('calls a refusal before sending "not sent"', () => {
      const e: Environment = {
        id: 'm',
        name: 'MaaS',
        api: 'maas',
        stage: 'staging',
        baseUrl: 'https://maas.test.invalid',
      };
      const view = requestErrorView({
        id: 'r7',
        environment: e,
        error: new MobilityError('CREDENTIAL_NOT_FOR_API', 'IAM credentials work with the MDS Provider API only.'),
        now: 0,
      });
      assert.equal(view.error.title, 'The request was not sent');
      assert.match(view.error.tips[0], /External Organization/);
    });
  });

  describe('a token view', () => {
    it('shows header, payload, times and findings, and keeps the token out', async () => {
      const issued = await client.issuer.issue(credential, env('mds-staging'), { lifetimeSeconds: 120 });
      const decoded = decodeJwt(issued.token);
      assert.ok(decoded.ok);
      const later = Date.now() + 10 * 60_000;
      const findings = lintToken(decoded.token, { now: later, knownAudiences: ['https://elsewhere.test.invalid'] });
      const view = tokenResultView({
        id: 't1',
        token: issued.token,
        decoded: decoded.token,
        findings,
        source: 'Generated for Sandbox mds-staging',
        now: later,
      });
      assert.equal(view.kind, 'token');
      assert.equal(view.token.preview, shortenToken(issued.token));
      assert.equal(view.token.length, issued.token.length);
      assert.equal(
        view.token.header.kid,
        maskKeyId(credential.kid),
        'a token signed here shows its kid masked (spec 5.7)',
      );
      assert.equal(view.token.payload.iss, credential.issuer);
      assert.equal(view.token.exp?.seconds, issued.claims.exp);
      assert.equal(view.token.lifetimeSeconds, 120);
      assert.equal(view.token.signature.state, 'unchecked');
      assert.equal(view.token.canCopy, true);
      assert.equal(view.token.alreadyUsed, false);
      const ids = view.token.findings.map((f) => f.id);
      assert.ok(ids.includes('expired'), `findings: ${ids.join(', ')}`);
      assert.ok(ids.includes('aud-unknown'), `findings: ${ids.join(', ')}`);
      assert.match(view.summary.line, /errors?/);
      assertNoToken(view, [issued.token]);
    });

    it('shows the header and payload as the token writes them: "exp": 1e400 stays 1e400, and a kid of ours stays masked', () => {
      const part = (json: string) => Buffer.from(json).toString('base64url');
      const token = `${part(`{"alg":"ES256","kid":"${credential.kid}"}`)}.${part('{"iss":"a@b.example","exp":1e400,"iat":1700000000}')}.c2ln`;
      const decoded = decodeJwt(token);
      assert.ok(decoded.ok);
      const view = tokenResultView({
        id: 't2',
        token,
        decoded: decoded.token,
        findings: [],
        source: 'Generated for Sandbox mds-staging',
        now: Date.now(),
      });
      assert.match(
        JSON.stringify(view.token.payload),
        /"exp":null/,
        'the parsed payload, stringified as the panel did, loses 1e400',
      );
      assert.match(view.token.payloadText, /^ {2}"exp": 1e400,$/m);
      assert.match(
        view.token.headerText,
        new RegExp(`"kid": "${maskKeyId(credential.kid).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
      );
      assert.ok(!view.token.headerText.includes(credential.kid), 'the whole kid is not in the header text');
    });

    it('shortens to the first 10 and last 6 characters, and gives little of a short text away', () => {
      assert.equal(shortenToken('abcdefghij0123456789KLMNOPqrstuv'), 'abcdefghij…qrstuv');
      assert.equal(shortenToken('short.token'), 'shor…');
    });
  });

  describe('the curl command and the body', () => {
    it('quotes every part for a POSIX shell and leaves the token to the caller', () => {
      const cmd = buildCurlCommand(
        "https://h.test.invalid/vehicles?page=2&x='y'",
        { Accept: 'application/vnd.mds+json;version=2.0', Authorization: 'Bearer <redacted>', 'User-Agent': 'x' },
        'eyJ.fresh.token',
      );
      assert.equal(
        cmd,
        `curl --fail-with-body -sS 'https://h.test.invalid/vehicles?page=2&x='\\''y'\\''' -H 'Accept: application/vnd.mds+json;version=2.0' -H 'Authorization: Bearer eyJ.fresh.token'`,
      );
    });

    it('cuts a long raw body and keeps the parsed value for the tree', async () => {
      const listing = await client.listVehicles(env('mds-staging'), credential);
      const page = listing.pages[0];
      const body = bodyView(page, 'r', 0, 1000);
      assert.equal(body.bodyKind, 'json');
      assert.equal(body.raw.length, 1000);
      assert.equal(body.rawTruncated, true);
      assert.equal(body.rawTotalChars, page.text?.length);
      assert.deepEqual(body.json, page.body);
      const whole = bodyView({ ...page, text: undefined }, 'r', 0);
      assert.equal(
        whole.rawReserialised,
        true,
        'a body too large to keep as text is written out from the parsed value',
      );
      assert.deepEqual(JSON.parse(whole.raw), page.body);
    });
  });
});

describe('vehicle table model', () => {
  const items = [
    {
      device_id: 'b-2',
      vehicle_type: 'scooter_standing',
      propulsion_types: ['electric'],
      last_event: { vehicle_state: 'available', timestamp: 3000, location: { lat: 1, lng: 2 } },
      last_telemetry: { timestamp: 3000, battery_percent: 80, location: { lat: 52.5, lng: 13.4 } },
    },
    {
      device_id: 'a-1',
      vehicle_type: 'bicycle',
      propulsion_types: ['human'],
      last_event: { vehicle_state: 'on_trip', timestamp: 1000 },
      last_telemetry: { battery_percent: 20, location: { lat: 52.4, lng: 13.3 } },
    },
    {
      device_id: 'c-3',
      vehicle_type: 'moped',
      propulsion_types: ['electric'],
      last_event: { vehicle_state: 'available', timestamp: 2000 },
    },
    'not an object',
    { id: 42, state: { nested: true }, location: { lat: 'x', lng: 200 }, last_reported: 'not a date' },
  ];
  let cols: VehicleColumns;
  before(() => {
    cols = vehicleColumns(items);
  });

  it('gives malformed items empty cells instead of failing', () => {
    assert.equal(cols.count, 5);
    for (const column of ['deviceId', 'type', 'state', 'battery', 'lastEvent', 'position'] as const)
      assert.equal(cellText(cols, 3, column), '');
    assert.equal(cellText(cols, 4, 'deviceId'), '42');
    assert.equal(cellText(cols, 4, 'state'), '', 'an object is not a state');
    assert.equal(cellText(cols, 4, 'position'), '', 'an out-of-range position is dropped');
  });

  it('sorts ascending and descending with empty cells last', () => {
    const all = filterRows(cols, {});
    const sorter = new TableSorter(cols);
    assert.deepEqual(Array.from(sorter.sort(all, 'deviceId', false)), [4, 1, 0, 2, 3]);
    assert.deepEqual(Array.from(sorter.sort(all, 'battery', false)), [1, 0, 2, 3, 4]);
    assert.deepEqual(Array.from(sorter.sort(all, 'battery', true)), [0, 1, 2, 3, 4]);
    assert.deepEqual(Array.from(sorter.sort(all, 'lastEvent', true)), [0, 2, 1, 3, 4]);
    assert.deepEqual(
      Array.from(sorter.sort(all, 'state', false)),
      [0, 2, 1, 3, 4],
      'available before on_trip, ties in original order',
    );
  });

  it('filters by text over ids and categories, and by state', () => {
    assert.deepEqual(Array.from(filterRows(cols, { text: 'ELECTRIC' })), [0, 2]);
    assert.deepEqual(Array.from(filterRows(cols, { text: 'a-1' })), [1]);
    assert.deepEqual(Array.from(filterRows(cols, { state: 'available' })), [0, 2]);
    assert.deepEqual(Array.from(filterRows(cols, { state: 'available', text: 'moped' })), [2]);
    assert.deepEqual(Array.from(filterRows(cols, { state: 'no-such-state' })), []);
    assert.equal(stateCounts(cols).get('available'), 2);
  });

  it('sorts and filters 100,000 rows without row objects', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      device_id: `d-${(i * 7919) % 100_000}`,
      vehicle_type: i % 3 ? 'bicycle' : 'moped',
      last_event: { vehicle_state: i % 5 ? 'available' : 'missing', timestamp: i },
    }));
    const big = vehicleColumns(many);
    const rows = filterRows(big, { state: 'missing' });
    assert.equal(rows.length, 20_000);
    const sorted = new TableSorter(big).sort(rows, 'lastEvent', true);
    assert.equal(big.lastEvent[sorted[0]], 99_995);
    assert.equal(sorted.length, rows.length);
  });
});

describe('one reader for the panel and the CLI', function () {
  this.timeout(60_000);

  it('survives a hostile provider that sends more distinct vehicle types than a column can hold', async () => {
    const count = 70_000;
    const vehicles = Array.from({ length: count }, (_, i) => ({
      device_id: `d${i}`,
      vehicle_type: `type-${i}`,
      propulsion_types: [`p${i}`],
    }));
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.mds+json;version=2.0' });
      res.end(JSON.stringify({ version: '2.0.0', vehicles, links: { next: null } }));
    });
    try {
      const credential = parseCredential({
        kind: 'ec',
        type: 'external-org',
        privateKey: keyFixture('p256').pkcs8,
        kid: 'hostile-test',
        issuer: 'org@example.test',
      }).credential;
      const env: Environment = { id: 'hostile', name: 'Hostile', api: 'mds', stage: 'custom', baseUrl: server.url };
      const listing = await new ApiClient().listVehicles(env, credential);
      const view = listingView({
        id: 'r1',
        environment: env,
        listing,
        canLoadNext: false,
        canCopyCurl: false,
        now: Date.now(),
      });
      assert.equal(view.vehicles.count, count);
      assert.equal(view.vehicles.typeNames.length, MAX_CODES, 'every code of the column is used, none beyond');
      assert.equal(view.vehicles.typeNames.at(-1), OTHER_NAME);
      assert.equal(
        view.vehicles.typeNames[view.vehicles.typeCode[count - 1]],
        OTHER_NAME,
        'names past the limit are grouped',
      );
      assert.equal(
        view.vehicles.typeNames[view.vehicles.typeCode[5]],
        'type-5',
        'names within the limit keep their own code',
      );
    } finally {
      await server.close();
    }
  });

  it("reads a status item's battery and position from last_telemetry, in the table and in the CLI", async () => {
    const item = {
      device_id: 'd1',
      provider_id: 'p1',
      last_event: { vehicle_state: 'available', timestamp: 1_700_000_000_000, location: { lat: 1, lng: 2 } },
      last_telemetry: { timestamp: 1_700_000_001_000, battery_percent: 42, location: { lat: 52.5, lng: 13.4 } },
    };
    const cols = vehicleColumns([item]);
    assert.equal(cols.battery[0], 42);
    assert.equal(cols.lat[0], 52.5);
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.mds+json;version=2.0' });
      res.end(
        JSON.stringify({ version: '2.0.0', vehicles_status: [item], last_updated: 1, ttl: 1, links: { next: null } }),
      );
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'reader-'));
    try {
      const keyFile = path.join(dir, 'test-only-ec.pem');
      writeFileSync(keyFile, keyFixture('p256').pkcs8);
      const r = await runCliInProcess([
        'vehicles',
        '--api',
        'mds',
        '--base-url',
        server.url,
        '--status',
        '--private-key',
        keyFile,
        '--kid',
        'k',
        '--iss',
        'org@example.test',
        '--type',
        'external-org',
        '--state-dir',
        dir,
      ]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /\bd1\s+available\s+42%/);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('where a URL may wrap in the panel', () => {
  it('cuts only after "/", "?" and "&", so host, port and path segments stay whole', () => {
    const url = 'http://127.0.0.1:44343/mds-staging/vehicles/status?page=2&provider=mds-staging-berlin';
    const pieces = urlBreakPieces(url);
    assert.equal(pieces.join(''), url);
    assert.deepEqual(pieces, [
      'http://',
      '127.0.0.1:44343/',
      'mds-staging/',
      'vehicles/',
      'status?',
      'page=2&',
      'provider=mds-staging-berlin',
    ]);
    for (const piece of pieces.slice(0, -1)) assert.match(piece, /[/?&]$/);
  });

  it('keeps a run of slashes together and handles URLs without any break', () => {
    assert.deepEqual(urlBreakPieces('https://a.example//x'), ['https://', 'a.example//', 'x']);
    assert.deepEqual(urlBreakPieces('no-breaks-here.example'), ['no-breaks-here.example']);
    assert.deepEqual(urlBreakPieces(''), []);
    assert.deepEqual(urlBreakPieces('/'), ['/']);
  });
});
