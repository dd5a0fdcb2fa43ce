// The context key that tells the Explorer's menu which folders of the workspace hold a harvest, kept up to date as
// harvest manifests are created and deleted. Part of the analysis bundle (analysis.bundle.ts).
import * as vscode from 'vscode';

/** The context key the Explorer's `when` reads: the paths (`Uri.path`, as `resourcePath`) of the workspace's harvest folders. */
const HARVEST_FOLDERS_KEY = 'mobilityApi.harvestFolders';

/**
 * Keeps `mobilityApi.harvestFolders` to the folders of the workspace that hold a harvest manifest (a `manifest.json`
 * of format `mobility-api-harvest`), and the folders holding such folders. VS Code's `when` clauses cannot look
 * into a folder, so the Explorer's menu tests `resourcePath in mobilityApi.harvestFolders`; the search starts when
 * this bundle loads and follows manifests created or deleted.
 */
export function watchHarvestFolders(): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const scan = async () => {
    const folders = new Set<string>();
    for (const file of await vscode.workspace.findFiles('**/manifest.json', '**/node_modules/**', 2000)) {
      const text = new TextDecoder().decode(
        await vscode.workspace.fs.readFile(file).then(undefined, () => new Uint8Array()),
      );
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
  later(0);
  const watcher = vscode.workspace.createFileSystemWatcher('**/manifest.json');
  watcher.onDidCreate(() => later(500));
  watcher.onDidDelete(() => later(500));
  const folders = vscode.workspace.onDidChangeWorkspaceFolders(() => later(500));
  return {
    dispose: () => {
      clearTimeout(timer);
      watcher.dispose();
      folders.dispose();
    },
  };
}
