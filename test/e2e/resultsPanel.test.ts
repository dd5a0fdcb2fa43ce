import assert from 'node:assert/strict';
import path from 'node:path';
import { useWorkbench } from './session';
import { runCommand, runCommandAndPick, step, waitForSandboxRunning } from './workbench';
import { webviewWith } from './panelFrame';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Results panel in VS Code', () => {
  const wb = useWorkbench();

  it('opens a sandbox vehicles result: row count, a cell, JSON tree, Raw, and a strict CSP', async function () {
    this.timeout(240_000);
    const page = wb.page;
    await step(page, 'run "Mobility API: Start Local Sandbox"', () =>
      runCommand(page, 'Mobility API: Start Local Sandbox'),
    );
    // The environment picker lists what exists when it opens: wait until the sandbox is up.
    await step(page, 'see the sandbox running', () => waitForSandboxRunning(page));
    await step(page, 'run "Mobility API: List Vehicles" on the sandbox', async () => {
      await runCommandAndPick(page, 'Mobility API: List Vehicles', 'Sandbox · MDS staging');
    });
    const frame = await step(page, 'wait for the results panel', () =>
      webviewWith(page, '[data-testid="result-title"]'),
    );
    const rows = await step(page, "read the table's row count", async () => {
      const count = frame.locator('[data-testid="row-count"]');
      await count.waitFor({ timeout: 30_000 });
      return Number(await count.getAttribute('data-rows'));
    });
    assert.ok(rows > 0, 'the sandbox listed vehicles');
    assert.match(
      await frame.locator('[data-testid="summary-line"]').innerText(),
      new RegExp(`200 OK · ${rows.toLocaleString('en-US')} vehicles`),
    );
    const firstId = (await frame.locator('.vt-row[aria-rowindex="2"] [data-col="deviceId"]').textContent()) ?? '';
    assert.match(firstId, UUID, 'a device id in the first row');
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'results-panel-table.png') });

    await step(page, 'switch to the JSON tree', async () => {
      await frame.locator('[data-testid="view-tree"]').click();
      await frame.locator('[data-testid="json-tree"]').waitFor({ timeout: 20_000 });
    });
    // The JSON tree and Raw show one page (the first); the table holds every page of the listing.
    const onPage = Number(
      (
        /"vehicles": \[ ([\d,]+) items \]/.exec(await frame.locator('[data-testid="json-tree"]').innerText())?.[1] ??
        '0'
      ).replace(/,/g, ''),
    );
    assert.ok(onPage > 0 && onPage <= rows, `the first page's ${onPage} vehicles are among the table's ${rows}`);
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'results-panel-json.png') });

    const raw = await step(page, 'switch to Raw', async () => {
      await frame.locator('[data-testid="view-raw"]').click();
      const el = frame.locator('[data-testid="raw-body"]');
      await el.waitFor({ timeout: 20_000 });
      return (await el.textContent()) ?? '';
    });
    const body = JSON.parse(raw) as { vehicles: { device_id: string }[] };
    assert.equal(body.vehicles.length, onPage);
    assert.equal(body.vehicles[0].device_id, firstId, 'the table and the raw body agree');
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'results-panel-raw.png') });

    const security = await frame.locator('body').evaluate(() => ({
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
      // VS Code itself injects one inline script without a nonce (it defines acquireVsCodeApi); the one other script
      // is ours: the bundle, inline, with the page's nonce (the page loads nothing: src/vscode/panel/panelHtml.ts).
      scripts: Array.from(document.scripts).map((s) => ({
        nonce: s.nonce !== '',
        src: s.src,
        ours: (s.textContent ?? '').includes('data-testid'),
      })),
      authorization: Array.from(document.querySelectorAll('[data-testid="request-headers"] td.secret')).map(
        (td) => td.textContent ?? '',
      ),
    }));
    assert.match(security.csp, /default-src 'none'/);
    assert.match(security.csp, /script-src 'nonce-[A-Za-z0-9+/=]{20,}'/);
    assert.ok(!/unsafe-inline|unsafe-eval/.test(security.csp));
    const scripts = JSON.stringify(security.scripts);
    assert.deepEqual(
      security.scripts.filter((s) => s.nonce).map((s) => [s.src, s.ours]),
      [['', true]],
      `one script carries the nonce: our bundle, inline: ${scripts}`,
    );
    assert.equal(security.scripts.filter((s) => !s.nonce).length, 1, `besides ours, only VS Code's own: ${scripts}`);
    for (const value of security.authorization)
      assert.match(value, /^Bearer \S{10}…\S{6}\s/, 'the token is shown shortened');
  });
});
