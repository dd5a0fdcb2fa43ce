/**
 * The analysis features' wiring, part of what activation loads, so kept to the least: the commands Analyze Harvest…
 * and Open Harvest as Notebook…, and the harvest notebook's serializer (VS Code asks for it as a notebook opens, so it
 * must be there from the start). Everything else loads with dist/analysis.js (analysisFeature.ts) on first use: the
 * notebook's controller and renderer messaging (a notebook is read before a cell runs), and the context key of the
 * Explorer's menu of harvest folders, for which it loads a second after activation in a window with a folder.
 * DuckDB only ever runs in the analysis worker's own process.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { CommandDeps } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { registerCommand } from '../platform/registerCommand';
import type { AnalysisFeature } from './analysis.bundle';

/** The Explorer's folder, or `{ folder, file? }` from a caller. */
type FolderArg = Parameters<AnalysisFeature['analyzeHarvest']>[0];

export function registerAnalysis(deps: CommandDeps): vscode.Disposable[] {
  let feature: AnalysisFeature | undefined;
  const load = (): AnalysisFeature => {
    // A computed path, so that esbuild leaves this require to run time.
    /* eslint-disable @typescript-eslint/no-require-imports -- the analysis bundle is loaded when first used */
    feature ??= (
      require(path.join(__dirname, 'analysis.js')) as typeof import('./analysis.bundle')
    ).createAnalysisFeature(deps);
    /* eslint-enable @typescript-eslint/no-require-imports */
    return feature;
  };
  const later = setTimeout(() => {
    if (vscode.workspace.workspaceFolders?.length) load();
  }, 1000);
  return [
    registerCommand(deps, COMMANDS.analyzeHarvest, (arg?: FolderArg) => load().analyzeHarvest(arg)),
    registerCommand(deps, COMMANDS.openHarvestNotebook, (arg?: FolderArg) => load().openNotebook(arg)),
    // The notebook type of package.json's `notebooks` (harvestNotebook.ts's NOTEBOOK_TYPE; not imported, to keep activation small).
    vscode.workspace.registerNotebookSerializer(
      'mobilityApi.harvestNotebook',
      {
        deserializeNotebook: (content) => load().deserialize(content),
        serializeNotebook: (data) => load().serialize(data),
      },
      { transientOutputs: true },
    ),
    {
      dispose(): void {
        clearTimeout(later);
        feature?.dispose();
      },
    },
  ];
}
