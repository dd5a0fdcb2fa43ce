import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import * as vscode from 'vscode';
import { keyFixture } from '../unit/keyFixtures';
import { freeLoopbackPort, startTestServer } from '../unit/support/testServer';
import type { TestServer } from '../unit/support/testServer';
import { waitFor } from '../unit/support/waitUntil';
import { exportsOf, run as runCommand } from './extensionApi';
import type { Outcome as BaseOutcome } from './extensionApi';

type Outcome = BaseOutcome & {
  status?: number;
  items?: number;
  pages?: number;
  nextUrl?: string;
  stoppedBecause?: string;
  url?: string;
  claims?: { aud: string | string[]; iat: number; exp: number };
};
const run = (command: string, ...args: unknown[]) => runCommand<Outcome>(command, ...args);
const config = () => vscode.workspace.getConfiguration('mobilityApi');

/**
 * Sets a `mobilityApi.*` setting and waits until this extension host reads the new value: the
 * configuration model is updated in the same step that fires onDidChangeConfiguration, so the
 * extension's listeners have run by then.
 */
async function set(key: string, value: unknown): Promise<void> {
  await config().update(key, value, vscode.ConfigurationTarget.Global);
  const wanted = JSON.stringify(value ?? config().inspect(key)?.defaultValue);
  await waitFor(`mobilityApi.${key} to read back as ${wanted}`, () => JSON.stringify(config().get(key)) === wanted, {
    timeoutMs: 10_000,
    intervalMs: 50,
  });
}

/** A provider on 127.0.0.1 that records the headers of each request and answers with `body`. */
async function recordingServer(body: () => string): Promise<TestServer & { headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = await startTestServer((req, res) => {
    headers.push(req.headers);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body());
  });
  return { ...server, headers };
}

/** Each setting docs/vscode.md documents, changed as a user changes it, and its effect as a user sees it. */
describe('every documented setting has its effect', function () {
  this.timeout(90_000);
  const touched = new Set<string>();
  const change = async (key: string, value: unknown) => {
    touched.add(key);
    await set(key, value);
  };
  let sandboxUrl = '';
  let demoBinding: { credentialId: string; environmentIds: string[] } | undefined;
  let recorder: Awaited<ReturnType<typeof recordingServer>>;
  let bigBody = '';

  before(async () => {
    await run('mobilityApi.stopSandbox');
    // A small fleet on a port of our choosing, so that the paging settings are quick to see.
    const port = await freeLoopbackPort();
    await change('sandbox.port', port);
    await change('sandbox.fleetSize', 30);
    await change('sandbox.pageSize', 10);
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    sandboxUrl = String(started.url);
    assert.equal(
      new URL(sandboxUrl).port,
      String(port),
      'mobilityApi.sandbox.port: the sandbox listens on the configured port',
    );
    recorder = await recordingServer(
      () => bigBody || JSON.stringify({ version: '2.0.0', vehicles: [], last_updated: Date.now(), ttl: 0 }),
    );
    const demo = (await exportsOf().listCredentials()).find((c) => c.demo);
    assert.ok(demo, 'the sandbox stored its demo credential');
    demoBinding = { credentialId: demo.id, environmentIds: [...demo.environments] };
  });

  after(async () => {
    if (demoBinding) await run('mobilityApi.bindCredential', demoBinding);
    for (const key of touched) await set(key, undefined);
    await run('mobilityApi.stopSandbox');
    await recorder?.close();
  });

  it('mobilityApi.request.loadAllPages (default on): List Vehicles and Vehicle Status load every page', async () => {
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.ok, true, listed.message);
    assert.deepEqual(
      { items: listed.items, pages: listed.pages, nextUrl: listed.nextUrl },
      { items: 30, pages: 3, nextUrl: undefined },
      'the whole fleet of 30 in 3 pages',
    );
    const status = await run('mobilityApi.vehicleStatus', { environmentId: 'sandbox-mds-production' });
    assert.deepEqual(
      { items: status.items, pages: status.pages, nextUrl: status.nextUrl },
      { items: 30, pages: 3, nextUrl: undefined },
    );
    const maas = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-maas-staging' });
    assert.deepEqual({ items: maas.items, pages: maas.pages }, { items: 30, pages: 3 });
  });

  it('mobilityApi.request.maxPages: a listing stops after that many pages and says where it stopped', async () => {
    await change('request.maxPages', 2);
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.deepEqual({ items: listed.items, pages: listed.pages }, { items: 20, pages: 2 });
    assert.match(
      String(listed.nextUrl),
      /^http:\/\/127\.0\.0\.1:\d+\/mds-staging\/vehicles\?/,
      'the next page is left for "load next page"',
    );
    assert.match(String(listed.stoppedBecause), /page limit of 2/);
    await change('request.maxPages', undefined);
  });

  it("mobilityApi.request.loadAllPages off: the first page only, with the next page's URL", async () => {
    await change('request.loadAllPages', false);
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.deepEqual({ items: listed.items, pages: listed.pages }, { items: 10, pages: 1 });
    assert.match(String(listed.nextUrl), /\/mds-staging\/vehicles\?/);
    await change('request.loadAllPages', undefined);
  });

  it('mobilityApi.mds.stagingBaseUrl / productionBaseUrl / maas.stagingBaseUrl: the built-in environments go there', async () => {
    await change('mds.stagingBaseUrl', `${sandboxUrl}/mds-staging`);
    await change('mds.productionBaseUrl', `${sandboxUrl}/mds-production`);
    await change('maas.stagingBaseUrl', `${sandboxUrl}/maas-staging`);
    const ids = ['mds-staging', 'mds-production', 'maas-staging'];
    assert.equal(
      (
        await run('mobilityApi.bindCredential', {
          credentialId: demoBinding?.credentialId,
          environmentIds: [...(demoBinding?.environmentIds ?? []), ...ids],
        })
      ).ok,
      true,
    );
    for (const environmentId of ids) {
      const listed = await run('mobilityApi.listVehicles', { environmentId });
      assert.deepEqual(
        { id: environmentId, status: listed.status, items: listed.items },
        { id: environmentId, status: 200, items: 30 },
        String(listed.message),
      );
    }
  });

  it('mobilityApi.token.lifetimeSeconds: tokens live that long', async () => {
    await change('token.lifetimeSeconds', 120);
    const generated = await run('mobilityApi.generateToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(generated.ok, true, generated.message);
    assert.equal(Number(generated.claims?.exp) - Number(generated.claims?.iat), 120);
    await change('token.lifetimeSeconds', undefined);
    const back = await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(Number(back.claims?.exp) - Number(back.claims?.iat), 300, 'and the default again once reset');
  });

  it('mobilityApi.token.clockPrecision: milliseconds give fractional iat, seconds whole ones', async () => {
    const whole = await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' });
    assert.ok(Number.isInteger(whole.claims?.iat), `iat ${whole.claims?.iat} is whole seconds by default`);
    await change('token.clockPrecision', 'milliseconds');
    const iats: number[] = [];
    // A millisecond clock lands on a whole second once in a thousand: three tokens make that a non-issue.
    for (let i = 0; i < 3; i++)
      iats.push(Number((await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' })).claims?.iat));
    assert.ok(
      iats.some((iat) => !Number.isInteger(iat)),
      `fractional iat among ${iats.join(', ')}`,
    );
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.status, 200, 'the sandbox accepts fractional NumericDates');
    await change('token.clockPrecision', undefined);
  });

  it('mobilityApi.token.audienceAsList: aud is a one-element list, also for the sandbox environments', async () => {
    await change('token.audienceAsList', true);
    const generated = await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' });
    assert.deepEqual(generated.claims?.aud, [`${sandboxUrl}/mds-staging`]);
    const builtIn = await run('mobilityApi.copyToken', { environmentId: 'mds-production' });
    assert.deepEqual(builtIn.claims?.aud, [`${sandboxUrl}/mds-production`]);
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.status, 200);
    await change('token.audienceAsList', undefined);
    assert.equal(
      (await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' })).claims?.aud,
      `${sandboxUrl}/mds-staging`,
    );
  });

  it('mobilityApi.customEnvironments with headers and audience, and mobilityApi.mds.acceptHeader', async () => {
    await change('customEnvironments', [
      {
        id: 'rec-mds',
        name: 'Recorder MDS',
        api: 'mds',
        baseUrl: recorder.url,
        audience: 'https://audience.test.invalid/mds',
        headers: { 'X-Api-Key': 'k-123' },
      },
      { id: 'rec-maas', name: 'Recorder MaaS', api: 'maas', baseUrl: `${recorder.url}/maas`, stage: 'staging' },
    ]);
    assert.ok(exportsOf().environmentIds().includes('rec-mds'), 'the custom environment is listed');
    assert.equal(
      (
        await run('mobilityApi.bindCredential', {
          credentialId: demoBinding?.credentialId,
          environmentIds: [...(demoBinding?.environmentIds ?? []), 'rec-mds', 'rec-maas'],
        })
      ).ok,
      true,
    );
    const generated = await run('mobilityApi.copyToken', { environmentId: 'rec-mds' });
    assert.equal(generated.claims?.aud, 'https://audience.test.invalid/mds', 'audience overrides the base URL');
    await run('mobilityApi.listVehicles', { environmentId: 'rec-mds' });
    let sent = recorder.headers.at(-1) ?? {};
    assert.equal(sent['x-api-key'], 'k-123', 'the custom header is sent');
    assert.equal(sent.accept, 'application/vnd.mds+json;version=2.0', 'MDS gets the default Accept');
    await run('mobilityApi.listVehicles', { environmentId: 'rec-maas' });
    assert.notEqual(
      recorder.headers.at(-1)?.accept,
      'application/vnd.mds+json;version=2.0',
      'MaaS does not get the MDS Accept',
    );

    await change('mds.acceptHeader', 'application/vnd.mds+json;version=2.0.1');
    await run('mobilityApi.listVehicles', { environmentId: 'rec-mds' });
    sent = recorder.headers.at(-1) ?? {};
    assert.equal(sent.accept, 'application/vnd.mds+json;version=2.0.1');
    await change('mds.acceptHeader', '');
    await run('mobilityApi.listVehicles', { environmentId: 'rec-mds' });
    assert.notEqual(recorder.headers.at(-1)?.accept, '', 'an empty Accept setting sends no empty header');
    assert.doesNotMatch(String(recorder.headers.at(-1)?.accept), /vnd\.mds/);
    const sandboxListed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(sandboxListed.status, 200, 'the sandbox answers without the MDS Accept too');
    await change('mds.acceptHeader', undefined);
  });

  it("an Authorization in a custom environment's headers is refused by Send Request and List Vehicles, saying why and how", async () => {
    const environments = config().get<unknown[]>('customEnvironments');
    await change('customEnvironments', [
      {
        id: 'rec-mds',
        name: 'Recorder MDS',
        api: 'mds',
        baseUrl: recorder.url,
        headers: { Authorization: 'Bearer fixed' },
      },
    ]);
    const before = recorder.headers.length;
    for (const [command, args] of [
      ['mobilityApi.sendRequest', { environmentId: 'rec-mds', path: '/vehicles' }],
      ['mobilityApi.listVehicles', { environmentId: 'rec-mds' }],
    ] as const) {
      const r = await run(command, args);
      assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'AUTHORIZATION_GIVEN' }, command);
      assert.match(
        String(r.message),
        /environment Recorder MDS sets an Authorization header.*signs a fresh token for every request \(spec 5\.1 rule 4\).*# @authorization as-is/,
      );
    }
    assert.equal(recorder.headers.length, before, 'nothing was sent');
    await change('customEnvironments', environments);
  });

  it('mobilityApi.request.maxResponseMegabytes: a larger body is stopped with HTTP_TOO_LARGE', async () => {
    bigBody = JSON.stringify({ version: '2.0.0', vehicles: [], padding: 'x'.repeat(1_300_000) });
    const fine = await run('mobilityApi.listVehicles', { environmentId: 'rec-mds' });
    assert.equal(fine.status, 200, 'under the default 50 MB it is read');
    await change('request.maxResponseMegabytes', 1);
    const capped = await run('mobilityApi.listVehicles', { environmentId: 'rec-mds' });
    assert.deepEqual({ ok: capped.ok, code: capped.code }, { ok: false, code: 'HTTP_TOO_LARGE' });
    bigBody = '';
  });

  it('mobilityApi.request.timeoutSeconds: a request that takes longer ends with HTTP_TIMEOUT', async () => {
    const hang = await startTestServer(() => undefined);
    try {
      await change('customEnvironments', [{ id: 'rec-hang', name: 'Hanging', api: 'mds', baseUrl: hang.url }]);
      await run('mobilityApi.bindCredential', {
        credentialId: demoBinding?.credentialId,
        environmentIds: [...(demoBinding?.environmentIds ?? []), 'rec-hang'],
      });
      await change('request.timeoutSeconds', 1);
      const r = await run('mobilityApi.listVehicles', { environmentId: 'rec-hang' });
      assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'HTTP_TIMEOUT' });
      assert.match(String(r.message), /within 1 s/);
    } finally {
      await hang.close();
    }
  });

  it('mobilityApi.issuerDomains: a listed domain decides the type, and a contradicting choice is refused', async () => {
    await change('issuerDomains', { externalOrganization: [], iam: ['iam.test.invalid'], serviceAccount: [] });
    const key = keyFixture('p256').pkcs8;
    const refused = await run('mobilityApi.addCredential', {
      type: 'external-org',
      privateKey: key,
      kid: 'dom-kid',
      issuer: 'someone@iam.test.invalid',
    });
    assert.deepEqual({ ok: refused.ok, code: refused.code }, { ok: false, code: 'CREDENTIAL_TYPE_MISMATCH' });
    assert.match(String(refused.message), /configured for IAM/);
    await change('issuerDomains', undefined);
    const accepted = await run('mobilityApi.addCredential', {
      type: 'external-org',
      privateKey: key,
      kid: 'dom-kid',
      issuer: 'someone@iam.test.invalid',
      label: 'Domain test',
    });
    assert.equal(accepted.ok, true, 'without the domain setting the stated type stands');
    await run('mobilityApi.removeCredential', { credentialId: accepted.credentialId, confirmed: true });
  });
});
