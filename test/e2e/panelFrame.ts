// The results panel's frame in the workbench, as a Playwright Frame (for evaluate with a string, which the
// DevTools protocol runs without touching the page's CSP) and as a FrameLocator, plus axe-core run in it.
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { waitUntil } from '../unit/support/waitUntil';

/**
 * The newest webview (of those open: a walkthrough may be too) whose content has `selector`, once one
 * does; with `visible`, only where it is visible. The one finder every e2e test uses.
 */
export async function webviewWith(
  page: Page,
  selector: string,
  options: { timeoutMs?: number; visible?: boolean } = {},
): Promise<FrameLocator> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let count = 0;
  const find = async (): Promise<FrameLocator | undefined> => {
    const frames = page.locator('iframe.webview.ready');
    count = await frames.count();
    for (let i = count - 1; i >= 0; i--) {
      const frame = frames.nth(i).contentFrame().frameLocator('iframe#active-frame');
      const found = options.visible
        ? await frame
            .locator(selector)
            .first()
            .isVisible()
            .catch(() => false)
        : (await frame
            .locator(selector)
            .count()
            .catch(() => 0)) > 0;
      if (found) return frame;
    }
    return undefined;
  };
  const found = await waitUntil(`a webview showing ${selector}`, find, (frame) => frame !== undefined, {
    timeoutMs,
    intervalMs: 300,
  }).catch(() => undefined);
  if (!found)
    throw new Error(
      `No webview shows ${selector} among ${count} webview(s) within ${timeoutMs / 1000}s; they show: ${await webviewTexts(page)}.`,
    );
  return found;
}

/** The start of each open webview's text, for an error that says what was on screen instead. */
async function webviewTexts(page: Page): Promise<string> {
  const frames = page.locator('iframe.webview');
  const texts: string[] = [];
  for (let i = 0; i < (await frames.count().catch(() => 0)); i++) {
    const body = frames.nth(i).contentFrame().frameLocator('iframe#active-frame').locator('body');
    const text = await body
      .innerText({ timeout: 2000 })
      .catch((err: unknown) => `(unreadable: ${String(err).split('\n')[0]})`);
    texts.push(JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(0, 300)));
  }
  return texts.join(', ') || 'none';
}

/** The webview whose content shows the results panel (a result title), once one does. */
export async function resultsPanelFrame(
  page: Page,
  timeoutMs = 60_000,
): Promise<{ frame: Frame; locator: FrameLocator }> {
  let count = 0;
  const find = async (): Promise<{ frame: Frame; locator: FrameLocator } | undefined> => {
    const outer = page.locator('iframe.webview.ready');
    count = await outer.count();
    for (let i = count - 1; i >= 0; i--) {
      const locator = outer.nth(i).contentFrame().frameLocator('iframe#active-frame');
      if (
        !(await locator
          .locator('[data-testid="result-title"]')
          .count()
          .catch(() => 0))
      )
        continue;
      const outerFrame = await (await outer.nth(i).elementHandle())?.contentFrame();
      const inner = await (await outerFrame?.locator('iframe#active-frame').elementHandle())?.contentFrame();
      if (inner) return { frame: inner, locator };
    }
    return undefined;
  };
  const found = await waitUntil('a results panel', find, (panel) => panel !== undefined, {
    timeoutMs,
    intervalMs: 300,
  }).catch(() => undefined);
  if (!found) throw new Error(`No results panel among ${count} webview(s) within ${timeoutMs / 1000}s.`);
  return found;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical violations in `frame`; the source goes in by evaluate, the CSP stays as shipped. */
export async function axeViolations(frame: Frame | Page): Promise<AxeViolation[]> {
  await frame.evaluate(fs.readFileSync(path.join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const violations = await frame.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] };
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<Result> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** One line per violation, for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.targets.join(', ')}`).join('\n');
}

/** What has the keyboard focus in `frame` (through shadow roots): its test id or role, and its text. */
export async function focusedIn(
  frame: Frame,
): Promise<{ tag: string; testid: string; role: string; text: string; inTree: boolean; inTable: boolean }> {
  return frame.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: '', testid: '', role: '', text: '', inTree: false, inTable: false };
    return {
      tag: el.tagName.toLowerCase(),
      testid: el.getAttribute('data-testid') ?? el.closest('[data-testid]')?.getAttribute('data-testid') ?? '',
      role: el.getAttribute('role') ?? '',
      text: (el.innerText ?? '').replace(/\s+/g, ' ').trim().slice(0, 60),
      inTree: !!el.closest('[role="tree"]'),
      inTable: !!el.closest('[role="grid"], [role="table"]'),
    };
  });
}
