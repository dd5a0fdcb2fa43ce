import assert from 'node:assert/strict';
import path from 'node:path';
import { heatmapStatesAlike, measureHeatmapStates, measurePanelContrast } from './panelContrast';
import { useWorkbench } from './session';
import { pickQuickPickItem, runCommand, runCommandAndPick, step, webview, waitForSandboxRunning } from './workbench';

/** WCAG relative luminance of an `rgb(…)`/`rgba(…)` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The results panel follows the workbench theme (only --vscode-* variables), readable in each. */
describe('the results panel in light, dark and high-contrast themes', function () {
  this.timeout(240_000);
  const wb = useWorkbench();

  it('opens a vehicles result from the sandbox', async () => {
    const page = wb.page;
    await step(page, 'start the sandbox', () => runCommand(page, 'Mobility API: Start Local Sandbox'));
    await step(page, 'see it running', () => waitForSandboxRunning(page));
    await step(page, 'list vehicles of Sandbox · MDS staging', async () => {
      await runCommandAndPick(page, 'Mobility API: List Vehicles', 'Sandbox · MDS staging');
    });
    await step(page, 'wait for the table', () =>
      webview(page).locator('[data-testid="body-tabs"]').first().waitFor({ timeout: 30_000 }),
    );
  });

  for (const theme of ['Dark High Contrast', 'Light High Contrast', 'Light Modern', 'Dark Modern']) {
    it(`is readable in ${theme}`, async () => {
      const page = wb.page;
      const normal = ':not(.vscode-high-contrast):not(.vscode-high-contrast-light)';
      const kind = theme.includes('High Contrast')
        ? theme.startsWith('Light')
          ? '.vscode-high-contrast-light'
          : '.vscode-high-contrast:not(.vscode-high-contrast-light)'
        : theme.startsWith('Light')
          ? `.vscode-light${normal}`
          : `.vscode-dark${normal}`;
      await step(page, `switch to ${theme}`, async () => {
        await runCommand(page, 'Preferences: Color Theme');
        await pickQuickPickItem(page, theme);
        // VS Code sets the body class with the new variables: wait for it rather than for a time.
        await webview(page).locator(`body${kind}`).first().waitFor({ timeout: 20_000 });
      });
      const colors = await step(page, 'read the panel colours', () =>
        webview(page)
          .locator('body')
          .evaluate(() => {
            const body = getComputedStyle(document.body);
            const title = document.querySelector('[data-testid="result-title"]');
            return {
              text: body.color,
              background: body.backgroundColor,
              title: title ? getComputedStyle(title).color : body.color,
              themeKind: document.body.className,
              // Every colour the panel uses must come from the theme: an unset variable would leave it transparent or default black.
              editorForeground: getComputedStyle(document.documentElement)
                .getPropertyValue('--vscode-editor-foreground')
                .trim(),
            };
          }),
      );
      await page.screenshot({
        path: path.join(process.env.E2E_ARTIFACTS_DIR ?? '.', `theme-${theme.replace(/\s+/g, '-').toLowerCase()}.png`),
      });
      assert.ok(colors.editorForeground, 'the theme variables reach the webview');
      assert.match(
        colors.themeKind,
        theme.includes('High Contrast') ? /high-contrast/ : theme.startsWith('Light') ? /vscode-light/ : /vscode-dark/,
      );
      const ratio = contrast(colors.text, colors.background);
      assert.ok(
        ratio >= (theme.includes('High Contrast') ? 7 : 4.5),
        `text ${colors.text} on ${colors.background}: contrast ${ratio.toFixed(2)}`,
      );
      assert.ok(contrast(colors.title, colors.background) >= 4.5, `title ${colors.title} on ${colors.background}`);
      // Every status colour (ok, warning, error, info, redirect, muted…) in every place it appears, against
      // the background actually behind it: WCAG AA, 4.5:1.
      const readings = await step(page, 'measure every status colour', () =>
        webview(page).locator('body').evaluate(measurePanelContrast),
      );
      assert.ok(readings.length >= 30, `measured ${readings.length} colours`);
      console.log(
        `      ${theme}: lowest ${readings.reduce((a, b) => (a.ratio <= b.ratio ? a : b)).name} ${Math.min(...readings.map((r) => r.ratio)).toFixed(2)}:1`,
      );
      const low = readings
        .filter((r) => r.ratio < 4.5)
        .map((r) => `${r.name}: ${r.color} on ${r.background} = ${r.ratio.toFixed(2)}:1`);
      assert.deepEqual(low, [], `${theme}: status colours below 4.5:1`);
      assert.deepEqual(
        heatmapStatesAlike(await webview(page).locator('body').evaluate(measureHeatmapStates)),
        [],
        `${theme}: heatmap states that look alike without colour`,
      );
    });
  }
});
