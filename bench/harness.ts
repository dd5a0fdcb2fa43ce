// What the VS Code and browser figures load at run time rather than bundle: the offline VS Code harness
// (scripts/vscode-env.mjs, an ES module with top-level await, which a CommonJS bundle cannot inline) and
// playwright-core (a package with files of its own next to its code).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Playwright from 'playwright-core';

/** The repository root: the bench bundles run from dist/bench/. */
export const PROJECT_ROOT = join(__dirname, '..', '..');

/** A running code-server, as startCodeServer returns it. */
export interface CodeServer {
  url: string;
  logFile: string;
  workbenchUrl(query?: Record<string, string>): string;
  stop(): Promise<void>;
}

/** The parts of scripts/vscode-env.mjs the benchmarks use (typed here: the script is plain JavaScript). */
export interface VscodeHarness {
  CHROMIUM_ARGS: string[];
  CODE_SERVER_VERSION: string;
  ensureVSCode(): Promise<{ nodeBin: string; codeServerEntry: string; chromium: string; version: string }>;
  installVsix(vsix: string, dirs: { extensionsDir: string; userDataDir: string }): void;
  startCodeServer(options: {
    folder: string;
    extensionsDir: string;
    userDataDir: string;
    logFile: string;
    settings?: Record<string, unknown>;
  }): Promise<CodeServer>;
  createRunDir(layer: string): string;
  removeRunDir(dir: string): void;
  installCleanup(onSignal?: (signal: string) => unknown): void;
}

/** Loads scripts/vscode-env.mjs with a real `import()` (esbuild keeps a computed specifier as it is). */
export async function loadHarness(): Promise<VscodeHarness> {
  const url = pathToFileURL(join(PROJECT_ROOT, 'scripts', 'vscode-env.mjs')).href;
  return (await import(url)) as VscodeHarness;
}

/** playwright-core from node_modules, required at run time so that it is not bundled. */
export function loadPlaywright(): typeof Playwright {
  return createRequire(__filename)('playwright-core') as typeof Playwright;
}
