// Where Fetch Hours' folder dialog opens. Without a start folder VS Code opens the folder its last dialog
// used, which after `npm start` was the hidden `.vscode-test` folder (issue #24); so there is always one:
// the workspace folder of the file in the editor, else the first workspace folder, else the folder of the
// last harvest, else the home folder. Pure (no `vscode`), so that the choice is unit-tested; so is what Enter takes in
// the endpoint pick.

/** The folder the harvest folder dialog starts in. */
export function harvestFolderStart(args: {
  editorFolder?: string;
  workspaceFolders: readonly string[];
  lastHarvest?: string;
  home: string;
}): string {
  return args.editorFolder ?? args.workspaceFolders[0] ?? args.lastHarvest ?? args.home;
}

/**
 * What Enter in Fetch Hours' endpoint pick (a multi-pick) takes: the ticked items when an endpoint is among them; else
 * the highlighted endpoints (the one the arrows or the filter put the cursor on) with what is ticked; else, with text
 * in the filter, the endpoints whose label holds it ("Trips" then Enter fetches the trips); else nothing (the pick
 * stays open and says to tick one). `isEndpoint` tells the endpoints from the snapshot box.
 */
export function endpointsOnEnter<T extends { label: string }>(args: {
  ticked: readonly T[];
  highlighted: readonly T[];
  filter: string;
  items: readonly T[];
  isEndpoint: (item: T) => boolean;
}): T[] | undefined {
  const { ticked, highlighted, filter, items, isEndpoint } = args;
  if (ticked.some(isEndpoint)) return [...ticked];
  const active = highlighted.filter(isEndpoint);
  if (active.length) return [...ticked, ...active];
  const text = filter.trim().toLowerCase();
  const matching = text ? items.filter((item) => isEndpoint(item) && item.label.toLowerCase().includes(text)) : [];
  return matching.length ? [...ticked, ...matching] : undefined;
}
