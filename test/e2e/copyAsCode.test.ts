import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { e2eFolders, useWorkbench } from './session';
import {
  activeEditorLines,
  clickNotificationButton,
  closeAllEditors,
  pickQuickPickItem,
  quickOpenFile,
  startSandboxAndSelect,
  step,
  waitForNotification,
} from './workbench';
import { waitUntil } from '../unit/support/waitUntil';

/** Copy as Code from a request file's CodeLens: pick a language, see what was copied, open it in an editor. */
describe('Copy as Code in the workbench', function () {
  this.timeout(180_000);
  const wb = useWorkbench();
  const fileName = 'copy-as-code.http';

  before(() => {
    fs.writeFileSync(path.join(e2eFolders().workspaceDir, fileName), '# @name vehicles\nGET {{baseUrl}}/vehicles\n');
  });

  after(() => {
    fs.rmSync(path.join(e2eFolders().workspaceDir, fileName), { force: true });
  });

  it('copies a request of a file as a Go program from its lens, and opens it in a Go editor', async () => {
    const page = wb.page;
    await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
    await step(page, `open ${fileName}`, async () => {
      await quickOpenFile(page, fileName);
    });
    await step(page, 'click "Copy as Code" and pick Go', async () => {
      const lens = page.locator('.codelens-decoration a', { hasText: 'Copy as Code' }).first();
      await lens.waitFor({ timeout: 30_000 });
      await lens.click();
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
