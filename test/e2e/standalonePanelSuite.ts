// The setup the standalone results-panel suites share (resultsPanelStandalone, panelAccessibility,
// resultsPanelResources): the panel page server (standalonePanelPage.ts), headless Chromium and a
// local sandbox with its demo credential, started in `before` and ended in `after`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import type { TestServer } from '../unit/support/testServer';
import { startPanelPageServer } from './standalonePanelPage';

/** dist/webview, the bundle the page serves. */
export const PANEL_BUNDLE = path.join(process.cwd(), 'dist', 'webview');

/** How a standalone panel page opens. */
export interface PanelPageOptions {
  theme?: 'dark' | 'light';
  /** false serves the page without its Content-Security-Policy (to prove the detectors work). */
  csp?: boolean;
  /** Viewport width; 1280 unless set. */
  width?: number;
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
  /** A new page with the panel loaded (it has posted `ready`) and the theme class VS Code sets on a webview's body. */
  openPanel(options?: PanelPageOptions): Promise<Page>;
}

/**
 * Registers the suite's `before` and `after` hooks: the panel page server, Chromium and a sandbox of
 * `fleetSize` vehicles in pages of 1,000. Call it inside `describe`.
 */
export function useStandalonePanel(options: { fleetSize: number }): StandalonePanel {
  let server: TestServer | undefined;
  const suite = {
    openPanel: async (page: PanelPageOptions = {}): Promise<Page> => {
      const theme = page.theme ?? 'dark';
      const opened = await suite.browser.newPage({ viewport: { width: page.width ?? 1280, height: 900 } });
      await opened.goto(`${suite.base}/?theme=${theme}&csp=${page.csp === false ? 'off' : 'on'}`);
      await opened.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
      await opened.evaluate((kind) => document.body.classList.add(`vscode-${kind}`), theme);
      return opened;
    },
  } as StandalonePanel;

  before(async () => {
    if (!fs.existsSync(path.join(PANEL_BUNDLE, 'main.js'))) throw new Error('dist/webview/main.js is missing: run node esbuild.js first.');
    server = await startPanelPageServer(PANEL_BUNDLE);
    suite.base = server.url;
    suite.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
    });
    suite.sandbox = await startSandbox({ fleetSize: options.fleetSize, pageSize: 1000 });
    const demo = suite.sandbox.demo;
    suite.credential = parseCredential({ kind: 'ec', type: 'external-org', privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'), kid: demo.kid, issuer: demo.issuer }).credential;
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
