// The results panel in VS Code, by keyboard only: a sandbox listing opens, Tab reaches the vehicle table
// and its sort buttons, Enter sorts, the body tabs switch with the arrow keys, Tab enters the JSON tree
// and the arrows expand, walk and collapse it; "Skip to table" comes first in the Tab order and reaches the table,
// whose row cursor the arrows move and whose Enter opens the row's vehicle in the JSON tree. Then axe-core finds no serious or critical violation in
// the panel, in the dark and the light theme (injected through the DevTools protocol: the CSP stays).
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { axeViolations, describeViolations, focusedIn, resultsPanelFrame } from './panelFrame';
import { useWorkbench } from './session';
import { pickQuickPickItem, runCommand, runCommandAndPick, step, waitForSandboxRunning } from './workbench';

/** Presses `key` until `done` says the focus is where it should be; fails after `max` presses. */
async function pressUntil(
  page: Page,
  frame: Frame,
  key: string,
  done: (at: Awaited<ReturnType<typeof focusedIn>>) => boolean,
  max = 60,
): Promise<Awaited<ReturnType<typeof focusedIn>>> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    const at = await focusedIn(frame);
    if (done(at)) return at;
    seen.push(at.testid || at.role || at.text || '(none)');
    await page.keyboard.press(key);
  }
  throw new Error(`${key} ${max} times did not get there; the focus went through: ${seen.join(' → ')}`);
}

describe('the results panel by keyboard only, and axe-core in VS Code themes', function () {
  this.timeout(240_000);
  const wb = useWorkbench();
  let frame: Frame;

  it('Tab to the table, sort by Enter, switch to the JSON tree, and walk it with the arrows', async () => {
    const page = wb.page;
    await step(page, 'start the sandbox', () => runCommand(page, 'Mobility API: Start Local Sandbox'));
    await step(page, 'see it running', () => waitForSandboxRunning(page));
    await step(page, 'list vehicles of Sandbox · MDS staging', () =>
      runCommandAndPick(page, 'Mobility API: List Vehicles', 'Sandbox · MDS staging'),
    );
    const panel = await step(page, 'wait for the results panel', () => resultsPanelFrame(page));
    frame = panel.frame;
    await panel.locator.locator('[data-testid="row-count"]').waitFor({ timeout: 30_000 });
    await step(page, 'put the keyboard focus in the panel', async () => {
      // The panel opened with the focus; one click on its title keeps the test independent of that.
      await panel.locator.locator('[data-testid="result-title"]').click();
    });
    await step(page, 'Tab to the vehicle table', () =>
      pressUntil(page, frame, 'Tab', (at) => at.testid === 'vehicle-table'),
    );
    await step(page, 'Tab to the Device ID sort button and press Enter twice', async () => {
      await pressUntil(
        page,
        frame,
        'Tab',
        (at) => at.inTable && at.tag === 'button' && at.text.startsWith('Device ID'),
        12,
      );
      const sorted = (direction: string) =>
        frame.waitForFunction(
          (d) => document.querySelector('[role="columnheader"][data-col="deviceId"]')?.getAttribute('aria-sort') === d,
          direction,
          { timeout: 10_000 },
        );
      await page.keyboard.press('Enter');
      await sorted('ascending');
      await page.keyboard.press('Enter');
      await sorted('descending');
      const ids = await panel.locator.locator('.vt-row [data-col="deviceId"]').evaluateAll((cells) =>
        cells
          .map((c) => ({ row: Number(c.parentElement?.getAttribute('aria-rowindex')), id: c.textContent ?? '' }))
          .sort((a, b) => a.row - b.row)
          .slice(0, 5)
          .map((x) => x.id),
      );
      assert.deepEqual(ids, [...ids].sort().reverse(), 'the first rows are in descending device id order');
    });
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'keyboard-sorted.png') });
    await step(page, 'Shift+Tab back to the body tabs, ArrowRight to JSON, Enter', async () => {
      await pressUntil(page, frame, 'Shift+Tab', (at) => at.testid === 'view-table', 20);
      await page.keyboard.press('ArrowRight');
      assert.equal((await focusedIn(frame)).testid, 'view-tree');
      await page.keyboard.press('Enter');
      await panel.locator.locator('[data-testid="json-tree"] [role="treeitem"]').first().waitFor({ timeout: 20_000 });
    });
    const item = () =>
      frame.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        return {
          level: el.getAttribute('aria-level'),
          expanded: el.getAttribute('aria-expanded'),
          line: (el.querySelector(':scope > .jt-line')?.textContent ?? '').trim(),
        };
      });
    await step(page, 'Tab into the JSON tree', () =>
      pressUntil(page, frame, 'Tab', (at) => at.inTree && at.role === 'treeitem', 12),
    );
    await step(page, 'expand, walk and collapse with the arrows', async () => {
      assert.equal((await item()).level, '1');
      let at = await item();
      for (let i = 0; i < 10 && !at.line.includes('"vehicles"'); i++) {
        await page.keyboard.press('ArrowDown');
        at = await item();
      }
      assert.match(at.line, /"vehicles": \[ [\d,]+ items \]/);
      assert.equal(at.expanded, 'false');
      await page.keyboard.press('ArrowRight');
      assert.equal((await item()).expanded, 'true', 'ArrowRight expands');
      await page.keyboard.press('ArrowRight');
      assert.equal((await item()).level, '3', 'ArrowRight moves to the first child');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      at = await item();
      assert.equal(at.expanded, 'false', 'ArrowLeft goes back to the parent and collapses it');
      assert.match(at.line, /"vehicles"/);
      const stops = await frame.evaluate(() => document.querySelectorAll('[role="treeitem"][tabindex="0"]').length);
      assert.equal(stops, 1, 'the tree is one Tab stop');
    });
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'keyboard-json-tree.png') });
  });

  it("Skip to table, then a row cursor: the arrows and End move it, Enter opens the row's vehicle in the JSON tree", async () => {
    const page = wb.page;
    await step(page, 'show the table again', async () => {
      await frame.locator('[data-testid="view-table"]').click();
      await frame.locator('[data-testid="vehicle-table"]').waitFor();
    });
    await step(page, 'from the top of the panel, Tab reaches "Skip to table" first, and Enter the table', async () => {
      await frame.locator('[data-testid="skip-to-table"]').focus();
      const first = await frame.evaluate(() => ({
        // First in the document and no positive tabindex anywhere: first in the Tab order.
        testid: document.body.firstElementChild?.getAttribute('data-testid'),
        positive: Array.from(document.querySelectorAll('[tabindex]')).filter(
          (el) => Number(el.getAttribute('tabindex')) > 0,
        ).length,
      }));
      assert.deepEqual(first, { testid: 'skip-to-table', positive: 0 }, 'the skip link comes first in the Tab order');
      await page.keyboard.press('Enter');
      await frame.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'vehicle-table');
    });
    const cursor = () =>
      frame.evaluate(() => {
        const grid = document.querySelector('[data-testid="vehicle-table"]');
        const id = grid?.getAttribute('aria-activedescendant');
        return id ? Number(document.getElementById(id)?.getAttribute('aria-rowindex')) : 0;
      });
    await step(page, 'the arrows, End and Home move the row cursor', async () => {
      await frame.waitForFunction(() =>
        document.querySelector('[data-testid="vehicle-table"]')?.hasAttribute('aria-activedescendant'),
      );
      const start = await cursor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal(await cursor(), start + 2);
      await page.keyboard.press('End');
      const rows = Number(await frame.locator('[data-testid="vehicle-table"]').getAttribute('aria-rowcount'));
      assert.equal(await cursor(), rows, 'End: the last row');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowDown');
      assert.equal(await cursor(), 3, 'the second row');
    });
    await step(page, 'Enter opens that vehicle in the JSON tree, focused; ArrowRight shows its device_id', async () => {
      const deviceId = await frame.evaluate(() => {
        const id = document.querySelector('[data-testid="vehicle-table"]')?.getAttribute('aria-activedescendant');
        return (
          (id && document.getElementById(id)?.querySelector('[data-col="deviceId"]')?.getAttribute('data-full')) ||
          (id && document.getElementById(id)?.querySelector('[data-col="deviceId"]')?.textContent) ||
          ''
        );
      });
      assert.ok(deviceId, 'the cursor row has a device id');
      await page.keyboard.press('Enter');
      await frame.locator('.jt-target').waitFor({ timeout: 20_000 });
      const target = await frame.evaluate(() => {
        const item = document.querySelector('.jt-target')?.closest('[role="treeitem"]');
        return { level: item?.getAttribute('aria-level'), focused: document.activeElement === item };
      });
      assert.deepEqual(target, { level: '3', focused: true }, 'an item of the vehicles array, focused');
      await page.keyboard.press('ArrowRight');
      await frame.waitForFunction(
        (id) => (document.activeElement?.textContent ?? '').includes(`"device_id": "${id}"`),
        deviceId,
        { timeout: 10_000 },
      );
    });
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'keyboard-row-opened.png') });
  });

  for (const theme of ['Dark Modern', 'Light Modern']) {
    it(`axe-core finds no serious or critical violation in the panel (${theme})`, async () => {
      const page = wb.page;
      await step(page, `switch to ${theme}`, async () => {
        await runCommand(page, 'Preferences: Color Theme');
        await pickQuickPickItem(page, theme);
      });
      const kind = theme.startsWith('Light') ? 'vscode-light' : 'vscode-dark';
      await step(page, 'wait for the panel to take the theme', () =>
        frame.waitForFunction((k) => document.body.classList.contains(k), kind, { timeout: 20_000 }),
      );
      const found: string[] = [];
      for (const view of ['table', 'tree', 'raw', 'plot']) {
        await frame.locator(`[data-testid="view-${view}"]`).click();
        await frame.locator(`[data-testid="panel-${view}"]`).waitFor();
        const violations = await axeViolations(frame);
        if (violations.length) found.push(`${view}:\n${describeViolations(violations)}`);
      }
      await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', `axe-${kind}.png`) });
      assert.equal(found.length, 0, found.join('\n\n'));
      const csp = await frame.evaluate(
        () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
      );
      assert.match(csp, /script-src 'nonce-/);
      assert.ok(!/unsafe-inline|unsafe-eval/.test(csp), 'the CSP is as shipped');
    });
  }
});
