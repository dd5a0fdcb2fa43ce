import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { closeUnsavedUntitled, exportsOf, run } from './extensionApi';
import { waitUntil } from '../unit/support/waitUntil';

type Row = Awaited<ReturnType<ReturnType<typeof exportsOf>['environmentsTreeRows']>>[number];

const LIST_VEHICLES = '/mobility.sandbox.v1.VehicleService/ListVehicles';

describe('gRPC in the Environments tree and Call gRPC Method', function () {
  this.timeout(60_000);
  const rows = (element?: unknown) => exportsOf().environmentsTreeRows(element);
  const child = async (parent: unknown, label: string): Promise<Row> => {
    const found = (await rows(parent)).find((r) => r.label === label);
    assert.ok(found, `a row "${label}" under ${JSON.stringify(parent)}`);
    return found;
  };
  const config = () => vscode.workspace.getConfiguration('mobilityApi');

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
  });

  after(async () => {
    await config().update('grpc.environments', undefined, vscode.ConfigurationTarget.Global);
    await config().update('mds.stagingBaseUrl', undefined, vscode.ConfigurationTarget.Global);
    await closeUnsavedUntitled();
    await run('mobilityApi.stopSandbox');
  });

  it("shows the sandbox environment's services and methods by reflection when its gRPC item is expanded", async () => {
    const sandbox = (await rows()).find((r) => r.contextValue === 'sandbox.running');
    assert.ok(sandbox, 'the running sandbox');
    const staging = await child(sandbox.element, 'Sandbox · MDS staging');
    const grpc = await child(staging.element, 'gRPC');
    assert.match(grpc.description, /^127\.0\.0\.1:\d+$/, 'the target, nothing loaded yet');
    const services = await rows(grpc.element);
    // The MDS target serves VehicleService alone (MaasVehicleService is the MaaS target's), and reflection says so.
    assert.deepEqual(
      services.map((s) => [s.label, s.description]),
      [['VehicleService', '4 methods']],
    );
    const loaded = await child(staging.element, 'gRPC');
    assert.match(loaded.description, /^127\.0\.0\.1:\d+$/, 'the target alone beside "gRPC"');
    assert.match(loaded.tooltip, /Services from reflection v1/, 'the source once loaded, in the tooltip');
    const methods = await rows(services[0].element);
    assert.deepEqual(
      methods.map((m) => [m.label, m.description]),
      [
        ['ListVehicles', 'stream'],
        ['ListVehicleStatus', 'stream'],
        ['GetVehicle', 'unary'],
        ['GetVehicleStatus', 'unary'],
      ],
    );
    assert.match(
      methods[0].tooltip,
      /server streaming[\s\S]*Request: mobility\.sandbox\.v1\.ListVehiclesRequest/,
      'the kind and types in the tooltip',
    );
    assert.ok(methods.every((m) => m.contextValue === 'grpcMethod'));
    // Each row fits the default side bar: the detail that was cut ("reflectio…", "server strea…", "External O…") is in the tooltip.
    const credential = await child(staging.element, 'Credential');
    assert.equal(credential.description, 'Sandbox demo credential');
    assert.match(credential.tooltip, /External Organization · kid /);
  });

  it('Call gRPC Method opens the GRPC request with its message template in an untitled .http editor, cursor in the body', async () => {
    await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    const opened = await run<{ ok: boolean; message?: string; text: string; uri: string }>(
      'mobilityApi.sendGrpcRequest',
      { environmentId: 'sandbox-mds-production', method: '/mobility.sandbox.v1.VehicleService/GetVehicle' },
    );
    assert.equal(opened.ok, true, opened.message);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'an editor');
    assert.equal(editor.document.uri.toString(), opened.uri);
    assert.equal(editor.document.languageId, 'http');
    assert.match(
      editor.document.lineAt(0).text,
      /^GRPC 127\.0\.0\.1:\d+\/mobility\.sandbox\.v1\.VehicleService\/GetVehicle$/,
      "a non-active environment's request names its target on the first line",
    );
    assert.deepEqual(JSON.parse(editor.document.getText().split('\n').slice(2).join('\n')), { device_id: '' });
    assert.equal(
      editor.document.lineAt(editor.selection.active.line).text.trim(),
      '"device_id": ""',
      'the cursor on the first field',
    );
  });

  it("the active environment's request follows it ({{grpcTarget}})", async () => {
    await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    const opened = await run<{ ok: boolean; message?: string; text: string }>('mobilityApi.sendGrpcRequest', {
      environmentId: 'sandbox-mds-staging',
      method: LIST_VEHICLES,
    });
    assert.equal(opened.ok, true, opened.message);
    assert.equal(opened.text, 'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles\n\n{}\n');
    assert.equal(vscode.window.activeTextEditor?.document.getText(), opened.text);
  });

  it('an unreachable target is one row saying why; a changed target loads again', async () => {
    await config().update(
      'mds.stagingBaseUrl',
      'https://mds.grpc-tree.test.invalid',
      vscode.ConfigurationTarget.Global,
    );
    await config().update(
      'grpc.environments',
      { 'mds-staging': { target: '127.0.0.1:1', plaintext: true } },
      vscode.ConfigurationTarget.Global,
    );
    const staging = await waitUntil(
      'MDS staging with a gRPC item',
      async () => (await rows()).find((r) => r.label === 'MDS staging'),
      (r) => r?.contextValue?.endsWith('.grpc') === true,
    );
    const grpc = await child(staging!.element, 'gRPC');
    assert.equal(grpc.description, '127.0.0.1:1');
    const failed = await rows(grpc.element);
    assert.equal(failed.length, 1, 'one row');
    assert.equal(failed[0].contextValue, 'grpcProblem');
    assert.match(failed[0].label, /127\.0\.0\.1:1/);
    // Pointing it at the sandbox's server: the next expansion reflects from there.
    const sandboxTarget = (
      await child((await rows()).find((r) => r.contextValue === 'sandbox.running')!.element, 'Sandbox · MDS staging')
    ).element;
    const target = (await child(sandboxTarget, 'gRPC')).description;
    await config().update(
      'grpc.environments',
      { 'mds-staging': { target, plaintext: true } },
      vscode.ConfigurationTarget.Global,
    );
    const services = await waitUntil(
      'the services from the new target',
      async () => rows((await child(staging!.element, 'gRPC')).element),
      (r) => r.some((s) => s.label === 'VehicleService'),
    );
    assert.ok(services.every((s) => s.contextValue === 'grpcService'));
  });
});
