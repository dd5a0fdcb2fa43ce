import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { Locator } from 'playwright-core';
import { keyFixture } from '../unit/keyFixtures';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import {
  closeQuickInput,
  openViewContainer,
  pickQuickPickItem,
  closeAllEditors,
  quickInputState,
  runCommand,
  runCommandAndPick,
  step,
  treeRow,
  waitForSandboxRunning,
} from './workbench';

const QUICK_INPUT_ROWS = '.quick-input-widget .quick-input-list .monaco-list-row';

/** Waits until `read` returns a value `accept` takes, and returns it; fails with the last value seen. */
function until<T>(what: string, read: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return waitUntil(what, read, accept, { timeoutMs, intervalMs: 200 });
}

/**
 * How a tree row is drawn: its label and description, the width they need and the width they get
 * (the label container clips with an ellipsis), and the side bar's width.
 */
async function rowFit(row: Locator): Promise<{
  label: string;
  description: string;
  needed: number;
  given: number;
  descriptionRight: number;
  containerRight: number;
  sideBar: number;
}> {
  return row.evaluate((el) => {
    const container = el.querySelector<HTMLElement>('.monaco-icon-label-container');
    if (!container) throw new Error('the row has no label container');
    const description = el.querySelector<HTMLElement>('.label-description');
    const right = (e: Element | null) => e?.getBoundingClientRect().right ?? 0;
    return {
      label: el.querySelector('.label-name')?.textContent?.trim() ?? '',
      description: description?.textContent?.trim() ?? '',
      needed: container.scrollWidth,
      given: container.clientWidth,
      descriptionRight: right(description),
      containerRight: right(container),
      sideBar: document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0,
    };
  });
}

function assertFits(fit: Awaited<ReturnType<typeof rowFit>>, what: string): void {
  const shown = `"${fit.label}" / "${fit.description}" needs ${fit.needed}px, gets ${fit.given}px in a ${fit.sideBar}px side bar`;
  assert.ok(fit.needed <= fit.given + 1, `${what} is cut off: ${shown}`);
  assert.ok(
    fit.descriptionRight <= fit.containerRight + 1,
    `${what}: the description ends beyond its container: ${shown}`,
  );
}

describe('the first five minutes: the Environments view at the default side-bar width', function () {
  this.timeout(180_000);
  const wb = useWorkbench();

  it('shows each environment by its one name, with its status', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
    await step(page, 'start the sandbox', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'list the vehicles of Sandbox · MDS staging', () =>
      runCommandAndPick(page, 'Mobility API: List Vehicles', 'Sandbox · MDS staging'),
    );
    const sandboxRow = await step(page, 'see the result on its row under Local Sandbox', async () => {
      const row = await treeRow(page, 'Environments', 'Sandbox · MDS staging', 30_000, 2);
      await until(
        "the row's description",
        async () => (await rowFit(row)).description,
        (d) => /^200 OK · 500 vehicles$/.test(d),
      );
      return row;
    });
    await step(
      page,
      "a built-in environment's name and status are visible in full, at the width the side bar opened with",
      async () => {
        const builtIn = await treeRow(page, 'Environments', 'MDS staging', 30_000, 1);
        const fit = await rowFit(builtIn);
        assert.equal(fit.description, 'no base URL');
        assertFits(fit, 'the built-in environment row');
      },
    );
    // The sandbox's environments carry their one name, the same as in the status bar and the pickers (issue #24);
    // "Sandbox · MDS staging" with its status is wider than the default side bar at level 2, so the row's
    // accessible name and tooltip carry both in full.
    await step(page, 'the full name and the result are in the accessible name and the tooltip', async () => {
      const title = await sandboxRow.evaluate((el) => el.getAttribute('aria-label') ?? '');
      assert.match(
        title,
        /^Sandbox · MDS staging, 200 OK · 500 vehicles$/,
        'the accessible name keeps the full name and status',
      );
      assert.equal(
        (await rowFit(sandboxRow)).label,
        'Sandbox · MDS staging',
        'the tree says the name the status bar says',
      );
    });
  });
});

describe('the first five minutes: Decode JWT from the clipboard, then Remove Credential at once', function () {
  this.timeout(300_000);
  const wb = useWorkbench({ clipboard: true });
  const kid = `clip-${randomUUID().slice(0, 8)}`;

  it("Decode JWT offers the clipboard's token, described by its claims, and decodes it once chosen", async () => {
    const page = wb.page;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      iss: 'clip@org.test.invalid',
      aud: 'https://clip.test.invalid',
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    })
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(keyFixture('p256').privateKey);
    await step(page, 'start the sandbox (for a stored credential)', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'copy a token and close every editor', async () => {
      await page.evaluate((t) => navigator.clipboard.writeText(t), token);
      await closeAllEditors(page);
    });
    await step(page, "run Decode JWT: it asks, with the clipboard's token first", async () => {
      await runCommand(page, 'Mobility API: Decode JWT');
      const state = await until(
        'the quick pick',
        () => quickInputState(page),
        (s) => !!s && !s.value.startsWith('>') && s.rows.length >= 2,
      );
      assert.match(state?.rows[0] ?? '', /Token from the clipboard/);
      const first = await page.locator(QUICK_INPUT_ROWS).first().innerText();
      assert.match(first, new RegExp(`kid ${kid}, iss clip@org\\.test\\.invalid, expires in 4 min`));
      assert.ok(
        !(await page.locator('.quick-input-widget').innerText()).includes(token.split('.')[1]),
        'the token itself is not shown',
      );
      await closeQuickInput(page);
    });
  });

  it("Remove Credential's quick pick stays open while the decoded view finishes loading, every time", async () => {
    const page = wb.page;
    for (let round = 1; round <= 6; round++) {
      await step(page, `round ${round}: close every editor`, () => closeAllEditors(page));
      await step(page, `round ${round}: decode the clipboard's token`, async () => {
        await runCommand(page, 'Mobility API: Decode JWT');
        await pickQuickPickItem(page, 'Token from the clipboard');
      });
      await step(page, `round ${round}: run Remove Credential at once`, async () => {
        await runCommand(page, 'Mobility API: Remove Credential');
        await until(
          'the Remove Credential quick pick',
          async () => (await quickInputState(page))?.rows ?? [],
          (rows) => rows.includes('Sandbox demo credential'),
        );
      });
      await step(page, `round ${round}: the decoded view loads, and the quick pick is still open`, async () => {
        // The decoded view is the webview that shows the token's kid.
        await until(
          'the decoded view',
          async () => {
            for (const frame of page.frames()) {
              if (
                await frame
                  .locator('[data-testid="result-title"]')
                  .count()
                  .catch(() => 0)
              ) {
                const text = await frame
                  .locator('body')
                  .innerText()
                  .catch(() => '');
                if (text.includes(kid)) return true;
              }
            }
            return false;
          },
          Boolean,
          30_000,
        );
        // Give a focus change after load the chance to happen: wait for the workbench to settle two frames.
        await page.evaluate(
          () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        );
        const state = await quickInputState(page);
        assert.ok(
          state?.rows.includes('Sandbox demo credential'),
          `the quick pick closed under the user: ${JSON.stringify(state)}`,
        );
        await closeQuickInput(page);
      });
    }
  });
});

describe('the first five minutes: mobilityApi.sandbox.autoStart', function () {
  this.timeout(180_000);
  const settingsFile = path.join(e2eFolders().userDataDir, 'User', 'settings.json');
  let original = '';

  // Registered before useWorkbench()'s hooks, so that the window starts with the setting on.
  before(() => {
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.sandbox.autoStart'] = true;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  });
  after(async () => {
    await runCommand(wb.page, 'Mobility API: Stop Local Sandbox').catch(() => undefined);
    if (original) fs.writeFileSync(settingsFile, original);
  });
  const wb = useWorkbench();

  it('starts the sandbox with VS Code: its environments are there without a command', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
    await step(page, 'see Local Sandbox running with its environments', async () => {
      const sandbox = await treeRow(page, 'Environments', 'Local Sandbox', 60_000, 1);
      await until(
        'the Local Sandbox row',
        async () => (await sandbox.innerText()).replace(/\s+/g, ' '),
        (t) => /running · 127\.0\.0\.1:\d+/.test(t),
        60_000,
      );
      await treeRow(page, 'Environments', 'Sandbox · MaaS staging', 30_000, 2);
    });
  });
});
