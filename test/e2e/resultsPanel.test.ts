// The results panel in VS Code, three suites in one window (a window's load costs about 20 processor-seconds:
// docs/testing.md). A sandbox listing opens: row count, a cell, JSON tree, Raw and a strict CSP. By keyboard only: Tab
// reaches the vehicle table and its sort buttons, Enter sorts, the body tabs switch with the arrow keys, Tab enters the
// JSON tree and the arrows expand, walk and collapse it; "Skip to table" comes first in the Tab order and reaches the
// table, whose row cursor the arrows move and whose Enter opens the row's vehicle in the JSON tree; axe-core finds no
// serious or critical violation in the panel, in the dark and the light theme (injected through the DevTools protocol:
// the CSP stays). And the panel follows the workbench theme, readable in light, dark and high-contrast themes.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { heatmapStatesAlike, measureHeatmapStates, measurePanelContrast } from './panelContrast';
import { axeViolations, describeViolations, focusedIn, resultsPanelFrame, webviewWith } from './panelFrame';
import { useWorkbench } from './session';
import {
  clearWindowBefore,
  pickQuickPickItem,
  runCommand,
  runCommandAndPick,
  step,
  webview,
  waitForSandboxRunning,
} from './workbench';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** WCAG relative luminance of an `rgb(…)`/`rgba(…)` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

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

/**
 * Starts the sandbox (or, running, has it say so again), then lists its MDS staging vehicles into a results panel.
 * The environment picker lists what exists when it opens: the sandbox is seen running first.
 */
async function listSandboxVehicles(page: Page): Promise<void> {
  await step(page, 'run "Mobility API: Start Local Sandbox"', () =>
    runCommand(page, 'Mobility API: Start Local Sandbox'),
  );
  await step(page, 'see the sandbox running', () => waitForSandboxRunning(page));
  await step(page, 'run "Mobility API: List Vehicles" on Sandbox · MDS staging', () =>
    runCommandAndPick(page, 'Mobility API: List Vehicles', 'Sandbox · MDS staging'),
  );
}

describe('the results panel in the workbench', function () {
  const wb = useWorkbench();

  describe('Results panel in VS Code', () => {
    it('opens a sandbox vehicles result: row count, a cell, JSON tree, Raw, and a strict CSP', async function () {
      this.timeout(240_000);
      const page = wb.page;
      await listSandboxVehicles(page);
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

  describe('the results panel by keyboard only, and axe-core in VS Code themes', function () {
    this.timeout(240_000);
    clearWindowBefore(() => wb.page);
    let frame: Frame;

    it('Tab to the table, sort by Enter, switch to the JSON tree, and walk it with the arrows', async () => {
      const page = wb.page;
      await listSandboxVehicles(page);
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
            (d) =>
              document.querySelector('[role="columnheader"][data-col="deviceId"]')?.getAttribute('aria-sort') === d,
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
      await step(
        page,
        'from the top of the panel, Tab reaches "Skip to table" first, and Enter the table',
        async () => {
          await frame.locator('[data-testid="skip-to-table"]').focus();
          const first = await frame.evaluate(() => ({
            // First in the document and no positive tabindex anywhere: first in the Tab order.
            testid: document.body.firstElementChild?.getAttribute('data-testid'),
            positive: Array.from(document.querySelectorAll('[tabindex]')).filter(
              (el) => Number(el.getAttribute('tabindex')) > 0,
            ).length,
          }));
          assert.deepEqual(
            first,
            { testid: 'skip-to-table', positive: 0 },
            'the skip link comes first in the Tab order',
          );
          await page.keyboard.press('Enter');
          await frame.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'vehicle-table');
        },
      );
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
      await step(
        page,
        'Enter opens that vehicle in the JSON tree, focused; ArrowRight shows its device_id',
        async () => {
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
        },
      );
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

  /** The results panel follows the workbench theme (only --vscode-* variables), readable in each. */
  describe('the results panel in light, dark and high-contrast themes', function () {
    this.timeout(240_000);
    clearWindowBefore(() => wb.page);

    it('opens a vehicles result from the sandbox', async () => {
      const page = wb.page;
      await listSandboxVehicles(page);
      await step(page, 'wait for the table', () =>
        webview(page).locator('[data-testid="body-tabs"]').first().waitFor({ timeout: 30_000 }),
      );
    });

    for (const theme of ['Dark High Contrast', 'Light High Contrast', 'Light Modern', 'Dark Modern']) {
      it(`is readable in ${theme}`, async () => {
        const page = wb.page;
        const normal = ':not(.vscode-high-contrast):not(.vscode-high-contrast-light)';
        const kind = theme.includes('High Contrast')
          ? theme.startsWith('Light')
            ? '.vscode-high-contrast-light'
            : '.vscode-high-contrast:not(.vscode-high-contrast-light)'
          : theme.startsWith('Light')
            ? `.vscode-light${normal}`
            : `.vscode-dark${normal}`;
        await step(page, `switch to ${theme}`, async () => {
          await runCommand(page, 'Preferences: Color Theme');
          await pickQuickPickItem(page, theme);
          // VS Code sets the body class with the new variables: wait for it rather than for a time.
          await webview(page).locator(`body${kind}`).first().waitFor({ timeout: 20_000 });
        });
        const colors = await step(page, 'read the panel colours', () =>
          webview(page)
            .locator('body')
            .evaluate(() => {
              const body = getComputedStyle(document.body);
              const title = document.querySelector('[data-testid="result-title"]');
              return {
                text: body.color,
                background: body.backgroundColor,
                title: title ? getComputedStyle(title).color : body.color,
                themeKind: document.body.className,
                // Every colour the panel uses must come from the theme: an unset variable would leave it transparent or default black.
                editorForeground: getComputedStyle(document.documentElement)
                  .getPropertyValue('--vscode-editor-foreground')
                  .trim(),
              };
            }),
        );
        await page.screenshot({
          path: path.join(
            process.env.E2E_ARTIFACTS_DIR ?? '.',
            `theme-${theme.replace(/\s+/g, '-').toLowerCase()}.png`,
          ),
        });
        assert.ok(colors.editorForeground, 'the theme variables reach the webview');
        assert.match(
          colors.themeKind,
          theme.includes('High Contrast')
            ? /high-contrast/
            : theme.startsWith('Light')
              ? /vscode-light/
              : /vscode-dark/,
        );
        const ratio = contrast(colors.text, colors.background);
        assert.ok(
          ratio >= (theme.includes('High Contrast') ? 7 : 4.5),
          `text ${colors.text} on ${colors.background}: contrast ${ratio.toFixed(2)}`,
        );
        assert.ok(contrast(colors.title, colors.background) >= 4.5, `title ${colors.title} on ${colors.background}`);
        // Every status colour (ok, warning, error, info, redirect, muted…) in every place it appears, against
        // the background actually behind it: WCAG AA, 4.5:1.
        const readings = await step(page, 'measure every status colour', () =>
          webview(page).locator('body').evaluate(measurePanelContrast),
        );
        assert.ok(readings.length >= 30, `measured ${readings.length} colours`);
        console.log(
          `      ${theme}: lowest ${readings.reduce((a, b) => (a.ratio <= b.ratio ? a : b)).name} ${Math.min(...readings.map((r) => r.ratio)).toFixed(2)}:1`,
        );
        const low = readings
          .filter((r) => r.ratio < 4.5)
          .map((r) => `${r.name}: ${r.color} on ${r.background} = ${r.ratio.toFixed(2)}:1`);
        assert.deepEqual(low, [], `${theme}: status colours below 4.5:1`);
        assert.deepEqual(
          heatmapStatesAlike(await webview(page).locator('body').evaluate(measureHeatmapStates)),
          [],
          `${theme}: heatmap states that look alike without colour`,
        );
      });
    }
  });
});
