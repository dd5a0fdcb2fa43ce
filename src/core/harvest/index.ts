// harvest: fetching an hour-window endpoint hour by hour into a folder (NDJSON per hour + manifest.json), with
// retries, resume, a folder lock and progress. Imports the other core domains through their doors; never `vscode`.

export { MANIFEST_FILE, hourFileOf, parseManifest } from './harvestManifest';
export type { HarvestManifest, HourRecord, HourStatus } from './harvestManifest';
export type { HarvestProgress } from './harvestProgress';
export { harvestFolderInUse } from './harvestLock';
export { harvestHours } from './harvestRun';
export { hoursOf } from './harvestFolder';
export type { HarvestSummary } from './harvestRun';
export { SNAPSHOT_DIR, SNAPSHOT_FILE, harvestSnapshot, readSnapshotManifest } from './harvestSnapshot';
export type { SnapshotList, SnapshotManifest, SnapshotOptions } from './harvestSnapshot';
export { REPORTS_DIR, reportMonthsOf } from './harvestReports';
export type { ReportRecord } from './harvestReports';
