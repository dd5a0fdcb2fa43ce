import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { e2eFolders, useWorkbench } from './session';
import {
  chooseMenuItem,
  describeScreen,
  openViewContainer,
  quickOpenFile,
  startSandboxAndSelect,
  step,
  webview,
  webviewText,
} from './workbench';
import { waitUntil } from '../unit/support/waitUntil';

/**
 * A request file's assertions in VS Code's Testing view (issue 32): the file's requests with assertions are tests; run
 * from the Testing view against the sandbox, one passes and one fails with its message shown at the assertion's line.
 */
describe("Testing view: a request file's assertions run as tests", function () {
  this.timeout(120_000);
  const wb = useWorkbench();
  const fileName = 'contract-tests.http';

  before(() => {
    fs.writeFileSync(
      path.join(e2eFolders().workspaceDir, fileName),
      [
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
    );
  });
  after(() => {
    fs.rmSync(path.join(e2eFolders().workspaceDir, fileName), { force: true });
  });

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
        const labels = () => [...document.querySelectorAll('.part.editor .tab .label-name')].map((e) => e.textContent);
        const open = new Set(labels());
        const seen = new Set<string>();
        (window as unknown as { tabsSeen: Set<string> }).tabsSeen = seen;
        const note = () => labels().forEach((label) => !open.has(label) && seen.add(label ?? ''));
        new MutationObserver(note).observe(document.querySelector('.part.editor')!, { subtree: true, childList: true });
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
    await step(page, 'no results tab came, not even for a moment: the request file is the active editor', async () => {
      const seen = await page.evaluate(() => [...(window as unknown as { tabsSeen: Set<string> }).tabsSeen]);
      assert.deepEqual(seen, [], 'no editor tab came during the run');
      const active = await page.locator('.editor-group-container.active .tab.active .label-name').allInnerTexts();
      // (The tab's label-name is the file name; VS Code may leave its extension to a span of its own.)
      assert.match(active.join(' | '), /^contract-tests(\.http)?$/, 'the request file is the active tab');
    });
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
