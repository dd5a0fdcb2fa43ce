import path from 'node:path';
import * as vscode from 'vscode';
import { RESULTS_VIEW_TYPE } from '../shared/protocol';
import type { ResultsPanelMethods, ResultsPanels } from './resultsPanel';

/** What the commands call to show a result. */
export type ResultsPanelController = ResultsPanelMethods;

type ResultsPanelModule = typeof import('./resultsPanel');

/**
 * The panel code and the view models are their own bundle (`dist/resultsPanel.js`, see esbuild.js),
 * loaded when the first panel opens or is restored: activation then loads less code.
 */
function loadResultsPanelModule(): ResultsPanelModule {
  // A computed path, so that esbuild leaves this require to run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'resultsPanel.js')) as ResultsPanelModule;
}

/**
 * Registers the results panels' serializer and returns the controller the commands call. Whoever
 * calls this owns the controller: it is registered once, by `activate()`.
 */
export function registerResultsPanel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ResultsPanelController {
  let panels: ResultsPanels | undefined;
  const load = (): ResultsPanels => (panels ??= loadResultsPanelModule().createResultsPanels(context, log));
  const serializer = vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
    deserializeWebviewPanel(webviewPanel: vscode.WebviewPanel, state: unknown): Promise<void> {
      load().restore(webviewPanel, state);
      return Promise.resolve();
    },
  });
  return {
    showListing: (args) => load().showListing(args),
    showResult: (args) => load().showResult(args),
    showRequestError: (args) => load().showRequestError(args),
    showToken: (args) => load().showToken(args),
    showComparison: (args) => load().showComparison(args),
    dispose() {
      serializer.dispose();
      panels?.dispose();
    },
  };
}
