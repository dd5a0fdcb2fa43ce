import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { formatUtcHour, floorToUtcHour, HOUR_MS, lastCompleteUtcHour } from '../../src/core/mds/utcHour';
import { answerUntilReturned, exportsOf, run } from './extensionApi';
import type { Outcome } from './extensionApi';

type RunOutcome = Outcome & {
  environmentId?: string;
  status?: number;
  outcome?: string;
  items?: number;
  pages?: number;
  nextUrl?: string;
  retryAfterSeconds?: number;
  title?: string;
  values?: Record<string, string>;
  ownAuthorization?: boolean;
  uri?: string;
  requests?: number;
};

const send = (args: unknown) => run<RunOutcome>('mobilityApi.sendRequest', args);

/**
 * Runs `command` and answers each question it asks (input boxes, quick picks) by accepting what is
 * offered, until the command returns: a question opens only when the command gets there.
 */
async function runAccepting(command: string, ...args: unknown[]): Promise<RunOutcome> {
  return answerUntilReturned(
    run<RunOutcome>(command, ...args),
    ['workbench.action.acceptSelectedQuickOpenItem'],
    command,
  );
}

/** Runs what a CodeLens runs when clicked. */
function runLens(lens: vscode.CodeLens | undefined): Thenable<RunOutcome> {
  assert.ok(lens?.command, 'the lens has a command');
  return run<RunOutcome>(lens.command.command, ...((lens.command.arguments ?? []) as unknown[]));
}

/** The jtis of the tokens of this session that went out on a request to `urlPart`. */
function requestJtis(urlPart: string): string[] {
  return exportsOf()
    .tokenHistory()
    .filter((e) => e.use === 'request' && e.request?.url.includes(urlPart))
    .map((e) => e.jti);
}

describe('exploring endpoints: Send Request, Load All Pages, request files', function () {
  this.timeout(90_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-explore-'));

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('mobilityApi')
      .update('request.loadAllPages', undefined, vscode.ConfigurationTarget.Global);
    // The untitled request files are dirty: revert them so that closing asks nothing.
    for (const doc of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends a catalogue endpoint without parameters, every page by default', async () => {
    const r = await send({ environmentId: 'sandbox-mds-staging', endpointId: 'vehicles' });
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(
      { status: r.status, outcome: r.outcome, items: r.items, pages: r.pages, nextUrl: r.nextUrl, title: r.title },
      { status: 200, outcome: 'items', items: 500, pages: 5, nextUrl: undefined, title: 'Vehicles' },
    );
  });

  it('asks for an hour with the last complete UTC hour prefilled; accepting it sends that hour', async () => {
    const before = lastCompleteUtcHour(Date.now());
    const r = await runAccepting('mobilityApi.sendRequest', {
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
    });
    const after = lastCompleteUtcHour(Date.now());
    assert.equal(r.ok, true, r.message);
    assert.ok(
      [before, after].includes(String(r.values?.end_time)),
      `sent end_time ${r.values?.end_time}, expected ${before}`,
    );
    assert.equal(r.title, `Trips · ${r.values?.end_time}`);
    assert.equal(r.status, 200);
  });

  it('remembers the values used per environment and endpoint and offers them next time', async () => {
    const id = '0b6e3c2a-3f4d-4a8b-9c1e-2d3f4a5b6c7d';
    const first = await send({
      environmentId: 'sandbox-mds-production',
      endpointId: 'vehicle',
      values: { device_id: id.toUpperCase() },
    });
    assert.equal(first.ok, true, first.message);
    assert.equal(first.values?.device_id, id, 'normalised to lowercase');
    const again = await runAccepting('mobilityApi.sendRequest', {
      environmentId: 'sandbox-mds-production',
      endpointId: 'vehicle',
    });
    assert.equal(again.values?.device_id, id, 'the remembered device_id was offered');
  });

  it('refuses a bad parameter before anything is signed, with the format expected', async () => {
    const tokens = exportsOf().tokenHistory().length;
    const r = await send({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      values: { end_time: '2025-11-5T7' },
    });
    assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'PARAMETER_INVALID' });
    assert.match(String(r.message), /YYYY-MM-DDTHH/);
    assert.equal(exportsOf().tokenHistory().length, tokens, 'no token was signed');
  });

  it('tells 202 (the current hour, with Retry-After) and 404 (a future hour) apart', async () => {
    const now = Date.now();
    const current = await send({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      values: { end_time: formatUtcHour(floorToUtcHour(now)) },
    });
    const future = await send({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      values: { end_time: formatUtcHour(floorToUtcHour(now) + 3 * HOUR_MS) },
    });
    if (floorToUtcHour(Date.now()) === floorToUtcHour(now)) {
      assert.deepEqual({ status: current.status, outcome: current.outcome }, { status: 202, outcome: 'not_processed' });
      assert.ok(Number(current.retryAfterSeconds) > 0, 'Retry-After is read');
    }
    assert.deepEqual({ status: future.status, outcome: future.outcome }, { status: 404, outcome: 'not_found' });
  });

  it('sends any path under the base URL and refuses one that leaves it, before signing', async () => {
    const ok = await send({ environmentId: 'sandbox-maas-staging', path: '/v1alpha2/vehicles' });
    assert.deepEqual(
      { ok: ok.ok, status: ok.status, title: ok.title },
      { ok: true, status: 200, title: 'GET /v1alpha2/vehicles' },
    );
    const tokens = exportsOf().tokenHistory().length;
    for (const bad of ['https://elsewhere.invalid/vehicles', '/../mds-production/vehicles']) {
      const r = await send({ environmentId: 'sandbox-mds-staging', path: bad });
      assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'PATH_INVALID' }, bad);
    }
    assert.equal(exportsOf().tokenHistory().length, tokens, 'no token was signed');
  });

  it('"Other path…" asks for a path, offering the one used last', async () => {
    await send({ environmentId: 'sandbox-mds-production', path: '/vehicles/status' });
    const r = await runAccepting('mobilityApi.sendRequest', {
      environmentId: 'sandbox-mds-production',
      otherPath: true,
    });
    assert.equal(r.ok, true, r.message);
    assert.equal(r.title, 'GET /vehicles/status');
  });

  it('honours loadAllPages off, and Load All Pages fetches the rest of the last result', async () => {
    await vscode.workspace
      .getConfiguration('mobilityApi')
      .update('request.loadAllPages', false, vscode.ConfigurationTarget.Global);
    const first = await send({ environmentId: 'sandbox-mds-staging', endpointId: 'vehicles' });
    assert.deepEqual({ pages: first.pages, items: first.items }, { pages: 1, items: 100 });
    assert.ok(first.nextUrl, 'a next page is offered');
    const all = await run<RunOutcome>('mobilityApi.loadAllPages');
    assert.equal(all.ok, true, all.message);
    assert.deepEqual(
      { pages: all.pages, items: all.items, nextUrl: all.nextUrl },
      { pages: 5, items: 500, nextUrl: undefined },
    );
    const none = await run<RunOutcome>('mobilityApi.loadAllPages');
    assert.equal(none.code, 'NO_NEXT_PAGE');
  });

  describe('request files', () => {
    const file = path.join(dir, 'requests.http');
    let uri: vscode.Uri;

    before(async () => {
      fs.writeFileSync(
        file,
        [
          '# @name vehicles',
          'GET {{baseUrl}}/vehicles',
          '',
          '###',
          '# @name own',
          'GET {{baseUrl}}/vehicles/status',
          'Authorization: Bearer not-a-real-token',
          '',
          '###',
          'GET https://nowhere.invalid/vehicles',
          '',
          '###',
          '# @name fixed',
          '# @authorization as-is',
          'GET {{baseUrl}}/vehicles/status',
          'Authorization: Bearer not-a-real-token',
          '',
        ].join('\n'),
      );
      uri = vscode.Uri.file(file);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    });

    const lenses = async (target: vscode.Uri) =>
      (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', target)) ?? [];

    it('stands a "Send with fresh token" lens above each GET under an environment, and says so above one that is not', async () => {
      const found = await lenses(uri);
      assert.deepEqual(
        found.map((l) => [l.range.start.line, l.command?.title]),
        [
          [1, '$(play) Send with fresh token'],
          [1, '$(code) Copy as Code'],
          [5, '$(warning) Sets its own Authorization: not sent (see why)'],
          [9, '$(warning) No environment for this URL: pick or configure one'],
          [14, '$(play) Send with its own Authorization'],
          [14, '$(code) Copy as Code'],
        ],
      );
    });

    it('sends the request twice from its lens: 200 both times, two different jti', async () => {
      const lens = (await lenses(uri))[0];
      const before = requestJtis('/mds-staging/vehicles').length;
      const one = await runLens(lens);
      const two = await runLens(lens);
      assert.deepEqual([one.status, two.status, one.environmentId], [200, 200, 'sandbox-mds-staging'], one.message);
      const jtis = requestJtis('/mds-staging/vehicles').slice(before);
      assert.ok(jtis.length >= 2, `tokens went out: ${jtis.length}`);
      assert.equal(new Set(jtis).size, jtis.length, 'every request carried its own jti');
    });

    it('{{baseUrl}} follows the active environment', async () => {
      await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-production' });
      const lens = (await lenses(uri))[0];
      const r = await runLens(lens);
      assert.deepEqual({ env: r.environmentId, status: r.status }, { env: 'sandbox-mds-production', status: 200 });
      await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    });

    it('refuses a request\'s own Authorization, saying why and naming "# @authorization as-is": nothing is signed or sent', async () => {
      const tokens = exportsOf().tokenHistory().length;
      const sendLenses = (await lenses(uri)).filter((l) => l.command?.command === 'mobilityApi.sendFileRequest');
      const r = await runLens(sendLenses[1]);
      assert.deepEqual({ ok: r.ok, code: r.code }, { ok: false, code: 'AUTHORIZATION_GIVEN' });
      assert.match(
        r.message ?? '',
        /signs a fresh token for every request \(spec 5\.1 rule 4\).*"# @authorization as-is"/,
      );
      assert.equal(exportsOf().tokenHistory().length, tokens, 'no token was signed');
    });

    it('sends a request\'s own Authorization as written under "# @authorization as-is": no token is signed, and the sandbox refuses it', async () => {
      const tokens = exportsOf().tokenHistory().length;
      const r = await runLens(
        (await lenses(uri)).filter((l) => l.command?.command === 'mobilityApi.sendFileRequest')[2],
      );
      assert.deepEqual({ ok: r.ok, own: r.ownAuthorization, status: r.status }, { ok: true, own: true, status: 401 });
      assert.equal(exportsOf().tokenHistory().length, tokens, 'no token was signed');
    });

    it('New Request File writes one named request per endpoint for the active environment, with its lenses', async () => {
      const r = await run<RunOutcome>('mobilityApi.newRequestFile');
      assert.equal(r.ok, true, r.message);
      assert.deepEqual({ env: r.environmentId, requests: r.requests }, { env: 'sandbox-mds-staging', requests: 11 });
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === r.uri);
      assert.ok(doc, 'the document is open');
      const text = doc.getText();
      assert.match(text, /# @name trips\nGET \{\{baseUrl\}\}\/trips\?end_time=\d{4}-\d{2}-\d{2}T\d{2}\n/);
      assert.ok(!/Bearer|@baseUrl/.test(text), 'no token and no baseUrl variable in the file');
      const found = (await lenses(doc.uri)).filter((l) => l.command?.command === 'mobilityApi.sendFileRequest');
      assert.equal(found.length, 11);
      const vehicles = found.find((l) => doc.lineAt(l.range.start.line).text === 'GET {{baseUrl}}/vehicles');
      assert.ok(vehicles, 'a lens above the vehicles request');
      const sent = await runLens(vehicles);
      assert.equal(sent.status, 200, sent.message);
      // @device_id is a vehicle the sandbox serves, not the spec's example id (which answers 404).
      const one = found.find((l) => doc.lineAt(l.range.start.line).text === 'GET {{baseUrl}}/vehicles/{{device_id}}');
      assert.ok(one, 'a lens above the one-vehicle request');
      const vehicle = await runLens(one);
      assert.equal(vehicle.status, 200, vehicle.message);
    });
  });
});
