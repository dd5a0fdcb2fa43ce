import path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../platform/commandIds';
import { RESULTS_VIEW_TYPE, parseTableQuery } from '../../shared/protocol';
import type { CodeSource } from '../requests/preparedRequests';
import type { ExportRequest, ExportResultOutcome } from './exportResult';
import type { ActiveTab, ResultsPanelMethods, ResultsPanels } from './resultsPanelsApi';

/** What the commands call to show a result. */
export type ResultsPanelController = ResultsPanelMethods & {
  /** Saves the shown result (the active panel's, else the last shown) as CSV, GeoJSON or its raw body. */
  exportShown(request: ExportRequest): Promise<ExportResultOutcome>;
  /** What the result shown in the active results panel was sent from (Copy as Code), if any; `tab` is the active tab. */
  shownCodeSource(tab?: ActiveTab): CodeSource | undefined;
};

const EXPORT_FORMATS = () =>
  [
    { label: vscode.l10n.t('Table as CSV'), format: 'csv' },
    { label: vscode.l10n.t('Positions as GeoJSON'), format: 'geojson' },
    { label: vscode.l10n.t('Raw body (page 1)'), format: 'raw' },
  ] as const;

/** The export command's argument, checked: a caller's object or nothing (then a quick pick asks). */
async function exportRequestOf(arg: unknown): Promise<ExportRequest | undefined> {
  if (typeof arg === 'object' && arg !== null) {
    const a = arg as Record<string, unknown>;
    if (a.format !== 'csv' && a.format !== 'geojson' && a.format !== 'raw') return undefined;
    const request: ExportRequest = { format: a.format, query: parseTableQuery(a.query) };
    if (typeof a.path === 'string' && a.path) request.path = a.path;
    if (typeof a.pageIndex === 'number' && Number.isInteger(a.pageIndex) && a.pageIndex >= 0)
      request.pageIndex = a.pageIndex;
    return request;
  }
  const picked = await vscode.window.showQuickPick(
    EXPORT_FORMATS().map((f) => ({ label: f.label, format: f.format })),
    { title: vscode.l10n.t('Save the result shown'), placeHolder: vscode.l10n.t('What to save'), ignoreFocusOut: true },
  );
  return picked ? { format: picked.format, query: {} } : undefined;
}

type ResultsPanelModule = typeof import('./resultsPanel.bundle');

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
export function registerResultsPanel(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): ResultsPanelController {
  let panels: ResultsPanels | undefined;
  const load = (): ResultsPanels => (panels ??= loadResultsPanelModule().createResultsPanels(context, log));
  const serializer = vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
    deserializeWebviewPanel(webviewPanel: vscode.WebviewPanel, state: unknown): Promise<void> {
      load().restore(webviewPanel, state);
      return Promise.resolve();
    },
  });
  const exportCommand = vscode.commands.registerCommand(
    COMMANDS.exportResult,
    async (arg: unknown): Promise<ExportResultOutcome> => {
      const request = await exportRequestOf(arg);
      if (!request) return { ok: false, message: 'Say what to save: { format: "csv" | "geojson" | "raw", path? }.' };
      if (!panels) return { ok: false, message: vscode.l10n.t('No result to save: run a request first.') };
      const outcome = await panels.exportShown(request);
      if (!outcome.ok && !outcome.cancelled && !request.path) void vscode.window.showErrorMessage(outcome.message);
      return outcome;
    },
  );
  return {
    exportShown: (request) => load().exportShown(request),
    // No panel loaded: none is shown.
    shownCodeSource: (tab) => panels?.shownCodeSource(tab),
    showListing: (args) => load().showListing(args),
    showResult: (args) => load().showResult(args),
    showGrpcResult: (args) => load().showGrpcResult(args),
    // No panel loaded: no history to show from.
    showKept: (environmentId, resultId) =>
      panels
        ? panels.showKept(environmentId, resultId)
        : {
            ok: false,
            message: vscode.l10n.t(
              'The results panel of this environment was closed, and its history with it. Run the test again to see its answer.',
            ),
          },
    historyOf: (environmentId) => panels?.historyOf(environmentId) ?? [],
    showRequestError: (args) => load().showRequestError(args),
    showToken: (args) => load().showToken(args),
    showComparison: (args) => load().showComparison(args),
    showHarvest: (args) => load().showHarvest(args),
    showAnalysis: (args) => load().showAnalysis(args),
    dispose() {
      serializer.dispose();
      exportCommand.dispose();
      panels?.dispose();
    },
  };
}
