import assert from 'node:assert/strict';
import type http from 'node:http';
import zlib from 'node:zlib';
import { decodeJwt } from 'jose';
import { ApiClient } from '../../src/core/http/apiClient';
import { describeFetchError } from '../../src/core/http/fetchErrors';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { IssueClock } from '../../src/core/clock/issueClock';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { makeTestCredential } from './support/testCredentials';
import type { TestServer } from './support/testServer';
import { startTestServer } from './support/testServer';

const isCode = (code: string) => (e: unknown) => e instanceof MobilityError && e.code === code;

function env(server: TestServer, extra: Partial<Environment> = {}): Environment {
  return { id: 'test', name: 'Test', api: 'mds', stage: 'staging', baseUrl: `${server.url}/mds`, ...extra };
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

describe('ApiClient against real HTTP servers on 127.0.0.1', () => {
  const servers: TestServer[] = [];
  const serve = async (handler: http.RequestListener) => {
    const s = await startTestServer(handler);
    servers.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('sends GET {base}/vehicles with Content-Type, a fresh bearer token and the extra headers', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = await serve((req, res) => {
      seen.push(req.headers);
      assert.equal(req.method, 'GET');
      assert.equal(req.url, '/mds/vehicles');
      json(res, 200, { version: '2.0.0', vehicles: [{ device_id: 'a' }], links: { next: null } });
    });
    const cred = makeTestCredential();
    const client = new ApiClient();
    const e = env(server, { headers: { Accept: 'application/vnd.mds+json;version=2.0' } });
    const first = await client.listVehicles(e, cred);
    await client.listVehicles(e, cred);
    assert.equal(first.pages[0].status, 200);
    assert.deepEqual(first.items, [{ device_id: 'a' }]);
    assert.equal(seen[0]['content-type'], 'application/json');
    assert.equal(seen[0].accept, 'application/vnd.mds+json;version=2.0');
    const tokens = seen.map((h) => String(h.authorization).replace(/^Bearer /, ''));
    assert.notEqual(tokens[0], tokens[1], 'a new token per request');
    assert.equal(decodeJwt(tokens[0]).aud, `${server.url}/mds`);
    assert.equal(first.pages[0].requestHeaders.Authorization, 'Bearer <redacted>');
    assert.ok(first.pages[0].timings.totalMs >= first.pages[0].timings.ttfbMs);
    assert.ok(first.pages[0].bytes > 0);
  });

  it('asks the MaaS API at {base}/v1alpha2/vehicles', async () => {
    let path = '';
    const server = await serve((req, res) => {
      path = req.url ?? '';
      json(res, 200, { vehicles: [] });
    });
    await new ApiClient().listVehicles(env(server, { api: 'maas', baseUrl: server.url }), makeTestCredential());
    assert.equal(path, '/v1alpha2/vehicles');
  });

  it('follows links.next with a fresh token per page and merges the vehicles', async () => {
    const jtis: string[] = [];
    const server = await serve((req, res) => {
      jtis.push(String(decodeJwt(String(req.headers.authorization).slice(7)).jti));
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
      const next = page < 3 ? `${server.url}/mds/vehicles?page=${page + 1}` : null;
      json(res, 200, { vehicles: [{ n: page * 10 + 1 }, { n: page * 10 + 2 }], links: { next } });
    });
    const pages: number[] = [];
    const listing = await new ApiClient({
      issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }),
    }).listVehicles(env(server), makeTestCredential(), { allPages: true, onPage: (_p, n) => pages.push(n) });
    assert.deepEqual(
      listing.items.map((v) => (v as { n: number }).n),
      [11, 12, 21, 22, 31, 32],
    );
    assert.equal(listing.pages.length, 3);
    assert.deepEqual(pages, [1, 2, 3]);
    assert.equal(new Set(jtis).size, 3);
    assert.equal(listing.nextUrl, undefined);
  });

  it('keeps response text for the raw view within one 2 MB budget over all pages of a listing', async () => {
    const filler = 'x'.repeat(900 * 1024);
    const server = await serve((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, { vehicles: [{ filler }], links: { next: page < 3 ? `/mds/vehicles?page=${page + 1}` : null } });
    });
    const listing = await new ApiClient({
      issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }),
    }).listVehicles(env(server), makeTestCredential(), { allPages: true });
    assert.deepEqual(
      listing.pages.map((p) => p.text !== undefined),
      [true, true, false],
    );
    assert.equal(listing.items.length, 3, 'the parsed bodies are all there');
  });

  it('stops at the page limit and says where it stopped', async () => {
    const server = await serve((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, { vehicles: [{ page }], links: { next: `/mds/vehicles?page=${page + 1}` } });
    });
    const listing = await new ApiClient({
      issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }),
    }).listVehicles(env(server), makeTestCredential(), { allPages: true, maxPages: 2 });
    assert.equal(listing.pages.length, 2);
    assert.match(listing.stoppedBecause!, /page limit of 2/);
    assert.equal(listing.nextUrl, `${server.url}/mds/vehicles?page=3`);
  });

  it('signs the next token on a key only after the previous request has its response headers', async () => {
    const arrivals: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const server = await serve((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      arrivals.push(Number(decodeJwt(String(req.headers.authorization).slice(7)).iat));
      setTimeout(() => {
        inFlight--;
        json(res, 200, { vehicles: [] });
      }, 3);
    });
    const client = new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });
    const cred = makeTestCredential();
    await Promise.all(Array.from({ length: 20 }, () => client.listVehicles(env(server), cred)));
    assert.equal(maxInFlight, 1, 'one request per key at a time up to its headers');
    assert.ok(
      arrivals.every((t, i) => i === 0 || t > arrivals[i - 1]),
      'iat strictly increasing in arrival order',
    );
  });

  it('returns non-2xx answers as results and parses the MDS error body', async () => {
    const server = await serve((_req, res) =>
      json(res, 401, {
        error: 'invalid_token',
        error_description: 'aud does not match',
        error_details: ['rule: aud_mismatch'],
      }),
    );
    const listing = await new ApiClient().listVehicles(env(server), makeTestCredential());
    const page = listing.pages[0];
    assert.equal(page.status, 401);
    assert.equal(page.ok, false);
    assert.deepEqual(page.mdsError, {
      error: 'invalid_token',
      error_description: 'aud does not match',
      error_details: ['rule: aud_mismatch'],
    });
    assert.match(listing.stoppedBecause!, /401/);
  });

  it('reports a body declared as JSON that does not parse, and keeps the text', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"vehicles": [1, 2');
    });
    const page = (await new ApiClient().listVehicles(env(server), makeTestCredential())).pages[0];
    assert.equal(page.bodyKind, 'text');
    assert.match(page.bodyProblem!, /does not parse/);
    assert.equal(page.text, '{"vehicles": [1, 2');
  });

  it('times out a server that never answers, with a clear message', async () => {
    const server = await serve(() => undefined);
    await assert.rejects(
      new ApiClient({ timeoutMs: 300 }).listVehicles(env(server), makeTestCredential()),
      (e: unknown) => isCode('HTTP_TIMEOUT')(e) && /did not answer within/.test((e as Error).message),
    );
  });

  it('the timeout runs from sending, not while the key waits for the next second, and ends with the exchange', async () => {
    const server = await serve((_req, res) =>
      json(res, 200, { version: '2.0.0', vehicles: [], links: { next: null } }),
    );
    // Whole seconds: the second and third requests on the key wait for the next second, longer than the timeout.
    const client = new ApiClient({
      timeoutMs: 300,
      issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'seconds' }) }),
    });
    const cred = makeTestCredential();
    for (let i = 0; i < 3; i++) assert.equal((await client.listVehicles(env(server), cred)).pages[0].status, 200);
  });

  it('cancels through an AbortSignal', async () => {
    const ac = new AbortController();
    // Cancelled once the request is on the server, as a user cancels a request that hangs.
    const server = await serve(() => ac.abort());
    const pending = new ApiClient().listVehicles(env(server), makeTestCredential(), { signal: ac.signal });
    await assert.rejects(pending, isCode('CANCELLED'));
  });

  it('says connection refused when nothing listens', async () => {
    const server = await serve(() => undefined);
    await server.close();
    servers.pop();
    await assert.rejects(
      new ApiClient().listVehicles(env(server), makeTestCredential()),
      (e: unknown) => isCode('HTTP_CONNECTION_REFUSED')(e) && /is running/.test((e as Error).message),
    );
  });

  it('stops reading past the size cap, also for a declared length and a gzip bomb', async () => {
    const big = await serve((_req, res) => json(res, 200, { vehicles: 'x'.repeat(5000) }));
    await assert.rejects(
      new ApiClient({ maxBytes: 1000 }).listVehicles(env(big), makeTestCredential()),
      (e: unknown) => isCode('HTTP_TOO_LARGE')(e) && /limit/.test((e as Error).message),
    );
    const chunked = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('['.padEnd(800, ' '));
      res.write(' '.repeat(800));
      res.end(']');
    });
    await assert.rejects(
      new ApiClient({ maxBytes: 1000 }).listVehicles(env(chunked), makeTestCredential()),
      isCode('HTTP_TOO_LARGE'),
    );
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    const gz = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(bomb);
    });
    await assert.rejects(
      new ApiClient({ maxBytes: 1024 * 1024 }).listVehicles(env(gz), makeTestCredential()),
      isCode('HTTP_TOO_LARGE'),
    );
  });

  it('reports a connection reset in the middle of the body', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"vehicles": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await assert.rejects(
      new ApiClient().listVehicles(env(server), makeTestCredential()),
      (e: unknown) => e instanceof MobilityError && ['HTTP_NETWORK', 'HTTP_BAD_BODY'].includes(e.code),
    );
  });

  it('follows a same-origin redirect with a fresh token, and refuses to send the token to another origin', async () => {
    const tokens: string[] = [];
    const other = await serve((req, res) => {
      tokens.push(`other:${req.headers.authorization ?? ''}`);
      json(res, 200, { vehicles: [] });
    });
    const server = await serve((req, res) => {
      tokens.push(String(req.headers.authorization));
      if (req.url === '/mds/vehicles') return json(res, 302, {}, { Location: '/mds/v2/vehicles' });
      if (req.url === '/mds/v2/vehicles')
        return json(res, 301, {}, { Location: `http://localhost:${other.port}/steal` });
      return json(res, 404, {});
    });
    await assert.rejects(
      new ApiClient().listVehicles(env(server), makeTestCredential()),
      (e: unknown) => isCode('HTTP_REDIRECT_CROSS_ORIGIN')(e) && /not sent there/.test((e as Error).message),
    );
    assert.equal(tokens.length, 2);
    assert.notEqual(tokens[0], tokens[1], 'fresh token after the same-origin redirect');
    assert.ok(!tokens.some((t) => t.startsWith('other:')), 'nothing reached the other origin');
  });

  it('names DNS, TLS and reset failures plainly (mapped from the errors fetch gives, no network needed)', () => {
    const fetchError = (code: string) =>
      Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
    const cases: Array<[string, string, RegExp]> = [
      ['ENOTFOUND', 'HTTP_DNS', /cannot be resolved.*Check the base URL/],
      ['EAI_AGAIN', 'HTTP_DNS', /cannot be resolved/],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'HTTP_TLS', /not trusted.*self-signed/],
      ['CERT_HAS_EXPIRED', 'HTTP_TLS', /expired/],
      ['ERR_TLS_CERT_ALTNAME_INVALID', 'HTTP_TLS', /another host name/],
      ['ECONNRESET', 'HTTP_NETWORK', /was closed/],
    ];
    for (const [code, expected, message] of cases) {
      const e = describeFetchError(fetchError(code), 'https://mds.test.invalid/vehicles', undefined, 30_000);
      assert.equal(e.code, expected, code);
      assert.match(e.message, message);
      assert.match(e.message, /https:\/\/mds\.test\.invalid/, 'names the origin');
    }
  });
});
