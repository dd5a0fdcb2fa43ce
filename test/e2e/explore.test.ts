import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { HOUR_MS, floorToUtcHour, formatUtcHour, lastCompleteUtcHour } from '../../src/core/mds/utcHour';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import {
  answerInputBox,
  expandTreeRow,
  openViewContainer,
  pickQuickPickItem,
  quickInputState,
  quickOpenFile,
  runCommandAndPick,
  startSandboxAndSelect,
  step,
  treeRow,
  treeRows,
  waitForNotification,
} from './workbench';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The session's token rows (label = jti) whose description says they went out on `request`, e.g. "GET 200 /mds-staging/trips". */
async function tokenRows(page: Page, request: RegExp): Promise<string[]> {
  return (await treeRows(page, 'Environments'))
    .filter((r) => UUID.test(r.label) && request.test(r.description))
    .map((r) => r.label);
}

/** Exploring endpoints from the editor: a request file's CodeLens, an endpoint of the tree, 202 and 404 in plain words. */
describe('exploring endpoints in the workbench', function () {
  this.timeout(180_000);
  const wb = useWorkbench();
  const hour = lastCompleteUtcHour(Date.now());
  const fileName = 'explore-requests.http';

  before(() => {
    fs.writeFileSync(
      path.join(e2eFolders().workspaceDir, fileName),
      `# @name trips\nGET {{baseUrl}}/trips?end_time=${hour}\n`,
    );
  });

  after(() => {
    fs.rmSync(path.join(e2eFolders().workspaceDir, fileName), { force: true });
  });

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
