// The panel's resource views and conformance section on its own page (the real bundle and CSP, see
// standalonePanelPage.ts) in headless Chromium, with view models built from the sandbox's answers as the host
// builds them: a table per resource (trips, events, telemetry, stops) with its own columns, sorting,
// filtering and positions; the conformance findings of a provider that is not conformant on purpose, grouped
// by rule, each example's JSON Pointer opening that place in the JSON tree (by mouse and by keyboard), schema
// bugs labelled and folded away; the export buttons sending the table's query, never rows; axe clean.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/resultsPanelResources.test.js
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { ApiResult } from '../../../src/core/http/exchange';
import { ApiClient } from '../../../src/core/http/apiClient';
import type { Credential } from '../../../src/core/auth/credential';
import type { Environment } from '../../../src/core/environment';
import type { ListingResultView } from '../../../src/shared/listingViews';
import { bodyView } from '../../../src/results/requests/bodyView';
import { resultConformanceView } from '../../../src/results/requests/conformance';
import { resultView } from '../../../src/results/requests/resultView';
import { axeViolations, describeViolations } from '../../e2e/panelFrame';
import { deliverHostMessages as deliver, postedMessages, useStandalonePanel } from './standalonePanelPage';
import { clearOfPeriodEnd } from '../support/clockBoundary';

const HOUR = 3_600_000;

function hourText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

type Posted = { type: string; format?: string; query?: Record<string, unknown>; resultId?: string };

describe('results panel resource views and conformance (standalone page)', function () {
  this.timeout(180_000);
  const panel = useStandalonePanel({ fleetSize: 300 });
  let credential: Credential;
  let environment: Environment;
  const client = new ApiClient();
  const hour = hourText(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 12 * HOUR);

  before(() => {
    ({ credential, environment } = panel);
  });

  const posted = (page: Page) => postedMessages<Posted>(page);

  function viewOf(result: ApiResult, id: string, title: string): ListingResultView {
    const v = resultView({
      id,
      environment,
      result,
      title,
      canLoadNext: false,
      canCopyCurl: true,
      canRunAgain: true,
      now: Date.now(),
    });
    v.canExport = true;
    return v;
  }

  async function show(page: Page, v: ListingResultView, result: ApiResult): Promise<void> {
    await deliver(
      page,
      { type: 'show', panelKey: 'env:mds-staging', result: v },
      { type: 'body', body: bodyView(result.pages[0], v.id, 0) },
    );
  }

  const RESOURCES = [
    {
      resource: 'trips',
      path: () => `/trips?end_time=${hour}`,
      itemsKey: 'trips',
      tab: 'Trips',
      first: 'tripId',
      key: 'trip_id',
      points: 2,
    },
    {
      resource: 'events',
      path: () => `/events/historical?event_time=${hour}`,
      itemsKey: 'events',
      tab: 'Events',
      first: 'deviceId',
      key: 'device_id',
      points: 1,
    },
    {
      resource: 'telemetry',
      path: () => `/telemetry?telemetry_time=${hour}`,
      itemsKey: 'telemetry',
      tab: 'Telemetry points',
      first: 'deviceId',
      key: 'device_id',
      points: 1,
    },
    { resource: 'stops', path: () => '/stops', itemsKey: 'stops', tab: 'Stops', first: 'name', key: 'name', points: 1 },
  ] as const;

  for (const r of RESOURCES) {
    it(`shows ${r.resource} as a table of their own: header, count, cells, sorting, filter, positions, export query`, async () => {
      const result = await client.request(environment, credential, { path: r.path(), itemsKey: r.itemsKey });
      assert.equal(result.outcome, 'items', `${r.resource}: ${result.stoppedBecause ?? ''}`);
      const v = viewOf(result, `res-${r.resource}`, `${r.tab} · ${hour}`);
      const page = await panel.openPanel();
      await show(page, v, result);
      const table = page.locator(`[data-testid="${r.resource}-table"]`);
      await table.waitFor();
      const count = result.items.length;
      assert.equal(await page.locator('[data-testid="result-title"]').textContent(), `${r.tab} · ${hour}`);
      assert.equal(await page.locator('[data-testid="summary-line"]').textContent(), v.summary.line);
      assert.match(v.summary.line, new RegExp(`^200 OK · ${count.toLocaleString('en-US')} `));
      assert.equal(await page.locator('[data-testid="view-table"]').textContent(), r.tab);
      assert.equal(await page.locator('[data-testid="row-count"]').getAttribute('data-rows'), String(count));
      assert.equal(await table.getAttribute('aria-rowcount'), String(count + 1));
      const firstValue = String((result.items[0] as Record<string, unknown>)[r.key]);
      assert.equal(await table.locator(`[aria-rowindex="2"] [data-col="${r.first}"]`).textContent(), firstValue);

      // Sorting descending by the first column puts the largest value first.
      const sort = table.locator(`.vt-head[data-col="${r.first}"] button`);
      await sort.click();
      await sort.click();
      assert.equal(await table.locator(`.vt-head[data-col="${r.first}"]`).getAttribute('aria-sort'), 'descending');
      const values = result.items.map((item) => String((item as Record<string, unknown>)[r.key]));
      const largest = [...values].sort().at(-1);
      await page.waitForFunction(([sel, want]) => document.querySelector(sel)?.textContent === want, [
        `[data-testid="${r.resource}-table"] [aria-rowindex="2"] [data-col="${r.first}"]`,
        largest,
      ] as const);

      // Filtering by one row's value narrows the count. Filled at once, not typed: typed, the first few characters of
      // an id already narrow to the same count, the wait below ended on that, and the export sent the half-typed filter
      // while the grid's 120 ms debounce still held the rest (a failure seen in CI).
      await page.locator('[data-testid="table-filter"] input').fill(firstValue);
      const matching = values.filter((value) => value.toLowerCase().includes(firstValue.toLowerCase())).length;
      await page.waitForFunction(
        (want) => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === want,
        String(matching),
      );

      // The export buttons send the query (filter and sort), never rows.
      await page.locator('[data-testid="export-csv"]').click();
      await page.waitForFunction(() =>
        (window as unknown as { __posted: Posted[] }).__posted.some((m) => m.type === 'export'),
      );
      const exported = (await posted(page)).find((m) => m.type === 'export');
      assert.deepEqual(exported, {
        type: 'export',
        resultId: v.id,
        format: 'csv',
        query: { filter: firstValue, sortColumn: r.first, sortDescending: true },
        pageIndex: 0,
      });
      assert.equal(
        await page.locator('[data-testid="export-geojson"]').count(),
        1,
        'positions can be saved as GeoJSON',
      );

      // Positions: every row's position columns (a trip's start and end) are plotted.
      await page.locator('[data-testid="table-filter"]').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.waitForFunction(
        (want) => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === want,
        String(count),
      );
      await page.locator('[data-testid="view-plot"]').click();
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid="scatter-plot"]')?.getAttribute('data-points')) > 0,
      );
      const points = Number(await page.locator('[data-testid="scatter-plot"]').getAttribute('data-points'));
      assert.ok(points > 0 && points <= count * r.points, `${points} points for ${count} ${r.resource}`);
      if (r.points === 2)
        assert.match(
          (await page.locator('[data-testid="plot-legend"]').textContent()) ?? '',
          /start position .*end position/,
        );
      await page.close();
    });
  }

  it('says how an hour ended: not processed yet (202), 404 for a future hour, both without a table', async () => {
    const page = await panel.openPanel();
    await clearOfPeriodEnd(HOUR, 10_000);
    const current = await client.request(environment, credential, {
      path: `/trips?end_time=${hourText(Date.now())}`,
      itemsKey: 'trips',
    });
    const v = viewOf(current, 'res-202', 'Trips · now');
    await show(page, v, current);
    await page.waitForFunction(() =>
      /^not processed yet \(202\)/.test(document.querySelector('[data-testid="summary-line"]')?.textContent ?? ''),
    );
    const future = await client.request(environment, credential, {
      path: `/trips?end_time=${hourText(Date.now() + 48 * HOUR)}`,
      itemsKey: 'trips',
    });
    await show(page, viewOf(future, 'res-404', 'Trips · future'), future);
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="summary-line"]')?.textContent === '404 Not Found: no data for that hour',
    );
    assert.equal(await page.locator('[data-testid="trips-table"]').count(), 0);
    await page.close();
  });

  /**
   * The sandbox's vehicle status with `last_event.device_id` removed from every third item: not conformant on purpose.
   * Item 0's last event is made a trip's end, which is valid in several modes, so the official schema's oneOf refuses
   * it (the `mode-one-of` bug) whatever the hour: the sandbox's own statuses early in the morning are all of
   * micromobility alone.
   */
  async function brokenStatus(): Promise<ApiResult> {
    const result = await client.request(environment, credential, {
      path: '/vehicles/status',
      itemsKey: 'vehicles_status',
    });
    const page = result.pages[0];
    const body = page.body as { vehicles_status: { last_event: Record<string, unknown> }[] };
    Object.assign(body.vehicles_status[0].last_event, {
      vehicle_state: 'available',
      event_types: ['trip_end'],
      trip_ids: [randomUUID()],
    });
    body.vehicles_status.forEach((item, i) => {
      if (i % 3 === 1) delete item.last_event.device_id;
    });
    page.text = JSON.stringify(body);
    return result;
  }

  it("shows conformance findings grouped by rule; a finding's JSON path opens that node in the tree; schema bugs are labelled and folded", async () => {
    const result = await brokenStatus();
    const v = viewOf(result, 'conf-1', 'Vehicle status');
    v.conformance = { state: 'checking' };
    const page = await panel.openPanel();
    await show(page, v, result);
    await page.locator('[data-testid="section-conformance"]').waitFor();
    assert.equal(
      await page.locator('[data-testid="section-conformance"]').getAttribute('heading'),
      'MDS 2.0: checking…',
    );
    const conformance = resultConformanceView(result, 'vehicles_status');
    assert.equal(conformance.state, 'checked');
    await deliver(page, { type: 'conformance', resultId: v.id, conformance });
    await page.locator('[data-testid="conformance-rule"]').first().waitFor();
    const heading = await page.locator('[data-testid="section-conformance"]').getAttribute('heading');
    assert.match(heading ?? '', /^MDS 2\.0: \d+ findings? in \d+ of [\d,]+ items$/);
    assert.equal(
      await page.locator('[data-testid="section-conformance"]').getAttribute('open'),
      '',
      'findings open the section',
    );
    const rule = page.locator('[data-testid="conformance-rule"]', { hasText: 'missing required property device_id' });
    assert.equal(await rule.count(), 1, 'the missing device_id is one rule');
    assert.equal(await rule.locator('[data-testid="rule-where"]').textContent(), '/vehicles_status/*/last_event');
    const expected = (result.items.length / 3) | 0;
    assert.ok(
      Number((await rule.locator('[data-testid="rule-count"]').textContent())?.replace(/[^\d]/g, '')) >= expected,
    );
    const firstPath = rule.locator('[data-testid="finding-path"]').first();
    assert.equal(await firstPath.textContent(), '/vehicles_status/1/last_event');

    // Schema bugs: labelled, folded away.
    assert.ok(
      conformance.state === 'checked' && conformance.schemaBugs.length > 0,
      "the official schema's known bugs show up (mode-one-of)",
    );
    {
      const bugs = page.locator('[data-testid="schema-bugs"]');
      assert.equal(await bugs.getAttribute('open'), null, 'folded by default');
      assert.match((await bugs.locator('summary').textContent()) ?? '', /known bugs of the official schemas/);
      assert.match(
        (await bugs.locator('[data-testid="schema-bug-label"]').first().textContent()) ?? '',
        /^schema bug: /,
      );
      assert.ok(
        !(await bugs.locator('[data-testid="schema-bug-label"]').first().isVisible()),
        'not shown until unfolded',
      );
      await bugs.locator('summary').click();
      assert.ok(await bugs.locator('[data-testid="schema-bug-label"]').first().isVisible());
    }

    // The jump: the tree opens at /vehicles_status/1/last_event, highlighted and focused.
    await firstPath.click();
    await page.locator('.jt-target').waitFor();
    assert.equal(
      await page.locator('vscode-tabs').evaluate((t) => (t as HTMLElement & { selectedIndex: number }).selectedIndex),
      1,
      'the JSON tab is selected',
    );
    assert.match((await page.locator('.jt-target').textContent()) ?? '', /^[▸▾]?"last_event"/);
    const focused = await page.evaluate(() => ({
      role: document.activeElement?.getAttribute('role'),
      text: document.activeElement?.querySelector(':scope > .jt-line')?.textContent ?? '',
    }));
    assert.equal(focused.role, 'treeitem');
    assert.match(focused.text, /"last_event"/);
    const owner = await page.evaluate(() => {
      const item = document
        .querySelector('.jt-target')
        ?.closest('[role="treeitem"]')
        ?.parentElement?.closest('[role="treeitem"]');
      return { level: item?.getAttribute('aria-level'), position: item?.getAttribute('aria-posinset') };
    });
    assert.deepEqual(owner, { level: '3', position: '2' }, 'the last_event of item 1 (position 2 among the statuses)');

    // By keyboard: focus the second example and press Enter.
    const second = rule.locator('[data-testid="finding-path"]').nth(1);
    const secondPath = await second.textContent();
    await second.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((want) => {
      const index = Number(want?.split('/')[2]);
      const target = document.querySelector('.jt-target');
      const item = target?.closest('[role="treeitem"]')?.parentElement?.closest('[role="treeitem"]');
      return (
        item?.getAttribute('aria-posinset') === String(index + 1) && document.activeElement === target?.parentElement
      );
    }, secondPath);

    const violations = await axeViolations(page);
    assert.equal(violations.length, 0, describeViolations(violations));
    await page.close();
  });

  it('says "MDS 2.0: conforms" for the sandbox, and nothing for a body that is not MDS', async () => {
    const result = await client.request(environment, credential, {
      path: `/trips?end_time=${hour}`,
      itemsKey: 'trips',
    });
    const v = viewOf(result, 'conf-ok', 'Trips');
    v.conformance = resultConformanceView(result, 'trips');
    const page = await panel.openPanel({ theme: 'light' });
    await show(page, v, result);
    await page.locator('[data-testid="conformance-verdict"]').waitFor({ state: 'attached' });
    assert.equal(await page.locator('[data-testid="conformance-verdict"]').textContent(), 'MDS 2.0: conforms');
    assert.equal(
      await page.locator('[data-testid="section-conformance"]').getAttribute('heading'),
      'MDS 2.0: conforms',
    );
    assert.equal(await page.locator('[data-testid="conformance-rule"]').count(), 0);
    const violations = await axeViolations(page);
    assert.equal(violations.length, 0, describeViolations(violations));
    await deliver(page, {
      type: 'show',
      panelKey: 'env:mds-staging',
      result: { ...v, id: 'conf-none', conformance: { state: 'notMds' } },
    });
    await page.waitForFunction(() => !document.querySelector('[data-testid="section-conformance"]'));
    await page.close();
  });
});
