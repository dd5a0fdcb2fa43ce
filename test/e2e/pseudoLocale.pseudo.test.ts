// Run by `npm run test:e2e:pseudo` only: VS Code in the qps-ploc pseudo-locale (scripts/run-e2e.mjs with
// E2E_LOCALE), where every string of ours reads "Ŀǿǿƈȧȧŀ şȧȧƞḓƀǿǿẋ". A word of plain English letters left in
// our notifications, our tree rows or the results panel is a string that does not go through l10n.t.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { HOUR_MS, floorToUtcHour, formatUtcHour } from '../../src/core/mds/utcHour';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import { openViewContainer, runCommand, runCommandAndPick, step, treeRows, waitForNotification } from './workbench';
import { resultsPanelFrame, webviewWith } from './panelFrame';

/**
 * What counts as English of ours: a word of two or more ASCII letters in our text. Not counted, because they
 * are data or names that stay as they are in every language:
 * - text of the elements that show data as it came (see panelTexts), wherever it appears;
 * - URLs, UUIDs, times, numbers, and identifiers: words with `_`, `-`, `/`, `.`, a digit or an inner capital
 *   (last_updated, car-share, oneOf, v2.0);
 * - the names below: API and format names, the HTTP method, JWT claim and header parameter names, the stage ids
 *   of the environments, an MDS field name that findings quote.
 */
const NAMES = new Set([
  'MDS',
  'MaaS',
  'JSON',
  'JWT',
  'CSV',
  'GeoJSON',
  'URL',
  'GET',
  'HTTP',
  'curl',
  'TOKEN',
  'Bearer',
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'kid',
  'alg',
  'typ',
  'email',
  'ES256',
  'RS256',
  'staging',
  'production',
  'OK',
  'ttl',
]);

/** The English words of `text`: what is left once data (`dataValues`, URLs, ids, numbers, NAMES) is taken out. */
function englishWords(text: string, dataValues: readonly string[] = []): string[] {
  let rest = text;
  for (const value of [...dataValues].sort((a, b) => b.length - a.length))
    if (value.length > 1) rest = rest.split(value).join(' ');
  const stripped = rest
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' ')
    .replace(/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?Z?\b/g, ' ')
    .replace(/\b\d{1,2}:\d\d(:\d\d)?( ?[AP]M)?\b/g, ' ')
    // host:port/path of a base URL shown without its scheme
    .replace(/\b127\.0\.0\.1:\d+\S*/g, ' ');
  const words = stripped
    .split(/[^A-Za-z0-9_\-/.]+/)
    .map((w) => w.replace(/^[-/.]+|[-/.]+$/g, ''))
    .filter((w) => /[A-Za-z]{2}/.test(w));
  const identifier = (w: string) => /[_\-/.0-9]/.test(w) || /[a-z][A-Z]/.test(w);
  return words.filter((w) => !NAMES.has(w) && !identifier(w));
}

/** Our visible text: each string, and where it was, that still has English words in it. */
function leftovers(texts: { where: string; text: string }[], dataValues: readonly string[]): string[] {
  return texts.flatMap(({ where, text }) => {
    const words = englishWords(text, dataValues);
    return words.length ? [`${where}: "${text}" (${words.join(', ')})`] : [];
  });
}

/**
 * The panel's own text: every text node and the title, aria-label, placeholder and heading attributes, except
 * inside the elements that show data as it came (code and pre blocks, the JSON tree's keys and values, the
 * table's cells, URLs, header names and values, status badges with the server's reason phrase).
 */
async function panelTexts(frame: Frame): Promise<{ texts: { where: string; text: string }[]; data: string[] }> {
  return frame.locator('#app').evaluate((app) => {
    const DATA =
      '[translate="no"], pre, code, .jt-key, .jt-value, .vt-row, .url, [data-testid="request-url"], table.headers th[scope="row"], table.headers td, .status, .method, [data-testid="error-title"], .legend-item, vscode-option[value]:not([value=""])';
    const out: { where: string; text: string }[] = [];
    const data = Array.from(app.querySelectorAll(DATA))
      .map((el) => el.textContent?.trim() ?? '')
      .filter(Boolean);
    const walker = document.createTreeWalker(app, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = node.textContent?.trim() ?? '';
        const parent = node.parentElement;
        if (text && parent && !parent.closest(DATA))
          out.push({
            where: `<${parent.tagName.toLowerCase()}${parent.dataset.testid ? ` ${parent.dataset.testid}` : ''}>`,
            text,
          });
      } else {
        const el = node as HTMLElement;
        if (el.closest(DATA)) continue;
        for (const attr of ['title', 'aria-label', 'placeholder', 'heading', 'label']) {
          const value = el.getAttribute(attr);
          if (value) out.push({ where: `${el.tagName.toLowerCase()}[${attr}]`, text: value });
        }
      }
    }
    return { texts: out, data };
  });
}

/** The frame of the results panel that shows a harvest's heatmap (a harvest has a tab of its own, beside the environment's results). */
async function heatmapFrame(page: Page): Promise<Frame> {
  const outer = page.locator('iframe.webview.ready');
  for (let i = (await outer.count()) - 1; i >= 0; i--) {
    const outerFrame = await (await outer.nth(i).elementHandle())?.contentFrame();
    const inner = await (await outerFrame?.locator('iframe#active-frame').elementHandle())?.contentFrame();
    if (inner && (await inner.locator('[data-testid="heatmap"]').count())) return inner;
  }
  throw new Error('No webview shows the heatmap.');
}

/** Our pseudo-locale strings, as installed with the VSIX (generated by `npm run l10n -- --pseudo`). */
function installedStrings(): { nls: Record<string, string>; bundle: Record<string, string> } {
  const { extensionsDir } = e2eFolders();
  const dir = fs.readdirSync(extensionsDir).find((d) => d.startsWith('mobility-api-explorer.mobility-api-explorer-'));
  assert.ok(dir, `the extension is installed in ${extensionsDir}`);
  const read = (file: string): Record<string, string> =>
    JSON.parse(fs.readFileSync(path.join(extensionsDir, dir, file), 'utf8')) as Record<string, string>;
  return { nls: read('package.nls.qps-ploc.json'), bundle: read(path.join('l10n', 'bundle.l10n.qps-ploc.json')) };
}

/** A key that runs Fetch Hours… with all its arguments, as a script would: VS Code passes a keybinding's `args` to the command. */
const FETCH_HOURS_KEY = 'ctrl+alt+shift+f9';

describe('Pseudo-locale (qps-ploc)', () => {
  const folders = e2eFolders();
  const keybindingsFile = path.join(folders.userDataDir, 'User', 'keybindings.json');
  const outDir = path.join(folders.userDataDir, '..', `pseudo-fetch-hours-${process.pid}`);
  const current = floorToUtcHour(Date.now());
  // Past hours only: the sandbox serves them at once (no 202 for the current hour, whose record would hold the run's own English problem text).
  const range = { from: formatUtcHour(current - 13 * HOUR_MS), to: formatUtcHour(current - 2 * HOUR_MS) };
  let originalKeybindings: string | undefined;

  // Registered before useWorkbench()'s hooks, so that the workbench loads with the keybinding.
  before(() => {
    originalKeybindings = fs.existsSync(keybindingsFile) ? fs.readFileSync(keybindingsFile, 'utf8') : undefined;
    fs.mkdirSync(path.dirname(keybindingsFile), { recursive: true });
    fs.writeFileSync(
      keybindingsFile,
      JSON.stringify(
        [
          {
            key: FETCH_HOURS_KEY,
            command: 'mobilityApi.fetchHours',
            args: { environmentId: 'sandbox-mds-staging', endpointId: 'trips', ...range, outDir },
          },
        ],
        null,
        2,
      ),
    );
    fs.rmSync(outDir, { recursive: true, force: true });
  });
  after(() => {
    if (originalKeybindings === undefined) fs.rmSync(keybindingsFile, { force: true });
    else fs.writeFileSync(keybindingsFile, originalKeybindings);
    fs.rmSync(outDir, { recursive: true, force: true });
  });
  const wb = useWorkbench();

  /** Starts the sandbox from the palette by its pseudo-locale title (a running one says so again); its notification. */
  async function startSandbox(page: Page): Promise<string> {
    const { nls, bundle } = installedStrings();
    await step(page, 'start the sandbox from the palette, by its pseudo-locale title', () =>
      runCommand(page, `${nls.category}: ${nls['command.startSandbox']}`),
    );
    const running = bundle['Local sandbox running on {0}, with its demo credential bound to its three environments.'];
    return step(page, 'see the sandbox notification', () =>
      waitForNotification(page, running.replace('{0}', '').split('http')[0].slice(0, 12), 60_000),
    );
  }

  it('shows no English of ours in the notifications, the tree or the results panel', async function () {
    this.timeout(300_000);
    const page = wb.page;
    const { nls, bundle } = installedStrings();
    const command = (id: string) => `${nls.category}: ${nls[`command.${id}`]}`;
    const t = (key: string, ...args: string[]) => {
      assert.ok(bundle[key], `the pseudo bundle has "${key}"`);
      return bundle[key].replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? '');
    };
    // The check can fail: a plain English sentence is caught, its pseudo form is not.
    assert.deepEqual(englishWords('Local sandbox running on 127.0.0.1:4000'), ['Local', 'sandbox', 'running', 'on']);
    assert.deepEqual(
      englishWords(
        t(
          'Local sandbox running on {0}, with its demo credential bound to its three environments.',
          'http://127.0.0.1:4000',
        ),
      ),
      [],
    );

    const texts: { where: string; text: string }[] = [];
    texts.push({ where: 'notification', text: await startSandbox(page) });

    await step(page, 'open our view container', () => openViewContainer(page, nls['viewContainer.title']));
    const rows = await step(page, 'read the environments tree', async () => {
      return waitUntil(
        'the environments tree to list its rows',
        () => treeRows(page, nls['view.environments']),
        (found) => found.length > 1,
        { timeoutMs: 30_000, intervalMs: 250 },
      );
    });
    assert.ok(rows.length > 1, `the environments tree lists rows: ${JSON.stringify(rows)}`);
    for (const r of rows) texts.push({ where: `tree row "${r.label}"`, text: `${r.label} ${r.description}` });

    await step(page, 'list the sandbox vehicles', () =>
      runCommandAndPick(page, command('listVehicles'), t('Sandbox · {0}', 'MDS staging')),
    );
    await step(page, 'wait for the table', async () => {
      const frame = await webviewWith(page, '[data-testid="row-count"]');
      await frame.locator('[data-testid="row-count"]').waitFor({ timeout: 30_000 });
    });
    const { frame } = await resultsPanelFrame(page);
    // Every collapsed section open, so that its text is there to read.
    await frame
      .locator('vscode-collapsible:not([open])')
      .evaluateAll((els) => els.forEach((e) => e.setAttribute('open', '')));
    const panel = await panelTexts(frame);
    texts.push(...panel.texts);
    assert.ok(texts.length > 30, `the panel had text to check (${texts.length} strings)`);

    const english = leftovers(texts, panel.data);
    assert.deepEqual(english, [], `English left in the pseudo-locale:\n${english.join('\n')}`);
  });
  it("shows no English of ours in a Fetch Hours heatmap: cells, legend, hover, the hour's table, the notification", async function () {
    this.timeout(300_000);
    const page = wb.page;
    await startSandbox(page);
    const { bundle } = installedStrings();
    const t = (key: string, ...args: string[]) => {
      assert.ok(bundle[key], `the pseudo bundle has "${key}"`);
      return bundle[key].replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? '');
    };
    await step(
      page,
      `Fetch Hours… trips ${range.from} to ${range.to} of the sandbox, by a keybinding with its arguments`,
      async () => {
        // The keybinding is the workbench's: give it the keyboard, out of the results panel's webview.
        await runCommand(page, 'View: Focus into Primary Side Bar');
        await page.keyboard.press('Control+Alt+Shift+F9');
      },
    );
    const texts: { where: string; text: string }[] = [];
    const done = await step(page, 'see the harvest finish', () =>
      waitForNotification(page, t('Fetch Hours: complete. {0}', '').slice(0, 12), 180_000),
    );
    texts.push({ where: 'notification', text: done });
    const frame = await step(page, 'see the heatmap in its own results panel, finished', async () => {
      await webviewWith(page, '[data-testid="heatmap"]');
      const found = await heatmapFrame(page);
      const finished = t('Finished');
      await waitUntil(
        `the harvest view to say "${finished}"`,
        async () => (await found.locator('[data-testid="harvest-status"]').textContent())?.trim(),
        (text) => text === finished,
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      return found;
    });
    const states = await frame
      .locator('button[data-hour]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-state')));
    assert.equal(states.length, 12, 'one cell per hour of the range');
    assert.ok(states.includes('items'), `some hour has trips: ${states.join(', ')}`);
    await step(page, 'open an hour with trips in the table', async () => {
      await frame.locator('button[data-state="items"]').first().click();
      await frame.locator('[data-testid="trips-table"]').waitFor({ timeout: 30_000 });
    });
    const panel = await panelTexts(frame);
    texts.push(...panel.texts);
    const where = (w: string) => texts.filter((x) => x.where.includes(w)).length;
    assert.ok(
      where('button[title]') >= 12 && where('button[aria-label]') >= 12,
      "every cell's hover and accessible name were read",
    );
    assert.ok(
      texts.some((x) => x.where.includes('harvest-hour-line')) && texts.some((x) => x.where.includes('li legend-')),
      "the hour's line and the legend were read",
    );
    const english = leftovers(texts, panel.data);
    assert.deepEqual(english, [], `English left in the pseudo-locale:\n${english.join('\n')}`);
  });
});
