// Exploring in the workbench, three suites in one window (a window's load costs about 20 processor-seconds:
// docs/testing.md). Endpoints from the editor: a request file's CodeLens, an endpoint of the tree, 202 and 404 in plain
// words. gRPC in the Environments tree: service → method → Call gRPC Method → the GRPC request in a `.http` editor →
// sent from its CodeLens. A request file's assertions in VS Code's Testing view (issue 32): the file's requests with
// assertions are tests; run from the Testing view against the sandbox, one passes and one fails with its message shown
// at the assertion's line.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { HOUR_MS, floorToUtcHour, formatUtcHour, lastCompleteUtcHour } from '../../src/core/mds/utcHour';
import { waitUntil } from '../unit/support/waitUntil';
import { webviewWith } from './panelFrame';
import { useWorkbench, useWorkspaceFiles } from './session';
import {
  activeEditorLines,
  answerInputBox,
  chooseMenuItem,
  clearWindowBefore,
  closeAllEditors,
  collapseTree,
  describeScreen,
  expandTreeRow,
  openViewContainer,
  pickQuickPickItem,
  quickInputState,
  quickOpenFile,
  runCommand,
  runCommandAndPick,
  startSandboxAndSelect,
  step,
  treeRow,
  treeRows,
  waitForNotification,
  webview,
  webviewText,
} from './workbench';

/** The gRPC suite's request, as Call gRPC Method writes it for ListVehicles. */
const GRPC_FILE = 'grpc-list-vehicles.http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The session's token rows (label = jti) whose description says they went out on `request`, e.g. "GET 200 /mds-staging/trips". */
async function tokenRows(page: Page, request: RegExp): Promise<string[]> {
  return (await treeRows(page, 'Environments'))
    .filter((r) => UUID.test(r.label) && request.test(r.description))
    .map((r) => r.label);
}

describe('exploring in the workbench', function () {
  const hour = lastCompleteUtcHour(Date.now());
  // The suites' request files, there when the window loads.
  useWorkspaceFiles({
    [GRPC_FILE]: 'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles\n\n{}\n',
    'explore-requests.http': `# @name trips\nGET {{baseUrl}}/trips?end_time=${hour}\n`,
    'contract-tests.http': [
      '# @name vehicles',
      'GET {{baseUrl}}/vehicles?page_size=5',
      '?? status == 200',
      '',
      '###',
      '# @name wrong-status',
      'GET {{baseUrl}}/stops',
      '?? status == 201',
      '',
    ].join('\n'),
  });
  const wb = useWorkbench();

  describe('exploring endpoints in the workbench', function () {
    this.timeout(180_000);
    const fileName = 'explore-requests.http';

    it('sends a request file twice from its CodeLens: 200 both times, with two different jti', async () => {
      const page = wb.page;
      await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
      await step(page, `open ${fileName}`, () => quickOpenFile(page, fileName));
      const lens = page.locator('.codelens-decoration a', { hasText: 'Send with fresh token' }).first();
      await step(page, 'see the lens above the request', () => lens.waitFor({ timeout: 30_000 }));
      await step(page, "expand the environment's tokens", async () => {
        await lens.click();
        await expandTreeRow(page, 'Environments', 'Sandbox · MDS staging', 2);
        await expandTreeRow(page, 'Environments', 'Tokens this session', 3);
      });
      const sent = new RegExp(`GET 200 /mds-staging/trips\\?end_time=${hour}`);
      let jtis: string[] = [];
      await step(page, 'see the first request answered 200', async () => {
        jtis = await waitUntil(
          'a token row answered 200',
          () => tokenRows(page, sent),
          (rows) => rows.length >= 1,
          { timeoutMs: 20_000, intervalMs: 300 },
        ).catch(() => tokenRows(page, sent));
        assert.equal(jtis.length, 1, 'one token went out with a 200');
      });
      await step(page, 'click the lens again and see a second 200 with another jti', async () => {
        await lens.click();
        jtis = await waitUntil(
          'two token rows answered 200',
          () => tokenRows(page, sent),
          (rows) => rows.length >= 2,
          { timeoutMs: 20_000, intervalMs: 300 },
        ).catch(() => tokenRows(page, sent));
        assert.equal(jtis.length, 2, 'two tokens went out, each answered 200');
        assert.notEqual(jtis[0], jtis[1], 'each send signed its own token');
      });
    });

    it('sends the trips of an hour picked from the tree, accepting the last complete hour offered', async () => {
      const page = wb.page;
      await step(page, 'start the sandbox (or be told it runs) and make its MDS staging active', () =>
        startSandboxAndSelect(page),
      );
      await step(page, 'open Endpoints under Sandbox · MDS staging and click Trips', async () => {
        await openViewContainer(page, 'Mobility API');
        await expandTreeRow(page, 'Environments', 'Sandbox · MDS staging', 2);
        await expandTreeRow(page, 'Environments', 'Endpoints', 3);
        await (await treeRow(page, 'Environments', 'Trips', 30_000, 4)).click();
      });
      let offered = '';
      await step(page, 'read the hour offered and accept it', async () => {
        const state = await waitUntil(
          'an input box asking for end_time',
          () => quickInputState(page),
          (s) => !!s?.message.includes('end_time'),
          { timeoutMs: 20_000, intervalMs: 200 },
        ).catch(() => quickInputState(page));
        assert.ok(state, 'an input box asks for end_time');
        assert.match(state.message, /YYYY-MM-DDTHH/, 'the format expected is shown');
        offered = state.value;
        assert.ok(
          [hour, lastCompleteUtcHour(Date.now())].includes(offered),
          `offered ${offered}, the last complete hour is ${hour}`,
        );
        await page.keyboard.press('Enter');
      });
      await step(page, 'see the result in the panel, titled with the hour', () =>
        page
          .locator('.tabs-container .tab', { hasText: `Trips · ${offered}` })
          .first()
          .waitFor({ timeout: 30_000 }),
      );
    });

    it('says plainly that the current hour is not processed yet (202) and a future hour is not found (404)', async () => {
      const page = wb.page;
      const now = Date.now();
      const current = formatUtcHour(floorToUtcHour(now));
      const future = formatUtcHour(floorToUtcHour(now) + 3 * HOUR_MS);
      await step(page, 'start the sandbox (or be told it runs) and make its MDS staging active', () =>
        startSandboxAndSelect(page),
      );
      await step(page, `Send Request… Trips for the current hour ${current}`, async () => {
        await runCommandAndPick(page, 'Mobility API: Send Request…', 'Sandbox · MDS staging');
        await pickQuickPickItem(page, 'Trips');
        await answerInputBox(page, current, /end_time/);
      });
      await step(page, 'read "not processed yet" with its Retry-After', async () => {
        // An hour that ended meanwhile may be processed by now: then there is no 202 to read.
        if (floorToUtcHour(Date.now()) !== floorToUtcHour(now)) return;
        const message = await waitForNotification(page, new RegExp(`Trips · ${current}: not processed yet`), 30_000);
        assert.match(message, /202 Accepted.*Retry after \d+ s/);
      });
      await step(page, `Send Request… Trips for the future hour ${future}`, async () => {
        await runCommandAndPick(page, 'Mobility API: Send Request…', 'Sandbox · MDS staging');
        await pickQuickPickItem(page, 'Trips');
        await answerInputBox(page, future, /end_time/);
      });
      await step(page, 'read "not found"', () =>
        waitForNotification(page, new RegExp(`Trips · ${future}: not found \\(404\\)`), 30_000),
      );
    });
  });

  describe('gRPC in the Environments tree', function () {
    this.timeout(180_000);
    clearWindowBefore(() => wb.page);
    // The rows as a new window shows them (a running sandbox's row open): the methods at level 5 must be on screen.
    before(async () => {
      await collapseTree(wb.page, 'Environments');
      await expandTreeRow(wb.page, 'Environments', 'Local Sandbox', 1);
    });

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
      // The untitled request is left unsaved: close it, so that later windows do not restore it (and ask to save it).
      await step(page, 'close the unsaved request', () => closeAllEditors(page));
    });

    it('sends the request from its CodeLens and shows the streamed vehicles in the table; a second send from the lens is accepted again', async () => {
      const page = wb.page;
      await step(page, 'start the sandbox (or be told it runs) and make its MDS staging active', () =>
        startSandboxAndSelect(page),
      );
      await step(page, `open ${GRPC_FILE}, the request Call gRPC Method writes`, () => quickOpenFile(page, GRPC_FILE));
      const lens = page.locator('.codelens-decoration a', { hasText: /Send/ }).first();
      await step(page, 'click the lens above the GRPC line', async () => {
        await lens.waitFor({ timeout: 30_000 });
        assert.match((await lens.textContent()) ?? '', /Send with fresh token/);
        await lens.click();
      });
      const frame = await step(page, 'wait for the results panel', () =>
        webviewWith(page, '[data-testid="row-count"]'),
      );
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
    });
  });

  describe("Testing view: a request file's assertions run as tests", function () {
    this.timeout(120_000);
    const fileName = 'contract-tests.http';
    clearWindowBefore(() => wb.page);

    it("runs the file from the Testing view: one test passes, one fails with its message at the assertion's line", async () => {
      const page = wb.page;
      await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
      await step(page, `open ${fileName}`, async () => {
        await quickOpenFile(page, fileName);
        await page.locator('.codelens-decoration', { hasText: '1 assertion' }).first().waitFor({ timeout: 30_000 });
      });
      await step(page, 'run the file from the Testing view', async () => {
        // Every editor tab that shows up during the run, even for a moment (issue 37: a results tab flashed in front).
        await page.evaluate(() => {
          const labels = () =>
            [...document.querySelectorAll('.part.editor .tab .label-name')].map((e) => e.textContent);
          const open = new Set(labels());
          const seen = new Set<string>();
          (window as unknown as { tabsSeen: Set<string> }).tabsSeen = seen;
          const note = () => labels().forEach((label) => !open.has(label) && seen.add(label ?? ''));
          new MutationObserver(note).observe(document.querySelector('.part.editor')!, {
            subtree: true,
            childList: true,
          });
        });
        await openViewContainer(page, 'Testing');
        // The Test Explorer is the Testing view's only section: its rows, without a section header.
        const row = page.locator('.part.sidebar .monaco-list-row', { hasText: fileName }).first();
        await row.waitFor({ timeout: 30_000 });
        await row.hover();
        await row.locator('.action-label[aria-label^="Run Test"]').first().click();
      });
      await step(page, "see the failure inline at the assertion's line, and one of two tests passed", async () => {
        // The failed assertion's line carries (Monaco writes its spaces as no-break spaces) the failure (actual != expected, VS Code's inline form of a diff message: the two values alone, not the operator).
        const failedLine = page
          .locator('.monaco-editor .view-line', { hasText: /\?\?[\s\u00a0]status[\s\u00a0]==[\s\u00a0]201/ })
          .first();
        const inline = page.locator('.monaco-editor').getByText('200 != 201').first();
        await inline
          .waitFor({ timeout: 30_000 })
          .catch(async () => assert.fail(`no inline test message; on screen: ${await describeScreen(page)}`));
        const [lineBox, inlineBox] = [await failedLine.boundingBox(), await inline.boundingBox()];
        assert.ok(
          lineBox &&
            inlineBox &&
            Math.abs(inlineBox.y + inlineBox.height / 2 - (lineBox.y + lineBox.height / 2)) < lineBox.height,
          `the failure stands on the line of "?? status == 201" (${JSON.stringify([lineBox, inlineBox])})`,
        );
        assert.equal(
          await page.locator('.monaco-editor').getByText(/!=/).count(),
          1,
          'one failure: the passing assertion has none',
        );
        // (The Test Results panel is not read: whether VS Code opens it at a run's start depends on the user's
        // testing.openTesting and on what the panel showed before; the integration test reads the run's messages.)
        const summary = await waitUntil(
          "the Test Explorer's count",
          () =>
            page
              .locator('.part.sidebar')
              .first()
              .innerText()
              .catch(() => ''),
          (t) => /\b1\/2\b/.test(t),
          { timeoutMs: 20_000, intervalMs: 300 },
        );
        assert.match(summary, /\b1\/2\b/, 'one of two tests passed');
      });
      await step(
        page,
        'no results tab came, not even for a moment: the request file is the active editor',
        async () => {
          const seen = await page.evaluate(() => [...(window as unknown as { tabsSeen: Set<string> }).tabsSeen]);
          assert.deepEqual(seen, [], 'no editor tab came during the run');
          const active = await page.locator('.editor-group-container.active .tab.active .label-name').allInnerTexts();
          // (The tab's label-name is the file name; VS Code may leave its extension to a span of its own.)
          assert.match(active.join(' | '), /^contract-tests(\.http)?$/, 'the request file is the active tab');
        },
      );
      await step(
        page,
        "Open Result of the passed test: the panel opens with its answer, the run's two in its history",
        async () => {
          const fileRow = page.locator('.part.sidebar .monaco-list-row', { hasText: fileName }).first();
          if ((await fileRow.getAttribute('aria-expanded')) === 'false')
            await fileRow.locator('.monaco-tl-twistie').click();
          const passed = page.locator('.part.sidebar .monaco-list-row', { hasText: 'vehicles' }).first();
          await passed.waitFor({ timeout: 20_000 });
          await passed.click({ button: 'right' });
          await chooseMenuItem(page, 'Open Result');
          const listed = await webviewText(page, '[data-testid="assertion-results"]', 0, 30_000);
          assert.match(listed.replace(/\s+/g, ' '), /Assertions: all 1 passed/);
          await page
            .locator('.part.editor .tab .label-name', { hasText: /^vehicles$/ })
            .first()
            .waitFor({ timeout: 10_000 });
          await waitUntil(
            "the panel's history",
            () => webview(page).locator('[data-testid="section-history"]').getAttribute('heading'),
            (heading) => heading === 'History (2)',
            { timeoutMs: 10_000, intervalMs: 200 },
          );
        },
      );
      await step(
        page,
        "send the failing request from its lens: the result's header lists its assertion, failed",
        async () => {
          await page.locator('.codelens-decoration a', { hasText: 'Send with fresh token' }).nth(1).click();
          // The panel showed the passed test's answer until this one comes.
          const listed = await waitUntil(
            "the sent request's assertions",
            async () => (await webviewText(page, '[data-testid="assertion-results"]', 0, 30_000)).replace(/\s+/g, ' '),
            (text) => /failed/.test(text),
            { timeoutMs: 30_000, intervalMs: 300 },
          );
          assert.match(listed, /Assertions: 1 of 1 failed.*\?\? status == 201 \(line 8\): expected == 201, actual 200/);
        },
      );
    });
  });
});
