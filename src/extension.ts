// The extension's entry (dist/extension.js): loads the wiring and everything it imports (dist/main.js,
// built from src/main.ts) with a V8 code cache in the extension's global storage, so a window's start
// does not compile that code again each time, and writes the cache once the window has settled.
import path from 'node:path';
import type * as vscode from 'vscode';
import { loadWithCodeCache } from './services/codeCache';
import type { MobilityApiExports } from './main';

export type { MobilityApiExports } from './main';

type Main = typeof import('./main');

/** How long after activation the cache is written: by then the code activation ran is compiled too. */
const SAVE_CACHE_AFTER_MS = 10_000;

let main: Main | undefined;

export function activate(context: vscode.ExtensionContext): MobilityApiExports {
  const started = performance.now();
  const loaded = loadWithCodeCache<Main>(path.join(__dirname, 'main.js'), path.join(context.globalStorageUri.fsPath, 'code-cache'));
  main = loaded.exports;
  const api = main.activate(context, { codeCache: loaded.cache, loadMs: performance.now() - started });
  if (loaded.cache !== 'used' && loaded.cache !== 'off') {
    const timer = setTimeout(() => void loaded.saveCache(), SAVE_CACHE_AFTER_MS);
    timer.unref?.();
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return api;
}

/** Waits for the sandbox to close (VS Code waits for the promise), so a reload never finds its port still taken. */
export function deactivate(): Promise<unknown> | undefined {
  return main?.deactivate();
}
