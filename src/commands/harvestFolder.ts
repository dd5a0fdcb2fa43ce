// Where Fetch Hours' folder dialog opens. Without a start folder VS Code opens the folder its last dialog
// used, which after `npm start` was the hidden `.vscode-test` folder (issue #24); so there is always one:
// the workspace folder of the file in the editor, else the first workspace folder, else the folder of the
// last harvest, else the home folder. Pure (no `vscode`), so that the choice is unit-tested.

/** The folder the harvest folder dialog starts in. */
export function harvestFolderStart(args: { editorFolder?: string; workspaceFolders: readonly string[]; lastHarvest?: string; home: string }): string {
  return args.editorFolder ?? args.workspaceFolders[0] ?? args.lastHarvest ?? args.home;
}
