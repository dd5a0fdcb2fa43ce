// Network faults against real servers on 127.0.0.1: dripping, stalled, resetting and lying servers,
// bombs, TLS failures, error statuses with and without MDS bodies, Retry-After, redirects to other
// origins, and cancellation. Each must give one clear result in the client and in the CLI, and
// leave no connection or timer behind (mocha runs without --exit, so a leak keeps it from ending).
// Faults the client tests already cover (refused, reset mid-body, gzip bomb, cross-origin redirect
// in the client) are not repeated here.
import assert from 'node:assert/strict';
import type http from 'node:http';
import type net from 'node:net';
import zlib from 'node:zlib';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { IssueClock } from '../../src/core/clock/issueClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { nested } from './support/fuzzInputs';
import type { CliCredential } from './support/cliRunner';
import { makeCliCredential, runCliInProcess, spawnBuiltCli } from './support/cliRunner';
import { makeTestCertificates } from './support/testCertificates';
import type { TestCertificates } from './support/testCertificates';
import { makeTestCredential } from './support/testCredentials';
import type { TestServer, TlsOptions } from './support/testServer';
import { startRawServer, startTestServer } from './support/testServer';

const credential = makeTestCredential();

/** Millisecond precision, so that several requests on the one key need not wait a second each. */
function fastClient(options: ConstructorParameters<typeof ApiClient>[0] = {}): ApiClient {
  return new ApiClient({
    issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }),
    ...options,
  });
}

function envOf(server: TestServer, path = '/mds'): Environment {
  return { id: 'faults', name: 'Faults', api: 'mds', stage: 'staging', baseUrl: `${server.url}${path}` };
}

function rejectsWith(code: string, message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof MobilityError, `a MobilityError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

describe('network faults', function () {
  this.timeout(30_000);
  const servers: TestServer[] = [];
  let cli: CliCredential;
  const serve = async (handler: http.RequestListener, tls?: TlsOptions) => {
    const s = await startTestServer(handler, tls);
    servers.push(s);
    return s;
  };
  const serveRaw = async (onSocket: (socket: net.Socket) => void) => {
    const s = await startRawServer(onSocket);
    servers.push(s);
    return s;
  };
  const vehicles = (server: TestServer, ...extra: string[]) =>
    runCliInProcess(['vehicles', '--api', 'mds', '--base-url', `${server.url}/mds`, ...cli.flags, ...extra]);

  before(() => {
    cli = makeCliCredential();
  });
  after(() => cli.remove());
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  describe('slow and silent servers', () => {
    it('a server dripping its body one byte a second ends in HTTP_TIMEOUT, and the connection is closed', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('[');
        const drip = setInterval(() => res.write(' '), 1000);
        res.on('close', () => clearInterval(drip));
      });
      await assert.rejects(
        fastClient({ timeoutMs: 1500 }).listVehicles(envOf(server), credential),
        rejectsWith('HTTP_TIMEOUT', /did not answer within 1\.5 s \(the body stopped arriving\)/),
      );
      await server.waitUntilNoUsedConnections();
    });

    it('a server dripping its status line one byte a second ends in HTTP_TIMEOUT', async () => {
      const server = await serveRaw((socket) => {
        const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]';
        let i = 0;
        const drip = setInterval(() => socket.write(answer[i++ % answer.length]), 1000);
        socket.on('close', () => clearInterval(drip));
      });
      await assert.rejects(
        fastClient({ timeoutMs: 1200 }).listVehicles(envOf(server), credential),
        rejectsWith('HTTP_TIMEOUT', /did not answer within 1\.2 s\. Check that the server is up/),
      );
      await server.waitUntilNoUsedConnections();
    });

    it('the CLI says a silent server did not answer within the --timeout, in milliseconds when under a second', async () => {
      const server = await serve(() => undefined);
      const r = await vehicles(server, '--timeout', '0.4');
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        /^mobility-api: http:\/\/127\.0\.0\.1:\d+ did not answer within 400 ms\. Check that the server is up, or raise the timeout\.\n$/,
      );
      await server.waitUntilNoUsedConnections();
    });
  });

  describe('cancellation', () => {
    it('cancelling while waiting for the answer rejects with CANCELLED and closes the connection', async () => {
      let arrived!: () => void;
      const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
      const server = await serve(() => arrived());
      const stop = new AbortController();
      const pending = fastClient().listVehicles(envOf(server), credential, { signal: stop.signal });
      await requestArrived;
      assert.equal(server.openConnections(), 1);
      stop.abort();
      await assert.rejects(pending, rejectsWith('CANCELLED', /was cancelled/));
      await server.waitUntilNoUsedConnections();
    });

    it('cancelling in the middle of the body rejects with CANCELLED and closes the connection', async () => {
      let halfSent!: () => void;
      const bodyStarted = new Promise<void>((resolve) => (halfSent = resolve));
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100000' });
        res.write(`{"vehicles":[${'{"device_id":"x"},'.repeat(100)}`, () => halfSent());
      });
      const stop = new AbortController();
      const pending = fastClient().listVehicles(envOf(server), credential, { signal: stop.signal });
      await bodyStarted;
      stop.abort();
      await assert.rejects(pending, rejectsWith('CANCELLED'));
      await server.waitUntilNoUsedConnections();
      // Node's fetch may have opened a spare connection; it carries nothing and closes when idle.
      await server.waitUntilNoConnections();
      assert.equal(server.acceptedConnections() <= 2, true);
    });

    it('a body past the size cap, and decompression bombs (gzip, deflate, brotli), stop at the cap and close the connection', async () => {
      const spaces = Buffer.alloc(20 * 1024 * 1024, 0x20);
      const bombs: Record<string, Buffer> = {
        gzip: zlib.gzipSync(spaces),
        deflate: zlib.deflateSync(spaces),
        br: zlib.brotliCompressSync(spaces),
      };
      const server = await serve((req, res) => {
        const encoding = String(req.url).split('/').pop() ?? '';
        if (encoding === 'plain') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(spaces);
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': encoding });
        res.end(bombs[encoding]);
      });
      const client = fastClient({ maxBytes: 1024 * 1024 });
      const tooLarge = (encoding: string) =>
        assert.rejects(
          client.get(`${server.url}/mds/${encoding}`, envOf(server), credential),
          rejectsWith('HTTP_TOO_LARGE', /larger than the 1\.0 MB limit; reading stopped/),
          encoding,
        );
      // 20 MB on the wire: the client drops the connection instead of reading on.
      await tooLarge('plain');
      await server.waitUntilNoUsedConnections();
      // A few kB on the wire, all of it read: the connection may stay in the pool, idle, until it times out.
      for (const encoding of ['gzip', 'deflate', 'br']) await tooLarge(encoding);
      await server.waitUntilNoConnections();
    });
  });

  describe('broken answers', () => {
    it('a connection closed before any answer is HTTP_NETWORK in the client and one line from the CLI', async () => {
      const server = await serveRaw((socket) => socket.once('data', () => socket.destroy()));
      await assert.rejects(
        fastClient().listVehicles(envOf(server), credential),
        rejectsWith('HTTP_NETWORK', /closed before an answer came/),
      );
      const r = await vehicles(server);
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        /^mobility-api: The connection to http:\/\/127\.0\.0\.1:\d+ was closed before an answer came/,
      );
      assert.equal(r.err.trim().split('\n').length, 1);
    });

    it('an answer that is not HTTP at all is HTTP_NETWORK, not a crash', async () => {
      const server = await serveRaw((socket) =>
        socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\0\0\0garbage')),
      );
      await assert.rejects(
        fastClient().listVehicles(envOf(server), credential),
        (err: unknown) =>
          err instanceof MobilityError && err.code === 'HTTP_NETWORK' && err.message.includes('127.0.0.1'),
      );
    });

    it('a corrupt gzip body is a network error with the cause, not a crash', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
        res.end(Buffer.from('this is not gzip at all'));
      });
      await assert.rejects(
        fastClient().listVehicles(envOf(server), credential),
        (err: unknown) =>
          err instanceof MobilityError && err.code.startsWith('HTTP_') && /127\.0\.0\.1/.test(err.message),
      );
    });

    it('the CLI fails (exit 1) on a 200 whose JSON does not parse, instead of listing no vehicles', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/vnd.mds+json;version=2.0' });
        res.end('{"version":"2.0.0","vehicles":[{"device_id":');
      });
      const r = await vehicles(server);
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        /^mobility-api: 200 OK from http:\/\/127\.0\.0\.1:\d+\/mds\/vehicles — The body is declared as JSON but does not parse: /,
      );
      assert.equal(r.out, '');
    });

    it('a body nested 100,000 levels deep is kept as text in the client and refused clearly by the CLI, with and without --json', async () => {
      const deep = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(`{"vehicles":[{"device_id":"a","propulsion_types":${nested(100_000)}}],"links":{"next":null}}`);
      });
      const page = (await fastClient().listVehicles(envOf(deep), credential)).pages[0];
      assert.equal(page.bodyKind, 'text');
      assert.match(page.bodyProblem!, /more than 256 levels deep/);
      for (const extra of [[], ['--json']]) {
        const r = await vehicles(deep, ...extra);
        assert.equal(r.code, 1, r.err);
        assert.match(r.err, /more than 256 levels deep/);
        assert.doesNotMatch(r.err, /unexpected failure|call stack/);
      }
    });

    it('the CLI prints no terminal escapes and no echoed token from a hostile server', async () => {
      let sentToken = '';
      const server = await serve((req, res) => {
        sentToken = String(req.headers.authorization).slice('Bearer '.length);
        if (req.url?.endsWith('/status')) {
          res.writeHead(401, { 'Content-Type': 'text/plain' });
          res.end(`You sent: Authorization: Bearer ${sentToken}\x1b]0;owned\x07\x1b[2J\u202e`);
          return;
        }
        json(res, 200, {
          version: '2.0.0',
          vehicles: [
            {
              device_id: '\x1b[31mred\x1b[0m',
              vehicle_id: 'v\r\n\x1b[1A',
              vehicle_type: 'car',
              propulsion_types: ['electric'],
            },
          ],
          links: { next: null },
        });
      });
      const listed = await vehicles(server);
      assert.equal(listed.code, 0, listed.err);
      assert.match(listed.out, /\?\[31mred\?\[0m/);
      const refused = await vehicles(server, '--status');
      assert.equal(refused.code, 1);
      assert.ok(sentToken.length > 100);
      for (const text of [listed.out, listed.err, refused.out, refused.err]) {
        for (const control of ['\x1b', '\x07', '\u202e'])
          assert.ok(!text.includes(control), 'no control characters from the server');
        assert.ok(!text.includes(sentToken) && !text.includes(sentToken.split('.')[1]), 'no token');
      }
      // Our own token, matched by value, shortened as everywhere else.
      assert.match(refused.err, /401 Unauthorized .* You sent: Authorization: Bearer eyJhbGciOi…[A-Za-z0-9_-]{6}\?/);
    });
  });

  describe('HTTP error statuses in the CLI', () => {
    const hints: Record<number, RegExp> = {
      401: /The token was refused: run `mobility-api decode`/,
      403: /valid but not allowed here/,
      404: /Check the base URL and the API/,
      406: /does not support the requested version: check the Accept header/,
      429: /Too many requests: wait and try again/,
      500: /The server failed to answer: try again later/,
      503: /unavailable for now: try again later/,
    };
    for (const status of [401, 403, 404, 406, 429, 500, 503]) {
      it(`${status} with and without an MDS error body: exit 1 and one line with the status, the error and a hint${status === 429 || status === 503 ? ', and Retry-After' : ''}`, async () => {
        const retry = status === 429 || status === 503 ? { 'Retry-After': '7' } : undefined;
        const server = await serve((req, res) => {
          if (req.url?.includes('with-body')) {
            json(
              res,
              status,
              {
                error: `error_${status}`,
                error_description: `description of ${status}`,
                error_details: [`detail of ${status}`],
              },
              retry,
            );
          } else {
            res.writeHead(status, { 'Content-Length': '0', ...retry });
            res.end();
          }
        });
        for (const withBody of [true, false]) {
          const r = await runCliInProcess([
            'vehicles',
            '--api',
            'mds',
            '--base-url',
            `${server.url}/${withBody ? 'with-body' : 'empty'}`,
            ...cli.flags,
          ]);
          assert.equal(r.code, 1);
          assert.equal(r.out, '');
          const lines = r.err.trim().split('\n');
          // 401 and 403 go on with why the request was likely refused (see refusalDoctor.test.ts).
          if (status === 401 || status === 403) assert.match(lines[1] ?? '', /^Likely cause: /, r.err);
          else assert.equal(lines.length, 1, r.err);
          assert.match(
            lines[0],
            new RegExp(
              `^mobility-api: ${status} [A-Za-z ]+ from ${server.url}/${withBody ? 'with-body' : 'empty'}/vehicles `,
            ),
          );
          assert.match(lines[0], hints[status]);
          if (withBody)
            assert.match(lines[0], new RegExp(`error_${status}: description of ${status} \\(detail of ${status}\\)`));
          else assert.doesNotMatch(lines[0], /error_/);
          if (retry) assert.match(lines[0], /The server asks to wait 7 s before trying again \(Retry-After\)\./);
          else assert.doesNotMatch(lines[0], /Retry-After/);
        }
      });
    }

    it('reads Retry-After as an HTTP date too, and ignores one it cannot read', async () => {
      const server = await serve((req, res) => {
        const retryAfter = req.url?.startsWith('/garbled')
          ? 'soon, maybe'
          : new Date(Date.now() + 120_000).toUTCString();
        res.writeHead(503, { 'Retry-After': retryAfter, 'Content-Length': '0' });
        res.end();
      });
      const page = (await fastClient().listVehicles(envOf(server), credential)).pages[0];
      assert.ok(
        page.retryAfterSeconds !== undefined && page.retryAfterSeconds > 100 && page.retryAfterSeconds <= 120,
        String(page.retryAfterSeconds),
      );
      const r = await vehicles(server);
      assert.match(r.err, /The server asks to wait 1\d\d s before trying again/);
      const garbled = (await fastClient().listVehicles(envOf(server, '/garbled'), credential)).pages[0];
      assert.equal(garbled.status, 503);
      assert.equal(garbled.retryAfterSeconds, undefined);
    });
  });

  describe('redirects', () => {
    it('the CLI refuses a 301, 302 or 307 to another origin, and that origin receives nothing', async () => {
      const other = await serve((_req, res) => json(res, 200, { vehicles: [] }));
      for (const status of [301, 302, 307]) {
        const server = await serve((_req, res) => {
          res.writeHead(status, { Location: `http://localhost:${other.port}/collect`, 'Content-Length': '0' });
          res.end();
        });
        const r = await vehicles(server);
        assert.equal(r.code, 1);
        assert.match(
          r.err,
          new RegExp(
            `answered ${status} and redirected to http://localhost:${other.port}, another origin than ${server.url}\\. The token is not sent there`,
          ),
        );
      }
      assert.equal(other.acceptedConnections(), 0, 'the other origin was never contacted');
    });

    it('a redirect loop on the same origin stops after 5 redirects', async () => {
      let requests = 0;
      const server = await serve((_req, res) => {
        requests++;
        res.writeHead(302, { Location: `/mds/vehicles?n=${requests}`, 'Content-Length': '0' });
        res.end();
      });
      await assert.rejects(
        fastClient().listVehicles(envOf(server), credential),
        rejectsWith('HTTP_NETWORK', /More than 5 redirects/),
      );
      assert.equal(requests, 6);
    });
  });

  describe('TLS', function () {
    let certs: TestCertificates;
    before(() => {
      certs = makeTestCertificates();
    });
    after(() => certs.remove());

    it('a self-signed certificate is HTTP_TLS naming the certificate, in the client and the CLI, and nothing is sent', async () => {
      let requests = 0;
      const server = await serve((_req, res) => {
        requests++;
        json(res, 200, { vehicles: [] });
      }, certs.selfSigned);
      await assert.rejects(
        fastClient().listVehicles(envOf(server), credential),
        rejectsWith(
          'HTTP_TLS',
          /TLS certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT/,
        ),
      );
      const r = await vehicles(server);
      assert.equal(r.code, 1);
      assert.match(r.err, /certificate .* is not trusted .* NODE_EXTRA_CA_CERTS/);
      assert.equal(requests, 0, 'no request (and so no token) went over the untrusted connection');
    });

    // NODE_EXTRA_CA_CERTS is read once when Node starts, so these run the built CLI in a child process.
    it('with the test CA trusted: a valid certificate works, an expired one and one for another host name are refused', async () => {
      const hits: string[] = [];
      const handler: http.RequestListener = (req, res) => {
        hits.push(String(req.url));
        json(res, 200, { version: '2.0.0', vehicles: [{ device_id: 'd1', vehicle_id: 'v1' }], links: { next: null } });
      };
      const valid = await serve(handler, certs.valid);
      const expired = await serve(handler, certs.expired);
      const wrongHost = await serve(handler, certs.wrongHost);
      const run = (server: TestServer) =>
        spawnBuiltCli(['vehicles', '--api', 'mds', '--base-url', `${server.url}/mds`, ...cli.flags], {
          NODE_EXTRA_CA_CERTS: certs.caFile,
        });
      const [ok, old, other] = await Promise.all([run(valid), run(expired), run(wrongHost)]);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /1 vehicle · 1 page/);
      assert.equal(old.code, 1);
      assert.match(
        old.err,
        /^mobility-api: The TLS certificate of https:\/\/127\.0\.0\.1:\d+ has expired \(CERT_HAS_EXPIRED\)/,
      );
      assert.equal(other.code, 1);
      assert.match(
        other.err,
        /^mobility-api: The TLS certificate of https:\/\/127\.0\.0\.1:\d+ is for another host name \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
      );
      assert.deepEqual(hits, ['/mds/vehicles'], 'only the valid server received a request');
    });
  });
});
