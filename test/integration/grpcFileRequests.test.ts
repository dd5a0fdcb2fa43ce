// GRPC requests of `.http` files sent from their CodeLens in a real VS Code, against the sandbox the extension starts:
// a fresh token per send (the sandbox's client report counts them accepted), the environment found by the request's
// gRPC target, an unknown target refused with why, Copy as grpcurl and Copy as Code on the same requests.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { closeUnsavedUntitled, exportsOf, run } from './extensionApi';
import type { Outcome } from './extensionApi';
import { waitUntil } from '../unit/support/waitUntil';
import { distinctKeyPem } from '../unit/keyFixtures';
import { DEMO_ISSUER } from '../../src/sandbox/auth/demoCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { GrpcCallLog } from '../../src/sandbox/grpc/grpcGuard';

type SendOutcome = Outcome & {
  environmentId?: string;
  status?: string;
  messages?: number;
  title?: string;
  target?: string;
};
type ReportOutcome = Outcome & { report?: { requests: { seen: number; accepted: number; refused: number } } };

const LIST_VEHICLES = 'mobility.sandbox.v1.VehicleService/ListVehicles';

async function httpDocument(content: string): Promise<vscode.TextDocument> {
  const document = await vscode.workspace.openTextDocument({ language: 'http', content });
  await vscode.window.showTextDocument(document, { preview: false });
  return document;
}

async function lensesOf(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
  return (
    (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri, 100)) ?? []
  );
}

async function accepted(): Promise<number> {
  const shown = await run<ReportOutcome>('mobilityApi.showClientReport');
  assert.equal(shown.ok, true, shown.message);
  return shown.report?.requests.accepted ?? -1;
}

function isResultsTab(tab: vscode.Tab | undefined): tab is vscode.Tab {
  return tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('mobilityApi.results');
}

/** The labels of the results panels' tabs, in every editor group. */
function resultsTabLabels(): string[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter(isResultsTab)
    .map((t) => t.label);
}

/**
 * Brings the results panel titled `title` to the front of its editor group and focuses that group, as a click on its tab
 * would. Each environment has a panel of its own, titled by the last result it shows.
 */
async function focusResultsPanel(title: string): Promise<void> {
  const isResults = (tab: vscode.Tab | undefined) => isResultsTab(tab) && tab.label === title;
  const group = await waitUntil(
    `a results panel titled "${title}"`,
    () => vscode.window.tabGroups.all.find((g) => g.tabs.some(isResults)),
    (g) => g !== undefined,
  );
  const focus = [
    'workbench.action.focusFirstEditorGroup',
    'workbench.action.focusSecondEditorGroup',
    'workbench.action.focusThirdEditorGroup',
  ][(group?.viewColumn ?? 1) - 1];
  await vscode.commands.executeCommand(focus ?? 'workbench.action.focusLastEditorGroup');
  await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', group?.tabs.findIndex(isResults) ?? 0);
  await waitUntil(
    `the results panel "${title}" to be the active tab`,
    () => vscode.window.tabGroups.activeTabGroup.activeTab,
    isResults,
  );
}

describe('.http GRPC requests sent from their CodeLens', function () {
  this.timeout(90_000);
  const protoDir = () =>
    path.join(vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer')!.extensionPath, 'proto');
  /** A descriptor set's path in a folder of its own, removed after the suite. */
  const protosetFolders: string[] = [];
  const newProtosetPath = () => {
    protosetFolders.push(fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-protoset-')));
    return path.join(protosetFolders[protosetFolders.length - 1], 'provider.protoset');
  };

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const selected = await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    assert.equal(selected.ok, true, selected.message);
  });

  after(async () => {
    for (const folder of protosetFolders) fs.rmSync(folder, { recursive: true, force: true });
    const config = vscode.workspace.getConfiguration('mobilityApi');
    await config.update('grpc.environments', undefined, vscode.ConfigurationTarget.Global);
    await config.update('mds.stagingBaseUrl', undefined, vscode.ConfigurationTarget.Global);
    await closeUnsavedUntitled();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
  });

  it('sends {{grpcTarget}} to the active environment twice, a fresh token each time, both accepted by the sandbox', async () => {
    const document = await httpDocument(`# @name fleet\nGRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`);
    const lenses = await lensesOf(document);
    assert.deepEqual(
      lenses.map((l) => l.command?.title),
      ['$(play) Send with fresh token', '$(terminal) Copy as grpcurl', '$(code) Copy as Code'],
    );
    const before = await accepted();
    const args = lenses[0].command!.arguments as unknown[];
    const first = await run<SendOutcome>('mobilityApi.sendFileRequest', ...args);
    assert.equal(first.ok, true, first.message);
    assert.equal(first.status, 'OK');
    assert.equal(first.environmentId, 'sandbox-mds-staging');
    assert.ok((first.messages ?? 0) > 0, 'the streamed vehicles');
    assert.equal(first.title, 'fleet · VehicleService/ListVehicles');
    const second = await run<SendOutcome>('mobilityApi.sendFileRequest', ...args);
    assert.equal(second.ok, true, second.message);
    assert.equal(second.status, 'OK');
    assert.equal(second.messages, first.messages);

    const sent = exportsOf()
      .tokenHistory()
      .filter((t) => t.use === 'request' && t.request?.url.endsWith(LIST_VEHICLES));
    assert.equal(sent.length >= 2, true, 'two tokens recorded');
    const [newer, older] = sent;
    assert.notEqual(newer.jti, older.jti, 'a fresh token per send');
    assert.ok(newer.iat > older.iat, `the second token is issued later (iat ${older.iat} then ${newer.iat})`);
    assert.equal(newer.request?.statusText, 'OK');
    assert.equal(await accepted(), before + 2, 'the sandbox accepted both calls');
  });

  it('Call gRPC Method opens a template whose CodeLens sends it: the lenses are asked for again once the template is in its editor', async () => {
    const lenses = () => exportsOf().requestFileLensRefreshes();
    const before = lenses();
    const opened = await run<Outcome & { text: string; uri: string }>('mobilityApi.sendGrpcRequest', {
      environmentId: 'sandbox-mds-staging',
      method: `/${LIST_VEHICLES}`,
    });
    assert.equal(opened.ok, true, opened.message);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(opened.uri));
    assert.deepEqual(
      (await lensesOf(document)).map((l) => l.command?.title),
      ['$(play) Send with fresh token', '$(terminal) Copy as grpcurl', '$(code) Copy as Code'],
    );
    // VS Code showed no lens on the new template until it was edited: the provider tells it the lenses changed.
    await waitUntil('the lenses asked for again after the template opened', lenses, (n) => n > before);
  });

  it("shows the answer beside the request file, not over it, when the panel shares the file's editor group", async () => {
    const document = await httpDocument(`GRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`);
    const first = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: document.uri.toString(), line: 0 });
    assert.equal(first.ok, true, first.message);
    const panelGroup = () => vscode.window.tabGroups.all.find((g) => g.tabs.some(isResultsTab));
    const shared = (await waitUntil('the results panel in a tab group', panelGroup, (g) => g !== undefined))!
      .viewColumn;
    // The file brought to the front of the panel's own group, as when it is opened there.
    await vscode.window.showTextDocument(document, { viewColumn: shared, preview: false });
    const second = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: document.uri.toString(), line: 0 });
    assert.equal(second.ok, true, second.message);
    const front = vscode.window.tabGroups.all.find((g) => g.viewColumn === shared)?.activeTab;
    assert.ok(
      front?.input instanceof vscode.TabInputText && front.input.uri.toString() === document.uri.toString(),
      `the request file stays in front of its group, not "${front?.label}"`,
    );
    await waitUntil(
      'the panel in front of a group beside the file',
      () => vscode.window.tabGroups.all.find((g) => isResultsTab(g.activeTab)),
      (g) => g !== undefined && g.viewColumn !== shared,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("finds the environment whose gRPC target a literal host:port is, and refuses a target that is no environment's", async () => {
    const opened = await run<Outcome & { text: string; uri: string }>('mobilityApi.sendGrpcRequest', {
      environmentId: 'sandbox-mds-production',
      method: `/${LIST_VEHICLES}`,
    });
    assert.equal(opened.ok, true, opened.message);
    assert.match(opened.text, /^GRPC 127\.0\.0\.1:\d+\//, 'a literal target (the environment is not the active one)');
    const sent = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: opened.uri, line: 0 });
    assert.equal(sent.ok, true, sent.message);
    assert.equal(sent.environmentId, 'sandbox-mds-production');
    assert.equal(sent.status, 'OK');
    const production = await vscode.workspace.openTextDocument(vscode.Uri.parse(opened.uri));
    assert.match(
      (await lensesOf(production))[0].command?.title ?? '',
      /^\$\(play\) Send with fresh token \(.+\)$/,
      'the lens names the environment that is not the active one',
    );

    const unknown = await httpDocument(`GRPC 127.0.0.1:1/${LIST_VEHICLES}\n\n{}\n`);
    const lens = (await lensesOf(unknown))[0];
    assert.equal(lens.command?.title, '$(warning) No environment has this gRPC target: see why');
    assert.match(lens.command?.tooltip ?? '', /127\.0\.0\.1:1 is the gRPC target of no environment/);
    const refused = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: unknown.uri.toString(), line: 0 });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'GRPC_TARGET_INVALID');
    assert.match(refused.message ?? '', /127\.0\.0\.1:1 is the gRPC target of no environment.*base URL \(spec 5\.3\)/);
  });

  it("shows why a message does not fit, and sends with the request's own proto < files", async () => {
    const bad = await httpDocument(`GRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{"no_such_field": 1}\n`);
    const refused = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: bad.uri.toString(), line: 0 });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'GRPC_MESSAGE_INVALID');
    assert.match(refused.message ?? '', /no_such_field/);

    const dir = protoDir();
    const withProtos = await httpDocument(
      `proto < ${path.join(dir, 'mobility/sandbox/v1/vehicles.proto')}\nincludeDirs: ${JSON.stringify([dir])}\n\n###\nGRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`,
    );
    const sent = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: withProtos.uri.toString(), line: 4 });
    assert.equal(sent.ok, true, sent.message);
    assert.equal(sent.status, 'OK');
  });

  it("shows an unknown method and an unreachable target as errors, as REST requests' are", async () => {
    const unknown = await httpDocument('GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/NoSuchMethod\n\n{}\n');
    const missing = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: unknown.uri.toString(), line: 0 });
    assert.equal(missing.ok, false);
    assert.equal(missing.code, 'GRPC_METHOD_UNKNOWN');
    assert.match(missing.message ?? '', /NoSuchMethod/);

    // An environment whose gRPC target nothing listens on; the request's own authorization, so that no credential is asked for.
    const config = vscode.workspace.getConfiguration('mobilityApi');
    await config.update('mds.stagingBaseUrl', 'https://mds.grpc-file.test.invalid', vscode.ConfigurationTarget.Global);
    await config.update(
      'grpc.environments',
      { 'mds-staging': { target: '127.0.0.1:1', plaintext: true } },
      vscode.ConfigurationTarget.Global,
    );
    const down = await httpDocument(
      `# @authorization as-is\nGRPC 127.0.0.1:1/${LIST_VEHICLES}\nauthorization: Bearer not-a-token\n\n{}\n`,
    );
    await waitUntil(
      'the lens of MDS staging',
      async () => (await lensesOf(down))[0]?.command?.title,
      (t) => t === '$(play) Send with its own Authorization (MDS staging)',
    );
    const unreachable = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: down.uri.toString(), line: 1 });
    assert.equal(unreachable.ok, false);
    assert.equal(unreachable.code, 'GRPC_UNREACHABLE', unreachable.message);
    assert.match(unreachable.message ?? '', /127\.0\.0\.1:1/);
  });

  it('copies a grpcurl command with a fresh token, and the call as Python; other languages are refused naming the two', async () => {
    const dir = protoDir();
    const document = await httpDocument(
      `proto < ${path.join(dir, 'mobility/sandbox/v1/vehicles.proto')}\nincludeDirs: ${JSON.stringify([dir])}\n\n###\nGRPC {{grpcTarget}}/${LIST_VEHICLES}\nx-note: it's\n\n{}\n`,
    );
    const args = { uri: document.uri.toString(), line: 4 };
    await vscode.env.clipboard.writeText('');
    const copied = await run('mobilityApi.copyGrpcurl', args);
    assert.equal(copied.ok, true, copied.message);
    const [tokenLine, command, ...rest] = (await vscode.env.clipboard.readText()).split('\n');
    assert.equal(rest.length, 0);
    assert.match(tokenLine, /^TOKEN='eyJ[\w-]+\.[\w-]+\.[\w-]+'$/);
    assert.match(
      command,
      /^grpcurl -plaintext -import-path '.+' -proto '.+vehicles\.proto' -H "authorization: Bearer \$TOKEN" -H 'x-note: it'\\''s' -d '\{\}' '127\.0\.0\.1:\d+' 'mobility\.sandbox\.v1\.VehicleService\/ListVehicles'$/,
    );

    const code = await run<Outcome & { language?: string }>('mobilityApi.copyAsCode', { ...args, language: 'python' });
    assert.equal(code.ok, true, code.message);
    const program = await vscode.env.clipboard.readText();
    assert.match(program, /import grpc/);
    assert.ok(!program.includes(tokenLine.slice(7, -1)), 'no token in the program');
    const go = await run('mobilityApi.copyAsCode', { ...args, language: 'go' });
    assert.equal(go.ok, false);
    assert.equal(go.code, 'CODE_GRPC_UNSUPPORTED');
    assert.match(go.message ?? '', /Python .* and TypeScript/);

    // The palette, the cursor in the request's body: the same program.
    vscode.window.activeTextEditor!.selection = new vscode.Selection(7, 1, 7, 1);
    await vscode.env.clipboard.writeText('');
    const palette = await run<Outcome & { grpc?: boolean }>('mobilityApi.copyAsCode', { language: 'typescript' });
    assert.equal(palette.ok, true, palette.message);
    assert.equal(palette.grpc, true);
    assert.match(await vscode.env.clipboard.readText(), /@grpc\/grpc-js/);

    // Without `proto <` lines, to the sandbox's own target (read by reflection): the sandbox's .proto files.
    const reflected = await httpDocument(`GRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`);
    await vscode.env.clipboard.writeText('');
    const sandboxProtos = await run('mobilityApi.copyAsCode', {
      uri: reflected.uri.toString(),
      line: 0,
      language: 'typescript',
    });
    assert.equal(sandboxProtos.ok, true, sandboxProtos.message);
    const reflectedProgram = await vscode.env.clipboard.readText();
    assert.match(reflectedProgram, /loadSync\(\[?\s*"mobility\/sandbox\/v1\/vehicles\.proto"/);
    assert.match(reflectedProgram, /dist[\\/]proto/, "the import folder is the extension's own");
  });

  it('copies the result shown in the results panel as code: a gRPC answer as a gRPC program, a REST answer after it as REST', async () => {
    // Only this test's panel: earlier tests left panels of other environments with the same title.
    await closeUnsavedUntitled();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const dir = protoDir();
    const document = await httpDocument(
      `proto < ${path.join(dir, 'mobility/sandbox/v1/vehicles.proto')}\nincludeDirs: ${JSON.stringify([dir])}\n\n###\nGRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`,
    );
    const sent = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: document.uri.toString(), line: 4 });
    assert.equal(sent.ok, true, sent.message);
    await focusResultsPanel(String(sent.title));
    await vscode.env.clipboard.writeText('');
    const grpcCode = await run<Outcome & { grpc?: boolean }>('mobilityApi.copyAsCode', { language: 'python' });
    assert.equal(grpcCode.ok, true, grpcCode.message);
    assert.equal(grpcCode.grpc, true);
    const program = await vscode.env.clipboard.readText();
    assert.match(program, /import grpc/);
    assert.match(program, /ListVehicles/);

    const before = new Set(resultsTabLabels());
    const rest = await run('mobilityApi.sendRequest', {
      environmentId: 'sandbox-mds-staging',
      endpointId: 'vehicles_status',
    });
    assert.equal(rest.ok, true, rest.message);
    // The panel that shows the REST answer is titled by it.
    const titled = await waitUntil(
      "the REST answer's panel",
      () => resultsTabLabels().find((label) => !before.has(label)),
      (label) => label !== undefined,
    );
    await focusResultsPanel(String(titled));
    const restCode = await run<Outcome & { grpc?: boolean; title?: string }>('mobilityApi.copyAsCode', {
      language: 'python',
    });
    assert.equal(restCode.ok, true, restCode.message);
    assert.equal(restCode.grpc, undefined);
    const restProgram = await vscode.env.clipboard.readText();
    assert.match(restProgram, /import requests/);
    assert.match(restProgram, /\/vehicles\/status/);
    assert.doesNotMatch(restProgram, /import grpc/);
  });

  it("copies a gRPC method of the Environments tree as code, its message the template: the sandbox's with its own .proto files, an environment's with those set for it, and for a server known by reflection alone its schema saved as a descriptor set", async () => {
    const dir = protoDir();
    // The sandbox's environments read their schema by reflection, and the programs take the sandbox's .proto files,
    // shipped with the extension and copied out of its versioned folder (gone after an update) into its global storage.
    await vscode.env.clipboard.writeText('');
    const sandboxCopy = await run<Outcome & { grpc?: boolean; demoKeyFile?: string }>('mobilityApi.copyAsCode', {
      kind: 'grpcMethod',
      environmentId: 'sandbox-mds-staging',
      service: 'mobility.sandbox.v1.VehicleService',
      method: '/mobility.sandbox.v1.VehicleService/GetVehicle',
      language: 'python',
    });
    assert.equal(sandboxCopy.ok, true, sandboxCopy.message);
    assert.equal(sandboxCopy.grpc, true);
    const sandboxProgram = await vscode.env.clipboard.readText();
    assert.match(sandboxProgram, /import grpc/);
    const compiled = /mobility\/sandbox\/v1\/vehicles\.proto/.exec(sandboxProgram);
    assert.ok(compiled, "the program compiles the sandbox's vehicles.proto");
    const extensionPath = vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer')!.extensionPath;
    for (const shipped of [path.join(extensionPath, 'proto'), path.join(extensionPath, 'dist', 'proto')]) {
      assert.ok(
        !sandboxProgram.includes(`${shipped}${path.sep}`),
        `no path inside the extension's folder ${shipped} (gone after an update): ${sandboxProgram.slice(0, 2000)}`,
      );
    }
    const storage = exportsOf().globalStoragePath;
    const copied = sandboxProgram.match(/\S*proto[\\/]\S*\.proto\b/g)?.map((w) => w.replace(/^['"([]+/, '')) ?? [];
    assert.ok(
      copied.length > 0 && copied.every((file) => file.startsWith(storage) && fs.existsSync(file)),
      `the .proto files copied into the global storage ${storage}: ${copied.join(', ')}`,
    );
    // Where the demo key is, so that the program runs against the sandbox: a path, never the key or its id.
    const keyFile = sandboxCopy.demoKeyFile ?? '';
    assert.ok(
      keyFile.startsWith(storage) && fs.existsSync(keyFile),
      `the demo key file in the global storage: ${keyFile}`,
    );
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600, 'readable by its owner alone');
    assert.match(fs.readFileSync(keyFile, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    assert.ok(!sandboxProgram.includes('PRIVATE KEY'), 'no key in the program');

    // The same sandbox as environments of the user's: one with the .proto files set for it, one read by reflection alone.
    const document = await httpDocument(`GRPC {{grpcTarget}}/${LIST_VEHICLES}\n\n{}\n`);
    const sent = await run<SendOutcome>('mobilityApi.sendFileRequest', { uri: document.uri.toString(), line: 0 });
    assert.equal(sent.ok, true, sent.message);
    const started = await run<Outcome & { url?: string }>('mobilityApi.startSandbox');
    const demo = (await exportsOf().listCredentials()).find((c) => c.demo);
    assert.ok(demo, 'the sandbox stored its demo credential');
    const config = vscode.workspace.getConfiguration('mobilityApi');
    await config.update(
      'customEnvironments',
      [
        {
          id: 'grpc-protos',
          name: 'gRPC with protos',
          api: 'mds',
          baseUrl: `${started.url}/mds-staging`,
          grpc: {
            target: sent.target,
            plaintext: true,
            protoFiles: [path.join(dir, 'mobility/sandbox/v1/vehicles.proto')],
            importPaths: [dir],
          },
        },
        {
          id: 'grpc-reflection',
          name: 'gRPC by reflection',
          api: 'mds',
          baseUrl: `${started.url}/mds-staging`,
          grpc: { target: sent.target, plaintext: true },
        },
      ],
      vscode.ConfigurationTarget.Global,
    );
    try {
      await waitUntil(
        'the custom environments',
        () => exportsOf().environmentIds(),
        (ids) => ids.includes('grpc-protos') && ids.includes('grpc-reflection'),
      );
      const bound = await run('mobilityApi.bindCredential', {
        credentialId: demo.id,
        environmentIds: [...demo.environments, 'grpc-protos', 'grpc-reflection'],
      });
      assert.equal(bound.ok, true, bound.message);

      // Known by reflection alone (as a provider that publishes no .proto): the schema it gave, saved for the program.
      const protoset = newProtosetPath();
      await vscode.env.clipboard.writeText('');
      const reflected = await run<Outcome & { grpc?: boolean; savedProtoset?: string }>('mobilityApi.copyAsCode', {
        kind: 'grpcMethod',
        environmentId: 'grpc-reflection',
        service: 'mobility.sandbox.v1.VehicleService',
        method: '/mobility.sandbox.v1.VehicleService/GetVehicle',
        language: 'typescript',
        protosetPath: protoset,
      });
      assert.equal(reflected.ok, true, reflected.message);
      assert.equal(reflected.savedProtoset, protoset);
      assert.ok(fs.statSync(protoset).size > 100, 'the descriptor set is written');
      const reflectedProgram = await vscode.env.clipboard.readText();
      assert.ok(
        reflectedProgram.includes(`loadFileDescriptorSetFromBuffer(fs.readFileSync(${JSON.stringify(protoset)})`),
        reflectedProgram.slice(0, 3000),
      );
      assert.match(reflectedProgram, /GetVehicle/);

      await vscode.env.clipboard.writeText('');
      const copied = await run<Outcome & { grpc?: boolean; title?: string }>('mobilityApi.copyAsCode', {
        kind: 'grpcMethod',
        environmentId: 'grpc-protos',
        service: 'mobility.sandbox.v1.VehicleService',
        method: '/mobility.sandbox.v1.VehicleService/GetVehicle',
        language: 'typescript',
      });
      assert.equal(copied.ok, true, copied.message);
      assert.equal(copied.grpc, true);
      const program = await vscode.env.clipboard.readText();
      assert.match(program, /@grpc\/grpc-js/);
      assert.match(program, /GetVehicle/);
      assert.match(program, /device_id/, "the message is the request type's template");
      assert.ok(program.includes(String(sent.target)), "the environment's target");
      assert.ok(program.includes(dir), "the environment's .proto folder");
    } finally {
      // Whatever failed above: the demo credential bound as before, for the files that run after this one.
      await run('mobilityApi.bindCredential', { credentialId: demo.id, environmentIds: [...demo.environments] });
      await config.update('customEnvironments', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('copies a method as code from a server whose reflection wants a token too: refused without one, it reflects again with a fresh one', async () => {
    const calls: GrpcCallLog[] = [];
    const pem = distinctKeyPem('p256', 'pkcs8');
    const provider = await startSandbox({
      fleetSize: 5,
      demoDir: false,
      demoPrivateKeyPem: pem,
      grpcReflectionAuth: true,
      onGrpcCall: (entry) => calls.push(entry),
    });
    const staging = provider.environments.find((e) => e.id === 'mds-staging');
    assert.ok(staging?.grpcTarget, 'the provider serves gRPC');
    const config = vscode.workspace.getConfiguration('mobilityApi');
    let credentialId: string | undefined;
    const demo = (await exportsOf().listCredentials()).find((c) => c.demo);
    assert.ok(demo, 'the sandbox stored its demo credential');
    try {
      await config.update(
        'customEnvironments',
        [
          {
            id: 'grpc-reflection-auth',
            name: 'gRPC reflection with a token',
            api: 'mds',
            baseUrl: staging.baseUrl,
            grpc: { target: staging.grpcTarget, plaintext: true },
          },
        ],
        vscode.ConfigurationTarget.Global,
      );
      await waitUntil(
        'the custom environment',
        () => exportsOf().environmentIds(),
        (ids) => ids.includes('grpc-reflection-auth'),
      );
      const added = await run<Outcome & { credentialId?: string }>('mobilityApi.addCredential', {
        type: 'external-org',
        privateKey: pem,
        kid: provider.demo.kid,
        issuer: DEMO_ISSUER,
        label: 'Reflection needs a token',
        environments: ['grpc-reflection-auth'],
      });
      assert.equal(added.ok, true, added.message);
      credentialId = added.credentialId;

      const protoset = newProtosetPath();
      await vscode.env.clipboard.writeText('');
      const copied = await run<Outcome & { savedProtoset?: string }>('mobilityApi.copyAsCode', {
        kind: 'grpcMethod',
        environmentId: 'grpc-reflection-auth',
        service: 'mobility.sandbox.v1.VehicleService',
        method: '/mobility.sandbox.v1.VehicleService/GetVehicle',
        language: 'python',
        protosetPath: protoset,
      });
      assert.equal(copied.ok, true, copied.message);
      assert.equal(copied.savedProtoset, protoset);
      assert.ok(fs.statSync(protoset).size > 100, 'the descriptor set is written');
      assert.match(await vscode.env.clipboard.readText(), /GetVehicle/);
      // What the provider saw: reflection without a token, refused; then reflection with one, served.
      const reflection = calls.filter((c) => c.method.includes('ServerReflection'));
      assert.equal(reflection[0]?.status, 'UNAUTHENTICATED', JSON.stringify(reflection));
      assert.ok(
        reflection.slice(1).some((c) => c.status === 'OK'),
        JSON.stringify(reflection),
      );
      assert.ok(!calls.some((c) => c.method.endsWith('/GetVehicle')), 'Copy as Code sends no call');
    } finally {
      // Removing the only other credential binds the demo one to the environment: bind it where it was.
      if (credentialId) await run('mobilityApi.removeCredential', { credentialId, confirmed: true, rebindTo: false });
      await run('mobilityApi.bindCredential', { credentialId: demo.id, environmentIds: [...demo.environments] });
      await config.update('customEnvironments', undefined, vscode.ConfigurationTarget.Global);
      await provider.close();
    }
  });
});
