// The results table as a new user met it (issue #24), on the panel's own page (the real bundle and CSP, see
// standalonePanelPage.ts) in headless Chromium: trip ids whole and distinguishable, headers whole, a
// narrow panel scrolling sideways to its last column, columns resized by drag and by keyboard (then
// shortened in the middle, the whole id in the tooltip and the accessible name), and the keyboard: "Skip
// to table" first, a row cursor the arrows, PageDown, Home and End move (aria-activedescendant), and Enter
// opening the row's item in the JSON tree.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/resultsTableGrid.test.js
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ApiResult } from '../../../src/core/http/exchange';
import { ApiClient } from '../../../src/core/http/apiClient';
import { bodyView } from '../../../src/results/requests/bodyView';
import { resultView } from '../../../src/results/requests/resultView';
import { deliverHostMessages as deliver, useStandalonePanel } from './standalonePanelPage';

const HOUR = 3_600_000;

describe('results table: widths, resizing, sideways scrolling and the row cursor (standalone page)', function () {
  this.timeout(180_000);
  const panel = useStandalonePanel({ fleetSize: 300 });
  const client = new ApiClient();
  // Yesterday 16:00 UTC: at least 47 trips on every day of 2025-2027 for this fleet (yesterday noon had as few as 25,
  // on some weekends, and the test wants more than 30 rows).
  const hour = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 8 * HOUR).toISOString().slice(0, 13);
  let result: ApiResult;
  let tripIds: string[];

  before(async () => {
    result = await client.request(panel.environment, panel.credential, {
      path: `/trips?end_time=${hour}`,
      itemsKey: 'trips',
    });
    assert.equal(result.outcome, 'items');
    tripIds = result.items.map((t) => String((t as Record<string, unknown>).trip_id));
    assert.ok(tripIds.length > 30, `${tripIds.length} trips`);
  });

  async function showTrips(width: number): Promise<Page> {
    const page = await panel.openPanel({ width });
    const v = resultView({
      id: 'trips-1',
      environment: panel.environment,
      result,
      title: `Trips · ${hour}`,
      canLoadNext: false,
      canCopyCurl: true,
      canRunAgain: true,
      now: Date.now(),
    });
    await deliver(
      page,
      { type: 'show', panelKey: 'env:mds-staging', result: v },
      { type: 'body', body: bodyView(result.pages[0], v.id, 0) },
    );
    await page.locator('[data-testid="trips-table"] [aria-rowindex="2"]').waitFor();
    return page;
  }

  it('shows trip ids whole and every header name whole', async () => {
    const page = await showTrips(1280);
    const table = page.locator('[data-testid="trips-table"]');
    assert.equal(await table.locator('[aria-rowindex="2"] [data-col="tripId"]').textContent(), tripIds[0]);
    const cut = await table
      .locator('.vt-sort-label')
      .evaluateAll((labels) => labels.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent));
    assert.deepEqual(cut, [], 'no header is cut');
    assert.equal(
      await table.locator('.vt-head[data-col="duration"]').getAttribute('title'),
      'Duration',
      'the full name on hover',
    );
    await page.close();
  });

  it('scrolls sideways in a narrow panel, and the last column is there to see', async () => {
    const page = await showTrips(640);
    const table = page.locator('[data-testid="trips-table"]');
    const lastCol = await table.locator('.vt-head').last().getAttribute('data-col');
    await table.evaluate((el) => (el.scrollLeft = el.scrollWidth));
    const seen = await table.evaluate((el, col) => {
      const cell = el.querySelector(`[aria-rowindex="2"] [data-col="${col}"]`) as HTMLElement;
      const box = cell.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return { scrolls: el.scrollWidth > el.clientWidth, hit: hit === cell || cell.contains(hit) };
    }, lastCol);
    assert.deepEqual(
      seen,
      { scrolls: true, hit: true },
      `the ${lastCol} cell of the first row is visible after scrolling right`,
    );
    await page.close();
  });

  it("resizes a column by keyboard and by drag; a narrow id column keeps the id's end, the whole id in its tooltip and name", async () => {
    const page = await showTrips(1280);
    const table = page.locator('[data-testid="trips-table"]');
    const cell = table.locator('[aria-rowindex="2"] [data-col="tripId"]');
    const handle = table.locator('.vt-head[data-col="tripId"] [role="separator"]');
    const width = () => table.locator('.vt-head[data-col="tripId"]').evaluate((el) => el.getBoundingClientRect().width);
    const before = await width();
    await handle.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    assert.ok((await width()) < before - 100, 'ArrowLeft narrows the column');
    const shown = (await cell.textContent()) ?? '';
    assert.match(shown, /…/);
    assert.ok(tripIds[0].endsWith(shown.split('…')[1]), `"${shown}" keeps the end of ${tripIds[0]}`);
    assert.equal(await cell.getAttribute('title'), tripIds[0]);
    assert.equal(await cell.getAttribute('aria-label'), tripIds[0]);
    const narrow = await width();
    const box = await handle.boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 200, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    assert.ok((await width()) > narrow + 150, 'dragging the edge widens the column');
    assert.equal(await cell.textContent(), tripIds[0], 'wide again: the whole id');
    assert.equal(await handle.getAttribute('aria-valuenow'), String(Math.round(await width())));
    await page.close();
  });

  it('keeps the sort arrow of a header cut short: the name gives way, not the arrow', async () => {
    const page = await showTrips(1280);
    const table = page.locator('[data-testid="trips-table"]');
    // The column with the longest name: narrowed, its name is cut.
    const titles = await table
      .locator('.vt-head')
      .evaluateAll((heads) =>
        heads.map((el) => [el.getAttribute('data-col') ?? '', el.getAttribute('title') ?? ''] as const),
      );
    const longest = titles.slice(0, -1).sort((a, b) => b[1].length - a[1].length)[0][0];
    const head = table.locator(`.vt-head[data-col="${longest}"]`);
    await head.locator('.vt-sort').click();
    await head.locator('[role="separator"]').focus();
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowLeft');
    await head.locator('.vt-sort').click();
    const seen = await head.evaluate((el) => {
      const button = el.querySelector('.vt-sort') as HTMLElement;
      const label = el.querySelector('.vt-sort-label') as HTMLElement;
      const mark = el.querySelector('.sort-mark') as HTMLElement;
      const b = button.getBoundingClientRect();
      const m = mark.getBoundingClientRect();
      return {
        sort: el.getAttribute('aria-sort'),
        mark: mark.textContent,
        cut: label.scrollWidth > label.clientWidth + 1,
        markInside: m.width > 4 && m.left >= b.left && m.right <= b.right + 0.5,
      };
    });
    assert.deepEqual(
      seen,
      { sort: 'descending', mark: ' ▼', cut: true, markInside: true },
      'the header is cut and its arrow is still in view',
    );
    await page.close();
  });

  it("reaches the table in two key presses; the arrows, PageDown, End and Home move a row cursor; Enter opens the row's trip in the JSON tree", async () => {
    const page = await showTrips(1280);
    const table = page.locator('[data-testid="trips-table"]');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'skip-to-table');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'trips-table');
    const cursor = () =>
      table.evaluate((el) => {
        const id = el.getAttribute('aria-activedescendant');
        const row = id ? document.getElementById(id) : null;
        return row
          ? {
              index: Number(row.getAttribute('aria-rowindex')),
              trip: row.querySelector('[data-col="tripId"]')?.textContent,
            }
          : undefined;
      });
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="trips-table"]')?.hasAttribute('aria-activedescendant'),
    );
    assert.deepEqual(await cursor(), { index: 2, trip: tripIds[0] }, 'focus puts the cursor on the first row');
    // Each row has its own id: a screen reader announces a move only when aria-activedescendant changes.
    const activeIds = [await table.getAttribute('aria-activedescendant')];
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await cursor(), { index: 4, trip: tripIds[2] });
    activeIds.push(await table.getAttribute('aria-activedescendant'));
    await page.keyboard.press('ArrowUp');
    assert.equal((await cursor())?.index, 3);
    activeIds.push(await table.getAttribute('aria-activedescendant'));
    assert.equal(
      new Set(activeIds).size,
      3,
      `aria-activedescendant names each row the cursor is on (${activeIds.join(', ')})`,
    );
    await page.keyboard.press('PageDown');
    assert.ok(((await cursor())?.index ?? 0) > 10, 'PageDown moves by a page');
    await page.keyboard.press('End');
    assert.deepEqual(
      await cursor(),
      { index: tripIds.length + 1, trip: tripIds.at(-1) },
      'End: the last row, rendered and in view',
    );
    assert.equal(await table.getAttribute('aria-rowcount'), String(tripIds.length + 1));
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal((await cursor())?.index, 5);
    await page.keyboard.press('Enter');
    await page.locator('.jt-target').waitFor();
    const target = await page.evaluate(() => {
      const item = document.querySelector('.jt-target')?.closest('[role="treeitem"]');
      return {
        level: item?.getAttribute('aria-level'),
        position: item?.getAttribute('aria-posinset'),
        focused: document.activeElement === item,
      };
    });
    assert.deepEqual(
      target,
      { level: '3', position: '4', focused: true },
      'the fourth trip of the page, focused in the JSON tree',
    );
    await page.close();
  });
});
