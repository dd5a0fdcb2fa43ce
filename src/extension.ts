// The extension's entry (dist/extension.js): loads the wiring and everything it imports (dist/main.js, built from
// src/main.ts) and times the load for the log. A V8 code cache here was measured and removed (issue 30: 20 windows per
// build, the build without it activated as fast; docs/benchmarks.md).
import path from 'node:path';
import type * as vscode from 'vscode';
import type { MobilityApiExports } from './main';

export type { MobilityApiExports } from './main';

type Main = typeof import('./main');

let main: Main | undefined;

export function activate(context: vscode.ExtensionContext): MobilityApiExports {
  const started = performance.now();
  // A path, not a literal: dist/main.js is a bundle of its own, which esbuild must not pull into this one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  main = require(path.join(__dirname, 'main.js')) as Main;
  return main.activate(context, { loadMs: performance.now() - started });
}

/** Waits for the sandbox to close (VS Code waits for the promise), so a reload never finds its port still taken. */
export function deactivate(): Promise<unknown> | undefined {
  return main?.deactivate();
}
