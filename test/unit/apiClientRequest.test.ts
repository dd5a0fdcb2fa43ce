import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { IssueClock } from '../../src/core/clock/issueClock';
import { MDS_ENDPOINT_IDS } from '../../src/core/mds/mdsEndpoints';
import { findEndpoint, freeRequest, matchEndpoint } from '../../src/core/mds/mdsRequests';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { makeTestCredential } from './support/testCredentials';
import type { CannedAnswer, SeenRequest, TestServer } from './support/testServer';
import { startCannedServer } from './support/testServer';

const DEVICE = '3c9604d6-b5ee-11e8-96f8-529269fb1459';
const NOW = Date.UTC(2024, 10, 5, 14, 25);
const MDS_ACCEPT = 'application/vnd.mds+json;version=2.0';

/** Counts the tokens it signs, to show that refused requests sign nothing. */
class CountingIssuer extends TokenIssuer {
  issued = 0;
  override async issue(...args: Parameters<TokenIssuer['issue']>): ReturnType<TokenIssuer['issue']> {
    this.issued++;
    return super.issue(...args);
  }
}

const fails = (code: string, message?: RegExp) => (e: unknown) =>
  e instanceof MobilityError && e.code === code && (!message || message.test(e.message));
const jtiOf = (r: SeenRequest) => String(decodeJwt(String(r.headers.authorization).replace(/^Bearer /, '')).jti);

describe('ApiClient.request: any GET on an environment, against real HTTP servers', () => {
  const servers: TestServer[] = [];
  let credential: Credential;
  let issuer: CountingIssuer;
  let client: ApiClient;
  before(() => {
    credential = makeTestCredential();
  });
  beforeEach(() => {
    issuer = new CountingIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
    client = new ApiClient({ issuer });
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const serve = async (answer: (r: SeenRequest, url: string) => CannedAnswer) => {
    const s = await startCannedServer(answer);
    servers.push(s);
    return s;
  };
  const envOf = (server: TestServer, extra: Partial<Environment> = {}): Environment => ({
    id: 't',
    name: 'Test',
    api: 'mds',
    stage: 'staging',
    baseUrl: `${server.url}/mds`,
    ...extra,
  });

  it('sends any path with its query and extra headers, the MDS Accept by default, and a fresh token', async () => {
    const server = await serve(() => ({ status: 200, body: { version: '2.0.0', name: 'not a list' } }));
    const result = await client.request(
      envOf(server),
      credential,
      freeRequest('mds', '/geographies?x=1', { a: 'b c', n: [1, 2] }, { 'X-Trace': 'abc', host: 'evil' }),
    );
    const seen = server.seen[0];
    assert.equal(seen.url, '/mds/geographies?x=1&a=b+c&n=1&n=2');
    assert.equal(seen.headers.accept, MDS_ACCEPT);
    assert.equal(seen.headers['x-trace'], 'abc');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.host, `127.0.0.1:${server.port}`);
    assert.equal(decodeJwt(String(seen.headers.authorization).slice(7)).aud, `${server.url}/mds`);
    assert.equal(result.outcome, 'body', 'a 200 without an item list');
    assert.equal(result.url, `${server.url}/mds/geographies?x=1&a=b+c&n=1&n=2`);
    assert.deepEqual(result.pages[0].body, { version: '2.0.0', name: 'not a list' });
    assert.equal(result.pages[0].requestHeaders.Authorization, 'Bearer <redacted>');
    // The environment's Accept wins over the default, the request's over the environment's; MaaS gets fetch's own */*.
    await client.request(envOf(server, { headers: { accept: 'application/vnd.mds+json;version=2.1' } }), credential, {
      path: '/a',
    });
    await client.request(envOf(server, { headers: { Accept: 'x/env' } }), credential, {
      path: '/a',
      headers: { ACCEPT: 'x/request' },
    });
    await client.request(envOf(server, { api: 'maas' }), credential, { path: '/v1alpha2/vehicles' });
    // An empty value (the setting mobilityApi.mds.acceptHeader left empty) sends no MDS Accept at all.
    await client.request(envOf(server, { headers: { Accept: '' } }), credential, { path: '/a' });
    assert.deepEqual(
      server.seen.slice(1).map((r) => r.headers.accept),
      ['application/vnd.mds+json;version=2.1', 'x/request', '*/*', '*/*'],
    );
    assert.equal(new Set(server.seen.map(jtiOf)).size, 5, 'a new token per request');
  });

  it('refuses paths outside the base URL and unsendable headers before signing: nothing reaches the server', async () => {
    const server = await serve(() => ({ status: 200, body: {} }));
    const env = envOf(server);
    for (const path of [
      '../admin',
      '/%2e%2e/admin',
      '//evil.example.test/x',
      'http://localhost:1/mds/x',
      `${server.url}/other`,
      '/a\\..\\b',
    ]) {
      await assert.rejects(client.request(env, credential, { path }), fails('PATH_INVALID'), path);
    }
    await assert.rejects(
      client.request(env, credential, { path: '/a', headers: { 'X-Evil': 'a\r\nX-Injected: 1' } }),
      fails('HEADER_INVALID', /line break/),
    );
    await assert.rejects(
      client.request(env, credential, { path: '/a', headers: { 'Bad Name': '1' } }),
      fails('HEADER_INVALID'),
    );
    await assert.rejects(
      client.request(env, credential, { path: '/a' }, { from: 'http://localhost:1/mds/a' }),
      fails('HTTP_REDIRECT_CROSS_ORIGIN'),
    );
    // A user's own Authorization is never swapped for a fresh token in silence: refused, saying why and how to send it on purpose.
    await assert.rejects(
      client.request(env, credential, { path: '/a', headers: { Authorization: 'Basic stolen' } }),
      fails(
        'AUTHORIZATION_GIVEN',
        /signs a fresh token for every request \(spec 5\.1 rule 4\).*--send-authorization-as-is.*# @authorization as-is/,
      ),
    );
    await assert.rejects(
      client.request(envOf(server, { headers: { authorization: 'Bearer fixed' } }), credential, { path: '/a' }),
      fails('AUTHORIZATION_GIVEN', /environment Test sets an Authorization header.*# @authorization as-is/),
    );
    await assert.rejects(
      client.listVehicles(envOf(server, { headers: { Authorization: 'Bearer fixed' } }), credential),
      fails('AUTHORIZATION_GIVEN'),
    );
    assert.equal(server.seen.length, 0);
    assert.equal(issuer.issued, 0, 'no token was signed');
  });

  it('refuses a bad endpoint parameter before signing, with the format expected', async () => {
    const server = await serve(() => ({ status: 200, body: { trips: [] } }));
    await assert.rejects(
      client.requestEndpoint(envOf(server), credential, 'trips', { end_time: '2025-11-5T7' }),
      (e: unknown) =>
        fails('PARAMETER_INVALID')(e) &&
        (e as Error).message ===
          'end_time "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH (UTC), for example 2024-11-05T14.',
    );
    await assert.rejects(
      client.requestEndpoint(
        envOf(server),
        credential,
        'events_recent',
        { start_time: NOW - 15 * 86_400_000, end_time: NOW },
        { nowMs: NOW },
      ),
      fails('PARAMETER_INVALID', /two weeks/),
    );
    await assert.rejects(
      client.requestEndpoint(envOf(server), credential, 'vehicle', { device_id: '../../admin' }),
      fails('PARAMETER_INVALID', /not a UUID/),
    );
    await assert.rejects(
      client.requestEndpoint(envOf(server), credential, 'trips', { hour: '2024-11-05T10' }),
      fails('PARAMETER_UNKNOWN'),
    );
    assert.equal(server.seen.length, 0, 'no request reached the server');
    assert.equal(issuer.issued, 0, 'no token was signed');
  });

  it('reaches every catalogue endpoint at its path, with defaults from an injected now, and finds its items', async () => {
    const server = await serve((r) => {
      if (r.path.endsWith('.csv'))
        return { status: 200, headers: { 'Content-Type': 'text/vnd.mds+csv' }, body: 'provider_id,trip_count\np,3\n' };
      const endpoint = matchEndpoint('mds', r.path.slice('/mds'.length));
      return { status: 200, body: { version: '2.0.0', [endpoint?.itemsKey ?? 'x']: [{ path: r.path }] } };
    });
    const values: Record<string, Record<string, string>> = {
      vehicle: { device_id: DEVICE },
      vehicle_status: { device_id: DEVICE },
      stop: { stop_id: DEVICE },
    };
    const urls: string[] = [];
    for (const id of MDS_ENDPOINT_IDS) {
      const result = await client.requestEndpoint(envOf(server), credential, id, values[id] ?? {}, { nowMs: NOW });
      urls.push(server.seen[server.seen.length - 1].url);
      assert.equal(result.outcome, 'items', id);
      assert.equal(result.itemsKey, findEndpoint('mds', id).itemsKey, id);
      assert.equal(result.items.length, 1, id);
    }
    assert.deepEqual(urls, [
      '/mds/vehicles',
      `/mds/vehicles/${DEVICE}`,
      '/mds/vehicles/status',
      `/mds/vehicles/status/${DEVICE}`,
      '/mds/trips?end_time=2024-11-05T13',
      '/mds/telemetry?telemetry_time=2024-11-05T13',
      '/mds/events/historical?event_time=2024-11-05T13',
      `/mds/events/recent?start_time=${NOW - 3_600_000}&end_time=${NOW}`,
      '/mds/stops',
      `/mds/stops/${DEVICE}`,
      '/mds/reports/2024-10.csv',
    ]);
    assert.equal(
      server.seen[server.seen.length - 1].headers.accept,
      'text/vnd.mds+csv;version=2.0',
      'reports ask for the CSV media type',
    );
  });

  it('follows links.next on a non-vehicles key with a fresh token (distinct jti) per page', async () => {
    const server = await serve((r, url) => {
      const page = Number(r.query.get('page') ?? '1');
      const next = page < 3 ? `${url}/mds/events/recent?page=${page + 1}` : null;
      return {
        status: 200,
        body: {
          version: '2.0.0',
          events: [{ event_id: `e${page}a` }, { event_id: `e${page}b` }],
          links: { first: null, next },
        },
      };
    });
    const progress: string[] = [];
    const result = await client.requestEndpoint(
      envOf(server),
      credential,
      'events_recent',
      {},
      { nowMs: Date.now(), allPages: true, onPage: (p, n) => progress.push(`${n}:${p.status}`) },
    );
    assert.equal(result.outcome, 'items');
    assert.equal(result.itemsKey, 'events');
    assert.deepEqual(
      result.items.map((e) => (e as { event_id: string }).event_id),
      ['e1a', 'e1b', 'e2a', 'e2b', 'e3a', 'e3b'],
    );
    assert.deepEqual(progress, ['1:200', '2:200', '3:200']);
    assert.equal(result.nextUrl, undefined);
    assert.equal(new Set(server.seen.map(jtiOf)).size, 3, 'one token per page');
    assert.ok(server.seen.every((r) => r.headers.accept === MDS_ACCEPT));
    // Without allPages: the first page and where the next one is; with a limit: where it stopped.
    const one = await client.request(envOf(server), credential, freeRequest('mds', '/events/recent'));
    assert.deepEqual([one.pages.length, one.nextUrl], [1, `${server.url}/mds/events/recent?page=2`]);
    const two = await client.request(
      envOf(server),
      credential,
      { path: '/events/recent' },
      { allPages: true, maxPages: 2 },
    );
    assert.deepEqual(
      [two.pages.length, two.items.length, two.nextUrl],
      [2, 4, `${server.url}/mds/events/recent?page=3`],
    );
    assert.match(two.stoppedBecause ?? '', /page limit of 2/);
    // Resuming from the link handed back.
    const rest = await client.request(
      envOf(server),
      credential,
      { path: '/events/recent' },
      { from: two.nextUrl, allPages: true },
    );
    assert.deepEqual(
      rest.items.map((e) => (e as { event_id: string }).event_id),
      ['e3a', 'e3b'],
    );
  });

  it('does not follow links.next to another origin, and detects the items key of a free path', async () => {
    const server = await serve(() => ({
      status: 200,
      body: { version: '2.0.0', geographies: [{ id: 1 }], links: { next: 'http://localhost:1/steal?page=2' } },
    }));
    const result = await client.request(envOf(server), credential, { path: '/geographies' }, { allPages: true });
    assert.equal(server.seen.length, 1);
    assert.equal(result.itemsKey, 'geographies', 'the only top-level list');
    assert.equal(result.nextUrl, 'http://localhost:1/steal?page=2');
    assert.match(result.stoppedBecause ?? '', /another origin.*not sent there/);
  });

  it('parses CSV answers into rows keyed by the header', async () => {
    const csv =
      '\ufeffprovider_id,start_date,geography_id,vehicle_type,trip_count\r\n' +
      'p1,2024-10-01,"a, quoted ""id""",scooter,1302\r\n' +
      'p1,2024-10-01,"two\nlines",bicycle,-1\r\n';
    const server = await serve((r) => {
      if (r.path.endsWith('2024-10.csv'))
        return { status: 200, headers: { 'Content-Type': 'text/vnd.mds+csv; charset=utf-8' }, body: csv };
      if (r.path.endsWith('2024-09.csv'))
        return { status: 200, headers: { 'Content-Type': 'text/csv' }, body: 'provider_id,trip_count\n' };
      return { status: 200, headers: { 'Content-Type': 'text/csv' }, body: 'a,b\n1,2,3\n' };
    });
    const result = await client.requestEndpoint(envOf(server), credential, 'reports', { month: '2024-10' });
    assert.equal(result.outcome, 'items');
    assert.deepEqual(result.columns, ['provider_id', 'start_date', 'geography_id', 'vehicle_type', 'trip_count']);
    assert.deepEqual(result.items, [
      {
        provider_id: 'p1',
        start_date: '2024-10-01',
        geography_id: 'a, quoted "id"',
        vehicle_type: 'scooter',
        trip_count: '1302',
      },
      {
        provider_id: 'p1',
        start_date: '2024-10-01',
        geography_id: 'two\nlines',
        vehicle_type: 'bicycle',
        trip_count: '-1',
      },
    ]);
    const page = result.pages[0];
    assert.equal(page.bodyKind, 'csv');
    assert.deepEqual(page.rows, result.items);
    assert.equal(page.text, csv.slice(1), 'the raw text is kept for the raw view');
    const headerOnly = await client.requestEndpoint(envOf(server), credential, 'reports', { month: '2024-09' });
    assert.deepEqual(
      [headerOnly.outcome, headerOnly.columns, headerOnly.items],
      ['empty', ['provider_id', 'trip_count'], []],
    );
    const broken = await client.request(envOf(server), credential, { path: '/reports/broken.csv' });
    assert.equal(broken.pages[0].bodyKind, 'text');
    assert.match(broken.pages[0].bodyProblem ?? '', /declared as CSV but does not parse/);
    assert.equal(broken.outcome, 'body');
  });

  it('tells apart items, an empty hour, an unprocessed hour (202 with Retry-After), not found and errors', async () => {
    const retryAt = new Date(Date.now() + 90_000).toUTCString();
    const server = await serve((r) => {
      switch (r.query.get('end_time')) {
        case '2024-11-05T10':
          return { status: 200, body: { version: '2.0.0', trips: [{ trip_id: 't1' }] } };
        case '2024-11-05T11':
          return { status: 200, body: { version: '2.0.0', trips: [] } };
        case '2024-11-05T12':
          return { status: 202, headers: { 'Retry-After': '120' } };
        case '2024-11-05T13':
          return { status: 202, headers: { 'Retry-After': retryAt }, body: { version: '2.0.0' } };
        case '2030-01-01T00':
          return { status: 404, body: { error: 'not_found', error_description: 'hour not in the past' } };
        default:
          return { status: 500, body: { error: 'internal', error_description: 'boom' } };
      }
    });
    const ask = (end_time: string) => client.requestEndpoint(envOf(server), credential, 'trips', { end_time });
    const items = await ask('2024-11-05T10');
    const empty = await ask('2024-11-05T11');
    const later = await ask('2024-11-05T12');
    const laterByDate = await ask('2024-11-05T13');
    const future = await ask('2030-01-01T00');
    const broken = await ask('2024-11-05T09');
    assert.deepEqual([items.outcome, items.items.length], ['items', 1]);
    assert.deepEqual(
      [empty.outcome, empty.items.length, empty.itemsKey, empty.pages[0].status],
      ['empty', 0, 'trips', 200],
    );
    assert.deepEqual(
      [later.outcome, later.retryAfterSeconds, later.pages[0].bodyKind],
      ['not_processed', 120, 'empty'],
    );
    assert.equal(laterByDate.outcome, 'not_processed');
    assert.ok(
      laterByDate.retryAfterSeconds !== undefined &&
        laterByDate.retryAfterSeconds > 0 &&
        laterByDate.retryAfterSeconds <= 90,
    );
    assert.deepEqual([future.outcome, future.pages[0].mdsError?.error], ['not_found', 'not_found']);
    assert.deepEqual([broken.outcome, broken.pages[0].mdsError?.error_description], ['error', 'boom']);
    assert.match(broken.stoppedBecause ?? '', /500/);
  });

  it('keeps listVehicles as one use of request, with its outcome', async () => {
    const server = await serve((r) => ({
      status: 200,
      body: r.path.endsWith('/status')
        ? { vehicles_status: [] }
        : { vehicles: [{ device_id: DEVICE }], links: { next: null } },
    }));
    const list = await client.listVehicles(envOf(server), credential);
    const status = await client.listVehicles(envOf(server), credential, { query: { status: true } });
    assert.deepEqual([list.outcome, list.listKey, list.items.length], ['items', 'vehicles', 1]);
    assert.deepEqual([status.outcome, status.listKey], ['empty', 'vehicles_status']);
    assert.deepEqual(
      server.seen.map((r) => [r.url, r.headers.accept]),
      [
        ['/mds/vehicles', MDS_ACCEPT],
        ['/mds/vehicles/status', MDS_ACCEPT],
      ],
    );
  });
});
