// The results panel's own page outside VS Code, and the one fixture of the suites that drive it
// (resultsPanelStandalone, panelAccessibility, resultsPanelResources) and of the benchmark
// (bench/resultsPanel.ts): the panel's HTML (panelHtml, its CSP and nonce) with the real webview bundle,
// the theme variables VS Code would set, and a stub of acquireVsCodeApi that records what the page posts
// and any sign of script execution, served on 127.0.0.1 for headless Chromium.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Playwright from 'playwright-core';
import type { Browser, BrowserType, Page } from 'playwright-core';
import type { Credential } from '../../../src/core/auth/credential';
import type { Environment } from '../../../src/core/environment';
import { parseCredential } from '../../../src/core/auth/parseCredential';
import { startSandbox } from '../../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../../src/sandbox/sandboxServer';
import type { HostMessage } from '../../../src/shared/protocol';
import { panelHtml } from '../../../src/vscode/panel/panelHtml';
import { startTestServer } from '../support/testServer';
import type { TestServer } from '../support/testServer';

const THEMES: Record<'dark' | 'light', Record<string, string>> = {
  dark: {
    foreground: '#cccccc',
    'editor-background': '#1f1f1f',
    descriptionForeground: '#9d9d9d',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'editorWidget-background': '#202020',
    'editorWidget-border': '#313131',
    'panel-border': '#2b2b2b',
    'list-hoverBackground': '#2a2d2e',
    'list-activeSelectionBackground': '#04395e',
    'list-activeSelectionForeground': '#ffffff',
    'list-inactiveSelectionBackground': '#37373d',
    errorForeground: '#f85149',
    'editorWarning-foreground': '#cca700',
    'editorInfo-foreground': '#3794ff',
    'charts-green': '#89d185',
    'charts-blue': '#3794ff',
    'charts-purple': '#b180d7',
    'charts-yellow': '#cca700',
    'charts-orange': '#d18616',
    'charts-red': '#f14c4c',
    disabledForeground: '#6e6e6e',
    'textCodeBlock-background': '#2b2b2b',
    focusBorder: '#0078d4',
    'inputValidation-errorBackground': '#5a1d1d',
    'inputValidation-errorBorder': '#be1100',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#026ec1',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'dropdown-background': '#313131',
    'dropdown-foreground': '#cccccc',
    'dropdown-border': '#3c3c3c',
    'debugTokenExpression-name': '#c586c0',
    'debugTokenExpression-string': '#ce9178',
    'debugTokenExpression-number': '#b5cea8',
    'debugTokenExpression-boolean': '#4e94ce',
    'testing-iconPassed': '#73c991',
    'editor-findMatchHighlightBackground': '#ea5c0055',
    'editor-findMatchBackground': '#9e6a03',
    'notifications-background': '#1f1f1f',
    'settings-headerBorder': '#2b2b2b',
    'panel-background': '#181818',
    'textBlockQuote-background': '#2b2b2b',
    'widget-shadow': '#0000005c',
    'sideBar-background': '#181818',
    'sideBarSectionHeader-background': '#181818',
    'sideBarTitle-foreground': '#cccccc',
    'icon-foreground': '#cccccc',
    'panelTitle-activeBorder': '#0078d4',
    'panelTitle-activeForeground': '#e7e7e7',
    'panelTitle-inactiveForeground': '#9d9d9d',
    'input-placeholderForeground': '#989898',
    'settings-dropdownBackground': '#313131',
    'settings-dropdownBorder': '#3c3c3c',
    'settings-dropdownForeground': '#cccccc',
    'settings-dropdownListBorder': '#454545',
    'settings-textInputBackground': '#313131',
    'settings-textInputBorder': '#3c3c3c',
    'settings-textInputForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    'list-highlightForeground': '#2aaaff',
    'textLink-foreground': '#4daafc',
    'list-focusHighlightForeground': '#2aaaff',
    'list-focusOutline': '#0078d4',
    'list-hoverForeground': '#cccccc',
  },
  light: {
    foreground: '#3b3b3b',
    'editor-background': '#ffffff',
    descriptionForeground: '#717171',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'editorWidget-background': '#f8f8f8',
    'editorWidget-border': '#e5e5e5',
    'panel-border': '#e5e5e5',
    'list-hoverBackground': '#f2f2f2',
    'list-activeSelectionBackground': '#e8e8e8',
    'list-activeSelectionForeground': '#000000',
    'list-inactiveSelectionBackground': '#e4e6f1',
    errorForeground: '#e51400',
    'editorWarning-foreground': '#bf8803',
    'editorInfo-foreground': '#1a85ff',
    'charts-green': '#388a34',
    'charts-blue': '#1a85ff',
    'charts-purple': '#652d90',
    'charts-yellow': '#bf8803',
    'charts-orange': '#d18616',
    'charts-red': '#e51400',
    disabledForeground: '#a0a0a0',
    'textCodeBlock-background': '#f2f2f2',
    focusBorder: '#005fb8',
    'inputValidation-errorBackground': '#f2dede',
    'inputValidation-errorBorder': '#be1100',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#0258a8',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'input-border': '#cecece',
    'dropdown-background': '#ffffff',
    'dropdown-foreground': '#3b3b3b',
    'dropdown-border': '#cecece',
    'debugTokenExpression-name': '#001080',
    'debugTokenExpression-string': '#a31515',
    'debugTokenExpression-number': '#098658',
    'debugTokenExpression-boolean': '#0000ff',
    'testing-iconPassed': '#388a34',
    'editor-findMatchHighlightBackground': '#ea5c0055',
    'editor-findMatchBackground': '#a8ac94',
    'notifications-background': '#ffffff',
    'settings-headerBorder': '#e5e5e5',
    'panel-background': '#f8f8f8',
    'textBlockQuote-background': '#f8f8f8',
    'widget-shadow': '#00000029',
    'sideBar-background': '#f8f8f8',
    'sideBarSectionHeader-background': '#f8f8f8',
    'sideBarTitle-foreground': '#3b3b3b',
    'icon-foreground': '#3b3b3b',
    'panelTitle-activeBorder': '#005fb8',
    'panelTitle-activeForeground': '#3b3b3b',
    'panelTitle-inactiveForeground': '#3b3b3b',
    'input-placeholderForeground': '#767676',
    'settings-dropdownBackground': '#ffffff',
    'settings-dropdownBorder': '#cecece',
    'settings-dropdownForeground': '#3b3b3b',
    'settings-dropdownListBorder': '#c8c8c8',
    'settings-textInputBackground': '#ffffff',
    'settings-textInputBorder': '#cecece',
    'settings-textInputForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    'list-highlightForeground': '#0066bf',
    'textLink-foreground': '#005fb8',
    'list-focusHighlightForeground': '#0066bf',
    'list-focusOutline': '#005fb8',
    'list-hoverForeground': '#3b3b3b',
  },
};

/** The theme variables of VS Code's default dark or light theme, as VS Code sets them around a webview. */
export function themeCss(theme: 'dark' | 'light'): string {
  const vars = Object.entries(THEMES[theme])
    .map(([k, v]) => `--vscode-${k}: ${v};`)
    .join('\n  ');
  return `:root {\n  --vscode-font-family: system-ui, "Segoe UI", sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: "DejaVu Sans Mono", monospace; --vscode-editor-font-size: 13px;\n  ${vars}\n}\n`;
}

// Stands in for VS Code's webview host: records what the panel posts and any sign of execution.
const STUB = `
window.__posted = [];
window.__pwned = [];
window.__violations = [];
window.__state = undefined;
window.pwn = function (what) { window.__pwned.push(String(what)); };
document.addEventListener('securitypolicyviolation', function (e) { window.__violations.push(e.violatedDirective + ' ' + e.blockedURI); });
window.acquireVsCodeApi = function () {
  return {
    postMessage: function (m) { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState: function () { return window.__state; },
    setState: function (s) { window.__state = JSON.parse(JSON.stringify(s)); },
  };
};
`;

/** Serves the panel page (`?theme=light`, `?csp=off`) and the bundle from `bundleDir` (dist/webview). */
export async function startPanelPageServer(bundleDir: string): Promise<TestServer> {
  return startTestServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const origin = `http://${req.headers.host ?? ''}`;
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (url.pathname === '/') {
      const nonce = randomBytes(16).toString('base64');
      let html = panelHtml({
        cspSource: origin,
        nonce,
        script: fs.readFileSync(path.join(bundleDir, 'main.js'), 'utf8'),
        style: fs.readFileSync(path.join(bundleDir, 'main.css'), 'utf8'),
        title: 'Results',
      });
      if (url.searchParams.get('csp') === 'off')
        html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
      // The CSP is in an attribute, its quotes escaped: without the theme's origin in style-src the theme would not load.
      else if (!/style-src &#39;nonce-[^&]*&#39;;/.test(html))
        throw new Error("the panel's CSP has no style-src nonce for the test's theme to follow");
      // What VS Code does around our HTML: theme variables (VS Code puts them in a style attribute and an inline
      // style element; here a stylesheet of the test's origin, allowed by this page's CSP only), then our page;
      // the stub loads by nonce too.
      html = html
        .replace(/(style-src &#39;nonce-[^&]*&#39;)/, `$1 ${origin}`)
        .replace(
          '</head>',
          `<link rel="stylesheet" href="${origin}/theme-${url.searchParams.get('theme') === 'light' ? 'light' : 'dark'}.css">\n</head>`,
        )
        .replace('<script nonce=', `<script nonce="${nonce}" src="${origin}/stub.js"></script>\n<script nonce=`);
      send('text/html; charset=utf-8', html);
    } else if (url.pathname === '/stub.js') send('text/javascript', STUB);
    else if (url.pathname === '/theme-dark.css') send('text/css', themeCss('dark'));
    else if (url.pathname === '/theme-light.css') send('text/css', themeCss('light'));
    else {
      res.writeHead(404);
      res.end();
    }
  });
}

/** JSON with typed arrays and NaN kept, so the page can rebuild the exact structured-clone message. */
export function encodeHostMessage(message: HostMessage): string {
  return JSON.stringify(message, (_key, value: unknown) => {
    if (ArrayBuffer.isView(value))
      return {
        __typed: value.constructor.name,
        v: Array.from(value as Float64Array, (x) => (Number.isNaN(x) ? null : x)),
      };
    return value;
  });
}

/** Posts host messages to the panel page as VS Code does: window message events carrying structured clones. */
export async function deliverHostMessages(page: Page, ...messages: HostMessage[]): Promise<void> {
  for (const message of messages) {
    await page.evaluate((text) => {
      const value: unknown = JSON.parse(text, (_key, v: unknown) => {
        if (v && typeof v === 'object' && '__typed' in v) {
          const t = v as { __typed: string; v: (number | null)[] };
          const Ctor = (window as unknown as Record<string, new (values: number[]) => unknown>)[t.__typed];
          return new Ctor(t.v.map((x) => (x === null ? NaN : x)));
        }
        return v;
      });
      window.postMessage(value, '*');
    }, encodeHostMessage(message));
  }
}

/** What the page has posted to its host so far (the stub records it). */
export async function postedMessages<T extends { type: string }>(page: Page): Promise<T[]> {
  return page.evaluate(() => (window as unknown as { __posted: T[] }).__posted);
}

/** dist/webview, the bundle the page serves. */
export const PANEL_BUNDLE = path.join(process.cwd(), 'dist', 'webview');

/** The Chromium the suites and the benchmark run: Debian's headless shell unless CHROMIUM_PATH. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium-headless-shell';
}

/** Headless Chromium as the suites and the benchmark run it (chromiumPath()). */
export function launchPanelBrowser(chromium: BrowserType, executablePath = chromiumPath()): Promise<Browser> {
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: install Debian's (apt-get install chromium-headless-shell; \`node scripts/vscode-env.mjs install\` does it), or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}

/** How a standalone panel page opens. */
export interface PanelPageOptions {
  theme?: 'dark' | 'light';
  /** false serves the page without its Content-Security-Policy (to prove the detectors work). */
  csp?: boolean;
  /** Viewport width; 1280 unless set. */
  width?: number;
}

/** A new page of `browser` with the panel of the page server at `base` loaded (it has posted `ready`) and the theme class VS Code sets on a webview's body. */
export async function openPanelPage(browser: Browser, base: string, options: PanelPageOptions = {}): Promise<Page> {
  const theme = options.theme ?? 'dark';
  const page = await browser.newPage({ viewport: { width: options.width ?? 1280, height: 900 } });
  await page.goto(`${base}/?theme=${theme}&csp=${options.csp === false ? 'off' : 'on'}`);
  await page.waitForFunction(() =>
    (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'),
  );
  await page.evaluate((kind) => document.body.classList.add(`vscode-${kind}`), theme);
  return page;
}

/** What a suite gets from {@link useStandalonePanel}; its fields are set once the suite's `before` has run. */
export interface StandalonePanel {
  browser: Browser;
  /** The page server's URL. */
  base: string;
  sandbox: RunningSandbox;
  /** The sandbox's demo credential, as the panel's host would hold it. */
  credential: Credential;
  /** The sandbox's MDS staging environment, named as the panel shows it. */
  environment: Environment;
  /** A new page with the panel loaded: {@link openPanelPage} on this suite's browser and server. */
  openPanel(options?: PanelPageOptions): Promise<Page>;
}

/**
 * The fixture of the standalone panel suites: registers the suite's `before` and `after` hooks, which
 * start and end the panel page server, Chromium and a sandbox of `fleetSize` vehicles in pages of
 * 1,000. Call it inside `describe`.
 */
export function useStandalonePanel(options: { fleetSize: number }): StandalonePanel {
  let server: TestServer | undefined;
  const suite = {
    openPanel: (page: PanelPageOptions = {}): Promise<Page> => openPanelPage(suite.browser, suite.base, page),
  } as StandalonePanel;

  before(async () => {
    if (!fs.existsSync(path.join(PANEL_BUNDLE, 'main.js')))
      throw new Error('dist/webview/main.js is missing: run node esbuild.js first.');
    server = await startPanelPageServer(PANEL_BUNDLE);
    suite.base = server.url;
    // Required here, out of the bundler's sight: the benchmark bundles this file and loads Playwright itself.
    const { chromium } = createRequire(__filename)('playwright-core') as typeof Playwright;
    suite.browser = await launchPanelBrowser(chromium);
    suite.sandbox = await startSandbox({ fleetSize: options.fleetSize, pageSize: 1000 });
    const demo = suite.sandbox.demo;
    suite.credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    const env = suite.sandbox.environments.find((e) => e.id === 'mds-staging');
    assert.ok(env, 'the sandbox serves mds-staging');
    suite.environment = { id: env.id, name: 'Sandbox MDS staging', api: 'mds', stage: 'staging', baseUrl: env.baseUrl };
  });

  after(async () => {
    await (suite.browser as Browser | undefined)?.close();
    await (suite.sandbox as RunningSandbox | undefined)?.close();
    await server?.close();
  });

  return suite;
}
