// A gRPC call's answer shown by the results panels' host side in a real VS Code: a real call to a sandbox started
// here (its gRPC side, the demo key), `showGrpcResult` as the gRPC commands call it, then what the user gets: the
// panel's tab with the call's title, and Save CSV / Save body of what it holds (the panel's export buttons and the
// export command save the same), one row per streamed vehicle, without the token.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import type { Environment } from '../../src/core/environment';
import type { GrpcConnection } from '../../src/core/grpc';
import { callMethod, openConnection, reflectSchema } from '../../src/core/grpc';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import type { ResultsPanels } from '../../src/vscode/panel/resultsPanelsApi';
import { createResultsPanels } from '../../src/vscode/panel/resultsPanel.bundle';

const FLEET = 120;
const TITLE = 'VehicleService/ListVehicleStatus';

/** Waits (polling, no fixed sleep) until `check` holds. */
async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("results panel: a gRPC call's answer in VS Code", function () {
  this.timeout(120_000);
  let sandbox: RunningSandbox;
  let connection: GrpcConnection | undefined;
  let panels: ResultsPanels | undefined;
  let log: vscode.LogOutputChannel | undefined;
  let dir: string;

  before(async () => {
    sandbox = await startSandbox({ fleetSize: FLEET, pageSize: 1000 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-results-'));
  });
  after(async () => {
    panels?.dispose();
    log?.dispose();
    connection?.close();
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("shows a streamed vehicle-status call in its environment's panel, and saves one CSV row per message without the token", async () => {
    const e = sandbox.environments.find((x) => x.id === 'mds-staging');
    assert.ok(e?.grpcTarget, 'the sandbox serves gRPC');
    const environment: Environment = {
      id: 'grpc-panel-test',
      name: 'gRPC panel test',
      api: 'mds',
      stage: 'staging',
      baseUrl: e.baseUrl,
    };
    const demo = sandbox.demo;
    const credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    const auth = { environment, credential, issuer: new TokenIssuer() };
    connection = openConnection({ address: e.grpcTarget, plaintext: true });
    const schema = await reflectSchema(connection, { auth });
    const result = await callMethod(connection, schema, auth, {
      method: 'mobility.sandbox.v1.VehicleService/ListVehicleStatus',
      messages: [{}],
    });
    assert.equal(result.status.name, 'OK', result.status.message);
    assert.equal(result.messages.length, FLEET);
    const token = result.token?.token ?? '';
    assert.ok(token.length > 100);

    const ext = vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer');
    assert.ok(ext, 'the extension under test is installed');
    log = vscode.window.createOutputChannel('gRPC panel test', { log: true });
    panels = createResultsPanels({ extensionUri: ext.extensionUri } as vscode.ExtensionContext, log);
    let grpcurlAsked = 0;
    panels.showGrpcResult({
      environment,
      result,
      title: TITLE,
      target: e.grpcTarget,
      credentialLabel: 'demo',
      runAgain: () => Promise.resolve(undefined),
      grpcurlCommand: () => {
        grpcurlAsked++;
        return Promise.resolve('TOKEN=…\ngrpcurl …');
      },
    });
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    await until(`a tab titled ${TITLE}`, () =>
      tabs().some((t) => t.label === TITLE && t.input instanceof vscode.TabInputWebview),
    );

    const csvFile = path.join(dir, 'vehicles.csv');
    const csv = await panels.exportShown({ format: 'csv', query: {}, path: csvFile });
    assert.ok(csv.ok, csv.ok ? '' : csv.message);
    const lines = fs.readFileSync(csvFile, 'utf8').trim().split(/\r?\n/);
    assert.equal(lines.length, FLEET + 1, 'a header and one row per streamed message');
    const first = result.messages.find((m) => m.device_id === lines[1].split(',')[0]);
    assert.ok(first, 'the rows are the streamed vehicles');
    assert.match(lines[0], /Last event/);

    const rawFile = path.join(dir, 'body.json');
    const raw = await panels.exportShown({ format: 'raw', query: {}, pageIndex: 0, path: rawFile });
    assert.ok(raw.ok, raw.ok ? '' : raw.message);
    const body = JSON.parse(fs.readFileSync(rawFile, 'utf8')) as { messages: unknown[] };
    assert.equal(body.messages.length, FLEET);
    for (const file of [csvFile, rawFile])
      assert.equal(fs.readFileSync(file, 'utf8').includes(token), false, `${path.basename(file)} holds no token`);
    assert.equal(grpcurlAsked, 0, 'the grpcurl command is built only when the user asks');
  });
});
