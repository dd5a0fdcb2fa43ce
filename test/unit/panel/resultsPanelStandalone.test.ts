// The results panel's real browser bundle (dist/webview/main.js) in headless Chromium, without VS Code:
// a tiny static server serves the panel's own HTML (panelHtml, the same CSP and nonce) plus a stub of
// acquireVsCodeApi, and the test posts the view models the host would post. It checks what a user
// sees (row count, cells, views), that 100,000 rows stay virtualised, and that hostile strings in a
// response render as text and execute nothing, with the CSP on and with it off.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/resultsPanelStandalone.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { HttpExchange, VehicleListing } from '../../../src/core/http/exchange';
import { ApiClient } from '../../../src/core/http/apiClient';
import type { Credential } from '../../../src/core/auth/credential';
import { decodeJwt } from '../../../src/core/auth/decodeJwt';
import type { Environment } from '../../../src/core/environment';
import { lintToken } from '../../../src/core/auth/lintToken';
import { SyntheticFleet } from '../../../src/sandbox/world/syntheticFleet';
import { bodyView } from '../../../src/results/requests/bodyView';
import { listingView } from '../../../src/results/requests/listingView';
import { tokenResultView } from '../../../src/results/tokens/tokenView';
import { waitUntil } from '../support/waitUntil';
import { deliverHostMessages as deliver, postedMessages, useStandalonePanel } from './standalonePanelPage';

const ROOT = process.cwd();
const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR ?? path.join(ROOT, 'test-results', 'panel');

const posted = (page: Page) => postedMessages(page);

async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `standalone-${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

const HOSTILE = {
  script: `<script>pwn('script')</script>`,
  img: `<img src=x onerror="pwn('img')">`,
  js: `javascript:pwn('js')`,
  textarea: `</textarea><script>pwn('textarea')</script><textarea>`,
  svg: `"><svg onload="pwn('svg')"></svg>`,
};

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A listing whose every string a server controls is hostile, with a token that must never reach the page. */
function hostileListing(status: number): { listing: VehicleListing; token: string } {
  const now = Math.floor(Date.now() / 1000);
  const token = `${b64({ alg: 'ES256', kid: HOSTILE.img, typ: 'JWT' })}.${b64({ iss: HOSTILE.script, aud: HOSTILE.js, iat: now, exp: now + 300, jti: HOSTILE.textarea })}.${'s'.repeat(86)}`;
  const vehicles = Object.values(HOSTILE).map((text, i) => ({
    device_id: text,
    provider_id: HOSTILE.svg,
    vehicle_id: HOSTILE.img,
    last_event: {
      vehicle_state: Object.values(HOSTILE)[(i + 1) % 5],
      event_types: [HOSTILE.js],
      timestamp: Date.now(),
      location: { lat: 52.5 + i / 100, lng: 13.4 + i / 100 },
    },
    last_telemetry: { battery_percent: 50 + i, location: { lat: 52.5 + i / 100, lng: 13.4 + i / 100 } },
    vehicle_type: HOSTILE.textarea,
    propulsion_types: [HOSTILE.script, HOSTILE.js],
    [HOSTILE.img]: HOSTILE.svg,
  }));
  const error = {
    error: HOSTILE.script,
    error_description: HOSTILE.img,
    error_details: [
      `rule: ${HOSTILE.textarea}`,
      `spec: ${HOSTILE.js}`,
      `requirement: ${HOSTILE.svg}`,
      `hint: ${HOSTILE.img}`,
    ],
  };
  const body =
    status === 200
      ? { version: '2.0.0', vehicles_status: vehicles, links: { next: HOSTILE.js, [HOSTILE.script]: HOSTILE.img } }
      : error;
  const text = JSON.stringify(body, null, 2);
  const page: HttpExchange = {
    url: `https://sandbox.test.invalid/vehicles/status?q=${HOSTILE.script}`,
    method: 'GET',
    requestHeaders: { 'Content-Type': 'application/json', Authorization: 'Bearer <redacted>', 'X-Note': HOSTILE.img },
    token: { token, header: { alg: 'ES256', kid: 'k', typ: 'JWT' }, claims: {} as never, environmentId: 'hostile' },
    status,
    statusText: status === 200 ? 'OK' : HOSTILE.textarea,
    ok: status === 200,
    responseHeaders: { 'content-type': 'application/json', 'x-evil': HOSTILE.img, link: `<${HOSTILE.js}>; rel="next"` },
    contentType: 'application/json',
    body,
    bodyKind: 'json',
    text,
    bytes: text.length,
    timings: { queuedMs: 0, signMs: 1, ttfbMs: 5, totalMs: 9 },
  };
  if (status !== 200) page.mdsError = error;
  return {
    listing: {
      pages: [page],
      items: status === 200 ? vehicles : [],
      listKey: status === 200 ? 'vehicles_status' : undefined,
      nextUrl: status === 200 ? HOSTILE.js : undefined,
      stoppedBecause: status === 200 ? undefined : HOSTILE.svg,
    },
    token,
  };
}

const HOSTILE_ENV: Environment = {
  id: 'hostile',
  name: HOSTILE.script,
  api: 'mds',
  stage: HOSTILE.img,
  baseUrl: `https://sandbox.test.invalid/${HOSTILE.textarea}`,
};

/**
 * Resolves after the page has rendered two more frames and run the tasks queued before them: what the
 * panel does in reaction to a message or a scroll has happened by then.
 */
async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))),
  );
}

async function clickView(page: Page, view: 'table' | 'tree' | 'raw' | 'plot'): Promise<void> {
  await page.locator(`[data-testid="view-${view}"]`).click();
}

describe('results panel bundle in Chromium (standalone page)', function () {
  this.timeout(180_000);
  const panel = useStandalonePanel({ fleetSize: 1500 });
  let credential: Credential;
  let environment: Environment;

  before(() => {
    ({ credential, environment } = panel);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`shows a sandbox vehicle-status listing: row count, cells, sorting, JSON tree, Raw and positions (${theme} theme)`, async () => {
      const listing = await new ApiClient().listVehicles(environment, credential, { query: { status: true } });
      const view = listingView({
        id: `sandbox-${theme}`,
        environment,
        listing,
        credentialLabel: 'demo',
        canLoadNext: true,
        canCopyCurl: true,
        now: Date.now(),
      });
      const page = await panel.openPanel({ theme });
      await deliver(page, { type: 'show', panelKey: 'env:mds-staging', result: view });

      const count = page.locator('[data-testid="row-count"]');
      await count.waitFor();
      assert.equal(await count.getAttribute('data-rows'), '1000');
      assert.equal(await count.textContent(), '1,000 vehicles');
      const first = listing.items[0] as { device_id: string; last_event: { vehicle_state: string } };
      assert.equal(
        await page.locator('.vt-row[aria-rowindex="2"] [data-col="deviceId"]').textContent(),
        first.device_id,
      );
      assert.equal(
        (await page.locator('.vt-row[aria-rowindex="2"] [data-col="state"]').textContent())?.trim(),
        first.last_event.vehicle_state,
      );
      const rendered = await page.locator('.vt-row').count();
      assert.ok(rendered < 80, `only the rows in view are in the DOM (${rendered} of 1000)`);
      const token = listing.pages[0].token?.token ?? '';
      assert.equal(await page.locator('[data-testid="request-headers"]').count(), 1);
      assert.ok(!(await page.content()).includes(token), 'the raw token is not in the page');
      await shot(page, `table-${theme}`);

      // Sort by battery, descending: the first row has the highest battery of all.
      await page.locator('.vt-head[data-col="battery"]').click();
      await page.locator('.vt-head[data-col="battery"]').click();
      assert.equal(await page.locator('.vt-head[data-col="battery"]').getAttribute('aria-sort'), 'descending');
      const max = Math.max(...view.vehicles.battery.filter((b) => !Number.isNaN(b)));
      assert.equal(
        await page.locator('.vt-row[aria-rowindex="2"] [data-col="battery"]').textContent(),
        `${Math.round(max)} %`,
      );

      // Filter by state.
      const state = first.last_event.vehicle_state;
      const expected = listing.items.filter((v) => (v as typeof first).last_event.vehicle_state === state).length;
      await page.locator('[data-testid="table-filter"] input').fill(state);
      await page.waitForFunction(
        (n) => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === String(n),
        expected,
      );

      // JSON tree: the body arrives on request.
      await clickView(page, 'tree');
      await page.waitForFunction(() =>
        (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'requestBody'),
      );
      const request = (await posted(page)).find((m) => m.type === 'requestBody');
      assert.deepEqual(request, { type: 'requestBody', resultId: view.id, pageIndex: 0 });
      await deliver(page, { type: 'body', body: bodyView(listing.pages[0], view.id, 0) });
      await page.locator('[data-testid="json-tree"]').waitFor();
      assert.match(await page.locator('[data-testid="json-tree"]').innerText(), /"vehicles_status": \[ 1,000 items \]/);
      await page.locator('[data-testid="json-search"] input').fill(first.device_id);
      await page.locator('[data-testid="json-search"] input').press('Enter');
      await page.waitForFunction(() =>
        /of/.test(document.querySelector('[data-testid="json-search-status"]')?.textContent ?? ''),
      );
      assert.match(await page.locator('.jt-current').innerText(), new RegExp(first.device_id));
      await shot(page, `json-${theme}`);

      await clickView(page, 'raw');
      const raw = await page.locator('[data-testid="raw-body"]').textContent();
      assert.equal(raw, listing.pages[0].text);
      await shot(page, `raw-${theme}`);

      await clickView(page, 'plot');
      await page.waitForFunction(
        () => (document.querySelector('[data-testid="plot-legend"]')?.textContent ?? '') !== '',
      );
      // As the panel writes counts (1,000 when every status of the page shares one state, on some nights).
      assert.match(
        await page.locator('[data-testid="plot-legend"]').innerText(),
        new RegExp(`${state} ${expected.toLocaleString('en-US')}`),
      );
      // Some pixels were drawn.
      const painted = await page.locator('[data-testid="scatter-plot"]').evaluate((c) => {
        const canvas = c as HTMLCanvasElement;
        const data =
          canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
      });
      assert.ok(painted > 100, `the plot drew points (${painted} pixels)`);
      await shot(page, `plot-${theme}`);

      // Buttons post messages naming the result; the host copies (never the page).
      await page.locator('[data-testid="copy-curl-top"]').click();
      await page.locator('[data-testid="load-next-page"]').first().click();
      const types = (await posted(page)).map((m) => m.type);
      assert.ok(types.includes('copyCurl') && types.includes('loadNextPage'), types.join(', '));
      const state2 = await page.evaluate(() => JSON.stringify((window as unknown as { __state: unknown }).__state));
      assert.ok(
        !state2.includes(token) && !state2.includes(first.device_id),
        'the persisted state holds a summary, not rows or tokens',
      );
      await page.close();
    });
  }

  it('shows a sandbox 401 with its rule, and a token with findings (dark theme)', async () => {
    const wrongAudience: Environment = { ...environment, audience: 'https://wrong.test.invalid' };
    const listing = await new ApiClient().listVehicles(wrongAudience, credential);
    const view = listingView({
      id: 'err',
      environment: wrongAudience,
      listing,
      canLoadNext: false,
      canCopyCurl: true,
      now: Date.now(),
    });
    const page = await panel.openPanel();
    await deliver(page, { type: 'show', panelKey: 'env:mds-staging', result: view });
    await page.locator('[data-testid="error-panel"]').waitFor();
    assert.equal(await page.locator('[data-testid="error-rule"]').textContent(), 'aud_mismatch');
    assert.match(await page.locator('[data-testid="error-tips"]').innerText(), /base URL/);
    await shot(page, 'error-dark');

    const issued = await new ApiClient().issuer.issue(
      credential,
      { ...environment, audience: undefined },
      { lifetimeSeconds: 90 },
    );
    const decoded = decodeJwt(issued.token);
    assert.ok(decoded.ok);
    const findings = lintToken(decoded.token, { now: Date.now(), knownAudiences: ['https://elsewhere.test.invalid'] });
    await deliver(page, {
      type: 'show',
      panelKey: 'tokens',
      result: tokenResultView({
        id: 'tok',
        token: issued.token,
        decoded: decoded.token,
        findings,
        source: 'Generated for Sandbox MDS staging',
        now: Date.now(),
      }),
    });
    await page.locator('[data-testid="token-preview"]').waitFor();
    assert.equal(
      await page.locator('[data-testid="token-preview"]').textContent(),
      `${issued.token.slice(0, 10)}…${issued.token.slice(-6)}`,
    );
    assert.match(await page.locator('[data-live="exp"]').innerText(), /expires in 1 min|expires in \d+ s/);
    assert.match(await page.locator('[data-testid="findings"]').innerText(), /aud/);
    assert.ok(!(await page.content()).includes(issued.token));
    await page.locator('[data-testid="copy-token"]').click();
    const copy = (await posted(page)).find((m) => m.type === 'copyToken');
    assert.deepEqual(copy, { type: 'copyToken', resultId: 'tok', pageIndex: 0 });
    await shot(page, 'token-dark');
    await page.close();
  });

  it('keeps 100,000 rows virtualised while scrolling to the end', async () => {
    // 1,000 real status items from the world, copied to 100,000 rows (each status is computed from the world, so 100,000 would take a minute).
    const fleet = new SyntheticFleet({ size: 1000, seed: 7, createdAt: Date.now() });
    const real = fleet.slice(0, 1000).map((v) => v.status);
    const items = Array.from({ length: 100_000 }, (_, i) => ({ ...real[i % real.length], device_id: `row-${i}` }));
    const listing = hostileListing(200).listing;
    listing.items = items;
    const view = listingView({
      id: 'big',
      environment: { id: 'big', name: 'Big', api: 'mds', stage: 'staging', baseUrl: 'https://big.test.invalid' },
      listing,
      canLoadNext: false,
      canCopyCurl: false,
      now: Date.now(),
    });
    const page = await panel.openPanel();
    await page.evaluate(() => {
      (window as unknown as { __long: number[] }).__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) (window as unknown as { __long: number[] }).__long.push(e.duration);
      }).observe({ type: 'longtask', buffered: false });
    });
    await deliver(page, { type: 'show', panelKey: 'big', result: view });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === '100000',
    );
    await page.evaluate(() => (window as unknown as { __long: number[] }).__long.splice(0));
    const table = page.locator('[data-testid="vehicle-table"]');
    for (let i = 0; i < 40; i++) {
      await table.evaluate((el, step) => el.scrollBy(0, step), 60_000);
      await nextFrames(page);
    }
    await table.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const lastRow = page.locator('.vt-row[aria-rowindex="100001"] [data-col="deviceId"]');
    await lastRow.waitFor({ timeout: 20_000 }).catch(() => undefined);
    assert.equal(await lastRow.textContent(), items[99_999].device_id);
    const rendered = await page.locator('.vt-row').count();
    assert.ok(rendered < 80, `${rendered} rows in the DOM`);
    const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
    // Reported, not asserted (timings depend on the machine): the longest task while scrolling.
    console.log(
      `      scrolling 100,000 rows: ${long.length} long task(s), longest ${long.length ? Math.round(Math.max(...long)) : 0} ms`,
    );
    await shot(page, 'table-100k-dark');
    await page.close();
  });

  for (const csp of [true, false]) {
    it(`renders hostile response strings as text and runs none of them (CSP ${csp ? 'on' : 'off'})`, async () => {
      const page = await panel.openPanel({ csp });
      const ok = hostileListing(200);
      const failed = hostileListing(401);
      const okView = listingView({
        id: 'h1',
        environment: HOSTILE_ENV,
        listing: ok.listing,
        credentialLabel: HOSTILE.svg,
        canLoadNext: true,
        canCopyCurl: true,
        now: Date.now(),
      });
      await deliver(
        page,
        { type: 'show', panelKey: 'hostile', result: okView },
        { type: 'body', body: bodyView(ok.listing.pages[0], 'h1', 0) },
      );
      await page.locator('[data-testid="row-count"]').waitFor();
      // Every section exists in the DOM; open them so that everything is laid out as well.
      await page.evaluate(() =>
        document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
      );
      assert.equal(
        await page.locator('.vt-row[aria-rowindex="2"] [data-col="deviceId"]').textContent(),
        HOSTILE.script,
      );
      assert.equal(await page.locator('.vt-row[aria-rowindex="2"] [data-col="type"]').textContent(), HOSTILE.textarea);
      assert.match(
        (await page.locator('[data-testid="request-url"]').textContent()) ?? '',
        /<script>pwn\('url'\)|<script>pwn\('script'\)/,
      );
      await clickView(page, 'tree');
      await page.locator('[data-testid="json-tree"]').waitFor();
      await page.locator('[data-testid="json-search"] input').fill('pwn');
      await page.locator('[data-testid="json-search"] input').press('Enter');
      await clickView(page, 'raw');
      assert.equal(await page.locator('[data-testid="raw-body"]').textContent(), ok.listing.pages[0].text);
      await clickView(page, 'plot');
      await page.locator('[data-testid="plot-legend"]').waitFor();
      await shot(page, `hostile-listing-csp-${csp ? 'on' : 'off'}`);

      const failedView = listingView({
        id: 'h2',
        environment: HOSTILE_ENV,
        listing: failed.listing,
        canLoadNext: false,
        canCopyCurl: true,
        now: Date.now(),
      });
      await deliver(
        page,
        { type: 'show', panelKey: 'hostile', result: failedView },
        { type: 'body', body: bodyView(failed.listing.pages[0], 'h2', 0) },
      );
      await page.locator('[data-testid="error-panel"]').waitFor();
      assert.equal(await page.locator('[data-testid="error-rule"]').textContent(), HOSTILE.textarea);
      assert.equal(await page.locator('[data-testid="error-description"]').textContent(), HOSTILE.img);
      await page.evaluate(() =>
        document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
      );
      await clickView(page, 'raw');
      await shot(page, `hostile-error-csp-${csp ? 'on' : 'off'}`);
      const decoded = decodeJwt(ok.token);
      assert.ok(decoded.ok);
      await deliver(page, {
        type: 'show',
        panelKey: 'hostile',
        result: tokenResultView({
          id: 'h3',
          environment: HOSTILE_ENV,
          token: ok.token,
          decoded: decoded.token,
          findings: lintToken(decoded.token, { now: Date.now() }),
          source: HOSTILE.js,
          now: Date.now(),
        }),
      });
      await page.locator('[data-testid="token-payload"]').waitFor();
      assert.match(
        (await page.locator('[data-testid="token-payload"]').textContent()) ?? '',
        /<script>pwn\('script'\)<\/script>/,
      );
      await nextFrames(page);

      const seen = await page.evaluate(() => {
        const w = window as unknown as { __pwned: string[]; __violations: string[] };
        const all = (selector: string) => document.querySelectorAll(selector).length;
        return {
          pwned: [...w.__pwned],
          violations: [...w.__violations],
          scripts: document.scripts.length,
          injected: all('img, iframe, svg, textarea, object, embed, a[href], form, [onerror], [onload], [onclick]'),
          html: document.documentElement.outerHTML,
        };
      });
      assert.deepEqual(seen.pwned, [], 'no hostile string ran');
      assert.equal(seen.injected, 0, 'no element came from response data');
      assert.equal(seen.scripts, 2, 'only the stub and the bundle are scripts');
      if (csp) assert.deepEqual(seen.violations, [], 'nothing even tried to break the CSP (vscode-elements included)');
      assert.ok(!seen.html.includes(ok.token) && !seen.html.includes(failed.token), 'the raw token is not in the page');

      // The detectors work: markup inserted on purpose does run without the CSP, and is blocked with it.
      const violationsBefore = seen.violations.length;
      await page.evaluate(() =>
        document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="pwn(\'canary\')">'),
      );
      // The image fails at once: its handler runs (pwned) or is blocked and reported (a violation).
      const readAfter = () =>
        page.evaluate(() => {
          const w = window as unknown as { __pwned: string[]; __violations: string[] };
          return { pwned: [...w.__pwned], violations: w.__violations.length };
        });
      const after = await waitUntil(
        'the inserted handler to run or be reported',
        readAfter,
        (a) => a.pwned.length > 0 || a.violations > violationsBefore,
        { timeoutMs: 10_000, intervalMs: 50 },
      ).catch(readAfter);
      if (csp) {
        assert.deepEqual(after.pwned, [], 'the CSP blocks inline handlers');
        assert.ok(after.violations > 0, 'the blocked handler is reported as a CSP violation');
      } else {
        assert.deepEqual(
          after.pwned,
          ['canary'],
          'without the CSP an inserted handler runs, so the checks above can fail',
        );
      }
      await page.close();
    });
  }
});
