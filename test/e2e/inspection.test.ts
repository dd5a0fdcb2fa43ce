import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { FrameLocator, Page } from 'playwright-core';
import { keyFixture } from '../unit/keyFixtures';
import { waitUntil } from '../unit/support/waitUntil';
import { useWorkbench } from './session';
import {
  answerInputBox,
  closeAllEditors,
  openViewContainer,
  pickQuickPickItem,
  runCommand,
  step,
  treeRow,
  treeRows,
} from './workbench';
import { webviewWith as anyWebviewWith } from './panelFrame';

/** The webview that shows `selector` visibly (inspection views are checked as the user sees them). */
const webviewWith = (page: Page, selector: string) =>
  anyWebviewWith(page, selector, { timeoutMs: 20_000, visible: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Waits until the text of `selector` in `frame` matches `pattern`, and returns it. */
async function textMatching(
  frame: FrameLocator,
  selector: string,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  const read = async () =>
    (
      await frame
        .locator(selector)
        .first()
        .innerText()
        .catch(() => '')
    ).trim();
  return waitUntil(`${selector} to show ${String(pattern)}`, read, (text) => pattern.test(text), {
    timeoutMs,
    intervalMs: 300,
  });
}

/** Where session.ts keeps this run's screenshots. */
function screenshotPath(name: string): string {
  return path.join(process.env.E2E_ARTIFACTS_DIR ?? 'test-results', `inspection-${name}.png`);
}

describe('inspecting tokens in the workbench: decoded view, hover, history, compare', function () {
  this.timeout(180_000);
  const wb = useWorkbench();
  const { privateKey } = keyFixture('p256');
  let foreign = '';

  before(async () => {
    const now = Math.floor(Date.now() / 1000);
    foreign = await new SignJWT({
      iss: 'someone@nowhere.invalid',
      aud: 'https://unknown.invalid',
      iat: now - 480,
      exp: now - 180,
      jti: randomUUID(),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'e2e-unknown-kid' })
      .sign(privateKey);
  });

  it('Generate Token opens the decoded view: verified signature, expiry countdown, claims, and Copy payload as JSON', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view and start the sandbox', async () => {
      await openViewContainer(page, 'Mobility API');
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await treeRow(page, 'Environments', 'Sandbox · MDS staging', 30_000, 2);
    });
    await step(page, 'run "Mobility API: Generate Token" for Sandbox · MDS staging', async () => {
      await runCommand(page, 'Mobility API: Generate Token');
      await pickQuickPickItem(page, 'Sandbox · MDS staging');
    });
    const view = await step(page, 'see the decoded view', () =>
      webviewWith(page, '[data-testid="signature-state"][data-state="verified"]'),
    );
    await step(page, 'read the signature state, the countdown and the payload', async () => {
      assert.match(
        await textMatching(view, '[data-testid="signature-state"]', /Verified/),
        /Verified with the stored credential whose kid matches/,
      );
      await textMatching(view, '[data-testid="time-exp"]', /expires in 4 min/);
      const payload = await textMatching(view, '[data-testid="token-payload"]', /"jti"/);
      assert.match(payload, /"aud": "http:\/\/127\.0\.0\.1:\d+/);
      assert.match(await view.locator('[data-testid="findings"]').first().innerText(), /No findings|Info/);
    });
    await step(page, 'Copy payload as JSON', async () => {
      await view.locator('[data-testid="copy-payload"]').first().click();
      await textMatching(view, '[data-testid="notices"]', /Copied the payload as JSON/);
    });
  });

  it('hovering a token in an editor shows it decoded with what is wrong, and its link opens the decoded view', async () => {
    const page = wb.page;
    await step(page, 'put a request with a foreign, expired token in an untitled editor', async () => {
      await runCommand(page, 'File: New Untitled Text File');
      await page.locator('.monaco-editor textarea').first().waitFor({ timeout: 10_000 });
      await page.keyboard.insertText(`GET https://unknown.invalid/vehicles\nAuthorization: Bearer ${foreign}\n`);
    });
    const hover = page.locator('.monaco-hover', { hasText: 'Open decoded view' }).first();
    await step(page, 'hover the token', async () => {
      const line = page.locator('.part.editor .monaco-editor .view-lines .view-line', { hasText: 'Bearer' }).first();
      await line.waitFor({ timeout: 10_000 });
      for (let attempt = 0; attempt < 5 && !(await hover.isVisible().catch(() => false)); attempt++) {
        await page.mouse.move(0, 0);
        await line.hover({ position: { x: 260 + attempt * 10, y: 8 } });
        await hover.waitFor({ timeout: 4000 }).catch(() => {});
      }
      await hover.waitFor({ timeout: 5000 });
    });
    await step(page, 'read the hover: times, signature, findings with spec rules, claims', async () => {
      const text = await hover.innerText();
      await page.screenshot({ path: screenshotPath('hover') });
      assert.match(text, /kid e2e-unknown-kid/);
      assert.match(text, /expired 3 min ago/);
      assert.match(text, /not verified \(no stored credential has this kid\)/);
      assert.match(text, /spec 5\.1 rule 5, expired/);
      assert.match(text, /spec 5\.3, aud-unknown/);
      assert.match(text, /"iss": "someone@nowhere\.invalid"/);
      assert.ok(!text.includes(foreign), 'the hover does not show the token');
    });
    await step(page, 'follow "Open decoded view"', async () => {
      await hover.locator('a', { hasText: 'Open decoded view' }).first().click();
      const view = await webviewWith(page, '[data-testid="signature-state"][data-state="unchecked"]');
      assert.match(
        await view.locator('[data-testid="signature-state"]').first().innerText(),
        /Not verified: no stored credential has kid "e2e-unknown-kid"/,
      );
      await textMatching(view, '[data-testid="findings"]', /expired/);
      await textMatching(view, '[data-testid="time-exp"]', /expired 3 min/);
      assert.ok(!(await view.locator('body').innerText()).includes(foreign), 'the view does not show the token');
    });
  });

  it("the Environments view lists the session's tokens; one opens decoded, and Compare Tokens marks the claims that differ", async () => {
    const page = wb.page;
    let jti = '';
    await step(page, 'expand Sandbox · MDS staging and its tokens', async () => {
      await openViewContainer(page, 'Mobility API');
      const env = await treeRow(page, 'Environments', 'Sandbox · MDS staging', 30_000, 2);
      if ((await env.getAttribute('aria-expanded')) !== 'true') await env.click();
      const folder = await treeRow(page, 'Environments', 'Tokens this session');
      if ((await folder.getAttribute('aria-expanded')) !== 'true') await folder.click();
      const tokenRow = async () => (await treeRows(page, 'Environments')).find((r) => UUID.test(r.label))?.label ?? '';
      jti = await waitUntil('a token row labelled with its jti', tokenRow, (label) => label !== '', {
        timeoutMs: 10_000,
        intervalMs: 300,
      }).catch(() => '');
      assert.match(jti, UUID, 'a token row labelled with its jti');
      const row = await treeRow(page, 'Environments', jti);
      assert.match(await row.innerText(), /generated/);
    });
    await step(page, 'select the token: its decoded view opens', async () => {
      await (await treeRow(page, 'Environments', jti)).click();
      const view = await webviewWith(page, '[data-testid="signature-state"][data-state="verified"]');
      await textMatching(view, '[data-testid="token-facts"]', /Generated for Sandbox · MDS staging/);
      await textMatching(view, '[data-testid="token-payload"]', new RegExp(jti));
    });
    await step(page, 'run "Mobility API: Compare Tokens" with a pasted token and the session\'s token', async () => {
      await runCommand(page, 'Mobility API: Compare Tokens');
      await pickQuickPickItem(page, 'Paste a token…');
      await answerInputBox(page, `Bearer ${foreign}`, /paste a token/i);
      await pickQuickPickItem(page, jti);
    });
    await step(page, 'read the comparison: differing claims marked, with notes', async () => {
      const view = await webviewWith(page, '[data-testid="diff-table"]');
      const state = async (claim: string) =>
        view.locator(`[data-testid="diff-row"][data-claim="${claim}"]`).first().getAttribute('data-state');
      assert.equal(await state('header.kid'), 'different');
      assert.equal(await state('header.alg'), 'same');
      assert.equal(await state('payload.aud'), 'different');
      assert.equal(await state('payload.iss'), 'different');
      assert.match(
        await view.locator('[data-testid="diff-note"][data-claim="payload.aud"]').first().innerText(),
        /base URL of the environment/,
      );
      await textMatching(view, '[data-testid="diff-count"]', /entries differ/);
      await page.screenshot({ path: screenshotPath('compare') });
    });
    // The hover test's untitled editor is unsaved: close it, so that later windows do not restore it (and ask to save it).
    await step(page, 'close the unsaved editors', () => closeAllEditors(page));
  });
});
