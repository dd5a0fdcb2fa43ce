import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as vscode from 'vscode';
import { makeTestCertificates } from '../unit/support/testCertificates';
import type { TestCertificates } from '../unit/support/testCertificates';
import { startTestServer } from '../unit/support/testServer';
import type { TestServer } from '../unit/support/testServer';
import { waitFor } from '../unit/support/waitUntil';
import { exportsOf, run as runCommand } from './extensionApi';
import type { Outcome as BaseOutcome } from './extensionApi';

type Outcome = BaseOutcome & {
  status?: number;
  items?: number;
  error?: { error?: string; error_description?: string };
};
const run = (command: string, ...args: unknown[]) => runCommand<Outcome>(command, ...args);

/** A fault server on 127.0.0.1 that counts requests and the connections still open. */
interface FaultServer {
  url: string;
  requests: number;
  /** Requests whose response has not ended (or whose connection is not closed). */
  inFlight: number;
  authorizations: string[];
  openConnections(): number;
  close(): Promise<void>;
}

async function faultServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FaultServer> {
  const state = { requests: 0, inFlight: 0, authorizations: [] as string[] };
  // An answered connection may idle in the client's keep-alive pool; the server's Keep-Alive hint keeps
  // that short, so every connection ends within seconds unless a request is still running on it.
  const server = await startTestServer(
    (req, res) => {
      state.requests++;
      state.inFlight++;
      res.once('close', () => state.inFlight--);
      state.authorizations.push(req.headers.authorization ?? '');
      handler(req, res);
    },
    undefined,
    { keepAliveTimeoutMs: 2000 },
  );
  return {
    url: server.url,
    get requests() {
      return state.requests;
    },
    get inFlight() {
      return state.inFlight;
    },
    authorizations: state.authorizations,
    openConnections: () => server.openConnections(),
    close: () => server.close(),
  };
}

/** Waits until the server has no request running and no open connection. */
async function noConnectionLeft(server: FaultServer, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    `no request or connection left at ${server.url}`,
    () => server.openConnections() === 0 && server.inFlight === 0,
    { timeoutMs },
  ).catch(() => undefined);
  assert.equal(
    server.inFlight,
    0,
    `${server.inFlight} request(s) to ${server.url} still running ${timeoutMs / 1000}s after the command returned`,
  );
  assert.equal(
    server.openConnections(),
    0,
    `${server.openConnections()} connection(s) to ${server.url} still open ${timeoutMs / 1000}s after the command returned`,
  );
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/**
 * Network faults against the extension's own List Vehicles: every fault ends in a clear result (an
 * error with a code and a message that says what to do, or the server's answer as a result), and no
 * connection is left open afterwards.
 */
describe('network faults in the extension', function () {
  this.timeout(90_000);
  const config = () => vscode.workspace.getConfiguration('mobilityApi');
  const servers: Record<string, FaultServer> = {};
  let refusedUrl = '';
  let tls: { server: TestServer; requests: number; certificates: TestCertificates } | undefined;
  let elsewhere: FaultServer;
  const figures: string[] = [];
  let demoBinding: { credentialId: string; environmentIds: string[] } | undefined;

  before(async () => {
    elsewhere = await faultServer((_req, res) => json(res, 200, { vehicles: [] }));
    servers.hang = await faultServer(() => undefined);
    servers.mds500 = await faultServer((_req, res) =>
      json(res, 500, {
        error: 'internal_error',
        error_description: 'The vehicle store is down for maintenance.',
        error_details: ['retry later'],
      }),
    );
    servers.tooMany = await faultServer((_req, res) =>
      json(
        res,
        429,
        { error: 'rate_limited', error_description: 'Too many requests for this key.' },
        { 'Retry-After': '120' },
      ),
    );
    servers.badJson = await faultServer((_req, res) => json(res, 200, '{"version":"2.0.0","vehicles":[{"device_id":'));
    servers.redirect = await faultServer((_req, res) => {
      res.writeHead(302, { Location: `${elsewhere.url}/vehicles` });
      res.end();
    });
    const gone = await faultServer(() => undefined);
    refusedUrl = gone.url;
    await gone.close();
    // A provider behind a self-signed certificate (made with openssl at test time).
    const certificates = makeTestCertificates();
    const tlsServer = await startTestServer((_req, res) => {
      if (tls) tls.requests++;
      json(res, 200, { vehicles: [] });
    }, certificates.selfSigned);
    tls = { server: tlsServer, requests: 0, certificates };

    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const environments = [
      { id: 'fault-refused', name: 'Fault: refused', api: 'mds', baseUrl: refusedUrl },
      ...Object.entries(servers).map(([name, s]) => ({
        id: `fault-${name}`,
        name: `Fault: ${name}`,
        api: 'mds',
        baseUrl: s.url,
      })),
      { id: 'fault-tls', name: 'Fault: self-signed TLS', api: 'mds', baseUrl: tls.server.url },
    ];
    await config().update('customEnvironments', environments, vscode.ConfigurationTarget.Global);
    await config().update('request.timeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    await waitFor(
      'the custom fault environments to be listed',
      () => environments.every((e) => exportsOf().environmentIds().includes(e.id)),
      { timeoutMs: 10_000 },
    );
    const demo = (await exportsOf().listCredentials()).find((c) => c.demo);
    assert.ok(demo, 'the sandbox stored its demo credential');
    demoBinding = { credentialId: demo.id, environmentIds: [...demo.environments] };
    const bound = await run('mobilityApi.bindCredential', {
      credentialId: demo.id,
      environmentIds: [...demo.environments, ...environments.map((e) => e.id)],
    });
    assert.equal(bound.ok, true, bound.message);
  });

  after(async () => {
    console.log(`      ${figures.join('\n      ')}`);
    // The bindings live in SecretStorage and outlive the settings: put the demo credential's back.
    if (demoBinding) await run('mobilityApi.bindCredential', demoBinding);
    await config().update('customEnvironments', undefined, vscode.ConfigurationTarget.Global);
    await config().update('request.timeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    await run('mobilityApi.stopSandbox');
    for (const s of [...Object.values(servers), elsewhere]) await s?.close();
    if (tls) {
      await tls.server.close();
      tls.certificates.remove();
    }
  });

  it('a self-signed TLS certificate: HTTP_TLS naming the certificate problem, and no request is sent', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-tls' });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'HTTP_TLS');
    assert.match(String(r.message), /certificate/);
    assert.equal(tls?.requests, 0, 'the token never left the TLS handshake');
    figures.push(`self-signed TLS: ${r.code}: ${String(r.message).slice(0, 90)}…`);
  });

  it('connection refused: HTTP_CONNECTION_REFUSED, naming the host and what to check', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-refused' });
    assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'HTTP_CONNECTION_REFUSED' });
    assert.match(String(r.message), new RegExp(`${new URL(refusedUrl).host}.*connection refused.*Check the base URL`));
    figures.push(`refused: ${r.code}: ${r.message}`);
  });

  it('a server that never answers: HTTP_TIMEOUT after the configured 1 s, and the connection is closed', async () => {
    const started = Date.now();
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-hang' });
    const took = Date.now() - started;
    assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'HTTP_TIMEOUT' });
    assert.match(String(r.message), /did not answer within 1 s.*raise the timeout/);
    assert.equal(servers.hang.requests, 1, 'one request reached the server');
    await noConnectionLeft(servers.hang);
    figures.push(`never answers: ${r.code} after ${took} ms: ${r.message}`);
  });

  it("a 500 with an MDS error body: a result with the status and the body's error and description", async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-mds500' });
    assert.equal(r.ok, true, 'an HTTP answer is a result, not a failure of the command');
    assert.equal(r.status, 500);
    assert.deepEqual(
      { error: r.error?.error, description: r.error?.error_description },
      { error: 'internal_error', description: 'The vehicle store is down for maintenance.' },
    );
    await noConnectionLeft(servers.mds500);
    figures.push(`500: status ${r.status}, ${r.error?.error}: ${r.error?.error_description}`);
  });

  it('a 429 with Retry-After: a result with the status and the body; one request, no retry storm', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-tooMany' });
    assert.equal(r.status, 429);
    assert.equal(r.error?.error, 'rate_limited');
    assert.equal(r.retryAfterSeconds, 120, 'Retry-After is read');
    assert.equal(servers.tooMany.requests, 1, 'the extension does not retry on its own');
    await noConnectionLeft(servers.tooMany);
    figures.push(`429: status ${r.status}, ${r.error?.error}, after ${servers.tooMany.requests} request`);
  });

  it('invalid JSON under a JSON content type: a 200 result with no vehicles, not a crash', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-badJson' });
    assert.equal(r.ok, true, String(r.message));
    assert.deepEqual({ status: r.status, items: r.items }, { status: 200, items: 0 });
    assert.match(String(r.bodyProblem), /does not parse/, 'the outcome says why there are no vehicles');
    await noConnectionLeft(servers.badJson);
    figures.push(`invalid JSON: status ${r.status}, ${r.items} vehicles`);
  });

  it('a redirect to another origin: HTTP_REDIRECT_CROSS_ORIGIN, and the token never reaches the other origin', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'fault-redirect' });
    assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'HTTP_REDIRECT_CROSS_ORIGIN' });
    assert.match(String(r.message), /another origin.*not sent there/);
    assert.equal(elsewhere.requests, 0, 'nothing was sent to the redirect target');
    assert.match(servers.redirect.authorizations[0] ?? '', /^Bearer eyJ/, 'the environment itself got a token');
    assert.ok(!String(r.message).includes(servers.redirect.authorizations[0].slice(7)), 'the message holds no token');
    await noConnectionLeft(servers.redirect);
    figures.push(`cross-origin redirect: ${r.code}: ${r.message}`);
  });

  it('after every fault the extension still works: the sandbox lists vehicles', async () => {
    const r = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(r.status, 200, String(r.message));
    for (const [name, s] of Object.entries(servers)) assert.equal(s.inFlight, 0, `${name} has no request running`);
  });
});
