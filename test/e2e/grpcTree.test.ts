import assert from 'node:assert/strict';
import path from 'node:path';
import { webviewWith } from './panelFrame';
import { useWorkbench } from './session';
import {
  activeEditorLines,
  chooseMenuItem,
  closeAllEditors,
  expandTreeRow,
  runCommand,
  startSandboxAndSelect,
  step,
  treeRow,
  treeRows,
} from './workbench';
import { waitUntil } from '../unit/support/waitUntil';

/** Tree → gRPC → service → method → Call gRPC Method → the GRPC request in a `.http` editor → sent from its CodeLens. */
describe('gRPC in the Environments tree', function () {
  this.timeout(180_000);
  const wb = useWorkbench();

  it("lists the sandbox's services and methods, and opens Call gRPC Method from a method's context menu as a .http request", async () => {
    const page = wb.page;
    await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
    await step(page, 'expand Sandbox · MDS staging → gRPC → VehicleService', async () => {
      await expandTreeRow(page, 'Environments', 'Sandbox · MDS staging', 2);
      await expandTreeRow(page, 'Environments', 'gRPC', 3);
      await expandTreeRow(page, 'Environments', 'VehicleService', 4);
    });
    await step(page, 'see where the services came from, and the methods with their kinds', async () => {
      const rows = await waitUntil(
        'the methods of VehicleService',
        () => treeRows(page, 'Environments'),
        (r) => r.some((x) => x.label === 'GetVehicle' && x.level === 5),
        { timeoutMs: 30_000, intervalMs: 300 },
      );
      assert.match(rows.find((r) => r.label === 'gRPC' && r.level === 3)?.description ?? '', /^127\.0\.0\.1:\d+$/);
      const methods = rows.filter((r) => r.level === 5).map((r) => `${r.label} ${r.description}`);
      assert.deepEqual(methods, [
        'ListVehicles stream',
        'ListVehicleStatus stream',
        'GetVehicle unary',
        'GetVehicleStatus unary',
      ]);
    });
    await step(page, 'run Call gRPC Method… from the context menu of ListVehicles', async () => {
      const row = await treeRow(page, 'Environments', 'ListVehicles', 30_000, 5);
      await row.click({ button: 'right' });
      await chooseMenuItem(page, 'Call gRPC Method…');
    });
    await step(page, 'see the GRPC request with its message template in an untitled .http editor', async () => {
      await page
        .locator('.tabs-container .tab', { hasText: 'grpc-ListVehicles.http' })
        .first()
        .waitFor({ timeout: 30_000 });
      const lines = await waitUntil(
        'the request in the editor',
        () => activeEditorLines(page),
        (l) => l[0] === 'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles',
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      assert.deepEqual(
        lines.slice(0, 3),
        ['GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles', '', '{}'],
        'the request line, then the template of ListVehiclesRequest',
      );
      await page
        .locator('.statusbar-item', { hasText: /^HTTP$/ })
        .first()
        .waitFor({ timeout: 20_000 });
    });
    // The README's gRPC screenshot (media/screenshot-grpc.png): a wider side bar with the services and methods, a
    // method's tooltip, the request beside it; no notification over it.
    await runCommand(page, 'Notifications: Clear All Notifications');
    const bar = await page.locator('.part.sidebar').boundingBox();
    if (bar) {
      await page.mouse.move(bar.x + bar.width + 1, bar.y + bar.height / 2);
      await page.mouse.down();
      await page.mouse.move(bar.x + 560, bar.y + bar.height / 2, { steps: 5 });
      await page.mouse.up();
    }
    await (await treeRow(page, 'Environments', 'ListVehicles', 30_000, 5)).hover();
    await page
      .locator('.monaco-hover, .custom-hover', { hasText: 'Response: stream' })
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => {});
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'grpc-tree.png') });
  });

  it('sends the request from its CodeLens and shows the streamed vehicles in the table; a second send from the lens is accepted again', async () => {
    const page = wb.page;
    const lens = page.locator('.codelens-decoration a', { hasText: /Send/ }).first();
    await step(page, 'click the lens above the GRPC line', async () => {
      await lens.waitFor({ timeout: 30_000 });
      assert.match((await lens.textContent()) ?? '', /Send with fresh token/);
      await lens.click();
    });
    const frame = await step(page, 'wait for the results panel', () => webviewWith(page, '[data-testid="row-count"]'));
    await step(
      page,
      "see every vehicle of the sandbox's fleet (mobilityApi.sandbox.fleetSize, 500) in the table",
      async () => {
        const count = frame.locator('[data-testid="row-count"]');
        await waitUntil(
          '500 rows',
          async () => Number(await count.getAttribute('data-rows')),
          (n) => n === 500,
          { timeoutMs: 30_000, intervalMs: 300 },
        );
      },
    );
    await step(page, "click the lens again and see both calls answered OK in the panel's history", async () => {
      await lens.click();
      const rows = frame.locator('[data-testid="history-entry"]');
      const texts = await waitUntil(
        'two history entries',
        () => rows.allTextContents(),
        (t) => t.length === 2,
        { timeoutMs: 30_000, intervalMs: 300 },
      );
      for (const text of texts)
        assert.match(text, /GRPC.*OK/s, 'each send was accepted (a fresh token each: a reused one is refused)');
    });
    await step(page, 'copy the call as grpcurl from the panel and be told the token is for one call', async () => {
      await frame.locator('[data-testid="copy-grpcurl"]').first().click();
      await frame
        .locator('[data-testid="notices"]', { hasText: 'Copied a grpcurl command with a fresh token' })
        .waitFor({ timeout: 20_000 });
    });
    await step(
      page,
      'send it once more on one key (Ctrl+Alt+Enter with the cursor in the request): a third OK in the history',
      async () => {
        await page.locator('.monaco-editor .view-line', { hasText: 'ListVehicles' }).first().click();
        await page.keyboard.press('Control+Alt+Enter');
        const rows = frame.locator('[data-testid="history-entry"]');
        const texts = await waitUntil(
          'three history entries',
          () => rows.allTextContents(),
          (t) => t.length === 3,
          { timeoutMs: 30_000, intervalMs: 300 },
        );
        for (const text of texts) assert.match(text, /GRPC.*OK/s);
      },
    );
    // The untitled request is left unsaved: close it, so that later windows do not restore it (and ask to save it).
    await step(page, 'close the unsaved request', () => closeAllEditors(page));
  });
});
