import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../unit/support/testServer';
import type { TestServer } from '../unit/support/testServer';
import { waitFor } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import {
  notifications,
  openViewContainer,
  pickQuickPickItem,
  runCommand,
  runCommandAndPick,
  step,
  treeRow,
  waitForNotification,
  waitForSandboxRunning,
} from './workbench';

/** A provider that accepts the request and never answers; it counts requests and open connections. */
async function hangingServer(): Promise<TestServer & { requests: number }> {
  let requests = 0;
  const server = await startTestServer(() => {
    requests++;
  });
  return {
    ...server,
    get requests() {
      return requests;
    },
  };
}

/** A request to a provider that does not answer can be cancelled from its progress notification. */
describe('cancelling a request in the workbench', function () {
  this.timeout(180_000);
  const folders = e2eFolders();
  const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
  const envName = 'Hanging provider';
  let original = '';
  let hanging: Awaited<ReturnType<typeof hangingServer>>;

  // Registered before useWorkbench()'s hooks, so the workbench loads with the environment in the settings.
  before(async () => {
    hanging = await hangingServer();
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.customEnvironments'] = [{ id: 'hanging', name: envName, api: 'mds', baseUrl: hanging.url }];
    settings['mobilityApi.request.timeoutSeconds'] = 120;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  });
  after(async () => {
    await runCommand(wb.page, 'Mobility API: Stop Local Sandbox').catch(() => undefined);
    if (original) fs.writeFileSync(settingsFile, original);
    await hanging?.close();
  });
  const wb = useWorkbench();

  it('Cancel on the progress notification stops the request, closes the connection and shows no error', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
    await step(page, 'see the hanging environment', () => treeRow(page, 'Environments', envName));
    await step(page, 'start the sandbox for its demo credential', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'bind the demo credential to the hanging environment', async () => {
      await runCommand(page, 'Mobility API: Bind Credential to Environments');
      await pickQuickPickItem(page, 'Sandbox demo credential');
      await pickQuickPickItem(page, envName);
      await page.keyboard.press('Enter');
    });
    await step(page, 'list its vehicles', async () => {
      await runCommandAndPick(page, 'Mobility API: List Vehicles', envName);
    });
    await step(page, 'see the request reach the provider and hang', async () => {
      await waitFor('the request to reach the provider', () => hanging.requests > 0, {
        timeoutMs: 20_000,
        intervalMs: 200,
      });
      assert.equal(hanging.requests, 1);
      assert.equal(hanging.openConnections(), 1);
    });
    await step(page, 'press Cancel on the progress notification', async () => {
      const toast = page
        .locator('.notifications-toasts .notification-toast', { hasText: `Vehicles of ${envName}` })
        .first();
      await toast.waitFor({ timeout: 20_000 });
      await toast.hover();
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    });
    await step(page, 'see the connection closed, and no error message', async () => {
      await waitFor('the provider connection to close', () => hanging.openConnections() === 0, {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
      assert.equal(hanging.openConnections(), 0, 'the request was aborted');
      // The command has ended once its progress notification is gone; a notification the extension shows
      // next (Copy Token's) comes after anything the cancelled command would have said.
      await page
        .locator('.notifications-toasts .notification-toast', { hasText: `Vehicles of ${envName}` })
        .waitFor({ state: 'detached', timeout: 20_000 });
      await runCommandAndPick(page, 'Mobility API: Copy Token', envName);
      await waitForNotification(page, /is on the clipboard/);
      const shown = await notifications(page);
      assert.ok(!shown.some((n) => /cancelled|failed|error/i.test(n)), `notifications: ${shown.join(' | ')}`);
      assert.equal(hanging.requests, 1, 'nothing was sent again');
    });
  });
});
