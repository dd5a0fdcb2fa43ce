// The results panel's accessibility and layout, on its own page (the real bundle and CSP, see
// standalonePanelPage.ts) in headless Chromium: axe-core finds no serious or critical violation in the
// light and dark themes; one small live region announces results, pages and copies, never the token
// countdown; the JSON tree and the vehicle table work by keyboard; every Tab stop shows a focus ring;
// "Load next page" appears once; URLs wrap only after "/", "?" and "&" at 360 px; status colours reach
// 4.5:1; the plot redraws when the theme changes and describes itself in text.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/panelAccessibility.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ApiClient } from '../../../src/core/http/apiClient';
import type { VehicleListing } from '../../../src/core/http/exchange';
import type { Credential } from '../../../src/core/auth/credential';
import { decodeJwt } from '../../../src/core/auth/decodeJwt';
import type { Environment } from '../../../src/core/environment';
import { lintToken } from '../../../src/core/auth/lintToken';
import type { ListingResultView } from '../../../src/shared/listingViews';
import { bodyView } from '../../../src/results/requests/bodyView';
import { listingView } from '../../../src/results/requests/listingView';
import { resultConformanceView } from '../../../src/results/requests/conformance';
import { resultView } from '../../../src/results/requests/resultView';
import { tokenResultView } from '../../../src/results/tokens/tokenView';
import { heatmapStatesAlike, measureHeatmapStates, measurePanelContrast } from '../../e2e/panelContrast';
import { axeViolations, describeViolations } from '../../e2e/panelFrame';
import { deliverHostMessages as deliver, useStandalonePanel } from './standalonePanelPage';

const ROOT = process.cwd();
const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR ?? path.join(ROOT, 'test-results', 'panel');
async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `a11y-${name}.png`) });
}

/** The element that has the keyboard focus, looking into shadow roots, described for messages. */
async function focused(
  page: Page,
): Promise<{ tag: string; testid: string; role: string; text: string; ring: boolean }> {
  return page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    let host: Element | null = document.activeElement;
    if (!el || !host || el === document.body) return { tag: 'body', testid: '', role: '', text: '', ring: false };
    // A ring is an outline on the focused element, on its custom-element host, or inside that host's shadow root
    // (vscode-elements draw it on an inner part), or on the line of a focused tree item.
    const candidates: Element[] = [el, host];
    if (host.shadowRoot) candidates.push(...Array.from(host.shadowRoot.querySelectorAll('*')));
    const line = el.querySelector(':scope > .jt-line');
    if (line) candidates.push(line);
    // Text fields and selects mark focus with a focusBorder-coloured border instead.
    const probe = document.createElement('span');
    probe.style.color = 'var(--vscode-focusBorder)';
    document.body.appendChild(probe);
    const focusBorder = getComputedStyle(probe).color;
    probe.remove();
    const ring = candidates.some((c) => {
      const s = getComputedStyle(c);
      return (
        (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) ||
        (s.borderTopStyle !== 'none' && parseFloat(s.borderTopWidth) > 0 && s.borderTopColor === focusBorder)
      );
    });
    while (
      host.parentElement &&
      !host.getAttribute('data-testid') &&
      host.tagName !== 'BUTTON' &&
      !host.getAttribute('role')
    )
      host = host.parentElement;
    return {
      tag: (document.activeElement as Element).tagName.toLowerCase(),
      testid: (document.activeElement as Element).getAttribute('data-testid') ?? host.getAttribute('data-testid') ?? '',
      role: (document.activeElement as Element).getAttribute('role') ?? '',
      text: ((document.activeElement as HTMLElement).innerText ?? '').replace(/\s+/g, ' ').trim().slice(0, 40),
      ring,
    };
  });
}

describe('results panel accessibility and layout (standalone page)', function () {
  this.timeout(180_000);
  const panel = useStandalonePanel({ fleetSize: 1500 });
  let credential: Credential;
  let environment: Environment;
  let listing: VehicleListing;

  before(async () => {
    ({ credential, environment } = panel);
    // Vehicle status: positions for the plot, and a next page (1,500 vehicles, 1,000 per page).
    listing = await new ApiClient().listVehicles(environment, credential, { query: { status: true } });
    assert.ok(listing.nextUrl, 'the sandbox listing has a next page');
  });

  function view(id: string): ListingResultView {
    return listingView({
      id,
      environment,
      listing,
      credentialLabel: 'demo',
      canLoadNext: true,
      canCopyCurl: true,
      now: Date.now(),
    });
  }

  async function showListing(page: Page, id: string): Promise<ListingResultView> {
    const v = view(id);
    await deliver(
      page,
      { type: 'show', panelKey: 'env:mds-staging', result: v },
      { type: 'body', body: bodyView(listing.pages[0], id, 0) },
    );
    await page.locator('[data-testid="row-count"]').waitFor();
    return v;
  }

  async function showToken(page: Page): Promise<void> {
    const issued = await new ApiClient().issuer.issue(credential, environment, { lifetimeSeconds: 300 });
    const decoded = decodeJwt(issued.token);
    assert.ok(decoded.ok);
    const findings = lintToken(decoded.token, { now: Date.now(), knownAudiences: [environment.baseUrl] });
    await deliver(page, {
      type: 'show',
      panelKey: 'env:mds-staging',
      result: tokenResultView({
        id: 'tok',
        environment,
        token: issued.token,
        decoded: decoded.token,
        findings,
        source: 'Generated for Sandbox MDS staging',
        now: Date.now(),
      }),
    });
    await page.locator('[data-testid="token-preview"]').waitFor();
  }

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe violation: listing (every view), token, error (${theme} theme)`, async () => {
      const page = await panel.openPanel({ theme });
      await showListing(page, `axe-${theme}`);
      await page.evaluate(() =>
        document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
      );
      const found: string[] = [];
      const check = async (what: string) => {
        const violations = await axeViolations(page);
        if (violations.length) found.push(`${what}:\n${describeViolations(violations)}`);
      };
      await check('listing, table');
      await page.locator('[data-testid="view-tree"]').click();
      await page.locator('[data-testid="json-tree"] [role="treeitem"]').first().waitFor();
      await check('listing, JSON tree');
      await page.locator('[data-testid="view-raw"]').click();
      await page.locator('[data-testid="raw-body"]').waitFor();
      await check('listing, raw');
      await page.locator('[data-testid="view-plot"]').click();
      await page.waitForFunction(
        () => (document.querySelector('[data-testid="plot-legend"]')?.textContent ?? '') !== '',
      );
      await check('listing, plot');
      await shot(page, `listing-${theme}`);
      await showToken(page);
      await check('token');
      const refused = await new ApiClient().listVehicles(
        { ...environment, audience: 'https://wrong.test.invalid' },
        credential,
      );
      await deliver(page, {
        type: 'show',
        panelKey: 'env:mds-staging',
        result: listingView({
          id: 'refused',
          environment,
          listing: refused,
          canLoadNext: false,
          canCopyCurl: true,
          now: Date.now(),
        }),
      });
      await page.locator('[data-testid="error-panel"]').waitFor();
      await check('401 error');
      await page.close();
      assert.equal(found.length, 0, found.join('\n\n'));
    });

    it(`every status colour reaches 4.5:1 against its background (${theme} theme)`, async () => {
      const page = await panel.openPanel({ theme });
      await showListing(page, `contrast-${theme}`);
      const readings = await page.evaluate(measurePanelContrast);
      assert.ok(readings.length >= 30, `measured ${readings.length} colours`);
      const low = readings.filter((r) => r.ratio < 4.5);
      assert.deepEqual(
        low.map((r) => `${r.name}: ${r.color} on ${r.background} = ${r.ratio.toFixed(2)}:1`),
        [],
      );
      // The heatmap's states tell apart without hue (colour-blind eyes): pattern, border or lightness.
      assert.deepEqual(
        heatmapStatesAlike(await page.evaluate(measureHeatmapStates)),
        [],
        'heatmap states that look alike without colour',
      );
      await page.close();
    });
  }

  it('announces results, pages and copies in one small live region; the token countdown is not in it', async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    const live = () =>
      page.evaluate(() =>
        Array.from(
          document.querySelectorAll(
            '[aria-live], [role="status"], [role="alert"], [role="log"], [role="timer"], [role="marquee"]',
          ),
        ).map((el) => ({ testid: el.getAttribute('data-testid') ?? el.tagName, chars: (el.textContent ?? '').length })),
      );
    const announced = () => page.locator('[data-testid="announcer"]').textContent();
    const v = await showListing(page, 'live');
    assert.deepEqual(
      (await live()).map((l) => l.testid),
      ['announcer'],
      'one live region, and only it',
    );
    assert.match((await announced()) ?? '', /Vehicles · Sandbox MDS staging|200 OK/);
    await showToken(page);
    assert.match((await announced()) ?? '', /Token · Sandbox MDS staging/);
    const countdown = page.locator('[data-testid="time-exp"]');
    assert.match((await countdown.textContent()) ?? '', /expires in/);
    assert.equal(
      await countdown.evaluate(
        (el) => !!el.closest('[aria-live], [role="status"], [role="alert"], [role="log"], [role="timer"]'),
      ),
      false,
      'the countdown is outside every live region',
    );
    // The countdown ticks; the live region does not.
    const before = await announced();
    const first = await countdown.textContent();
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="time-exp"]')?.textContent !== text,
      first,
    );
    assert.equal(await announced(), before);
    await deliver(page, { type: 'notice', level: 'info', text: 'Copied the payload as JSON.' });
    assert.equal(await announced(), 'Copied the payload as JSON.');
    await deliver(page, { type: 'notice', level: 'error', text: 'This token is no longer held.' });
    assert.equal(await announced(), 'Error: This token is no longer held.');
    // A page loaded.
    await showListing(page, 'live-2');
    await deliver(page, {
      type: 'pagesAppended',
      resultId: 'live-2',
      pages: [{ ...v.pages[0], index: 1 }],
      vehicles: v.vehicles,
      canLoadNext: false,
    });
    assert.match((await announced()) ?? '', /^Page 2 loaded: /);
    assert.ok(
      (await live()).every((l) => l.chars < 300),
      'the live region stays small',
    );
    await page.close();
  });

  it('shows "Load next page" once, under Pages', async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    await showListing(page, 'next');
    assert.equal(await page.locator('[data-testid="load-next-page"]').count(), 1);
    assert.equal(await page.locator('[data-testid="section-pages"] [data-testid="load-next-page"]').count(), 1);
    await page.close();
  });

  it('offers "Load all pages" beside "Load next page" when the host can follow every page, and asks the host for it', async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    await showListing(page, 'one-by-one');
    assert.equal(
      await page.locator('[data-testid="load-all-pages"]').count(),
      0,
      'no button when the host cannot load all pages',
    );
    const v = { ...view('all'), canLoadAll: true };
    await deliver(page, { type: 'show', panelKey: 'env:mds-staging', result: v });
    const all = page.locator('[data-testid="section-pages"] [data-testid="load-all-pages"]');
    assert.equal(await all.count(), 1);
    await all.click();
    await page.waitForFunction(() =>
      (window as unknown as { __posted: { type: string; resultId?: string }[] }).__posted.some(
        (m) => m.type === 'loadAllPages' && m.resultId === 'all',
      ),
    );
    await page.close();
  });

  it('the JSON tree follows the ARIA tree pattern by keyboard, with one tab stop', async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    await showListing(page, 'tree');
    await page.locator('[data-testid="view-tree"]').click();
    const tree = page.locator('[data-testid="json-tree"]');
    await tree.locator('[role="treeitem"]').first().waitFor();
    const state = () =>
      tree.evaluate((t) => {
        const active = document.activeElement as HTMLElement;
        const line = active.querySelector(':scope > .jt-line')?.textContent ?? '';
        return {
          tabStops: t.querySelectorAll('[role="treeitem"][tabindex="0"]').length,
          focused: line.replace(/\s+/g, ' ').trim(),
          level: active.getAttribute('aria-level'),
          expanded: active.getAttribute('aria-expanded'),
          posinset: active.getAttribute('aria-posinset'),
          setsize: active.getAttribute('aria-setsize'),
        };
      });
    // Tab from the last control before the tree ("Collapse all") lands on the root item.
    await page.locator('[data-testid="json-search"] input').focus();
    let s = await state();
    for (let i = 0; i < 8 && s.level !== '1'; i++) {
      await page.keyboard.press('Tab');
      s = await state();
    }
    assert.equal(s.level, '1', 'Tab reaches the tree');
    assert.equal(s.expanded, 'true');
    assert.equal(s.tabStops, 1);
    await page.keyboard.press('ArrowDown');
    s = await state();
    assert.equal(s.level, '2');
    assert.equal(s.posinset, '1');
    // Walk to "vehicles_status", an array of 1,000.
    for (let i = 0; i < 10 && !s.focused.includes('"vehicles_status"'); i++) {
      await page.keyboard.press('ArrowDown');
      s = await state();
    }
    assert.match(s.focused, /^▸ ?"vehicles_status": \[ 1,000 items \]/);
    assert.equal(s.expanded, 'false');
    await page.keyboard.press('ArrowRight');
    s = await state();
    assert.equal(s.expanded, 'true', 'ArrowRight expands');
    await page.keyboard.press('ArrowRight');
    s = await state();
    assert.equal(s.level, '3', 'ArrowRight again moves to the first child');
    assert.equal(s.posinset, '1');
    assert.equal(s.setsize, '1000');
    await page.keyboard.press('ArrowLeft');
    s = await state();
    assert.match(s.focused, /"vehicles_status"/, 'ArrowLeft on a child goes to its parent');
    await page.keyboard.press('ArrowLeft');
    s = await state();
    assert.equal(s.expanded, 'false', 'ArrowLeft collapses');
    await page.keyboard.press('Enter');
    s = await state();
    assert.equal(s.expanded, 'true', 'Enter toggles');
    await page.keyboard.press(' ');
    assert.equal((await state()).expanded, 'false', 'Space toggles');
    await page.keyboard.press('Home');
    assert.equal((await state()).level, '1', 'Home goes to the first item');
    await page.keyboard.press('End');
    s = await state();
    assert.equal(s.level, '2', 'End goes to the last visible item');
    assert.equal(s.tabStops, 1, 'still exactly one tab stop');
    // "Show more" rows are items too: expand the array, go to its end and load the next chunk.
    await page.keyboard.press('Home');
    for (let i = 0; i < 10 && !(await state()).focused.includes('"vehicles_status"'); i++)
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const more = tree.locator('[data-testid="json-more"]');
    await more.focus();
    assert.match(await more.innerText(), /Show 200 more \(200 of 1,000 shown\)/);
    await page.keyboard.press('Enter');
    s = await state();
    assert.equal(s.posinset, '201', 'the first newly shown item takes the focus');
    assert.equal(s.tabStops, 1);
    await shot(page, 'json-tree-keyboard');
    await page.close();
  });

  it('the vehicle table is an ARIA grid: row count and indices, column headers with sort buttons and aria-sort, rows in reading order', async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    const v = await showListing(page, 'table');
    const table = page.locator('[data-testid="vehicle-table"]');
    assert.equal(await table.getAttribute('role'), 'grid');
    assert.equal(await table.getAttribute('aria-rowcount'), String(v.vehicles.count + 1));
    assert.ok((await page.locator('[role="columnheader"] > button.vt-sort').count()) >= 4);
    assert.ok((await page.locator('.vt-row[role="row"] > [role="gridcell"]').count()) > 0);
    assert.equal(await page.locator('.vt-row [role="cell"]').count(), 0);
    // By keyboard: focus the table, Tab to the Battery sort button, press Enter twice.
    await table.focus();
    let at = await focused(page);
    // Each header: its sort button, then its resize edge.
    for (let i = 0; i < 16 && at.text !== 'Battery'; i++) {
      await page.keyboard.press('Tab');
      at = await focused(page);
    }
    assert.equal(at.text, 'Battery');
    await page.keyboard.press('Enter');
    const header = page.locator('[role="columnheader"][data-col="battery"]');
    assert.equal(await header.getAttribute('aria-sort'), 'ascending');
    await page.keyboard.press('Enter');
    assert.equal(await header.getAttribute('aria-sort'), 'descending');
    assert.match(
      (await page.locator('[data-testid="announcer"]').textContent()) ?? '',
      /Sorted by Battery, descending/,
    );
    const max = Math.max(...Array.from(v.vehicles.battery).filter((b) => !Number.isNaN(b)));
    assert.equal(
      await page.locator('.vt-row[aria-rowindex="2"] [data-col="battery"]').textContent(),
      `${Math.round(max)} %`,
    );
    // Scroll, so that rows are recycled, then check the DOM order.
    await table.evaluate((el) => el.scrollBy(0, 24 * 300));
    await page.waitForFunction(() => document.querySelector('.vt-row[aria-rowindex="310"]') !== null);
    // The rows are put back in order once scrolling pauses.
    await page
      .waitForFunction(
        () => {
          const indices = Array.from(document.querySelectorAll('.vt-row'), (r) =>
            Number(r.getAttribute('aria-rowindex')),
          );
          return indices.every((v, i) => i === 0 || indices[i - 1] < v);
        },
        undefined,
        { timeout: 5000 },
      )
      .catch(() => undefined);
    const indices = await page
      .locator('.vt-row')
      .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('aria-rowindex'))));
    assert.deepEqual(
      indices,
      [...indices].sort((a, b) => a - b),
      'rows are in the DOM in row order',
    );
    await page.close();
  });

  it('every Tab stop shows a focus ring, and Tab reaches every control', async () => {
    const page = await panel.openPanel({ theme: 'light' });
    await showListing(page, 'tab');
    await page.evaluate(() =>
      document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
    );
    const walk = async () => {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const seen: Awaited<ReturnType<typeof focused>>[] = [];
      for (let i = 0; i < 120; i++) {
        await page.keyboard.press('Tab');
        const at = await focused(page);
        if (at.tag === 'body') break;
        if (seen.length && JSON.stringify(at) === JSON.stringify(seen[0])) break;
        seen.push(at);
      }
      return seen;
    };
    const stops = await walk();
    const without = stops.filter((s) => !s.ring);
    assert.deepEqual(without, [], 'every Tab stop shows a focus ring');
    const names = stops.map((s) => s.testid || s.text);
    for (const expected of [
      'copy-curl-top',
      'run-again',
      'page-select',
      'load-next-page',
      'view-table',
      'table-filter',
      'state-filter',
      'vehicle-table',
      'Battery',
    ]) {
      assert.ok(names.includes(expected), `Tab reaches ${expected}: ${names.join(', ')}`);
    }
    await page.locator('[data-testid="view-tree"]').click();
    await page.locator('[data-testid="json-tree"] [role="treeitem"]').first().waitFor();
    const treeStops = await walk();
    assert.deepEqual(
      treeStops.filter((s) => !s.ring),
      [],
    );
    assert.equal(treeStops.filter((s) => s.role === 'treeitem').length, 1, 'the tree is one Tab stop');
    await page.close();
  });

  it('the resource views and the conformance section: axe clean in both themes, every Tab stop with a ring, findings reachable by keyboard', async () => {
    // Trips of a processed hour, one of them broken on purpose so that the conformance section lists findings.
    const hour = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000).toISOString().slice(0, 13);
    const trips = await new ApiClient().request(environment, credential, {
      path: `/trips?end_time=${hour}`,
      itemsKey: 'trips',
    });
    assert.equal(
      trips.outcome,
      'items',
      `${trips.pages[0]?.status} ${JSON.stringify(trips.pages[0]?.body).slice(0, 300)}`,
    );
    const body = trips.pages[0].body as { trips: Record<string, unknown>[] };
    assert.ok(body.trips.length > 1, 'the sandbox has trips in that hour');
    delete body.trips[1].trip_id;
    body.trips[1].distance = 'far';
    const v = resultView({
      id: 'a11y-trips',
      environment,
      result: trips,
      title: `Trips · ${hour}`,
      canLoadNext: false,
      canCopyCurl: true,
      canRunAgain: true,
      now: Date.now(),
    });
    v.canExport = true;
    v.conformance = resultConformanceView(trips, 'trips');
    assert.ok(v.conformance.state === 'checked' && !v.conformance.conforms);
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      const page = await panel.openPanel({ theme });
      await deliver(
        page,
        { type: 'show', panelKey: 'env:mds-staging', result: v },
        { type: 'body', body: bodyView(trips.pages[0], v.id, 0) },
      );
      await page.locator('[data-testid="trips-table"]').waitFor();
      await page.evaluate(() =>
        document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
      );
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
      for (const [what, tab] of [
        ['trips table', 'view-table'],
        ['JSON tree', 'view-tree'],
        ['plot', 'view-plot'],
      ] as const) {
        await page.locator(`[data-testid="${tab}"]`).click();
        if (tab === 'view-tree') await page.locator('[data-testid="json-tree"] [role="treeitem"]').first().waitFor();
        const violations = await axeViolations(page);
        if (violations.length) found.push(`${what} (${theme}):\n${describeViolations(violations)}`);
      }
      await shot(page, `trips-conformance-${theme}`);
      if (theme === 'light') {
        await page.locator('[data-testid="view-table"]').click();
        // Start the Tab walk at the top: a click on the title moves the sequential focus starting point there.
        await page.locator('[data-testid="result-title"]').click();
        const stops: Awaited<ReturnType<typeof focused>>[] = [];
        for (let i = 0; i < 150; i++) {
          await page.keyboard.press('Tab');
          const at = await focused(page);
          if (at.tag === 'body' || (stops.length && JSON.stringify(at) === JSON.stringify(stops[0]))) break;
          stops.push(at);
        }
        assert.deepEqual(
          stops.filter((s) => !s.ring),
          [],
          'every Tab stop shows a focus ring',
        );
        const names = stops.map((s) => s.testid || s.text);
        for (const expected of ['finding-path', 'export-csv', 'export-geojson', 'trips-table', 'table-filter'])
          assert.ok(names.includes(expected), `Tab reaches ${expected}: ${names.join(', ')}`);
        // A finding by keyboard: focus its path, press Enter, land on the node in the tree.
        await page.locator('[data-testid="finding-path"]').first().focus();
        await page.keyboard.press('Enter');
        await page.waitForFunction(
          () =>
            document.activeElement?.getAttribute('role') === 'treeitem' &&
            !!document.activeElement.querySelector(':scope > .jt-target'),
        );
      }
      await page.close();
    }
    assert.equal(found.length, 0, found.join('\n\n'));
  });

  it('at 360 px, URLs wrap only after "/", "?" and "&", never inside a host name or path segment', async () => {
    const page = await panel.openPanel({ theme: 'light', width: 360 });
    const long = {
      ...listing,
      pages: listing.pages.map((p) => ({
        ...p,
        url: `${p.url}${p.url.includes('?') ? '&' : '?'}provider=mds-staging-berlin&after=2026-11-22T10:00:00Z`,
      })),
    };
    const v = listingView({
      id: 'narrow',
      environment: { ...environment, baseUrl: `${environment.baseUrl}/providers/mds-staging-berlin-operations` },
      listing: long,
      credentialLabel: 'demo',
      canLoadNext: true,
      canCopyCurl: true,
      now: Date.now(),
    });
    await deliver(page, { type: 'show', panelKey: 'env:mds-staging', result: v });
    await page.locator('[data-testid="row-count"]').waitFor();
    await page.evaluate(() =>
      document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
    );
    await shot(page, 'narrow-360');
    const breaks = await page.evaluate(() => {
      const found: { url: string; lines: number; badBreaks: string[] }[] = [];
      for (const el of Array.from(document.querySelectorAll('.url'))) {
        const chars: { c: string; top: number }[] = [];
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (let i = 0; i < text.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getClientRects()[0];
            if (rect) chars.push({ c: text[i], top: rect.top });
          }
        }
        const url = chars.map((x) => x.c).join('');
        let lines = 1;
        const badBreaks: string[] = [];
        for (let i = 1; i < chars.length; i++) {
          if (chars[i].top > chars[i - 1].top + 2) {
            lines++;
            if (!'/?&'.includes(chars[i - 1].c))
              badBreaks.push(`${url.slice(Math.max(0, i - 12), i)} | ${url.slice(i, i + 12)}`);
          }
        }
        found.push({ url, lines, badBreaks });
      }
      return found;
    });
    assert.ok(breaks.length >= 3, `URLs on the page: ${breaks.length}`);
    assert.ok(
      breaks.some((b) => b.lines > 1),
      'at 360 px some URL wraps',
    );
    assert.deepEqual(
      breaks.flatMap((b) => b.badBreaks),
      [],
      'no break inside a host name or path segment',
    );
    await page.close();
  });

  it("the plot redraws in the new theme's colours and has a text alternative", async () => {
    const page = await panel.openPanel({ theme: 'dark' });
    await showListing(page, 'plot');
    await page.locator('[data-testid="view-plot"]').click();
    const canvas = page.locator('[data-testid="scatter-plot"]');
    await page.waitForFunction(() =>
      (document.querySelector('[data-testid="scatter-plot"]')?.getAttribute('data-theme') ?? '').includes(
        'vscode-dark',
      ),
    );
    const label = (await canvas.getAttribute('aria-label')) ?? '';
    // "by state" unless every position shares one state (on some nights every status of the page is "available").
    assert.match(label, /^Plot of 1,000 vehicle positions( by state)?: .+ \d/);
    assert.match(label, /Latitude 52\.\d+ to 52\.\d+/);
    const colours = () =>
      canvas.evaluate((c) => {
        const el = c as HTMLCanvasElement;
        const data = el.getContext('2d')?.getImageData(0, 0, el.width, el.height).data ?? new Uint8ClampedArray();
        const set = new Set<string>();
        for (let i = 0; i < data.length; i += 4)
          if (data[i + 3] === 255) set.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
        return [...set].sort();
      });
    const dark = await colours();
    assert.ok(dark.length > 0);
    // What VS Code does on a theme change: new variables, then the body class.
    await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[href*="theme-dark.css"]');
      if (!link) throw new Error('no theme stylesheet');
      await new Promise((resolve, reject) => {
        link.addEventListener('load', resolve, { once: true });
        link.addEventListener('error', reject, { once: true });
        link.href = link.href.replace('theme-dark', 'theme-light');
      });
      document.body.classList.replace('vscode-dark', 'vscode-light');
    });
    await page.waitForFunction(() =>
      (document.querySelector('[data-testid="scatter-plot"]')?.getAttribute('data-theme') ?? '').includes(
        'vscode-light',
      ),
    );
    const light = await colours();
    assert.notDeepEqual(light, dark, "the points are drawn in the light theme's colours");
    await page.close();
  });
});
