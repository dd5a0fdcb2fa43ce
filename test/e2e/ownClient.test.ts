// Your own client in the workbench, two suites in one window (a window's load costs about 20 processor-seconds:
// docs/testing.md). The sandbox grades a client: requests reach the in-editor sandbox, one of them with a pasted token,
// and Sandbox: Client Report shows the card with the refused request's rule (with E2E_README_SCREENSHOTS=1 the card's
// screenshot is saved as the README's, media/screenshot-client-report.png). Copy as Code from a request file's
// CodeLens: pick a language, see what was copied, open it in an editor. The report comes first: it counts what the
// window's sandbox answered since it started.
import assert from 'node:assert/strict';
import path from 'node:path';
import { useWorkbench, useWorkspaceFiles } from './session';
import {
  activeEditorLines,
  clickNotificationButton,
  clearWindowBefore,
  clickCodeLens,
  closeAllEditors,
  pickQuickPickItem,
  quickOpenFile,
  runCommand,
  startSandboxAndSelect,
  step,
  waitForNotification,
} from './workbench';
import { waitUntil } from '../unit/support/waitUntil';

describe('your own client in the workbench', function () {
  // The suites' request files, there when the window loads.
  useWorkspaceFiles({
    'grading.http': [
      '# @name with a fresh token',
      'GET {{baseUrl}}/vehicles',
      '',
      '###',
      '# @name with a pasted token',
      '# @authorization as-is',
      'GET {{baseUrl}}/vehicles',
      'Authorization: Bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJtZUBleGFtcGxlLmNvbSJ9.c2lnbmF0dXJl',
      '',
    ].join('\n'),
    'copy-as-code.http': '# @name vehicles\nGET {{baseUrl}}/vehicles\n',
  });
  const wb = useWorkbench();

  describe('the sandbox grades a client in the workbench', function () {
    this.timeout(180_000);
    const fileName = 'grading.http';

    it('shows the report card: requests accepted, the pasted token refused by its rule', async () => {
      const page = wb.page;
      await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
      await step(page, `open ${fileName}`, async () => {
        await quickOpenFile(page, fileName);
      });
      await step(page, 'send the request with a fresh token from its lens', async () => {
        await clickCodeLens(page, 'Send with fresh token');
        await page.locator('iframe.webview').first().waitFor({ timeout: 30_000 });
      });
      await step(page, 'send the request with its pasted token', async () => {
        // The panel took the focus: come back to the request file.
        await page.locator('.tab', { hasText: fileName }).first().click();
        await clickCodeLens(page, 'Send with its own Authorization');
      });
      const card = await step(page, 'run Sandbox: Client Report and read the card', async () => {
        return waitUntil(
          'the card to count both requests',
          async () => {
            await runCommand(page, 'Mobility API: Sandbox: Client Report');
            const lines = await page.locator('.monaco-editor .view-lines').first().innerText({ timeout: 10_000 });
            return lines.replace(/\u00a0/g, ' ');
          },
          (text) => /refused: 1\b/.test(text) && /accepted: [1-9]/.test(text),
          { timeoutMs: 60_000, intervalMs: 1000 },
        );
      });
      await step(page, 'the card names the broken rule and no token', () => {
        assert.match(card, /Grade: FAIL/);
        assert.match(card, /Refused by rule:/);
        assert.match(card, /\(spec 5\.[0-9]/, 'the refused rule is named with its place in the spec');
        assert.ok(!card.includes('c2lnbmF0dXJl'), 'the card never shows a token');
      });
      if (process.env.E2E_README_SCREENSHOTS === '1') {
        await page.screenshot({ path: path.resolve('media/screenshot-client-report.png') });
      }
    });
  });

  describe('Copy as Code in the workbench', function () {
    this.timeout(180_000);
    const fileName = 'copy-as-code.http';
    clearWindowBefore(() => wb.page);

    it('copies a request of a file as a Go program from its lens, and opens it in a Go editor', async () => {
      const page = wb.page;
      await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
      await step(page, `open ${fileName}`, async () => {
        await quickOpenFile(page, fileName);
      });
      await step(page, 'click "Copy as Code" and pick Go', async () => {
        await clickCodeLens(page, 'Copy as Code');
        await pickQuickPickItem(page, 'Go (golang-jwt + net/http)');
      });
      const copied = /Copied Go \(golang-jwt \+ net\/http\) for vehicles · GET \/vehicles/;
      await step(page, 'see what was copied and where its secrets come from', async () => {
        const text = await waitForNotification(page, copied);
        assert.match(text, /MOBILITY_API_KEY_FILE, MOBILITY_API_KEY_ID/);
      });
      await step(page, 'open it in an editor: a Go program for the sandbox', async () => {
        await clickNotificationButton(page, copied, 'Open in Editor');
        await page
          .locator('.monaco-editor .view-line', {
            hasText: '// GET /vehicles on the MDS Provider API at http://127.0.0.1:',
          })
          .first()
          .waitFor({ timeout: 20_000 });
        // Its header (with the go.mod to copy) fills more than the window, and Monaco draws the lines on screen only:
        // find `package main`, which scrolls to it.
        await page.locator('.editor-group-container.active .monaco-editor').first().click();
        await page.keyboard.press('Control+f');
        await page.keyboard.type('package main');
        await page.keyboard.press('Enter');
        await page.keyboard.press('Escape');
        await waitUntil(
          'the line package main',
          () => activeEditorLines(page),
          (lines) => lines.includes('package main'),
          { timeoutMs: 20_000, intervalMs: 300 },
        );
        await page
          .locator('.statusbar [aria-label="Go"], .statusbar-item', { hasText: /^Go$/ })
          .first()
          .waitFor({ timeout: 20_000 });
      });
      await step(page, 'close the unsaved program', () => closeAllEditors(page));
    });
  });
});
