// The results panel's HTML shell. Pure (no `vscode` import) so that the standalone browser test
// serves exactly the page the extension serves. The bundle and its stylesheet are inline, by nonce: the page loads
// nothing, so it never waits on VS Code's webview service worker, which in a browser (code-server, vscode.dev) can
// leave a page's resource requests unanswered until they time out, and the page at "Loading…" for good (seen with
// two windows of one workbench in one browser). Response data never goes into this HTML: it
// arrives later as a structured-clone message and is rendered with textContent only. The one thing besides
// that it carries is the host's translation bundle (our own strings, never data), as an escaped JSON attribute
// that the bundle reads before it renders (src/webview-ui/l10nSetup.ts).
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';

/** What the page needs from the host. */
export interface PanelHtmlArgs {
  /** `webview.cspSource`: the origin of the webview's own resources (images and fonts only). */
  cspSource: string;
  /** A fresh random nonce per page load (base64 of crypto.randomBytes(16)). */
  nonce: string;
  /** The text of the page's bundle (dist/webview/main.js) and stylesheet (main.css): see `panelAssets`. */
  script: string;
  style: string;
  title: string;
  /** The display language and, when not English, the host's translation bundle (src/vscode/panel/l10nBundle.ts). */
  l10n?: { contents?: Record<string, string>; language: string };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The Content-Security-Policy of the panel: nothing but our own bundle and stylesheet, each by the page's nonce. */
export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * The bundle or stylesheet as the text of an inline element: without its source map comment (a map the page would
 * fetch when DevTools open), and refused when its text would end the element early.
 */
export function inlineAsset(text: string, element: 'script' | 'style'): string {
  if (new RegExp(`</${element}|<!--`, 'i').test(text)) {
    throw new Error(
      `The panel's ${element} holds "</${element}" or "<!--", which would end it early inside the page: build it so that it does not.`,
    );
  }
  return text.replace(/\n?\/[/*][#@] sourceMappingURL=[^\n]*\s*$/, '\n');
}

/** The panel's HTML: CSP, stylesheet, a mount point with the translation bundle as data, and the bundle, all inline by nonce. */
export function panelHtml(args: PanelHtmlArgs): string {
  const nonce = escapeHtml(args.nonce);
  const language = args.l10n?.language ?? 'en';
  return `<!DOCTYPE html>
<html lang="${escapeHtml(language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(panelCsp(args.cspSource, args.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">${inlineAsset(args.style, 'style')}</style>
<title>${escapeHtml(args.title)}</title>
</head>
<body>
<main id="app" data-l10n="${escapeHtml(JSON.stringify({ contents: args.l10n?.contents ?? {}, language }))}"><p class="muted">${escapeHtml(l10n.t('Loading…'))}</p></main>
<script nonce="${nonce}">${inlineAsset(args.script, 'script')}</script>
</body>
</html>`;
}

/** The page's bundle and stylesheet (dist/webview), read once: every panel page carries them inline. */
let assets: { script: string; style: string } | undefined;
export function panelAssets(extensionPath: string): { script: string; style: string } {
  const dir = path.join(extensionPath, 'dist', 'webview');
  assets ??= {
    script: fs.readFileSync(path.join(dir, 'main.js'), 'utf8'),
    style: fs.readFileSync(path.join(dir, 'main.css'), 'utf8'),
  };
  return assets;
}
