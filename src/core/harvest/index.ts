// harvest: fetching an hour-window endpoint hour by hour into a folder (NDJSON per hour + manifest.json), with
// retries, resume, a folder lock and progress. Imports the other core domains through their doors; never `vscode`.

export { MANIFEST_FILE, hourFileOf, parseManifest } from './harvestManifest';
export type { HourRecord, HourStatus } from './harvestManifest';
export type { HarvestProgress } from './harvestProgress';
export { harvestHours, hoursOf } from './harvestRun';
export type { HarvestSummary } from './harvestRun';
