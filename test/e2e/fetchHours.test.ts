// In the real VS Code: Fetch Hours… from the palette against a sandbox run by this test with faults, so
// that the heatmap shows every outcome (items, 200 but empty, 404, still 202, failed, and an hour that failed
// once and then worked), live while it runs; the cells' text, state and hover are checked against the
// manifest the harvest wrote, an hour's items open in the trips table by click and by keyboard, and the
// cells' text keeps a contrast of at least 4.5:1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { HOUR_MS, floorToUtcHour, formatUtcHour } from '../../src/core/mds/utcHour';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { waitFor } from '../unit/support/waitUntil';
import { keyFixture } from '../unit/keyFixtures';
import { heatmapStatesAlike, measureHeatmapStates, measurePanelContrast } from './panelContrast';
import { axeViolations, describeViolations, resultsPanelFrame, webviewWith } from './panelFrame';
import { e2eFolders, useWorkbench } from './session';
import {
  addPastedCredential,
  answerInputBox,
  answerPathDialog,
  chooseMenuItem,
  clickNotificationButton,
  expandTreeRow,
  openViewContainer,
  pickQuickPickItem,
  quickInputState,
  runCommand,
  runCommandAndPick,
  step,
  tickQuickPickItems,
  treeRow,
  waitForNotification,
} from './workbench';

interface ManifestOnDisk {
  format: string;
  from: string;
  to: string;
  hours: Record<string, { status: string; items: number; bytes: number; attempts: number; httpStatus?: number }>;
}

/** Picks `folder` in code-server's folder dialog, once it suggests `suggested`. */
function pickFolder(page: Page, folder: string, suggested: string, started: () => boolean): Promise<void> {
  return answerPathDialog(page, folder, {
    suggested: (value) => value.replace(/\/$/, '') === suggested,
    done: started,
    doneWhat: 'the harvest starts',
  });
}

/** Until `check` holds (the shared condition wait, polling every 250 ms); fails with `what` after `timeoutMs`. */
function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  return waitFor(what, check, { timeoutMs, intervalMs: 250 });
}

/** The cells' states now shown, by hour. */
async function cellStates(frame: FrameLocator): Promise<Record<string, string>> {
  return frame
    .locator('button[data-hour]')
    .evaluateAll((els) =>
      Object.fromEntries(els.map((e) => [e.getAttribute('data-hour') ?? '', e.getAttribute('data-state') ?? ''])),
    );
}

describe('Fetch Hours… in the workbench', function () {
  this.timeout(420_000);
  const folders = e2eFolders();
  const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
  const envName = 'Faulty provider';
  const kid = `e2e-harvest-${process.pid}`;
  const iss = 'harvest@org.test.invalid';
  const key = keyFixture('p256');
  const current = floorToUtcHour(Date.now());
  const hour = (back: number) => formatUtcHour(current - back * HOUR_MS);
  // Two hours ahead, not one: the run can cross an hour boundary between here and the harvest, and the next hour
  // would then be the current one (202), not a future one (404). 32 hours, as before.
  const from = hour(29);
  const to = formatUtcHour(current + 2 * HOUR_MS);
  const PENDING = hour(5);
  const RETRIED = hour(4);
  const BROKEN = hour(3);
  const outDir = path.join(folders.userDataDir, '..', `fetch-hours-${process.pid}`);
  let original = '';
  let sandbox: RunningSandbox;

  // Registered before useWorkbench()'s hooks, so that the workbench loads with the environment in the settings.
  before(async () => {
    sandbox = await startSandbox({
      // Eight vehicles: four could go a day without a trip (2026-07-05), and the test needs hours with items and
      // empty ones; with eight every run hour of 2025-2027 has at least five of each.
      fleetSize: 8,
      seed: 11,
      trust: [{ kid, iss, type: 'external-org', publicKey: key.publicKey }],
      faults: [
        { endpoint: 'trips', hour: PENDING, status: 202, times: 1_000_000 },
        { endpoint: 'trips', hour: RETRIED, status: 500, times: 1 },
        { endpoint: 'trips', hour: BROKEN, status: 500, times: 1_000_000 },
      ],
    });
    const baseUrl = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl;
    original = fs.readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as Record<string, unknown>;
    settings['mobilityApi.customEnvironments'] = [
      { id: 'faulty', name: envName, api: 'mds', stage: 'staging', baseUrl },
    ];
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
  });
  after(async () => {
    if (original) fs.writeFileSync(settingsFile, original);
    await sandbox?.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  });
  const wb = useWorkbench();

  it("shows each hour's outcome in the heatmap, live, and an hour's items in the trips table", async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container and see the provider', async () => {
      await openViewContainer(page, 'Mobility API');
      await treeRow(page, 'Environments', envName);
    });
    await step(page, 'add a credential the provider trusts and bind it', () =>
      addPastedCredential(page, { pkcs8: key.pkcs8, kid, iss, name: 'Harvest credential', environment: envName }),
    );
    await step(page, 'run Fetch Hours… for Trips', async () => {
      await runCommandAndPick(page, 'Mobility API: Fetch Hours…', envName);
      await tickQuickPickItems(page, ['Trips']);
    });
    await step(page, 'refuse a typo in the first hour, then give the range', async () => {
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await until(
        'the first hour is asked',
        async () => /first hour/.test((await quickInputState(page))?.message ?? ''),
        60_000,
      );
      await box.fill('2025-11-5T7');
      await until(
        'the typo is refused',
        async () =>
          /from "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH/.test((await quickInputState(page))?.message ?? ''),
        30_000,
      );
      await box.fill(from);
      await box.press('Enter');
      await answerInputBox(page, to, /last hour/);
    });
    await step(page, 'pick the output folder in the folder dialog', () =>
      pickFolder(page, outDir, folders.workspaceDir, () => fs.existsSync(path.join(outDir, 'trips'))),
    );
    const frame = await step(page, 'see the heatmap in the results panel', () =>
      webviewWith(page, '[data-testid="heatmap"]'),
    );
    await step(page, 'see it fill in live while the harvest runs', async () => {
      const first = await cellStates(frame);
      assert.equal(Object.keys(first).length, 32, 'one cell per hour of the range');
      const waiting = Object.values(first).filter((s) => s === 'not_fetched').length;
      assert.ok(waiting > 0, 'hours not fetched yet are shown as such');
      assert.equal((await frame.locator('[data-testid="harvest-status"]').textContent())?.trim(), 'Fetching…');
      await until(
        'fewer hours are waiting',
        async () => Object.values(await cellStates(frame)).filter((s) => s === 'not_fetched').length < waiting,
      );
    });
    await step(page, 'wait until the harvest finishes', () =>
      until(
        'the panel says Finished',
        async () => (await frame.locator('[data-testid="harvest-status"]').textContent())?.trim() === 'Finished',
        180_000,
      ),
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as ManifestOnDisk;
    await step(page, "read every cell: its state and text are the manifest's", async () => {
      assert.equal(manifest.format, 'mobility-api-harvest');
      const states = await cellStates(frame);
      for (const [h, record] of Object.entries(manifest.hours)) assert.equal(states[h], record.status, h);
      const text = async (h: string) => (await frame.locator(`[data-testid="heat-${h}"]`).textContent())?.trim();
      assert.deepEqual([states[PENDING], await text(PENDING)], ['pending', '202']);
      assert.deepEqual([states[BROKEN], await text(BROKEN)], ['failed', '500']);
      assert.deepEqual([states[to], await text(to)], ['not_found', '404']);
      assert.equal(manifest.hours[RETRIED].attempts, 2);
      assert.ok(['items', 'empty'].includes(states[RETRIED]), 'the hour that failed once was fetched on the retry');
      assert.match(
        (await frame.locator(`[data-testid="heat-${RETRIED}"]`).getAttribute('title')) ?? '',
        /\nAttempts: 2\n/,
      );
      assert.match(
        (await frame.locator(`[data-testid="heat-${BROKEN}"]`).getAttribute('aria-label')) ?? '',
        /: failed with 500: /,
      );
      const seen = new Set(Object.values(states));
      for (const s of ['items', 'empty', 'not_found', 'pending', 'failed'])
        assert.ok(seen.has(s), `some hour shows ${s}`);
      for (const [h, record] of Object.entries(manifest.hours)) {
        if (record.status === 'items') assert.equal(await text(h), String(record.items), h);
        if (record.status === 'empty') assert.equal(await text(h), '0', h);
      }
      const count = (s: string) => Object.values(manifest.hours).filter((r) => r.status === s).length;
      assert.equal(
        (await frame.locator('[data-testid="legend-failed"]').textContent())?.trim(),
        `Failed: ${count('failed')}`,
      );
      assert.equal(
        (await frame.locator('[data-testid="legend-items"]').textContent())?.trim(),
        `With items: ${count('items')}`,
      );
      assert.equal(
        (await frame.locator('[data-testid="legend-not_fetched"]').textContent())?.trim(),
        'Not yet fetched: 0',
      );
    });
    const withItems = Object.entries(manifest.hours)
      .filter(([, r]) => r.status === 'items')
      .map(([h]) => h)
      .sort();
    await step(page, 'click an hour with items and see them in the trips table', async () => {
      const [h] = withItems;
      await frame.locator(`[data-testid="heat-${h}"]`).click();
      const line = frame.locator('[data-testid="harvest-hour-line"]');
      await until('the hour line names the hour', async () =>
        ((await line.textContent()) ?? '').includes(`${h.slice(0, 10)} ${h.slice(11)}:00`),
      );
      const n = manifest.hours[h].items;
      assert.match((await line.textContent()) ?? '', new RegExp(`: ${n} trips? \\(`));
      await frame.locator('[data-testid="trips-table"]').waitFor({ timeout: 20_000 });
      assert.match((await frame.locator('[data-testid="row-count"]').textContent()) ?? '', new RegExp(`\\b${n}\\b`));
      assert.equal(await frame.locator(`[data-testid="heat-${h}"]`).getAttribute('aria-pressed'), 'true');
    });
    await step(page, "save the hour's trips as CSV through the save dialog", async () => {
      const target = path.join(outDir, '..', `fetch-hours-${process.pid}.csv`);
      fs.rmSync(target, { force: true });
      await frame.locator('[data-testid="export-csv"]').click();
      // The name offered says the endpoint and the hour shown, not the time of saving (issue #24).
      await answerPathDialog(page, target, {
        suggested: (value) => value.endsWith(`/trips_${withItems[0]}.csv`),
        done: () => fs.existsSync(target),
        doneWhat: 'the CSV is written',
      });
      const lines = fs.readFileSync(target, 'utf8').trimEnd().split('\r\n');
      fs.rmSync(target, { force: true });
      assert.match(lines[0], /^Trip ID,Device ID,/);
      assert.equal(lines.length, manifest.hours[withItems[0]].items + 1, 'a header and one line per trip of the hour');
      const ids = fs
        .readFileSync(path.join(outDir, 'trips', `${withItems[0]}.ndjson`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { trip_id: string }).trip_id)
        .sort();
      assert.deepEqual(
        lines
          .slice(1)
          .map((l) => l.split(',')[0])
          .sort(),
        ids,
      );
    });
    await step(page, 'move with the arrow keys and open the next hour with Enter', async () => {
      const [h] = withItems;
      const next = formatUtcHour(Date.parse(`${h}:00:00Z`) + HOUR_MS);
      await frame.locator(`[data-testid="heat-${h}"]`).focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await frame.locator('button[data-hour]:focus').getAttribute('data-hour'), next);
      await page.keyboard.press('Enter');
      const line = frame.locator('[data-testid="harvest-hour-line"]');
      await until('the next hour is shown', async () =>
        ((await line.textContent()) ?? '').includes(`${next.slice(0, 10)} ${next.slice(11)}:00`),
      );
    });
    await step(page, 'a 404 hour says why it has no items', async () => {
      await frame.locator(`[data-testid="heat-${to}"]`).click();
      const line = frame.locator('[data-testid="harvest-hour-line"]');
      await until('the 404 hour is explained', async () =>
        /404 not found; no trips were written/.test((await line.textContent()) ?? ''),
      );
      assert.equal(await frame.locator('[data-testid="trips-table"]').count(), 0);
    });
    await step(page, 'axe finds no serious or critical violation in the harvest view', async () => {
      const { frame: inner } = await resultsPanelFrame(page);
      const violations = await axeViolations(inner);
      assert.deepEqual(violations, [], describeViolations(violations));
    });
    await step(page, 'cells keep their text readable: contrast of at least 4.5:1 for every state', async () => {
      // The panel's own contrast probes (test/e2e/panelContrast.ts) include a cell of every heatmap state.
      const readings = (await frame.locator('body').evaluate(measurePanelContrast)).filter((r) =>
        r.name.startsWith('heatmap cell'),
      );
      // Seven states, and the text over the hatching of those that have one.
      assert.equal(
        new Set(readings.map((r) => r.name.replace(/ text on its hatching$/, ''))).size,
        7,
        JSON.stringify(readings),
      );
      for (const r of readings)
        assert.ok(r.ratio >= 4.5, `${r.name}: contrast ${r.ratio.toFixed(2)}:1 (${r.color} on ${r.background})`);
      // And the states tell apart without colour (issue #24): a pattern, a border or a lightness of their own.
      assert.deepEqual(heatmapStatesAlike(await frame.locator('body').evaluate(measureHeatmapStates)), []);
    });
  });

  it("after Reload Window, the harvest panel shows the heatmap again from the folder's manifest, and its hours open", async () => {
    const page = wb.page;
    const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as ManifestOnDisk;
    await step(page, 'run "Developer: Reload Window" and wait for the workbench', async () => {
      const reloaded = page.waitForEvent('load', { timeout: 60_000 });
      await runCommand(page, 'Developer: Reload Window');
      await reloaded;
      // Not waitForWorkbench: the side bar comes back on the Mobility API view, not the explorer.
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
    });
    const frame = await step(page, 'see the heatmap again in the restored panel', () =>
      webviewWith(page, '[data-testid="heatmap"]'),
    );
    await step(page, "every cell is the manifest's hour, and the harvest is not said to be running", async () => {
      await until('the cells are drawn', async () => Object.keys(await cellStates(frame)).length === 32);
      const states = await cellStates(frame);
      for (const [h, record] of Object.entries(manifest.hours)) assert.equal(states[h], record.status, h);
      assert.notEqual((await frame.locator('[data-testid="harvest-status"]').textContent())?.trim(), 'Fetching…');
    });
    await step(page, 'an hour with items opens its trips from the folder', async () => {
      const [h] = Object.entries(manifest.hours)
        .filter(([, r]) => r.status === 'items')
        .map(([hr]) => hr)
        .sort();
      await frame.locator(`[data-testid="heat-${h}"]`).click();
      await frame.locator('[data-testid="trips-table"]').waitFor({ timeout: 20_000 });
      assert.match(
        (await frame.locator('[data-testid="row-count"]').textContent()) ?? '',
        new RegExp(`\\b${manifest.hours[h].items}\\b`),
      );
    });
  });

  it('offers Fetch Hours… in the context menu of an hour endpoint in the tree, not of other endpoints', async () => {
    const page = wb.page;
    const menuItems = async (row: Awaited<ReturnType<typeof treeRow>>) => {
      await row.click({ button: 'right' });
      const menu = page.locator('.context-view .monaco-menu .action-label');
      await menu.first().waitFor({ timeout: 30_000 });
      return (await menu.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    };
    await step(page, "open the provider's Endpoints", async () => {
      await openViewContainer(page, 'Mobility API');
      await expandTreeRow(page, 'Environments', envName, 1);
      await expandTreeRow(page, 'Environments', 'Endpoints', 2);
    });
    await step(page, 'Vehicles has no Fetch Hours…', async () => {
      const items = await menuItems(await treeRow(page, 'Environments', 'Vehicles', 30_000, 3));
      assert.ok(items.includes('Send Request…') && !items.includes('Fetch Hours…'), items.join(' | '));
      await page.keyboard.press('Escape');
    });
    await step(page, 'Trips has it, and it asks for the range of Trips of the provider', async () => {
      const items = await menuItems(await treeRow(page, 'Environments', 'Trips', 30_000, 3));
      assert.ok(items.includes('Fetch Hours…'), items.join(' | '));
      await chooseMenuItem(page, 'Fetch Hours…');
      await until(
        'the first hour of Trips is asked',
        async () => {
          const q = await quickInputState(page);
          return /first hour/.test(q?.message ?? '') && (q?.title ?? '').includes(`Trips · ${envName}`);
        },
        60_000,
      );
      await page.keyboard.press('Escape');
    });
  });

  it('offers "Fetch hours…" on a result of an hour endpoint, with that hour as the last of the range', async () => {
    const page = wb.page;
    const asked = hour(2);
    await step(page, `Send Request… Trips ${asked} to the provider`, async () => {
      await runCommandAndPick(page, 'Mobility API: Send Request…', envName);
      await pickQuickPickItem(page, 'Trips');
      await answerInputBox(page, asked, /end_time/);
    });
    const frame = await step(page, 'see the result with "Fetch hours…"', () =>
      webviewWith(page, '[data-testid="fetch-hours"]', { visible: true }),
    );
    await step(page, 'click it and see the range asked, ending at that hour', async () => {
      await frame.locator('[data-testid="fetch-hours"]').click();
      await until(
        'the first hour is asked',
        async () => /first hour/.test((await quickInputState(page))?.message ?? ''),
        60_000,
      );
      assert.equal(
        (await quickInputState(page))?.value,
        formatUtcHour(Date.parse(`${asked}:00:00Z`) - 23 * HOUR_MS),
        "the 24 hours up to the result's hour",
      );
      await page.keyboard.press('Enter');
      await until(
        'the last hour is asked',
        async () => {
          const q = await quickInputState(page);
          return /\(2\/2\)|last hour/.test(`${q?.title ?? ''} ${q?.message ?? ''}`);
        },
        60_000,
      );
      assert.equal((await quickInputState(page))?.value, asked);
      await page.keyboard.press('Escape');
    });
  });

  it('Cancel stops after the current request and leaves a consistent folder, which the CLI resumes', async () => {
    const page = wb.page;
    const older = { from: hour(61), to: hour(30) };
    const inOlder = (h: string) => h >= older.from && h <= older.to;
    await step(page, `Fetch Hours… ${older.from} to ${older.to} into the same folder`, async () => {
      await runCommandAndPick(page, 'Mobility API: Fetch Hours…', envName);
      await tickQuickPickItems(page, ['Trips']);
      await answerInputBox(page, older.from, /first hour/);
      await answerInputBox(page, older.to, /last hour/);
      const before = fs.statSync(path.join(outDir, 'manifest.json')).mtimeMs;
      await pickFolder(
        page,
        outDir,
        folders.workspaceDir,
        () =>
          fs.statSync(path.join(outDir, 'manifest.json')).mtimeMs !== before ||
          fs.existsSync(path.join(outDir, 'harvest.lock')),
      );
    });
    const frame = await step(page, 'see the older hours fill in', async () => {
      const f = await webviewWith(page, `[data-testid="heat-${older.from}"]`);
      await until(
        'three older hours are recorded',
        async () =>
          Object.entries(await cellStates(f)).filter(([h, s]) => inOlder(h) && s !== 'not_fetched' && s !== 'fetching')
            .length >= 3,
      );
      return f;
    });
    await step(page, 'press Cancel on the progress notification', async () => {
      // At second precision (the default) the progress line says what sets the pace.
      await clickNotificationButton(
        page,
        /Trips · Faulty provider: \d+ of 32 hours[\s\S]*at most 1 request a second/,
        'Cancel',
      );
      await waitForNotification(page, /Fetch Hours stopped: the hours finished are recorded/, 60_000);
      await until('the panel says it was stopped', async () =>
        /^Stopped: cancelled\. The hours finished are recorded/.test(
          (await frame.locator('[data-testid="harvest-status"]').textContent())?.trim() ?? '',
        ),
      );
    });
    let doneBefore = 0;
    await step(
      page,
      'the folder is consistent: every hour file is recorded with its size, nothing half-written, the rest not reached',
      async () => {
        const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as ManifestOnDisk;
        assert.equal(manifest.from, older.from, 'the manifest widened to the older range');
        const files = fs.readdirSync(path.join(outDir, 'trips'));
        assert.deepEqual(
          files.filter((f) => f.endsWith('.tmp')),
          [],
          'no temporary file is left',
        );
        for (const file of files) {
          const record = manifest.hours[file.replace(/\.ndjson$/, '')];
          assert.ok(record && ['items', 'empty'].includes(record.status), `${file} is recorded as done`);
          assert.equal(
            fs.statSync(path.join(outDir, 'trips', file)).size,
            record.bytes,
            `${file} has the recorded size`,
          );
        }
        const olderHours = Object.keys(manifest.hours).filter(inOlder);
        doneBefore = olderHours.length;
        assert.ok(doneBefore >= 3 && doneBefore < 32, `${doneBefore} of 32 older hours recorded before Cancel`);
        const states = await cellStates(frame);
        const notReached = Object.entries(states).filter(([h, st]) => inOlder(h) && st === 'not_fetched').length;
        assert.equal(notReached, 32 - doneBefore, 'the hours not reached show as not yet fetched');
      },
    );
    await step(page, 'mobility-api harvest resumes the folder: the hours done are skipped', async () => {
      const keyFile = path.join(outDir, '..', `fetch-hours-key-${process.pid}.pem`);
      fs.writeFileSync(keyFile, key.pkcs8, { mode: 0o600 });
      try {
        const baseUrl = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
        const args = [
          path.join(process.cwd(), 'dist', 'cli.js'),
          'harvest',
          'trips',
          '--from',
          older.from,
          '--to',
          older.to,
          '--out',
          outDir,
          '--base-url',
          baseUrl,
          '--private-key',
          keyFile,
          '--kid',
          kid,
          '--iss',
          iss,
          '--type',
          'external-org',
          '--state-dir',
          folders.stateDir,
          '--json',
        ];
        const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
          (resolve) => {
            execFile(process.execPath, args, { timeout: 120_000 }, (err, out, errText) =>
              resolve({ code: err ? Number(err.code ?? 1) : 0, stdout: out, stderr: errText }),
            );
          },
        );
        assert.equal(code, 0, `the CLI completes the range: ${stderr}`);
        const summary = JSON.parse(stdout) as { skipped: number; fetched: number; complete: boolean };
        assert.deepEqual(
          { skipped: summary.skipped, fetched: summary.fetched, complete: summary.complete },
          { skipped: doneBefore, fetched: 32 - doneBefore, complete: true },
        );
      } finally {
        fs.rmSync(keyFile, { force: true });
      }
    });
  });
});
