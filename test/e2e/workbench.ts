// Page helpers for driving the VS Code workbench (code-server in Chromium) from e2e tests. They wait for
// what a user would see, and fail with a message that names what they were waiting for. Wrap each
// user-level step in step() so that a failure also says what was on screen.
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { waitUntil } from '../unit/support/waitUntil';

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = `${QUICK_INPUT} .quick-input-box input`;
const QUICK_INPUT_ROWS = `${QUICK_INPUT} .quick-input-list .monaco-list-row`;
const TOASTS = '.notifications-toasts .notification-toast';

/** One row of a tree view as the user sees it. */
export interface TreeRow {
  label: string;
  description: string;
  /** 1 for top-level rows. */
  level: number;
  /** undefined for leaves. */
  expanded: boolean | undefined;
}

function escapeRegExp(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

async function visibleTexts(locator: Locator): Promise<string[]> {
  const texts: string[] = [];
  for (const item of await locator.all()) {
    // Short timeouts: `locator.all()` gives nth() locators, and a list that re-renders (a quick pick closing) leaves one
    // matching nothing, on which a read would wait the default 30 s and stall the caller's polling.
    if (await item.isVisible().catch(() => false))
      texts.push((await item.innerText({ timeout: 1000 }).catch(() => '')).replace(/\s+/g, ' ').trim());
  }
  return texts.filter(Boolean);
}

/** Waits until the workbench has loaded: the editor area, status bar and explorer are there. */
export async function waitForWorkbench(page: Page, timeoutMs = 90_000): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ timeout: timeoutMs });
  // The explorer lists the folder once the remote connection works; extension contributions come later.
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: timeoutMs });
}

/**
 * Answers code-server's file dialog (a quick input taking a path: the save and folder dialogs) with `target`,
 * once it has filled in its suggestion (`suggested` says so), and presses Enter until `done`: the simple dialog
 * validates the typed path asynchronously and can swallow an Enter that comes first, so while it is still open
 * on the path, Enter is pressed again.
 */
export async function answerPathDialog(
  page: Page,
  target: string,
  what: { suggested: (value: string) => boolean; done: () => boolean; doneWhat: string; timeoutMs?: number },
): Promise<void> {
  const timeoutMs = what.timeoutMs ?? 60_000;
  await waitUntil(
    'the file dialog to suggest a path',
    () => quickInputState(page),
    (state) => !!state && what.suggested(state.value),
    { timeoutMs, intervalMs: 200 },
  );
  const box = page.locator(QUICK_INPUT_BOX);
  await box.fill(target);
  await page.waitForFunction(([selector, want]) => document.querySelector<HTMLInputElement>(selector)?.value === want, [
    QUICK_INPUT_BOX,
    target,
  ] as const);
  await box.press('Enter');
  let lastEnter = Date.now();
  await waitUntil(
    what.doneWhat,
    async () => {
      if (what.done()) return true;
      const open = await quickInputState(page);
      if (open && open.value.replace(/\/$/, '') === target && Date.now() - lastEnter > 1500) {
        await box.press('Enter');
        lastEnter = Date.now();
      }
      return false;
    },
    (done) => done,
    { timeoutMs, intervalMs: 250 },
  );
}

/**
 * View: Close All Editors, answering "Don't Save" for an untitled editor a test left unsaved (a window restores
 * another window's unsaved editors from its backups, so an earlier describe block's editor can be here too).
 */
export async function closeAllEditors(page: Page): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  await waitUntil(
    'every editor to close',
    async () => {
      const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: /Don.t Save/ }).first();
      if (await dontSave.isVisible().catch(() => false)) {
        await dontSave.click();
        return false;
      }
      return (await page.locator('.monaco-workbench .tabs-container .tab').count()) === 0;
    },
    (closed) => closed,
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

/**
 * Registers a before hook in the calling describe block, for a suite that shares its window with the suite before it
 * (a window's load costs about 20 processor-seconds: docs/testing.md): no editor and no toast left by that suite, as
 * in a new window. The sandbox keeps running; Start Local Sandbox returns it and says so again.
 */
export function clearWindowBefore(page: () => Page): void {
  before(async () => {
    await closeAllEditors(page());
    await runCommand(page(), 'Notifications: Clear All Notifications');
  });
}

/** Clicks the first CodeLens of the active editor that says `text`, once it shows. */
export async function clickCodeLens(page: Page, text: string): Promise<void> {
  const lens = page.locator('.codelens-decoration a', { hasText: text }).first();
  await lens.waitFor({ timeout: 30_000 });
  await lens.click();
}

/** Closes any open quick input (palette, input box, quick pick). */
export async function closeQuickInput(page: Page): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  if (await widget.isVisible().catch(() => false)) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
  }
}

async function openPalette(page: Page, query: string): Promise<void> {
  // Right after the window loads, the workbench can take the palette away again (it turns inert, then
  // hides) while it restores views; open it again rather than wait on an input that is gone.
  for (let attempt = 1; ; attempt++) {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    const input = page.locator(QUICK_INPUT_BOX);
    try {
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill(`>${query}`, { timeout: 5000 });
      return;
    } catch (err) {
      if (attempt >= 4) throw err;
    }
  }
}

async function paletteLabels(page: Page): Promise<string[]> {
  // A row's aria-label is the command's full title ("Category: Title"), without keybinding or "recently used".
  const rows = page.locator(QUICK_INPUT_ROWS);
  const labels: string[] = [];
  for (const row of await rows.all()) {
    const label = (await row.getAttribute('aria-label', { timeout: 1000 }).catch(() => null)) ?? '';
    if (label) labels.push(label.split(', ')[0].trim());
  }
  return labels;
}

/**
 * The command palette's entries for `query`, once each of `expected` is among them. Commands that an
 * extension contributes appear only after the extension host has reported in, so this retries until
 * `timeoutMs`. Leaves the palette closed.
 */
export async function listCommands(
  page: Page,
  query: string,
  expected: string[] = [],
  timeoutMs = 60_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await openPalette(page, query);
    let labels: string[] = [];
    try {
      await page.locator(QUICK_INPUT_ROWS).first().waitFor({ timeout: 2000 });
      // The list filters asynchronously: read it until two reads in a row agree.
      let previous: string | undefined;
      labels = await waitUntil(
        `the palette list for ">${query}" to settle`,
        () => paletteLabels(page),
        (now) => {
          const same = JSON.stringify(now) === previous;
          previous = JSON.stringify(now);
          return same;
        },
        { timeoutMs: 5000, intervalMs: 150 },
      );
    } catch {
      // no row yet
    }
    const missing = expected.filter((title) => !labels.includes(title));
    if (!missing.length) {
      await closeQuickInput(page);
      return labels;
    }
    await closeQuickInput(page);
    if (Date.now() > deadline) {
      throw new Error(
        `The command palette never listed ${missing.map((m) => `"${m}"`).join(', ')} for ">${query}" within ${timeoutMs / 1000}s; it listed: ${labels.length ? labels.join(' | ') : 'nothing'}.`,
      );
    }
    await page.waitForTimeout(1000);
  }
}

/**
 * Runs a command from the palette by its full title ("Mobility API: Show Log"), retrying until the
 * command is listed (see listCommands).
 */
export async function runCommand(page: Page, title: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await openPalette(page, title);
    const row = page
      .locator(QUICK_INPUT_ROWS)
      .filter({ has: page.locator('.label-name', { hasText: escapeRegExp(title) }) })
      .first();
    if (
      await row.waitFor({ timeout: 2000 }).then(
        () => true,
        () => false,
      )
    ) {
      await row.click();
      // Wait until the palette is gone or replaced (by the command's own input box or quick pick), so the
      // next step cannot type into the closing palette.
      const input = page.locator(QUICK_INPUT_BOX);
      const deadline = Date.now() + 5000;
      while (
        Date.now() < deadline &&
        (await page
          .locator(QUICK_INPUT)
          .isVisible()
          .catch(() => false)) &&
        (await input.inputValue().catch(() => '')) === `>${title}`
      ) {
        await page.waitForTimeout(100);
      }
      return;
    }
    const labels = await paletteLabels(page);
    await closeQuickInput(page);
    if (Date.now() > deadline) {
      throw new Error(
        `The command "${title}" never appeared in the command palette within ${timeoutMs / 1000}s; it listed: ${labels.length ? labels.join(' | ') : 'nothing'}.`,
      );
    }
    await page.waitForTimeout(1000);
  }
}

/** The messages of the notification toasts now on screen (source and buttons left out). */
export async function notifications(page: Page): Promise<string[]> {
  return visibleTexts(page.locator(`${TOASTS} .notification-list-item-message`));
}

/** Waits for a notification toast whose message contains `text` (or matches it) and returns the message. */
export async function waitForNotification(page: Page, text: string | RegExp, timeoutMs = 20_000): Promise<string> {
  const toast = page.locator(`${TOASTS} .notification-list-item-message`, { hasText: text }).first();
  try {
    await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    const seen = await notifications(page);
    throw new Error(
      `No notification with ${String(text)} appeared within ${timeoutMs / 1000}s; on screen: ${seen.length ? seen.join(' | ') : 'none'}.`,
    );
  }
  return (await toast.innerText()).trim();
}

/**
 * Waits for the toast that says the local sandbox runs. Starting it builds its world in the extension host first:
 * on two cores shared with the other test lanes that took past 20 s (a rehearsal of 2026-11-29), so every start waits
 * up to a minute, as a user on a busy machine would.
 */
export function waitForSandboxRunning(page: Page, text: RegExp = /Local sandbox running on/): Promise<string> {
  return waitForNotification(page, text, 60_000);
}

/** Clicks a button (e.g. "Open", "Retry") in the notification toast that contains `text`. */
export async function clickNotificationButton(page: Page, text: string | RegExp, button: string): Promise<void> {
  const toast = page
    .locator(TOASTS, { has: page.locator('.notification-list-item-message', { hasText: text }) })
    .first();
  await toast.hover();
  await toast
    .locator('.monaco-button', { hasText: escapeRegExp(button) })
    .first()
    .click();
}

/** What the open quick input shows: its title, prompt/validation message, typed value and listed rows. */
export async function quickInputState(
  page: Page,
): Promise<{ title: string; message: string; value: string; rows: string[] } | undefined> {
  const widget = page.locator(QUICK_INPUT);
  if (!(await widget.isVisible().catch(() => false))) return undefined;
  const text = async (selector: string) => (await visibleTexts(widget.locator(selector))).join(' ');
  return {
    title: await text('.quick-input-title'),
    message: await text('.quick-input-message'),
    value: await page
      .locator(QUICK_INPUT_BOX)
      .inputValue({ timeout: 1000 })
      .catch(() => ''),
    rows: await paletteLabels(page),
  };
}

/**
 * Types `value` into the open input box (showInputBox) and presses Enter. When `expectPrompt` is given,
 * first waits until the box's title, prompt or placeholder matches it: pass it when input boxes follow each
 * other, so that an answer cannot land in the previous box while it closes.
 */
export async function answerInputBox(
  page: Page,
  value: string,
  expectPrompt?: string | RegExp,
  timeoutMs = 20_000,
): Promise<void> {
  const input = page.locator(QUICK_INPUT_BOX);
  // An input box, not the command palette that may still be closing.
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = await quickInputState(page);
    if (state && !state.value.startsWith('>')) break;
    if (Date.now() > until)
      throw new Error(
        `No input box opened within ${timeoutMs / 1000}s${state ? `; the command palette is still open with "${state.value}"` : ''}.`,
      );
    await page.waitForTimeout(200);
  }
  if (expectPrompt !== undefined) {
    const matches = (s: string) => (typeof expectPrompt === 'string' ? s.includes(expectPrompt) : expectPrompt.test(s));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await quickInputState(page);
      // The widget's whole text as well: twice a run read the title and the prompt as empty for the whole wait while
      // the widget showed both (the failure's own dump read them at once), with a hover over the widget's title.
      const whole = await page
        .locator(QUICK_INPUT)
        .innerText({ timeout: 2000 })
        .catch(() => '');
      const parts = `${state?.title ?? ''} ${state?.message ?? ''} ${(await input.getAttribute('placeholder')) ?? ''}`;
      const prompt = `${parts} ${whole.replace(/\s+/g, ' ')}`;
      if (matches(prompt)) {
        if (!matches(parts))
          console.log(
            `      (the input box's title and prompt read as "${parts.trim()}"; its whole text matched ${String(expectPrompt)})`,
          );
        break;
      }
      if (Date.now() > deadline) throw new Error(`The input box asks "${prompt.trim()}", not ${String(expectPrompt)}.`);
      await page.waitForTimeout(200);
    }
  }
  await input.fill(value);
  await page.keyboard.press('Enter');
}

/** Waits until a quick pick that is not the command palette shows items; says what the quick input shows if none does. */
async function waitForQuickPickItems(page: Page, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await quickInputState(page);
    if (state && !state.value.startsWith('>') && state.rows.length > 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        state
          ? `No quick pick with items opened within ${timeoutMs / 1000}s; the quick input shows title "${state.title}", value "${state.value}", ${state.rows.length} row(s).`
          : `No quick pick opened within ${timeoutMs / 1000}s.`,
      );
    }
    await page.waitForTimeout(200);
  }
}

/** Filters the open quick pick to `label` and returns its row, once it shows; says what it lists if it never does. */
async function filteredQuickPickRow(page: Page, label: string, timeoutMs: number): Promise<Locator> {
  // Up to the whole timeout: on a loaded machine the quick input can stay inert a few seconds while it settles.
  await page.locator(QUICK_INPUT_BOX).fill(label, { timeout: timeoutMs });
  const row = page
    .locator(QUICK_INPUT_ROWS)
    .filter({ has: page.locator('.label-name', { hasText: escapeRegExp(label) }) })
    .first();
  try {
    await row.waitFor({ timeout: timeoutMs });
  } catch {
    throw new Error(
      `The quick pick has no item "${label}"; it lists: ${(await paletteLabels(page)).join(' | ') || 'nothing'}.`,
    );
  }
  return row;
}

/**
 * Picks the item labelled `label` in the quick pick the extension opened (showQuickPick / createQuickPick):
 * waits until a quick pick that is not the command palette shows items, then filters to the item and clicks it.
 */
export async function pickQuickPickItem(page: Page, label: string, timeoutMs = 20_000): Promise<void> {
  await waitForQuickPickItems(page, timeoutMs);
  const row = await filteredQuickPickRow(page, label, timeoutMs);
  // The focused row is accepted with Enter, as a keyboard user would: a click can land on a hover
  // (the full URL of a shortened description) that VS Code shows over the row under the mouse.
  if (await row.evaluate((el) => el.classList.contains('focused'))) await page.locator(QUICK_INPUT_BOX).press('Enter');
  else await row.click();
}

/**
 * Ticks `labels` in a quick pick of several choices (canPickMany), then accepts with Enter. A click on an item's label
 * toggles its box, as a user's click does; Enter alone accepts what is ticked, not the focused row.
 */
export async function tickQuickPickItems(page: Page, labels: string[], timeoutMs = 20_000): Promise<void> {
  await waitForQuickPickItems(page, timeoutMs);
  for (const label of labels) {
    const row = await filteredQuickPickRow(page, label, timeoutMs);
    const ticked = () =>
      row.evaluate(
        (el) =>
          el.getAttribute('aria-checked') === 'true' ||
          el.querySelector('[aria-checked="true"], input:checked') !== null,
      );
    if (!(await ticked())) await row.locator('.label-name').first().click();
    await waitUntil(`"${label}" ticked`, ticked, (yes) => yes, { timeoutMs, intervalMs: 100 });
  }
  const input = page.locator(QUICK_INPUT_BOX);
  await input.fill('');
  await input.press('Enter');
}

/**
 * Runs a palette command that asks with a quick pick, and picks `label`. When the quick pick closed
 * under the test (focus moved to another part of the workbench), the command runs once more; any
 * other failure, or a second one, is reported as it is.
 */
export async function runCommandAndPick(page: Page, title: string, label: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, title);
    try {
      await pickQuickPickItem(page, label);
      return;
    } catch (err) {
      if (attempt >= 2 || (await quickInputState(page))) throw err;
    }
  }
}

/** Opens a file of the workspace with Quick Open (Ctrl+P), as a user does, and waits for its tab. */
export async function quickOpenFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(name);
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: name })
    .first()
    .waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ timeout: 15_000 });
}

/** Opens the Mobility API view, starts the local sandbox from the palette and makes `environment` the active one. */
export async function startSandboxAndSelect(page: Page, environment = 'Sandbox · MDS staging'): Promise<void> {
  await openViewContainer(page, 'Mobility API');
  await runCommand(page, 'Mobility API: Start Local Sandbox');
  await waitForSandboxRunning(page);
  await runCommandAndPick(page, 'Mobility API: Select Environment', environment);
}

/** Opens a view container (e.g. the extension's own) by the title of its activity bar icon. */
export async function openViewContainer(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  const item = page
    .locator(`.part.activitybar .action-item .action-label[aria-label^="${title.replace(/"/g, '\\"')}"]`)
    .first();
  try {
    await item.waitFor({ timeout: timeoutMs });
  } catch {
    const titles = (
      await page
        .locator('.part.activitybar .action-item .action-label')
        .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
    ).filter(Boolean);
    throw new Error(`The activity bar has no "${title}"; it has: ${titles.join(' | ') || 'nothing'}.`);
  }
  const checked = await item.evaluate((e) => e.closest('.action-item')?.classList.contains('checked') ?? false);
  if (!checked) await item.click();
  await page
    .locator('.part.sidebar .composite.title', {
      hasText: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'),
    })
    .first()
    .waitFor({ timeout: timeoutMs });
}

/** The side bar section (a view's pane) whose header says `viewTitle`; expands it when collapsed. */
export async function viewPane(page: Page, viewTitle: string): Promise<Locator> {
  const pane = page
    .locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: escapeRegExp(viewTitle) }) })
    .first();
  const header = pane.locator('.pane-header').first();
  await header.waitFor({ timeout: 30_000 });
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  return pane;
}

/** Collapses every row of a tree view with its title bar's Collapse All: its top-level rows, as a new window shows it. */
export async function collapseTree(page: Page, viewTitle: string): Promise<void> {
  const pane = await viewPane(page, viewTitle);
  // The title bar shows its actions while the pointer is over it.
  await pane.locator('.pane-header').first().hover();
  await pane.locator('.pane-header .action-label[aria-label="Collapse All"]').first().click();
  await waitUntil(
    `the ${viewTitle} view collapsed`,
    () => treeRows(page, viewTitle),
    (rows) => rows.every((r) => r.level === 1 && r.expanded !== true),
    { timeoutMs: 10_000, intervalMs: 200 },
  );
  await page.mouse.move(0, 0);
}

/** The rows a tree view shows now (only the rendered, i.e. visible, ones), top to bottom. */
export async function treeRows(page: Page, viewTitle: string): Promise<TreeRow[]> {
  const pane = await viewPane(page, viewTitle);
  return pane.locator('.monaco-list-row').evaluateAll((rows) =>
    rows
      .map((row) => ({
        top: parseFloat((row as HTMLElement).style.top || '0'),
        label: row.querySelector('.label-name')?.textContent?.trim() ?? row.getAttribute('aria-label') ?? '',
        description: row.querySelector('.label-description')?.textContent?.trim() ?? '',
        level: Number(row.getAttribute('aria-level') ?? '1'),
        expanded: row.hasAttribute('aria-expanded') ? row.getAttribute('aria-expanded') === 'true' : undefined,
      }))
      .sort((a, b) => a.top - b.top)
      .map(({ label, description, level, expanded }) => ({ label, description, level, expanded })),
  );
}

/**
 * Waits until the tree view lists a row labelled `label` and returns that row's locator. `level` (1 for
 * top-level rows) tells apart rows with the same label under different parents.
 */
export async function treeRow(
  page: Page,
  viewTitle: string,
  label: string,
  timeoutMs = 30_000,
  level?: number,
): Promise<Locator> {
  const pane = await viewPane(page, viewTitle);
  const rows = pane.locator(level === undefined ? '.monaco-list-row' : `.monaco-list-row[aria-level="${level}"]`);
  const row = rows.filter({ has: page.locator('.label-name', { hasText: escapeRegExp(label) }) }).first();
  try {
    await row.waitFor({ timeout: timeoutMs });
  } catch {
    const rows = (await treeRows(page, viewTitle)).map((r) => r.label);
    throw new Error(`The "${viewTitle}" view has no row "${label}"; it shows: ${rows.join(' | ') || 'no rows'}.`);
  }
  return row;
}

/** Expands the row `label` of a tree view (at `level`) unless it is expanded already. */
export async function expandTreeRow(page: Page, viewTitle: string, label: string, level: number): Promise<void> {
  const row = await treeRow(page, viewTitle, label, 30_000, level);
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  // Away from the row: its hover (a tooltip) would otherwise open over the rows below and take the next click.
  await page.mouse.move(0, 0);
}

/**
 * Chooses `label` in the context menu that is open, as a keyboard user does: the item is focused, then Enter (a click
 * can land before the menu listens).
 */
export async function chooseMenuItem(page: Page, label: string): Promise<void> {
  const item = page.locator('.context-view .monaco-menu .action-menu-item', { hasText: label }).first();
  await item.waitFor({ timeout: 30_000 });
  await item.hover();
  await waitUntil(
    'the menu item is focused',
    () => item.evaluate((el) => el.classList.contains('focused') || !!el.closest('.focused')),
    (focused) => focused,
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  await page.keyboard.press('Enter');
}

/** The lines of the active editor as the user sees them, top to bottom (Monaco renders only the lines on screen). */
export async function activeEditorLines(page: Page): Promise<string[]> {
  const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line');
  const tops = await lines.evaluateAll((els) =>
    els.map((e) => ({
      top: parseFloat((e as HTMLElement).style.top || '0'),
      text: (e.textContent ?? '').replace(/\u00a0/g, ' '),
    })),
  );
  return tops.sort((a, b) => a.top - b.top).map((l) => l.text);
}

/** Add Credential, step by step: an External Organization key pasted as PEM, named `name` and bound to `environment`. */
export async function addPastedCredential(
  page: Page,
  credential: { pkcs8: string; kid: string; iss: string; name: string; environment: string },
): Promise<void> {
  await runCommand(page, 'Mobility API: Add Credential');
  await pickQuickPickItem(page, 'External Organization');
  await pickQuickPickItem(page, 'Paste it');
  await answerInputBox(page, credential.pkcs8, /Paste/);
  await answerInputBox(page, credential.kid, /Key id/);
  await answerInputBox(page, credential.iss, /Issuer/);
  await answerInputBox(page, credential.name, /name/);
  await pickQuickPickItem(page, credential.environment);
  await page.keyboard.press('Enter');
  await waitForNotification(page, `Stored "${credential.name}"`);
}

/**
 * The content of a webview (the inner frame that holds the extension's HTML). With several webviews open,
 * `index` picks one in document order; the one in the active editor group is usually the last.
 */
export function webview(page: Page, index = 0): FrameLocator {
  return page.locator('iframe.webview.ready').nth(index).contentFrame().frameLocator('iframe#active-frame');
}

/** Waits for `selector` inside a webview and returns its text. */
export async function webviewText(page: Page, selector: string, index = 0, timeoutMs = 20_000): Promise<string> {
  const target = webview(page, index).locator(selector).first();
  await target.waitFor({ timeout: timeoutMs });
  return (await target.innerText()).trim();
}

/** Clicks `selector` inside a webview. */
export async function clickInWebview(page: Page, selector: string, index = 0, timeoutMs = 20_000): Promise<void> {
  await webview(page, index).locator(selector).first().click({ timeout: timeoutMs });
}

/** The Output view's selected channel, once the panel shows the Output view (undefined when it does not). */
export async function outputChannel(page: Page): Promise<string | undefined> {
  const panel = page.locator('.part.panel');
  if (!(await panel.isVisible().catch(() => false))) return undefined;
  const active = await visibleTexts(
    panel.locator(
      '.composite.title .action-item.checked .action-label, .composite.title .panel-switcher-container .checked',
    ),
  );
  if (!active.some((t) => /^output$/i.test(t))) return undefined;
  const select = panel.locator('.composite.title select.monaco-select-box').first();
  if (await select.count()) {
    return select.evaluate((e) => {
      const s = e as HTMLSelectElement;
      return s.options[s.selectedIndex]?.text.trim();
    });
  }
  return undefined;
}

/** Everything useful for a failure message: toasts, quick input, dialogs, active editor, panel and side bar. */
export async function describeScreen(page: Page): Promise<string> {
  const parts: string[] = [];
  try {
    const toasts = await notifications(page);
    parts.push(`notifications: ${toasts.length ? toasts.map((t) => `"${t}"`).join(', ') : 'none'}`);
    const quick = await quickInputState(page);
    if (quick)
      parts.push(
        `quick input: title "${quick.title}", message "${quick.message}", value "${quick.value}", rows [${quick.rows.slice(0, 10).join(' | ')}]`,
      );
    const dialogs = await visibleTexts(page.locator('.monaco-dialog-box'));
    if (dialogs.length) parts.push(`dialog: ${dialogs.join(' | ')}`);
    const tab = await visibleTexts(page.locator('.part.editor .tab.active .label-name'));
    parts.push(`active editor: ${tab[0] ?? 'none'}`);
    const panel = await visibleTexts(page.locator('.part.panel .composite.title .action-item.checked .action-label'));
    if (panel.length)
      parts.push(
        `panel: ${panel.join(', ')}${(await outputChannel(page)) ? ` (channel "${await outputChannel(page)}")` : ''}`,
      );
    const sidebar = await visibleTexts(page.locator('.part.sidebar .composite.title h2'));
    if (sidebar.length) parts.push(`side bar: ${sidebar.join(', ')}`);
  } catch (err) {
    parts.push(`(could not read the screen: ${err instanceof Error ? err.message : String(err)})`);
  }
  return parts.join('; ');
}

/**
 * Runs one user-level step; when it fails, the error says which step and what was on screen.
 * Example: await step(page, 'run "Mobility API: Show Log"', () => runCommand(page, 'Mobility API: Show Log'))
 */
export async function step<T>(page: Page, name: string, action: () => T | Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // mocha prints the cause's stack below, which points at the failing line inside the step.
    throw new Error(`Step "${name}" failed: ${message}\n      On screen: ${await describeScreen(page)}`, {
      cause: err,
    });
  }
}
