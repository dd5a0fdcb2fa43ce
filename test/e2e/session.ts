// Mocha wiring for e2e tests: a fresh browser context per describe block, of one headless Chromium per run, on the
// code-server that scripts/run-e2e.mjs started with the VSIX installed. After every test a screenshot goes to the run's
// artifacts folder; after a failure, also what was on screen and a copy of VS Code's logs.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeScreen, waitForWorkbench } from './workbench';

/** What scripts/run-e2e.mjs passes to the tests. */
interface E2eEnvironment {
  workbenchUrl: string;
  artifactsDir: string;
  logsDir: string;
  serverLog: string;
  chromium: string;
}

function environment(): E2eEnvironment {
  const get = (name: string): string => {
    const value = process.env[name];
    if (!value)
      throw new Error(`${name} is not set: run the e2e tests with npm run test:e2e, which starts VS Code and sets it.`);
    return value;
  };
  return {
    workbenchUrl: get('E2E_WORKBENCH_URL'),
    artifactsDir: get('E2E_ARTIFACTS_DIR'),
    logsDir: get('E2E_LOGS_DIR'),
    serverLog: get('E2E_SERVER_LOG'),
    // scripts/run-e2e.mjs passes the Chromium it ensured (CHROMIUM_PATH or its default, scripts/vscode-env.mjs).
    chromium: get('CHROMIUM_PATH'),
  };
}

/** The folders of this run's VS Code, for tests that look at what it wrote (scripts/run-e2e.mjs sets them). */
export interface E2eFolders {
  /** code-server's --user-data-dir: settings.json, logs, History, workspaceStorage, the key half of its secret storage. */
  userDataDir: string;
  /** code-server's --extensions-dir, with the installed VSIX. */
  extensionsDir: string;
  /** The folder the workbench has open. */
  workspaceDir: string;
  /** The extension's state folder (MOBILITY_API_STATE_DIR): the shared issue clock. */
  stateDir: string;
}

/** The run's folders; throws with a clear message when the tests were not started by npm run test:e2e. */
export function e2eFolders(): E2eFolders {
  const get = (name: string): string => {
    const value = process.env[name];
    if (!value)
      throw new Error(`${name} is not set: run the e2e tests with npm run test:e2e, which starts VS Code and sets it.`);
    return value;
  };
  return {
    userDataDir: get('E2E_USER_DATA_DIR'),
    extensionsDir: get('E2E_EXTENSIONS_DIR'),
    workspaceDir: get('E2E_WORKSPACE_DIR'),
    stateDir: get('E2E_STATE_DIR'),
  };
}

/** Options of useWorkbench(). */
export interface WorkbenchOptions {
  /**
   * Grants the page clipboard read and write, so that what VS Code copies (navigator.clipboard) can be
   * read back with `page.evaluate(() => navigator.clipboard.readText())`. Off by default.
   */
  clipboard?: boolean;
  /**
   * A script Playwright runs in every frame (the workbench, each webview's outer and inner frame) before
   * the frame's own scripts, e.g. to count script executions and CSP violations from the first moment.
   */
  initScript?: string;
}

/** The page of the current describe block's workbench. */
export interface WorkbenchSession {
  readonly page: Page;
}

const slug = (text: string) =>
  text
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 80);

function saveLogs(env: E2eEnvironment, name: string): string {
  const target = path.join(env.artifactsDir, `${name}-logs`);
  fs.mkdirSync(target, { recursive: true });
  if (fs.existsSync(env.logsDir)) fs.cpSync(env.logsDir, path.join(target, 'vscode'), { recursive: true });
  if (fs.existsSync(env.serverLog)) fs.copyFileSync(env.serverLog, path.join(target, 'code-server.log'));
  return target;
}

async function saveFailure(env: E2eEnvironment, page: Page | undefined, name: string): Promise<void> {
  const rel = (p: string) => path.relative(process.cwd(), p);
  if (page) {
    const shot = path.join(env.artifactsDir, `${name}-FAILED.png`);
    await page.screenshot({ path: shot }).catch(() => {});
    console.log(`      screenshot of the failure: ${rel(shot)}`);
    console.log(`      on screen: ${await describeScreen(page)}`);
  }
  console.log(`      VS Code logs: ${rel(saveLogs(env, name))}/`);
}

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** The run's one Chromium, on globalThis: each e2e file is a bundle of its own, with its own copy of this module. */
const SHARED_BROWSER = Symbol.for('mobility-api-explorer.e2e.browser');

/**
 * One headless Chromium for the whole mocha run (launched by the first describe block, again if it died): each
 * describe block gets a fresh context of it, which has storage, permissions and clipboard of its own, as a fresh
 * browser had. Mocha runs with --exit, and scripts/run-e2e.mjs ends the run's process group, the browser included.
 */
async function sharedBrowser(env: E2eEnvironment): Promise<Browser> {
  const shared = globalThis as { [SHARED_BROWSER]?: Promise<Browser> };
  const launch = () => chromium.launch({ executablePath: env.chromium, headless: true, args: CHROMIUM_FLAGS });
  let browser = await (shared[SHARED_BROWSER] ??= launch()).catch(() => undefined);
  if (!browser?.isConnected()) {
    shared[SHARED_BROWSER] = launch();
    browser = await shared[SHARED_BROWSER];
  }
  return browser;
}

/**
 * Registers hooks in the calling describe block: before, write `files` (name -> text) into the workspace folder; after,
 * remove them. Call it before useWorkbench(), so that the files are there when the window loads: Quick Open did not
 * find a file made after its first search in the window.
 */
export function useWorkspaceFiles(files: Record<string, string>): void {
  const inWorkspace = (name: string) => path.join(e2eFolders().workspaceDir, name);
  before(() => Object.entries(files).forEach(([name, text]) => fs.writeFileSync(inWorkspace(name), text)));
  after(() => Object.keys(files).forEach((name) => fs.rmSync(inWorkspace(name), { force: true })));
}

/**
 * Registers hooks in the calling describe block: before, open the workbench in a fresh browser context and wait
 * for it; after each test, save a screenshot (plus the screen's description and VS Code's logs when the
 * test failed); after, close the browser. Use it as `const wb = useWorkbench();` then `wb.page` in tests.
 * Each describe block gets a fresh browser context, so VS Code's browser-side storage (globalState,
 * secrets, in IndexedDB and localStorage) starts empty for it; files on the server are shared by the run.
 */
export function useWorkbench(options: WorkbenchOptions = {}): WorkbenchSession {
  let env: E2eEnvironment | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let prefix = 'e2e';
  let counter = 0;
  // Screenshot names: <test file>-<nn>-<test title>, in the order the tests ran.
  const nextName = (title: string) => `${prefix}-${String(++counter).padStart(2, '0')}-${slug(title)}`;

  before(async function () {
    this.timeout(150_000);
    env = environment();
    const file = this.test?.parent?.file ?? this.test?.file;
    if (file) prefix = slug(path.basename(file).replace(/\.test\.js$/, ''));
    const browser = await sharedBrowser(env);
    context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      permissions: options.clipboard ? ['clipboard-read', 'clipboard-write'] : [],
      // The system's "reduce motion" (VS Code's workbench.reduceMotion follows it): no progress bar or spinner repaints
      // the window 60 times a second while a test waits. Less rendering on two busy cores; what is on screen is the same.
      reducedMotion: 'reduce',
    });
    if (options.initScript) await context.addInitScript(options.initScript);
    page = await context.newPage();
    try {
      // Not Playwright's default 30 s: the workbench's load event can take longer on a loaded 2-core machine.
      await page.goto(env.workbenchUrl, { timeout: 180_000 });
      await waitForWorkbench(page);
    } catch (err) {
      await saveFailure(env, page, nextName('opening the workbench'));
      throw new Error(
        `The workbench did not load at ${env.workbenchUrl}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  });

  afterEach(async function () {
    const test = this.currentTest;
    if (!env || !page || !test) return;
    const name = nextName(test.title);
    if (test.state === 'failed') {
      await saveFailure(env, page, name);
    } else {
      await page.screenshot({ path: path.join(env.artifactsDir, `${name}.png`) });
    }
  });

  after(async () => {
    await context?.close().catch(() => {});
  });

  return {
    get page(): Page {
      if (!page)
        throw new Error('The workbench is not open: useWorkbench() opens it in a before hook of the describe block.');
      return page;
    },
  };
}
