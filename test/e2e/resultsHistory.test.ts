// Issue #24 in a real VS Code: a second send no longer replaces the first. Two sends of different endpoints
// (List Vehicles, then Vehicle Status, on the sandbox) both stay in the panel's history with their path, status and
// token jti; the header line names the token behind the result shown; the older one shows again; picking both
// and Compare shows them side by side; the history shows no token and no key id.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { HISTORY_KEPT_IN_FULL } from '../../src/shared/historyViews';
import { waitUntil } from '../unit/support/waitUntil';
import { axeViolations, describeViolations, resultsPanelFrame, webviewWith } from './panelFrame';
import { useWorkbench } from './session';
import { runCommand, runCommandAndPick, step, waitForSandboxRunning } from './workbench';

const SANDBOX = 'Sandbox · MDS staging';

interface EntryText {
  path: string;
  status: string;
  jti: string;
  current: boolean;
}

/** The history's rows, read in one go (the list is rebuilt when the host sends it again). */
function entries(frame: FrameLocator): Promise<EntryText[]> {
  return frame.locator('[data-testid="history-entry"]').evaluateAll((rows) =>
    rows.map((row) => {
      const show = row.querySelector('[data-testid="history-show"]');
      return {
        path: (show?.textContent ?? '').trim(),
        status: (row.querySelectorAll('td')[2]?.textContent ?? '').trim(),
        jti: (row.querySelector('[data-testid="history-jti"]')?.textContent ?? '').trim(),
        current: show?.getAttribute('aria-current') === 'true',
      };
    }),
  );
}

/** Opens the panel's history section unless it is open, and waits for its entries' Show buttons. */
async function openHistory(frame: FrameLocator): Promise<void> {
  const history = frame.locator('[data-testid="section-history"]');
  if ((await history.getAttribute('open')) === null) await history.click();
  await frame.locator('[data-testid="history-show"]').first().waitFor({ state: 'visible', timeout: 10_000 });
}

describe('results panel history: every send keeps its result, two compare', () => {
  const wb = useWorkbench();

  it('keeps two sends of different endpoints in the history, shows the older again, and compares the two', async function () {
    this.timeout(300_000);
    const page = wb.page;
    await step(page, 'start the local sandbox', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'List Vehicles on the sandbox', () =>
      runCommandAndPick(page, 'Mobility API: List Vehicles', SANDBOX),
    );
    const frame = await step(page, 'see the first result and its history entry', () =>
      webviewWith(page, '[data-testid="history-entry"]'),
    );
    await step(page, 'Vehicle Status on the same environment', () =>
      runCommandAndPick(page, 'Mobility API: Vehicle Status (MDS)', SANDBOX),
    );
    const listed = await step(page, 'see both sends in the history, newest first', () =>
      waitUntil(
        'two history entries',
        () => entries(frame),
        (e) => e.length === 2 && e[0].current,
        { timeoutMs: 60_000, intervalMs: 300 },
      ),
    );
    assert.match(
      listed[0].path,
      /^GET \/\S*\/vehicles\/status/,
      `the newest entry is the status request: ${JSON.stringify(listed)}`,
    );
    assert.match(
      listed[1].path,
      /^GET \/\S*\/vehicles(\?|$)/,
      `the older entry is the vehicles request: ${JSON.stringify(listed)}`,
    );
    for (const e of listed) assert.match(e.status, /^200\b/);
    assert.ok(
      listed[0].jti && listed[1].jti && listed[0].jti !== listed[1].jti,
      `each send names its own token: ${JSON.stringify(listed)}`,
    );
    assert.ok(listed[0].current && !listed[1].current, 'the newest is the one shown');
    assert.match(await frame.locator('[data-testid="result-title"]').innerText(), /Vehicle status/);
    const history = frame.locator('[data-testid="section-history"]');
    assert.equal(await history.getAttribute('heading'), 'History (2)', 'its count on its title');
    assert.equal(await history.getAttribute('open'), null, 'the history stays closed: the result comes first');
    assert.equal(await frame.locator('[data-testid="history-show"]').first().isVisible(), false);
    await step(page, 'open the history', () => openHistory(frame));
    assert.equal(
      (await frame.locator('[data-testid="header-jti"]').innerText()).trim(),
      listed[0].jti,
      'the header line names the token behind the result',
    );
    assert.match(await frame.locator('[data-testid="header-exp"]').innerText(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

    await step(page, 'show the older send again from the history', async () => {
      await frame.locator('[data-testid="history-show"]').nth(1).click();
      await waitUntil(
        'the vehicles result shown again',
        async () => (await frame.locator('[data-testid="result-title"]').innerText()).trim(),
        (t) => /^Vehicles/.test(t),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    });
    assert.equal((await frame.locator('[data-testid="header-jti"]').innerText()).trim(), listed[1].jti);
    const afterShow = await entries(frame);
    assert.equal(afterShow.length, 2, 'showing an entry again adds none');
    assert.ok(afterShow[1].current && !afterShow[0].current);

    const comparison = await step(page, 'pick both and compare', async () => {
      const compare = frame.locator('[data-testid="history-compare"]');
      assert.equal(await compare.getAttribute('disabled'), '', 'Compare waits for two picks');
      await frame.locator('[data-testid="history-pick"]').nth(0).click();
      await frame.locator('[data-testid="history-pick"]').nth(1).click();
      await waitUntil(
        'Compare enabled',
        () => compare.getAttribute('disabled'),
        (d) => d === null,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      await compare.click();
      const section = frame.locator('[data-testid="history-comparison"]');
      await section.waitFor({ timeout: 30_000 });
      return section;
    });
    await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', 'results-history-compare.png') });
    const request = await comparison.locator('[data-testid="compare-request"]').innerText();
    assert.ok(
      request.indexOf('/vehicles') < request.indexOf('/vehicles/status'),
      `the older (vehicles) on the left: ${request}`,
    );
    assert.match(await comparison.locator('[data-testid="compare-status"]').innerText(), /200[\s\S]*200/);
    assert.match(
      await comparison.locator('[data-testid="compare-items"]').innerText(),
      /\d+ vehicles?[\s\S]*\d+ vehicle/,
    );
    assert.match(
      await comparison.locator('[data-testid="compare-jti"]').innerText(),
      new RegExp(`${listed[1].jti}[\\s\\S]*${listed[0].jti}`),
    );
    assert.match(
      await comparison.locator('[data-testid="compare-item-counts"]').innerText(),
      /\d+ added, \d+ removed, \d+ changed, \d+ the same/,
    );

    const violations = await step(page, 'run axe-core over the history and the comparison', async () =>
      axeViolations((await resultsPanelFrame(page)).frame),
    );
    assert.equal(violations.length, 0, describeViolations(violations));

    await step(page, 'show the newest again by keyboard (focus its entry, Enter)', async () => {
      await frame.locator('[data-testid="history-show"]').nth(0).focus();
      await page.keyboard.press('Enter');
      await waitUntil(
        'the status result shown again',
        async () => (await frame.locator('[data-testid="result-title"]').innerText()).trim(),
        (t) => /^Vehicle status/.test(t),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    });
    assert.ok((await entries(frame))[0].current, 'the newest entry is marked as shown');

    const kid = await step(page, 'read the key id the token section shows', async () => {
      await frame.locator('[data-testid="section-token"]').click();
      const row = frame.locator('[data-testid="token-facts"]');
      await row.waitFor({ timeout: 10_000 });
      return /Key id\s*(\S+)/.exec(await row.innerText())?.[1] ?? '';
    });
    const historyText = await frame.locator('[data-testid="history"]').innerText();
    const header = await frame.locator('[data-testid="header-token"]').innerText();
    assert.ok(kid.length > 3, 'the token has a kid');
    assert.ok(!historyText.includes(kid) && !header.includes(kid), 'no key id in the history or the header line');
    assert.ok(
      !/eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/.test(historyText + header),
      'no token in the history or the header line',
    );
  });

  it('sends an entry that keeps its summary only again from the history: a new result on top, with a fresh token', async function () {
    this.timeout(300_000);
    const page = wb.page;
    await step(page, 'start the local sandbox (or be told it runs) and List Vehicles on it', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
      await runCommandAndPick(page, 'Mobility API: List Vehicles', SANDBOX);
    });
    const frame = await webviewWith(page, '[data-testid="history-entry"]');
    const start = await waitUntil(
      'the List Vehicles result on top of the history',
      () => entries(frame),
      (e) => e.length >= 1 && e[0].current && /^GET \/\S*\/vehicles(\?|$)/.test(e[0].path),
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    await step(page, 'open the history, unless it is open', () => openHistory(frame));
    // Run again on the result shown until the first send is older than the last few kept in full.
    for (let n = start.length; n < HISTORY_KEPT_IN_FULL + 1; n++) {
      await step(page, `Run again (send ${n + 1})`, async () => {
        await frame.locator('[data-testid="run-again"]').first().click();
        await waitUntil(
          `${n + 1} history entries`,
          () => entries(frame),
          (e) => e.length === n + 1 && e[0].current,
          { timeoutMs: 60_000, intervalMs: 300 },
        );
      });
    }
    const before = await entries(frame);
    const oldest = before[before.length - 1];
    assert.match(oldest.path, /^GET \/\S*\/vehicles(\?|$)/, 'the oldest is the first send, List Vehicles');
    const again = frame.locator('[data-testid="history-run-again"]');
    assert.equal(await again.count(), 1, 'only the entry that keeps its summary only offers Run again');
    assert.equal(
      await frame.locator('[data-testid="history-entry"]').last().locator('[data-testid="history-run-again"]').count(),
      1,
    );
    assert.equal(
      await frame.locator('[data-testid="history-show"]').last().getAttribute('disabled'),
      '',
      'it cannot be shown again',
    );

    await step(page, 'Run again on the oldest entry', () => again.click());
    const after = await waitUntil(
      'a new entry on top',
      () => entries(frame),
      (e) => e.length === before.length + 1 && e[0].current,
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    assert.equal(after[0].path, oldest.path, 'the same request');
    assert.match(after[0].status, /^200\b/);
    assert.ok(after[0].jti && !before.some((e) => e.jti === after[0].jti), `a fresh token: ${JSON.stringify(after)}`);
    assert.match(await frame.locator('[data-testid="result-title"]').innerText(), /^Vehicles/);
  });
});
