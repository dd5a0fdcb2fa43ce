import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { e2eFolders, useWorkbench } from './session';
import { quickOpenFile, runCommand, startSandboxAndSelect, step } from './workbench';
import { waitUntil } from '../unit/support/waitUntil';

/**
 * Grading a client in the workbench: requests reach the in-editor sandbox, one of them with a pasted token, and
 * Sandbox: Client Report shows the card with the refused request's rule. With E2E_README_SCREENSHOTS=1 the card's
 * screenshot is saved as the README's (media/screenshot-client-report.png).
 */
describe('the sandbox grades a client in the workbench', function () {
  this.timeout(180_000);
  const wb = useWorkbench();
  const fileName = 'grading.http';

  before(() => {
    fs.writeFileSync(
      path.join(e2eFolders().workspaceDir, fileName),
      [
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
    );
  });

  after(() => {
    fs.rmSync(path.join(e2eFolders().workspaceDir, fileName), { force: true });
  });

  it('shows the report card: requests accepted, the pasted token refused by its rule', async () => {
    const page = wb.page;
    await step(page, 'start the sandbox and make its MDS staging active', () => startSandboxAndSelect(page));
    await step(page, `open ${fileName}`, async () => {
      await quickOpenFile(page, fileName);
    });
    await step(page, 'send the request with a fresh token from its lens', async () => {
      const lens = page.locator('.codelens-decoration a', { hasText: 'Send with fresh token' }).first();
      await lens.waitFor({ timeout: 30_000 });
      await lens.click();
      await page.locator('iframe.webview').first().waitFor({ timeout: 30_000 });
    });
    await step(page, 'send the request with its pasted token', async () => {
      // The panel took the focus: come back to the request file.
      await page.locator('.tab', { hasText: fileName }).first().click();
      const lens = page.locator('.codelens-decoration a', { hasText: 'Send with its own Authorization' }).first();
      await lens.waitFor({ timeout: 30_000 });
      await lens.click();
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
