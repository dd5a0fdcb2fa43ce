// Providers that misbehave, two suites in one window (a window's load costs about 20 processor-seconds:
// docs/testing.md), both environments in the settings before it loads. A request to a provider that does not answer is
// cancelled from its progress notification: the connection closes and no error is shown. A provider that is not
// conformant on purpose (its vehicle status lacks last_event.device_id) shows conformance findings in the results
// panel, a finding's JSON path opens the JSON tree there, and "Save CSV" writes the table through VS Code's save
// dialog; the file is read back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestServer } from '../unit/support/testServer';
import type { TestServer } from '../unit/support/testServer';
import { waitFor } from '../unit/support/waitUntil';
import { webviewWith } from './panelFrame';
import { e2eFolders, useWorkbench } from './session';
import {
  answerPathDialog,
  clearWindowBefore,
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

const DEVICE = (i: number) => `5f0f7a1e-2b3c-4d5e-8f9a-${String(i).padStart(12, '0')}`;
const PROVIDER = '5f0f7a1e-2b3c-4d5e-8f9a-ffffffffffff';

/** One vehicle status; `last_event.device_id` is left out on purpose. */
function status(i: number): Record<string, unknown> {
  const now = Date.now();
  return {
    device_id: DEVICE(i),
    provider_id: PROVIDER,
    last_event: {
      event_id: DEVICE(100 + i),
      provider_id: PROVIDER,
      vehicle_state: 'available',
      event_types: ['battery_charged'],
      timestamp: now,
      location: { lat: 52.5 + i / 1000, lng: 13.4 },
    },
    last_telemetry: {
      telemetry_id: DEVICE(200 + i),
      device_id: DEVICE(i),
      provider_id: PROVIDER,
      timestamp: now,
      trip_ids: null,
      journey_id: null,
      location: { lat: 52.5 + i / 1000, lng: 13.4 },
      battery_percent: 50 + i,
    },
  };
}

/** A provider serving /vehicles/status with the broken items; it counts requests. */
async function brokenProvider(count: number): Promise<TestServer & { requests: () => number }> {
  let requests = 0;
  const server = await startTestServer((_req, res) => {
    requests++;
    const body = JSON.stringify({
      version: '2.0.0',
      last_updated: Date.now(),
      ttl: 0,
      vehicles_status: Array.from({ length: count }, (_, i) => status(i)),
      links: { next: null },
    });
    res.writeHead(200, { 'Content-Type': 'application/vnd.mds+json;version=2.0' });
    res.end(body);
  });
  return { ...server, requests: () => requests };
}

/** Sees the environment `name` in the tree, starts the sandbox and binds its demo credential to `name`. */
async function bindSandboxCredential(page: Page, name: string): Promise<void> {
  await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
  await step(page, `see the environment ${name}`, () => treeRow(page, 'Environments', name));
  await step(page, 'start the sandbox for its demo credential', async () => {
    await runCommand(page, 'Mobility API: Start Local Sandbox');
    await waitForSandboxRunning(page);
  });
  await step(page, `bind the demo credential to ${name}`, async () => {
    await runCommand(page, 'Mobility API: Bind Credential to Environments');
    await pickQuickPickItem(page, 'Sandbox demo credential');
    await pickQuickPickItem(page, name);
    await page.keyboard.press('Enter');
  });
}

describe('providers that misbehave, in the workbench', function () {
  const folders = e2eFolders();
  const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
  const hangingName = 'Hanging provider';
  const brokenName = 'Broken provider';
  const count = 12;
  let original = '';
  let hanging: Awaited<ReturnType<typeof hangingServer>>;
  let provider: Awaited<ReturnType<typeof brokenProvider>>;
  const target = path.join(folders.userDataDir, '..', `export-${process.pid}.csv`);

  // Registered before useWorkbench()'s hooks, so the workbench loads with both environments in the settings.
  before(async () => {
    hanging = await hangingServer();
    provider = await brokenProvider(count);
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.customEnvironments'] = [
      { id: 'hanging', name: hangingName, api: 'mds', baseUrl: hanging.url },
      { id: 'broken', name: brokenName, api: 'mds', baseUrl: provider.url },
    ];
    settings['mobilityApi.request.timeoutSeconds'] = 120;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    fs.rmSync(target, { force: true });
  });
  after(async () => {
    await runCommand(wb.page, 'Mobility API: Stop Local Sandbox').catch(() => undefined);
    if (original) fs.writeFileSync(settingsFile, original);
    await hanging?.close();
    await provider?.close();
    fs.rmSync(target, { force: true });
  });
  const wb = useWorkbench();

  describe('cancelling a request in the workbench', function () {
    this.timeout(180_000);

    it('Cancel on the progress notification stops the request, closes the connection and shows no error', async () => {
      const page = wb.page;
      await bindSandboxCredential(page, hangingName);
      await step(page, 'list its vehicles', async () => {
        await runCommandAndPick(page, 'Mobility API: List Vehicles', hangingName);
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
          .locator('.notifications-toasts .notification-toast', { hasText: `Vehicles of ${hangingName}` })
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
          .locator('.notifications-toasts .notification-toast', { hasText: `Vehicles of ${hangingName}` })
          .waitFor({ state: 'detached', timeout: 20_000 });
        await runCommandAndPick(page, 'Mobility API: Copy Token', hangingName);
        await waitForNotification(page, /is on the clipboard/);
        const shown = await notifications(page);
        assert.ok(!shown.some((n) => /cancelled|failed|error/i.test(n)), `notifications: ${shown.join(' | ')}`);
        assert.equal(hanging.requests, 1, 'nothing was sent again');
      });
    });
  });

  describe('conformance findings and export in the workbench', function () {
    this.timeout(300_000);
    clearWindowBefore(() => wb.page);

    it('shows the missing last_event.device_id as a finding, jumps to it in the JSON tree, and saves the table as CSV', async () => {
      const page = wb.page;
      await bindSandboxCredential(page, brokenName);
      await step(page, 'list its vehicle status', () =>
        runCommandAndPick(page, 'Mobility API: Vehicle Status (MDS)', brokenName),
      );
      const frame = await step(page, 'wait for the results panel', () =>
        webviewWith(page, '[data-testid="result-title"]'),
      );
      await step(page, 'see the conformance findings', async () => {
        const rule = frame.locator('[data-testid="conformance-rule"]', {
          hasText: 'missing required property device_id',
        });
        await rule.waitFor({ timeout: 60_000 });
        assert.equal(await rule.locator('[data-testid="rule-where"]').textContent(), '/vehicles_status/*/last_event');
        assert.equal(await rule.locator('[data-testid="rule-count"]').textContent(), `${count} ×`);
        assert.match(
          (await frame.locator('[data-testid="section-conformance"]').getAttribute('heading')) ?? '',
          /^MDS 2\.0: \d+ findings in 12 of 12 items$/,
        );
      });
      await step(page, "open a finding's place in the JSON tree", async () => {
        await frame.locator('[data-testid="conformance-rule"] [data-testid="finding-path"]').first().click();
        const target = frame.locator('.jt-target');
        await target.waitFor({ timeout: 20_000 });
        assert.match((await target.textContent()) ?? '', /"last_event"/);
      });
      await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'conformance-findings.png') });
      await step(page, 'save the table as CSV through the save dialog', async () => {
        await frame.locator('[data-testid="view-table"]').click();
        await frame.locator('[data-testid="export-csv"]').click();
        await answerPathDialog(page, target, {
          suggested: (value) => /\.csv$/.test(value),
          done: () => fs.existsSync(target),
          doneWhat: `${target} to be written`,
          timeoutMs: 30_000,
        });
        assert.ok(fs.existsSync(target), `${target} was written`);
      });
      await step(page, 'read the CSV back', () => {
        const lines = fs.readFileSync(target, 'utf8').trimEnd().split('\r\n');
        assert.equal(
          lines[0],
          'Device ID,Vehicle ID,Provider ID,Type,Propulsion,State,Battery,Last event,Position lat,Position lng',
        );
        assert.equal(lines.length, count + 1);
        const devices = lines
          .slice(1)
          .map((l) => l.split(',')[0])
          .sort();
        assert.deepEqual(devices, Array.from({ length: count }, (_, i) => DEVICE(i)).sort());
        assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\./.test(fs.readFileSync(target, 'utf8')), 'no token in the export');
        assert.deepEqual(
          fs.readdirSync(path.dirname(target)).filter((f) => f.endsWith('.part')),
          [],
          'no temporary file left',
        );
        return Promise.resolve();
      });
    });
  });
});
