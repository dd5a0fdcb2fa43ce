/**
 * The analysis features' wiring, part of what activation loads, so kept small: the commands Analyze Harvest… and
 * Open Harvest as Notebook…, the harvest notebook's serializer and controller, and the context key that puts both
 * commands in the Explorer's menu of a harvest folder. Everything else (dist/analysis.js) loads on first use, and
 * DuckDB only in the analysis worker's own process.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { CommandDeps } from '../commands/commandDeps';
import { COMMANDS } from '../commands/commandIds';
import { registerCommand } from '../commands/registerCommand';
import type { AnalysisFeature, AnalyzeHarvestOutcome, OpenNotebookOutcome } from './analysisFeature';

type FeatureModule = typeof import('./analysisFeature');

/** The notebook type of package.json's `notebooks` (harvestNotebook.ts has it too; not imported here, to keep activation small). */
const NOTEBOOK_TYPE = 'mobilityApi.harvestNotebook';
/** The context key the Explorer's `when` reads: the paths (`Uri.path`, as `resourcePath`) of the workspace's harvest folders. */
const HARVEST_FOLDERS_KEY = 'mobilityApi.harvestFolders';

export function registerAnalysis(deps: CommandDeps): vscode.Disposable[] {
  let feature: AnalysisFeature | undefined;
  const load = (): AnalysisFeature => {
    // A computed path, so that esbuild leaves this require to run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    feature ??= (require(path.join(__dirname, 'analysis.js')) as FeatureModule).createAnalysisFeature(deps);
    return feature;
  };
  const controller = vscode.notebooks.createNotebookController('mobilityApi.harvestSql', NOTEBOOK_TYPE, vscode.l10n.t('Harvest SQL (DuckDB)'));
  controller.supportedLanguages = ['sql'];
  controller.supportsExecutionOrder = false;
  controller.description = vscode.l10n.t('Runs SQL cells over the notebook\'s harvest folder');
  controller.executeHandler = (cells, notebook, c) => load().execute(cells, notebook, c);
  return [
    registerCommand(deps, COMMANDS.analyzeHarvest, (arg?: vscode.Uri | { folder?: string }): Promise<AnalyzeHarvestOutcome> => load().analyzeHarvest(arg)),
    registerCommand(deps, COMMANDS.openHarvestNotebook, (arg?: vscode.Uri | { folder?: string; file?: string }): Promise<OpenNotebookOutcome> => load().openNotebook(arg)),
    vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, {
      deserializeNotebook: (content) => load().deserialize(content),
      serializeNotebook: (data) => load().serialize(data),
    }, { transientOutputs: true }),
    controller,
    watchHarvestFolders(),
    {
      dispose(): void {
        feature?.dispose();
      },
    },
  ];
}

/**
 * Keeps `mobilityApi.harvestFolders` to the folders of the workspace that hold a harvest manifest (a `manifest.json`
 * of format `mobility-api-harvest`), and the folders holding such folders. VS Code's `when` clauses cannot look
 * into a folder, so the Explorer's menu tests `resourcePath in mobilityApi.harvestFolders`; the search starts after
 * activation and follows manifests created or deleted.
 */
function watchHarvestFolders(): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const scan = async () => {
    const folders = new Set<string>();
    for (const file of await vscode.workspace.findFiles('**/manifest.json', '**/node_modules/**', 2000)) {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file).then(undefined, () => new Uint8Array()));
      if (!/"format"\s*:\s*"mobility-api-harvest"/.test(text)) continue;
      const dir = vscode.Uri.joinPath(file, '..');
      folders.add(dir.path);
      folders.add(vscode.Uri.joinPath(dir, '..').path);
    }
    await vscode.commands.executeCommand('setContext', HARVEST_FOLDERS_KEY, [...folders]);
  };
  const later = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => void scan().catch(() => undefined), ms);
  };
  later(1000);
  const watcher = vscode.workspace.createFileSystemWatcher('**/manifest.json');
  watcher.onDidCreate(() => later(500));
  watcher.onDidDelete(() => later(500));
  const folders = vscode.workspace.onDidChangeWorkspaceFolders(() => later(500));
  return { dispose: () => { clearTimeout(timer); watcher.dispose(); folders.dispose(); } };
}
