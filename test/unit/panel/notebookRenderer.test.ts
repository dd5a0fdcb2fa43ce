// The harvest notebook's renderer (issue 31) in headless Chromium, as VS Code runs it in a notebook's output page: the
// built ES module (dist/notebookRenderer.js) activated with a stand-in for VS Code's renderer context (its messaging
// recorded), rendering a SQL answer of 100,000 rows. It checks what a user sees: the results table virtualised (few
// rows in the page, the last one reachable), sorted by a header both ways, Save CSV posting the rows as shown to the
// extension and saying where they went, a chart of the time column, and data shown as text that runs nothing.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/notebookRenderer.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Playwright from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type { ExportAnswerMessage } from '../../../src/shared/sqlAnswer';
import { startTestServer } from '../support/testServer';
import type { TestServer } from '../support/testServer';
import { launchPanelBrowser, themeCss } from './standalonePanelPage';

const RENDERER = path.join(process.cwd(), 'dist', 'notebookRenderer.js');
const ROWS = 100_000;
const HOSTILE = '<img src=x onerror=pwn(1)>';

// The page: a CSP as strict as the renderer allows (scripts from the page's origin only, no inline script), the
// theme's variables, and a module that activates the renderer as VS Code would.
const HARNESS = `
window.__posted = [];
window.__pwned = [];
window.__violations = [];
window.pwn = (what) => window.__pwned.push(String(what));
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
const listeners = [];
const messaging = new URLSearchParams(location.search).get('messaging') !== 'off';
const { activate } = await import('/notebookRenderer.js');
const api = activate(messaging ? {
  postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
  onDidReceiveMessage: (listener) => { listeners.push(listener); return { dispose() {} }; },
} : {});
window.__render = (id, data) => {
  let el = document.getElementById(id);
  if (!el) { el = document.createElement('div'); el.id = id; document.body.appendChild(el); }
  api.renderOutputItem({ id, mime: 'application/vnd.mobility-api.sql-answer+json', json: () => data }, el);
};
window.__hostSays = (message) => listeners.forEach((listener) => listener(message));
window.__ready = true;
`;

describe('harvest notebook renderer: the results table of a SQL answer (standalone page)', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    if (!fs.existsSync(RENDERER)) throw new Error('dist/notebookRenderer.js is missing: run node esbuild.js first.');
    server = await startTestServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const origin = `http://${req.headers.host ?? ''}`;
      const send = (type: string, body: string) => {
        res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
        res.end(body);
      };
      if (url.pathname === '/') {
        send(
          'text/html; charset=utf-8',
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${origin}; style-src ${origin} 'unsafe-inline'; img-src 'none'">
<link rel="stylesheet" href="${origin}/theme.css"><script type="module" src="${origin}/harness.js"></script></head><body class="vscode-dark"></body></html>`,
        );
      } else if (url.pathname === '/harness.js') send('text/javascript', HARNESS);
      else if (url.pathname === '/notebookRenderer.js') send('text/javascript', fs.readFileSync(RENDERER, 'utf8'));
      else if (url.pathname === '/theme.css')
        send(
          'text/css',
          `${themeCss('dark')}\nbody { background: var(--vscode-editor-background); color: var(--vscode-foreground); }`,
        );
      else {
        res.writeHead(404);
        res.end();
      }
    });
    const { chromium } = createRequire(__filename)('playwright-core') as typeof Playwright;
    browser = await launchPanelBrowser(chromium);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page with one output of 100,000 rows (or `rows`) rendered: hour (TIMESTAMP), device_id, n (BIGINT), x (DOUBLE, some null). */
  async function renderAnswer(options: { messaging?: boolean; rows?: number } = {}): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/?messaging=${options.messaging === false ? 'off' : 'on'}`);
    await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true);
    await page.evaluate(
      ({ rows, hostile }) => {
        const t0 = Date.UTC(2026, 10, 20, 0);
        const data = {
          columns: [
            { name: 'hour', type: 'TIMESTAMP' },
            { name: 'device_id', type: 'VARCHAR' },
            { name: 'n', type: 'BIGINT' },
            { name: 'x', type: 'DOUBLE' },
          ],
          // n: a permutation of 0..99,999 scattered over the rows (7919 is prime), so that sorting moves them.
          rows: Array.from({ length: rows }, (_, i) => [
            new Date(t0 + (i % 48) * 3_600_000).toISOString(),
            i === 7 ? hostile : `device-${String(i).padStart(6, '0')}`,
            (i * 7919) % rows,
            i % 5 === 0 ? null : i / 10,
          ]),
          total: 250_000,
        };
        (window as unknown as { __render(id: string, data: unknown): void }).__render('output-1', data);
      },
      { rows: options.rows ?? ROWS, hostile: HOSTILE },
    );
    await page.locator('[data-testid="sql-table"] [aria-rowindex="2"]').waitFor();
    return page;
  }

  /** The export requests the page posted to the extension. */
  const exports = (page: Page) =>
    page.evaluate(() =>
      (window as unknown as { __posted: ExportAnswerMessage[] }).__posted
        .filter((m) => m.type === 'exportSqlAnswer')
        // A summary: sending 100,000 rows back to the test would take longer than the rest of the test.
        .map((m) => ({
          type: m.type,
          format: m.format,
          columns: m.columns,
          rowCount: m.rows.length,
          firstRows: m.rows.slice(0, 2),
        })),
    );
  const firstCell = (page: Page, col: string) =>
    page.locator(`[data-testid="sql-table"] [aria-rowindex="2"] [data-col="${col}"]`).textContent();

  it('shows 100,000 rows in a virtualised table: few rows in the page, the count, and the last row reached by scrolling', async () => {
    const page = await renderAnswer();
    const table = page.locator('[data-testid="sql-table"]');
    assert.equal(await table.getAttribute('aria-rowcount'), String(ROWS + 1));
    assert.equal(await page.locator('[data-testid="row-count"]').textContent(), '100,000 rows');
    assert.match(
      (await page.locator('[data-testid="rows-cut"]').textContent()) ?? '',
      /gave 250,000 rows; the first 100,000 are here/,
    );
    const inPage = await table.locator('.vt-row').count();
    assert.ok(inPage > 5 && inPage < 100, `${inPage} rows in the page for ${ROWS}`);
    assert.deepEqual(await table.locator('.vt-head').allTextContents(), ['hour', 'device_id', 'n', 'x']);
    assert.equal(await firstCell(page, 'hour'), '2026-11-20 00:00:00Z', 'a TIMESTAMP is shown as a time');
    await table.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = table.locator(`[aria-rowindex="${ROWS + 1}"] [data-col="device_id"]`);
    await last.waitFor();
    assert.equal(await last.textContent(), `device-${String(ROWS - 1).padStart(6, '0')}`);
    assert.ok((await table.locator('.vt-row').count()) < 100, 'still few rows in the page at the end');
    await page.close();
  });

  it('sorts by a column header, numbers as numbers, ascending then descending; empty cells last', async () => {
    const page = await renderAnswer();
    const head = page.locator('[data-testid="sql-table"] .vt-head[data-col="n"]');
    await head.locator('.vt-sort').click();
    assert.equal(await head.getAttribute('aria-sort'), 'ascending');
    assert.equal(await firstCell(page, 'n'), '0');
    await head.locator('.vt-sort').click();
    assert.equal(await head.getAttribute('aria-sort'), 'descending');
    assert.equal(
      await firstCell(page, 'n'),
      String(ROWS - 1),
      'the largest n first: 99999 sorts above 100 as a number',
    );
    const x = page.locator('[data-testid="sql-table"] .vt-head[data-col="x"] .vt-sort');
    await x.click();
    await x.click();
    assert.equal(await firstCell(page, 'x'), String((ROWS - 1) / 10), 'descending x; the null cells do not come first');
    await page.close();
  });

  it('Save CSV posts the rows as the table shows them to the extension, which answers where it saved them', async () => {
    const page = await renderAnswer();
    await page.locator('[data-testid="sql-table"] .vt-head[data-col="n"] .vt-sort').click();
    await page.locator('[data-testid="sql-table"] .vt-head[data-col="n"] .vt-sort').click();
    await page.locator('[data-testid="export-csv"]').click();
    await page.waitForFunction(
      () =>
        (window as unknown as { __posted: { type: string }[] }).__posted.filter((m) => m.type === 'exportSqlAnswer')
          .length === 1,
    );
    const [message] = await exports(page);
    assert.equal(message.type, 'exportSqlAnswer');
    assert.equal(message.format, 'csv');
    assert.deepEqual(
      message.columns.map((c) => c.name),
      ['hour', 'device_id', 'n', 'x'],
    );
    assert.equal(message.rowCount, ROWS, 'every row, not only those in the page');
    assert.deepEqual(
      message.firstRows.map((r) => r[2]),
      [ROWS - 1, ROWS - 2],
      'in the order shown: n descending',
    );
    assert.equal(await page.locator('[data-testid="export-status"]').textContent(), 'Saving…');
    await page.evaluate(() =>
      (window as unknown as { __hostSays(m: unknown): void }).__hostSays({
        type: 'exportedSqlAnswer',
        saved: 'harvest-answer.csv',
      }),
    );
    await page.waitForFunction(
      () => document.querySelector('[data-testid="export-status"]')?.textContent === 'Saved harvest-answer.csv',
    );
    await page.locator('[data-testid="export-json"]').click();
    await page.waitForFunction(
      () =>
        (window as unknown as { __posted: { type: string }[] }).__posted.filter((m) => m.type === 'exportSqlAnswer')
          .length === 2,
    );
    assert.equal((await exports(page))[1].format, 'json');
    await page.close();
  });

  it("asks the extension for VS Code's display language and translations, and shows the table in them", async () => {
    const page = await renderAnswer({ rows: 1000 });
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted.map((m) => m.type)),
      ['l10n?'],
    );
    assert.equal(
      await page.locator('[data-testid="export-csv"]').textContent(),
      'Save CSV',
      'English until the extension answers',
    );
    await page.evaluate(() =>
      (window as unknown as { __hostSays(m: unknown): void }).__hostSays({
        type: 'l10n',
        language: 'de',
        contents: { 'Save CSV': 'CSV speichern', rows: 'Zeilen' },
      }),
    );
    await page.waitForFunction(
      () => document.querySelector('[data-testid="export-csv"]')?.textContent === 'CSV speichern',
    );
    assert.equal(
      await page.locator('[data-testid="row-count"]').textContent(),
      '1.000 Zeilen',
      'counts in the display language',
    );
    await page.locator('[data-testid="sql-table"] [aria-rowindex="2"]').waitFor();
    await page.close();
  });

  it('offers no Save buttons where no extension can answer (no messaging)', async () => {
    const page = await renderAnswer({ messaging: false, rows: 1000 });
    assert.equal(await page.locator('[data-testid="export-csv"]').count(), 0);
    assert.equal(await page.locator('[data-testid="sql-table"] .vt-row').first().isVisible(), true);
    await page.close();
  });

  it('draws a line chart of the time column with one line per numeric column, named in its legend', async () => {
    const page = await renderAnswer({ rows: 1000 });
    const chart = page.locator('[data-testid="sql-chart"]');
    assert.equal(await chart.locator('polyline').count(), 2);
    assert.deepEqual(await page.locator('.mae-legend li').allTextContents(), ['n', 'x']);
    assert.equal(await chart.getAttribute('aria-label'), 'n, x over hour');
    const box = await chart.boundingBox();
    assert.ok(box && box.width > 300 && box.height > 80, `the chart has room: ${JSON.stringify(box)}`);
    await page.close();
  });

  it("draws the metrics' 14 series readably: none that is zero at every hour, and series the same at every hour as one line named after each", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/?messaging=on`);
    await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true);
    await page.evaluate(() => {
      const t0 = Date.UTC(2026, 10, 20, 0);
      // As the starter notebook's metrics per hour: PROW states (most zero in a small harvest), trips started and ended
      // (the same every hour here), durations, distances, telemetry points.
      const zero = ['non_operational', 'reserved', 'elsewhere', 'unknown', 'removed', 'non_contactable'];
      const busy = ['available', 'on_trip', 'prow_at_hour_end', 'duration_p50_s', 'distance_p50_m', 'telemetry_points'];
      const columns = [
        { name: 'hour', type: 'TIMESTAMP' },
        ...[...zero, ...busy, 'trips_started', 'trips_ended'].map((name) => ({ name, type: 'BIGINT' })),
      ];
      const rows = Array.from({ length: 24 }, (_, i) => [
        new Date(t0 + i * 3_600_000).toISOString(),
        ...zero.map(() => 0),
        ...busy.map((_, k) => (k + 1) * 10 + i * (k + 1)),
        5 + (i % 3),
        5 + (i % 3),
      ]);
      (window as unknown as { __render(id: string, data: unknown): void }).__render('output-metrics', {
        columns,
        rows,
        total: rows.length,
      });
    });
    const chart = page.locator('#output-metrics [data-testid="sql-chart"]');
    await chart.waitFor();
    assert.equal(
      await chart.locator('polyline').count(),
      7,
      'six series of their own and one line for trips started and ended',
    );
    const legend = await page.locator('#output-metrics .mae-legend li').allTextContents();
    assert.ok(legend.includes('trips_started = trips_ended (the same at every point: one line)'), legend.join(' | '));
    assert.equal(
      await page.locator('#output-metrics [data-testid="chart-zero"]').textContent(),
      'Zero at every point, not drawn: non_operational, reserved, elsewhere, unknown, removed, non_contactable',
    );
    assert.equal(
      await page.locator('#output-metrics [data-testid="chart-more"]').count(),
      0,
      'every line with something to show is drawn',
    );
    await page.close();
  });

  it("draws the Metrics view's map above a cell per geography: shaded by its count, -1 suppressed, names as text (issue 40)", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/?messaging=on`);
    await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true);
    await page.evaluate((hostile) => {
      const square = (x: number) => [
        [
          [x, 52],
          [x + 0.1, 52],
          [x + 0.1, 52.1],
          [x, 52.1],
          [x, 52],
        ],
      ];
      const shapes = [
        { id: 'g-1', name: hostile, polygons: [square(13)] },
        { id: 'g-2', name: 'North', polygons: [square(13.1)] },
        { id: 'g-3', name: 'Harbour', polygons: [square(13.2)] },
      ];
      const columns = [
        { name: 'geography_id', type: 'VARCHAR' },
        { name: 'trips.start_loc.count', type: 'BIGINT' },
      ];
      (window as unknown as { __render(id: string, data: unknown): void }).__render('output-map', {
        columns,
        rows: [
          ['g-1', 42],
          ['g-2', -1],
        ],
        total: 2,
        shapes,
      });
    }, HOSTILE);
    const paths = page.locator('#output-map [data-testid="geo-map"] path');
    await paths.first().waitFor();
    assert.deepEqual(await paths.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-class'))), [
      '0',
      'suppressed',
      'missing',
    ]);
    assert.match(
      (await paths.first().locator('title').textContent()) ?? '',
      /^<img src=x onerror=pwn\(1\)> \(g-1\): trips\.start_loc\.count 42$/,
    );
    assert.match(
      (await page.locator('#output-map [data-testid="map-legend"]').textContent()) ?? '',
      /fewer than k: suppressed \(-1\), not 0/,
    );
    assert.equal(await page.locator('img').count(), 0);
    const signs = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned: string[] }).__pwned,
      violations: (window as unknown as { __violations: string[] }).__violations,
    }));
    assert.deepEqual(signs, { pwned: [], violations: [] });
    await page.close();
  });

  it('shows data as text: markup in a value is shown as written and runs nothing', async () => {
    const page = await renderAnswer({ rows: 1000 });
    const cell = page.locator('[data-testid="sql-table"] [aria-rowindex="9"] [data-col="device_id"]');
    // An id column shortens a long value in the middle; the whole value is its tooltip, as text.
    assert.equal(await cell.getAttribute('title'), HOSTILE);
    assert.ok(
      HOSTILE.startsWith(((await cell.textContent()) ?? '').split('…')[0]),
      'the start of the value, as written',
    );
    assert.equal(await page.locator('img').count(), 0, 'no element was made from the value');
    const signs = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned: string[] }).__pwned,
      violations: (window as unknown as { __violations: string[] }).__violations,
    }));
    assert.deepEqual(signs, { pwned: [], violations: [] });
    await page.close();
  });
});
