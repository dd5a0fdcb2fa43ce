// In the real VS Code: a provider whose gRPC services are known by reflection alone (it publishes no .proto, as the
// real one does not). A method's Copy as Code in the Environments tree saves the schema reflection gave as a
// descriptor set where the user picks in the Save dialog, and the program it copies loads that file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as descriptor from 'protobufjs/ext/descriptor';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { keyFixture } from '../unit/keyFixtures';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import {
  activeEditorLines,
  addPastedCredential,
  answerPathDialog,
  chooseMenuItem,
  clickNotificationButton,
  closeAllEditors,
  expandTreeRow,
  openViewContainer,
  pickQuickPickItem,
  step,
  treeRow,
  treeRows,
  waitForNotification,
} from './workbench';

describe('Copy as Code for a gRPC server known by reflection alone', function () {
  this.timeout(300_000);
  const folders = e2eFolders();
  const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
  const envName = 'Reflection provider';
  const kid = `e2e-reflection-${process.pid}`;
  const iss = 'reflection@org.test.invalid';
  const key = keyFixture('p256');
  const saved = path.join(folders.workspaceDir, `provider-${process.pid}.protoset`);
  let original = '';
  let sandbox: RunningSandbox;

  // Registered before useWorkbench()'s hooks, so that the workbench loads with the environment in the settings.
  before(async () => {
    sandbox = await startSandbox({
      fleetSize: 5,
      demoDir: false,
      trust: [{ kid, iss, type: 'external-org', publicKey: key.publicKey }],
    });
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging');
    assert.ok(mds?.grpcTarget);
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.customEnvironments'] = [
      {
        id: 'reflection-provider',
        name: envName,
        api: 'mds',
        stage: 'staging',
        baseUrl: mds.baseUrl,
        grpc: { target: mds.grpcTarget, plaintext: true },
      },
    ];
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    fs.rmSync(saved, { force: true });
  });
  after(async () => {
    if (original) fs.writeFileSync(settingsFile, original);
    await sandbox?.close();
    fs.rmSync(saved, { force: true });
  });
  const wb = useWorkbench();

  it('saves the schema as a descriptor set where the user picks, and copies a program that loads it', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container and see the provider', async () => {
      await openViewContainer(page, 'Mobility API');
      await treeRow(page, 'Environments', envName);
    });
    await step(page, 'add a credential the provider trusts and bind it', () =>
      addPastedCredential(page, { pkcs8: key.pkcs8, kid, iss, name: 'Reflection credential', environment: envName }),
    );
    await step(page, `expand ${envName} → gRPC → VehicleService`, async () => {
      await expandTreeRow(page, 'Environments', envName, 1);
      await expandTreeRow(page, 'Environments', 'gRPC', 2);
      await expandTreeRow(page, 'Environments', 'VehicleService', 3);
      const rows = await waitUntil(
        'the methods of VehicleService',
        () => treeRows(page, 'Environments'),
        (r) => r.some((x) => x.label === 'GetVehicle' && x.level === 4),
        { timeoutMs: 30_000, intervalMs: 300 },
      );
      assert.match(
        rows.find((r) => r.label === 'gRPC' && r.level === 2)?.description ?? '',
        /:\d+$/,
        'the target beside "gRPC" (where the services came from is in its tooltip)',
      );
    });
    await step(page, 'run Copy as Code from the context menu of GetVehicle, in TypeScript', async () => {
      const row = await treeRow(page, 'Environments', 'GetVehicle', 30_000, 4);
      await row.click({ button: 'right' });
      await chooseMenuItem(page, 'Copy as Code');
      await pickQuickPickItem(page, 'TypeScript / Node (jose + @grpc/grpc-js)');
    });
    await step(page, 'save the schema in the Save dialog, which offers the workspace folder', () =>
      answerPathDialog(page, saved, {
        suggested: (value) => value.startsWith(folders.workspaceDir) && value.endsWith('reflection-provider.protoset'),
        done: () => fs.existsSync(saved),
        doneWhat: 'the descriptor set is written',
      }),
    );
    const set = descriptor.FileDescriptorSet.toObject(
      descriptor.FileDescriptorSet.decode(fs.readFileSync(saved)),
    ) as descriptor.IFileDescriptorSet;
    assert.ok(
      set.file.some((f) => (f.service ?? []).some((s) => s.name === 'VehicleService')),
      'the descriptor set declares VehicleService',
    );
    await step(page, 'see the notification name the file, and open the program in an editor', async () => {
      const copied = /Copied TypeScript .* loads the schema the server gave by reflection from .*\.protoset/;
      await waitForNotification(page, copied);
      await clickNotificationButton(page, copied, 'Open in Editor');
      await waitUntil(
        'the program in an editor',
        async () => (await activeEditorLines(page)).join('\n'),
        (t) => t.includes('gRPC mobility.sandbox.v1.VehicleService/GetVehicle'),
        { timeoutMs: 30_000, intervalMs: 300 },
      );
      // Monaco draws the lines on screen only: find the line that loads the schema, which scrolls to it.
      await page.locator('.editor-group-container.active .monaco-editor').first().click();
      await page.keyboard.press('Control+f');
      await page.keyboard.type('loadFileDescriptorSetFromBuffer');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      const text = await waitUntil(
        'the line that loads the descriptor set',
        async () => (await activeEditorLines(page)).join('\n'),
        (t) => t.includes('loadFileDescriptorSetFromBuffer'),
        { timeoutMs: 30_000, intervalMs: 300 },
      );
      assert.ok(text.includes(JSON.stringify(saved)), `the program loads the saved file: ${text.slice(0, 1500)}`);
      assert.ok(!text.includes(kid), 'no key id in the program');
    });
    // The program's editor is untitled and unsaved: closed without saving, so that no later window restores it.
    await step(page, "close the program's editor without saving", () => closeAllEditors(page));
  });
});
