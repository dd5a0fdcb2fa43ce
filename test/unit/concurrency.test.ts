// Many requests on one key at once, against the sandbox, which refuses a replayed jti and an iat
// that is not later than the last one it accepted on that key (spec 5.1 rules 6 and 7). A small
// proxy in front of it records the claims in the order the requests arrived.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ApiClient } from '../../src/core/http/apiClient';
import type { HttpExchange } from '../../src/core/http/exchange';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';
import { IssueClock } from '../../src/core/clock/issueClock';
import type { ClockPrecision } from '../../src/core/clock/issueClock';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import type { ClaimsProxy } from './support/claimsProxy';
import { startClaimsProxy } from './support/claimsProxy';

function clientWith(precision: ClockPrecision, now?: () => number): ApiClient {
  return new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision, now }) }) });
}

function isAborted(err: unknown): boolean {
  return err instanceof MobilityError && err.code === 'CANCELLED' && /nothing was sent|cancelled/.test(err.message);
}

describe('concurrency: many requests on one key against the sandbox', function () {
  this.timeout(30_000);
  let sandbox: RunningSandbox;
  let proxy: ClaimsProxy;
  let demo: Credential;
  let environment: Environment;
  const served: SandboxRequestLog[] = [];

  beforeEach(async () => {
    served.length = 0;
    // A new sandbox per test: it remembers the last iat per key, and each test starts its own clock.
    sandbox = await startSandbox({ fleetSize: 20, pageSize: 5, onRequest: (entry) => served.push(entry) });
    proxy = await startClaimsProxy(sandbox.url);
    demo = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: fs.readFileSync(sandbox.demo.privateKeyFile, 'utf8'),
      kid: sandbox.demo.kid,
      issuer: sandbox.demo.issuer,
    }).credential;
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging')!;
    // Requests go through the proxy; the audience stays the sandbox environment's base URL.
    environment = {
      id: mds.id,
      name: mds.id,
      api: 'mds',
      stage: 'staging',
      baseUrl: `${proxy.url}/mds-staging`,
      audience: mds.baseUrl,
    };
  });
  afterEach(async () => {
    await proxy.close();
    await sandbox.close();
  });

  it('200 requests started at once with millisecond precision all succeed: no jti twice, iat strictly increasing in arrival order', async () => {
    const client = clientWith('milliseconds');
    const listings = await Promise.all(Array.from({ length: 200 }, () => client.listVehicles(environment, demo)));
    const statuses = listings.map((l) => l.pages[0].status);
    assert.deepEqual(
      statuses,
      Array(200).fill(200),
      `refusals: ${JSON.stringify(served.filter((s) => s.status !== 200).slice(0, 3))}`,
    );
    assert.ok(listings.every((l) => l.items.length === 5));

    const { arrivals } = proxy;
    assert.equal(arrivals.length, 200);
    assert.equal(new Set(arrivals.map((a) => a.jti)).size, 200, 'no jti twice');
    const notIncreasing = arrivals.findIndex((a, i) => i > 0 && !(a.iat > arrivals[i - 1].iat));
    assert.equal(notIncreasing, -1, `iat not increasing at arrival ${notIncreasing}`);
    assert.ok(
      arrivals.some((a) => !Number.isInteger(a.iat)),
      'millisecond iats are fractional NumericDates',
    );
    assert.equal(served.filter((s) => s.status === 200).length, 200, 'the sandbox accepted all 200');
  });

  it('with second precision, 3 requests started at once get whole-second iats one second apart', async () => {
    const client = clientWith('seconds');
    const pages: HttpExchange[] = (
      await Promise.all(Array.from({ length: 3 }, () => client.listVehicles(environment, demo)))
    ).map((l) => l.pages[0]);
    assert.deepEqual(
      pages.map((p) => p.status),
      [200, 200, 200],
    );
    const iats = proxy.arrivals.map((a) => a.iat);
    assert.equal(iats.length, 3);
    assert.ok(iats.every(Number.isInteger), `whole seconds: ${iats.join(', ')}`);
    assert.deepEqual(
      iats.slice(1).map((iat, i) => iat - iats[i]),
      [1, 1],
      `one second apart: ${iats.join(', ')}`,
    );
  });

  it('cancelling queued requests releases them without sending anything, and the key stays usable', async () => {
    const client = clientWith('seconds');
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const started = controllers.map((c) => client.listVehicles(environment, demo, { signal: c.signal }));
    for (const c of controllers.slice(2)) c.abort();
    const outcomes = await Promise.allSettled(started);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected'],
    );
    for (const o of outcomes.slice(2))
      assert.ok(o.status === 'rejected' && isAborted(o.reason), String((o as PromiseRejectedResult).reason));
    assert.equal(proxy.arrivals.length, 2, 'the server saw exactly the 2 requests that were not cancelled');
    assert.equal(served.length, 2);

    const after = await client.listVehicles(environment, demo);
    assert.equal(after.pages[0].status, 200, 'the queue was released: a later request on the key goes through');
    assert.equal(proxy.arrivals.length, 3);
  });

  it('cancelling a request while it waits for the next second sends nothing', async () => {
    // The issue clock's wall clock stands still, so the second request keeps waiting for the next second.
    const frozen = Date.now();
    const client = clientWith('seconds', () => frozen);
    const first = client.listVehicles(environment, demo);
    const stop = new AbortController();
    const second = client.listVehicles(environment, demo, { signal: stop.signal });
    assert.equal((await first).pages[0].status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort();
    await assert.rejects(
      second,
      (err: unknown) => err instanceof MobilityError && err.code === 'CANCELLED' && /next second/.test(err.message),
    );
    assert.equal(proxy.arrivals.length, 1);
  });
});
