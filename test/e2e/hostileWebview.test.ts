import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { startTestServer } from '../unit/support/testServer';
import type { TestServer } from '../unit/support/testServer';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import { openViewContainer, pickQuickPickItem, runCommand, step, treeRow, waitForSandboxRunning } from './workbench';

// Every string the server controls carries one of these. `pwn` is defined in every frame by the init
// script below: a payload that runs calls it, or posts a message up, and is counted either way.
const CORPUS = {
  script: `<script>pwn('script')</script>`,
  img: `<img src=x onerror="pwn('img')">`,
  svg: `"><svg onload="pwn('svg')"></svg>`,
  jsUrl: `javascript:pwn('js-url')`,
  anchor: `<a href="javascript:pwn('anchor')">click me</a>`,
  iframe: `<iframe srcdoc="<script>parent.pwn('iframe')</script>"></iframe>`,
  postMessage: `<img src=x onerror="parent.postMessage({pwned:'post'},'*');top.postMessage({pwned:'top'},'*')">`,
  vscodeApi: `<img src=x onerror="acquireVsCodeApi().postMessage({type:'openInEditor',resultId:'x',pageIndex:0})">`,
  styleBreak: `</style><style>*{display:none!important}</style>`,
  styleAttr: `x" style="position:fixed;inset:0;background:red;z-index:2147483647`,
  cssUrl: `background:url("javascript:pwn('css-url')");width:expression(pwn('css-expr'))`,
  meta: `<meta http-equiv="refresh" content="0;url=javascript:pwn('meta')">`,
  base: `<base href="javascript:pwn('base')//">`,
  template: `{{constructor.constructor('pwn("template")')()}} \${pwn('template-literal')}`,
  long: 'W'.repeat(20_000),
  longWords: `${'hostile '.repeat(2_000)}end`,
  rtl: '\u202Egnp.exe\u202C and \u202Bright-to-left\u202C \u2067isolate',
  emoji: '🚲🛴👩‍👩‍👧‍👦🏳️‍🌈 Z̴̡̧͇͙a̷͎͕l̸̨̼g̶o',
  control: '\u0000\u0007\u001b[31mred\u001b[0m\u200b\ufeff',
} as const;
const STRINGS = Object.values(CORPUS);
const pick = (i: number) => STRINGS[i % STRINGS.length];

// Runs in every frame before its own scripts: the workbench, each webview's outer and inner frame.
// VS Code fills a webview's inner frame with document.open()/write(), which erases every listener of the
// document and its window; so the listeners are added again after each open().
const HOOK = `(() => {
  if (window.__hostileHook) return;
  window.__hostileHook = true;
  window.__pwned = [];
  window.__violations = [];
  const record = (what) => { window.__pwned.push(String(what)); };
  Object.defineProperty(window, 'pwn', { value: record, configurable: false, writable: false });
  const onViolation = (e) => {
    const t = e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 160) : String(e.target && e.target.nodeName);
    window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' at ' + (e.sourceFile || '') + ':' + e.lineNumber + ':' + e.columnNumber + ' on ' + t);
  };
  const onMessage = (e) => { try { if (e.data && typeof e.data === 'object' && 'pwned' in e.data) record('message:' + e.data.pwned); } catch {} };
  const arm = () => {
    window.addEventListener('securitypolicyviolation', onViolation, true);
    window.addEventListener('message', onMessage, true);
  };
  arm();
  const open = Document.prototype.open;
  Document.prototype.open = function (...args) {
    const result = open.apply(this, args);
    arm();
    return result;
  };
})();`;

function vehicle(i: number): Record<string, unknown> {
  const location = { lat: 52.5 + (i % 10) / 100, lng: 13.4 + (i % 7) / 100 };
  return {
    device_id: pick(i),
    provider_id: pick(i + 1),
    vehicle_id: pick(i + 2),
    vehicle_type: pick(i + 3),
    propulsion_types: [pick(i + 4), pick(i + 5)],
    // An own "__proto__" key, as JSON.parse makes it.
    vehicle_attributes: { ...(JSON.parse('{"__proto__":{"polluted":true}}') as object), [pick(i + 6)]: pick(i + 7) },
    last_event: {
      event_id: pick(i + 8),
      vehicle_state: pick(i + 9),
      event_types: [pick(i + 10), pick(i + 11)],
      timestamp: Date.now(),
      location,
    },
    last_telemetry: {
      telemetry_id: pick(i + 12),
      timestamp: Date.now(),
      trip_ids: [pick(i + 13)],
      journey_id: pick(i + 14),
      location,
      battery_percent: (i * 7) % 100,
    },
  };
}

const PAGE_SIZE = STRINGS.length;
const ERROR_BODY = {
  error: CORPUS.script,
  error_description: CORPUS.img,
  error_details: STRINGS.map((s, i) => `${Object.keys(CORPUS)[i]}: ${s}`),
};

/** A provider whose every string is hostile: /vehicles (two pages) and /vehicles/status (a 500 with an MDS error body). */
async function hostileServer(): Promise<TestServer & { requests: string[] }> {
  const requests: string[] = [];
  const server = await startTestServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    const headers = { 'X-Evil': `<img src=x onerror="pwn('header')">`, Link: `<javascript:pwn('link')>; rel="next"` };
    if (url.pathname === '/vehicles') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const body = {
        version: '2.0.0',
        vehicles: Array.from({ length: PAGE_SIZE }, (_, i) => vehicle(i + (page - 1) * PAGE_SIZE)),
        links:
          page === 1
            ? { next: `/vehicles?page=2&q=${encodeURIComponent(CORPUS.script)}`, [CORPUS.img]: CORPUS.jsUrl }
            : {},
      };
      res.writeHead(200, { ...headers, 'Content-Type': 'application/vnd.mds+json;version=2.0' });
      res.end(JSON.stringify(body));
      return;
    }
    if (url.pathname === '/vehicles/status') {
      res.writeHead(500, `<script>pwn('status-text')</script>`, { ...headers, 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ERROR_BODY));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'not_found', error_description: CORPUS.svg }));
  });
  return { ...server, requests };
}

/** The webview frame (the inner one, with the extension's HTML) that shows `selector`, newest first. */
async function resultsFrame(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const find = async (): Promise<Frame | undefined> => {
    for (const frame of [...page.frames()].reverse()) {
      if (frame === page.mainFrame()) continue;
      if (
        await frame
          .locator(selector)
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    return undefined;
  };
  const found = await waitUntil(`a webview frame showing ${selector}`, find, (frame) => frame !== undefined, {
    timeoutMs,
    intervalMs: 500,
  }).catch(() => undefined);
  if (!found) throw new Error(`no webview frame shows ${selector}`);
  return found;
}

interface Seen {
  pwned: string[];
  /** CSP reports inside the webview frames: the results panel's own CSP. */
  webview: string[];
  /** CSP reports in the workbench frame (VS Code's own rendering of tree items, hovers, quick picks). */
  workbench: string[];
  hooked: number;
}

/** What the hook recorded in every frame of the page. */
async function seen(page: Page): Promise<Seen> {
  const result: Seen = { pwned: [], webview: [], workbench: [], hooked: 0 };
  for (const frame of page.frames()) {
    const r = await frame
      .evaluate(() => {
        const w = window as unknown as { __hostileHook?: boolean; __pwned?: string[]; __violations?: string[] };
        return { hooked: !!w.__hostileHook, pwned: [...(w.__pwned ?? [])], violations: [...(w.__violations ?? [])] };
      })
      .catch(() => undefined);
    if (!r) continue;
    if (r.hooked) result.hooked++;
    result.pwned.push(...r.pwned.map((p) => `${p} (in ${frame.url().slice(-60)})`));
    (frame === page.mainFrame() ? result.workbench : result.webview).push(...r.violations);
  }
  return result;
}

interface Box {
  testid: string;
  left: number;
  right: number;
  top: number;
  width: number;
  height: number;
}

/** Bounding boxes of the panel's controls, the frame's width and whether the page scrolls sideways. */
async function layout(
  frame: Frame,
): Promise<{ width: number; scrollWidth: number; boxes: Box[]; rowHeights: number[] }> {
  return frame.evaluate(() => {
    const boxes = Array.from(
      document.querySelectorAll<HTMLElement>(
        '[data-testid^="view-"], [data-testid="copy-curl-top"], [data-testid="run-again"], [data-testid="table-filter"], [data-testid="row-count"], [data-testid="load-next-page"], [data-testid="summary-line"]',
      ),
    )
      .filter((el) => el.offsetParent !== null)
      .map((el) => {
        const r = el.getBoundingClientRect();
        return {
          testid: el.getAttribute('data-testid') ?? '',
          left: r.left,
          right: r.right,
          top: r.top,
          width: r.width,
          height: r.height,
        };
      });
    const rowHeights = Array.from(document.querySelectorAll<HTMLElement>('.vt-row'))
      .slice(0, 20)
      .map((r) => r.getBoundingClientRect().height);
    return { width: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, boxes, rowHeights };
  });
}

/**
 * The results panel in the real VS Code renders a provider's hostile answer (script tags, event
 * handlers, javascript: URLs, CSS injection, 20,000-character strings, RTL overrides, emoji) as text:
 * nothing runs, nothing even trips the CSP, and the panel stays usable.
 */
describe('the results panel against a hostile provider', function () {
  this.timeout(240_000);
  const folders = e2eFolders();
  const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
  const artifacts = process.env.E2E_ARTIFACTS_DIR ?? '.';
  const envName = `Hostile provider <img src=x onerror=pwn('name')>`;
  const consoleLines: string[] = [];
  let original = '';
  let hostile: Awaited<ReturnType<typeof hostileServer>>;

  // These hooks are registered before useWorkbench()'s, so the workbench loads with the custom environment
  // already in the user settings, and the clean-up runs while the browser is still open.
  before(async () => {
    hostile = await hostileServer();
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.customEnvironments'] = [
      { id: 'hostile', name: envName, api: 'mds', stage: CORPUS.script, baseUrl: hostile.url },
    ];
    // One page at a time, so that "load next page" (whose link carries a hostile query) has a page to load.
    settings['mobilityApi.request.loadAllPages'] = false;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  });

  after(async () => {
    await runCommand(wb.page, 'Mobility API: Stop Local Sandbox').catch(() => undefined);
    // The run's later test files share these settings.
    if (original) fs.writeFileSync(settingsFile, original);
    await hostile?.close();
  });
  const wb = useWorkbench({ initScript: HOOK });

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(artifacts, `hostile-webview-${name}.png`) });

  before('bind the sandbox demo credential to a custom environment that points at the hostile provider', async () => {
    const page = wb.page;
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
    const row = await step(page, 'see the custom environment from settings.json', () =>
      treeRow(page, 'Environments', envName),
    );
    await row.hover();
    // The screenshot is of the tooltip; VS Code shows it after its hover delay (a missing one is only a poorer picture).
    await page
      .locator('.monaco-hover')
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 })
      .catch(() => undefined);
    await shot(page, 'tree-tooltip');
    await step(page, 'start the local sandbox (for its demo credential)', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'bind the demo credential to the hostile environment too', async () => {
      await runCommand(page, 'Mobility API: Bind Credential to Environments');
      await pickQuickPickItem(page, 'Sandbox demo credential');
      await pickQuickPickItem(page, envName);
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 20_000 });
    });
  });

  it('shows the hostile listing as text in every view; nothing runs, the CSP is never even tried, the layout holds', async () => {
    const page = wb.page;
    await step(page, 'run "Mobility API: List Vehicles" on the hostile environment', async () => {
      await runCommand(page, 'Mobility API: List Vehicles');
      await pickQuickPickItem(page, envName);
    });
    const frame = await step(page, 'wait for the table', () => resultsFrame(page, '[data-testid="row-count"]'));
    const panel = frame;
    await panel
      .locator(`[data-testid="row-count"][data-rows="${PAGE_SIZE}"]`)
      .waitFor({ timeout: 20_000 })
      .catch(() => undefined);
    assert.equal(await panel.locator('[data-testid="row-count"]').getAttribute('data-rows'), String(PAGE_SIZE));
    assert.equal(await panel.locator('.vt-row[aria-rowindex="2"] [data-col="deviceId"]').textContent(), CORPUS.script);
    await shot(page, 'table');
    const tableLayout = await layout(frame);

    await step(page, 'load the next page (its link carries a hostile query)', async () => {
      await panel.locator('[data-testid="load-next-page"]').first().click();
      await frame.waitForFunction(
        (n) => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === String(n),
        PAGE_SIZE * 2,
        { timeout: 30_000 },
      );
    });
    await step(page, 'switch to the JSON tree and search it', async () => {
      await panel.locator('[data-testid="view-tree"]').click();
      await panel.locator('[data-testid="json-tree"]').waitFor({ timeout: 20_000 });
      await panel.locator('[data-testid="json-search"] input').fill('pwn');
      await panel.locator('[data-testid="json-search"] input').press('Enter');
    });
    await shot(page, 'json');
    const raw = await step(page, 'switch to Raw', async () => {
      await panel.locator('[data-testid="view-raw"]').click();
      const el = panel.locator('[data-testid="raw-body"]');
      await el.waitFor({ timeout: 20_000 });
      return (await el.textContent()) ?? '';
    });
    assert.ok(
      raw.includes(JSON.stringify(CORPUS.img)) && raw.includes(CORPUS.script) && raw.includes(CORPUS.long),
      'the raw view shows the body as text',
    );
    await shot(page, 'raw');
    await step(page, 'switch to Positions', async () => {
      await panel.locator('[data-testid="view-plot"]').click();
      await panel.locator('[data-testid="plot-legend"]').waitFor({ timeout: 20_000 });
    });
    await shot(page, 'plot');
    await step(page, 'back to the table', async () => {
      await panel.locator('[data-testid="view-table"]').click();
      await panel.locator('[data-testid="vehicle-table"]').waitFor({ state: 'visible', timeout: 20_000 });
    });

    const result = await seen(page);
    const injected = await frame.evaluate(() => ({
      scripts: document.scripts.length,
      elements: document.querySelectorAll(
        'img, iframe, svg, a[href^="javascript"], meta[http-equiv="refresh"], base, [onerror], [onload], [onclick], [style*="inset"]',
      ).length,
      styles: document.querySelectorAll('style').length,
      title: document.title,
    }));
    console.log(
      `      hostile listing: ${STRINGS.length} corpus strings in ${PAGE_SIZE * 2} vehicles, ${hostile.requests.length} requests; ` +
        `hooked frames ${result.hooked}; script executions ${result.pwned.length}; CSP violations in the panel ${result.webview.length}; injected elements ${injected.elements}`,
    );
    console.log(
      `      the workbench frame reported ${result.workbench.length} blocked inline handler(s) (script-src-attr), all while VS Code sanitised markup: ${[...new Set(result.workbench.map((v) => v.replace(/ on .*/, '').replace(/^.*\/static\/out\//, '')))].join('; ')}`,
    );
    console.log(
      `      layout (table view): frame ${tableLayout.width}px wide, page scrollWidth ${tableLayout.scrollWidth}px, ` +
        `rightmost control edge ${Math.round(Math.max(...tableLayout.boxes.map((b) => b.right)))}px, tallest of the first rows ${Math.round(Math.max(...tableLayout.rowHeights))}px`,
    );
    assert.ok(result.hooked >= 3, `the hook ran in the workbench and the webview frames (${result.hooked})`);
    assert.deepEqual(result.pwned, [], 'no hostile string ran');
    assert.deepEqual(result.webview, [], 'nothing in the panel even tried to break its CSP');
    assert.equal(injected.elements, 0, 'no element came from response data');
    assert.deepEqual(
      consoleLines.filter((l) => /pwn/i.test(l)),
      [],
      'the console saw no payload (no "pwn is not defined" either)',
    );

    // Usable: the table shows rows of normal height, and every control is on screen, in the frame's width.
    assert.ok(tableLayout.rowHeights.length > 5, 'the table shows rows');
    assert.ok(Math.max(...tableLayout.rowHeights) < 80, `rows keep their height: ${tableLayout.rowHeights.join(', ')}`);
    for (const id of ['view-table', 'view-tree', 'view-raw', 'view-plot', 'copy-curl-top', 'table-filter']) {
      const box = tableLayout.boxes.find((b) => b.testid === id);
      assert.ok(box && box.width > 0 && box.height > 0, `${id} is shown`);
      assert.ok(
        box.left >= 0 && box.right <= tableLayout.width + 1,
        `${id} stays inside the panel: ${JSON.stringify(box)} in ${tableLayout.width}px`,
      );
    }
  });

  it('shows a hostile 500 error body as text, with the same guarantees', async () => {
    const page = wb.page;
    await step(page, 'run "Mobility API: Vehicle Status (MDS)" on the hostile environment', async () => {
      await runCommand(page, 'Mobility API: Vehicle Status (MDS)');
      await pickQuickPickItem(page, envName);
    });
    const frame = await step(page, 'wait for the error panel', () => resultsFrame(page, '[data-testid="error-panel"]'));
    const panel = frame;
    assert.equal(await panel.locator('[data-testid="error-description"]').textContent(), CORPUS.img);
    await frame.evaluate(() =>
      document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
    );
    await shot(page, 'error');
    const result = await seen(page);
    assert.deepEqual(result.pwned, []);
    assert.deepEqual(result.webview, []);
    const boxes = (await layout(frame)).boxes;
    assert.ok(
      boxes.some((b) => b.testid === 'run-again' && b.right > 0),
      'Run again is on screen',
    );
  });

  it('the detectors work: markup planted in the panel is blocked by the CSP and counted', async () => {
    const page = wb.page;
    const frame = await resultsFrame(page, '[data-testid="error-panel"]');
    await frame.evaluate(() =>
      document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="pwn(\'planted\')">'),
    );
    // The image fails to load at once; its handler either runs (counted in pwned) or is blocked (a CSP report).
    const result = await waitUntil(
      'the planted handler to run or be reported',
      () => seen(page),
      (r) => r.pwned.length + r.webview.length > 0,
      { timeoutMs: 10_000, intervalMs: 100 },
    ).catch(() => seen(page));
    console.log(
      `      planted inline handler: ${result.pwned.length} executions, ${result.webview.length} CSP violations counted in the panel`,
    );
    assert.deepEqual(result.pwned, [], 'the CSP blocks the planted inline handler');
    assert.equal(
      result.webview.length,
      1,
      `the blocked handler is counted as one CSP violation: ${result.webview.join(' | ')}`,
    );
    assert.match(result.webview[0], /^script-src-attr/);
    // And a call that does run in the panel is counted, so "0 executions" above was read from the right frame.
    await frame.evaluate(() => (window as unknown as { pwn: (what: string) => void }).pwn('probe'));
    assert.deepEqual(
      (await seen(page)).pwned.map((p) => p.replace(/ \(in .*/, '')),
      ['probe'],
    );
  });
});
