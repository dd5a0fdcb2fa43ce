import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { e2eFolders, useWorkbench } from './session';
import {
  describeScreen,
  openViewContainer,
  quickOpenFile,
  startSandboxAndSelect,
  step,
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
      "send the failing request from its lens: the result's header lists its assertion, failed",
      async () => {
        await page.locator('.codelens-decoration a', { hasText: 'Send with fresh token' }).nth(1).click();
        const listed = await webviewText(page, '[data-testid="assertion-results"]', 0, 30_000);
        assert.match(
          listed.replace(/\s+/g, ' '),
          /Assertions: 1 of 1 failed.*\?\? status == 201 \(line 8\): expected == 201, actual 200/,
        );
      },
    );
  });
});
