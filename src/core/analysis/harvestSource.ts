/**
 * A harvest folder as the analysis reads it, as the harvest left it: one endpoint's folder (its manifest.json and
 * NDJSON hour files), or a folder holding several such folders (one per endpoint). Only the hour files the manifests
 * record as done are read: a file a crashed run left without recording it is not data yet. Or the Parquet folder
 * `mobility-api parquet` wrote from one (`endpoint=<view>/…` and, in `_harvest/`, the harvest's manifests and snapshot
 * description), read with the same views.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';
import type { HarvestManifest, SnapshotManifest } from '../harvest';
import { MANIFEST_FILE, SNAPSHOT_DIR, harvestFolderInUse, parseManifest, readSnapshotManifest } from '../harvest';
import { safeHourFile } from './integrity/safeHourFile';

/** Where `mobility-api parquet` keeps what is not items: the manifests, the snapshot's description. Hidden from Spark and Hive (`_`). */
export const PARQUET_META_DIR = '_harvest';
/** The items' vehicle_type and propulsion_types beyond the models (registry), beside the manifests. */
export const PARQUET_ITEM_VEHICLES = 'item_vehicles.parquet';
/** The Parquet folder of a view: `endpoint=trips`. */
export const parquetViewDir = (view: string) => `endpoint=${view}`;
/** A snapshot list's one Parquet file. */
export const PARQUET_SNAPSHOT_FILE = 'data_0.parquet';

/** The tables the analysis offers over a harvest. */
export type AnalysisTable = 'trips' | 'events' | 'telemetry';

export const ANALYSIS_TABLES: readonly AnalysisTable[] = ['trips', 'events', 'telemetry'];

const TABLE_OF: Record<HarvestManifest['endpoint'], AnalysisTable> = {
  trips: 'trips',
  events_historical: 'events',
  telemetry: 'telemetry',
};

/** One endpoint's harvest inside the folder. */
export interface HarvestPart {
  table: AnalysisTable;
  /** The folder holding its manifest. */
  dir: string;
  manifest: HarvestManifest;
  /** Absolute paths of the done hours' files, in hour order (empty hours included). */
  files: string[];
  /** The done hours' names (`2026-11-20T07`), with their item counts by the manifest. */
  hours: { hour: string; items: number }[];
  /** A live harvest holds the folder's lock: it may still be writing. */
  inUse: boolean;
}

/** The /vehicles and /vehicles/status snapshot of a harvest taken with --snapshot. */
export interface HarvestSnapshot {
  /** Its folder (`<harvest>/snapshot`). */
  dir: string;
  manifest: SnapshotManifest;
  /** Absolute paths of its two lists. */
  files: { vehicles: string; vehicles_status: string };
}

/** What the analysis reads. */
export interface HarvestSource {
  folder: string;
  /** The Parquet that `mobility-api parquet` wrote (files are .parquet); NDJSON as the harvest left it when absent. */
  parquet?: {
    /** The items' vehicle_type and propulsion_types beyond the models, when any item carried them. */
    itemVehicles?: string;
  };
  parts: HarvestPart[];
  /** The snapshot beside the parts: in the folder, or (for one endpoint's folder of several) in the folder above. */
  snapshot?: HarvestSnapshot;
  /** The first and last hour harvested, over every part. */
  window: { start: string; end: string };
}

function notAHarvest(folder: string, why: string): MobilityError {
  return new MobilityError(
    'ANALYSIS_NOT_A_HARVEST',
    l10n.t(
      '{0} is not a harvest folder: {1}. Name the folder that `mobility-api harvest --out` (or Fetch Hours…) wrote, the one with manifest.json, or a folder of such folders.',
      folder,
      why,
    ),
  );
}

async function readPart(dir: string): Promise<HarvestPart> {
  const manifestPath = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await fs.promises.readFile(manifestPath, 'utf8');
  } catch (err) {
    throw new MobilityError(
      'ANALYSIS_NOT_A_HARVEST',
      l10n.t('Cannot read {0}: {1}.', manifestPath, errorMessage(err)),
      { cause: err },
    );
  }
  const manifest = parseManifest(text, manifestPath);
  const hours = Object.entries(manifest.hours)
    .filter(([, record]) => (record.status === 'items' || record.status === 'empty') && record.file)
    .sort(([a], [b]) => a.localeCompare(b));
  const files = hours.map(([, record]) => safeHourFile(dir, record.file as string, manifestPath));
  for (const file of files) {
    if (!fs.existsSync(file)) {
      throw new MobilityError(
        'ANALYSIS_DATA_INVALID',
        l10n.t(
          '{0} records the hour file {1}, which is missing. Run the harvest again into the same folder: it fetches that hour again.',
          manifestPath,
          file,
        ),
      );
    }
  }
  return {
    table: TABLE_OF[manifest.endpoint],
    dir,
    manifest,
    files,
    hours: hours.map(([hour, record]) => ({ hour, items: record.items })),
    inUse: await harvestFolderInUse(dir),
  };
}

/** Every .parquet file under `dir`, sorted; none when there is no such folder. */
function parquetFilesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.parquet'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The Parquet folder `mobility-api parquet` wrote: its items by view, the manifests and the snapshot kept in `_harvest/`. */
async function readParquetSource(resolved: string): Promise<HarvestSource> {
  const meta = path.join(resolved, PARQUET_META_DIR);
  const names = (await fs.promises.readdir(meta, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(meta, e.name, MANIFEST_FILE)))
    .map((e) => e.name)
    .sort();
  if (!names.length)
    throw notAHarvest(
      resolved,
      l10n.t(
        'its {0} folder holds no manifest.json; write the Parquet again with mobility-api parquet',
        PARQUET_META_DIR,
      ),
    );
  const tables = new Set<AnalysisTable>();
  const parts: HarvestPart[] = [];
  for (const name of names) {
    const manifestPath = path.join(meta, name, MANIFEST_FILE);
    const manifest = parseManifest(await fs.promises.readFile(manifestPath, 'utf8'), manifestPath);
    const table = TABLE_OF[manifest.endpoint];
    const hours = Object.entries(manifest.hours)
      .filter(([, record]) => (record.status === 'items' || record.status === 'empty') && record.file)
      .sort(([a], [b]) => a.localeCompare(b));
    // A view's files once, with the first part of its table: the Parquet holds every part's items together.
    const files = tables.has(table) ? [] : parquetFilesUnder(path.join(resolved, parquetViewDir(table)));
    tables.add(table);
    parts.push({
      table,
      dir: path.join(meta, name),
      manifest,
      files,
      hours: hours.map(([hour, record]) => ({ hour, items: record.items })),
      inUse: false,
    });
  }
  if (!parts.some((p) => p.hours.length)) {
    throw new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        'The harvest in {0} has no finished hour yet (every hour failed, is pending or was not fetched). Run the harvest again to fetch them.',
        resolved,
      ),
    );
  }
  let snapshot: HarvestSnapshot | undefined;
  const snapshotDir = path.join(meta, SNAPSHOT_DIR);
  const snapshotManifest = await readSnapshotManifest(snapshotDir);
  if (snapshotManifest) {
    const files = {
      vehicles: path.join(resolved, parquetViewDir('vehicles'), PARQUET_SNAPSHOT_FILE),
      vehicles_status: path.join(resolved, parquetViewDir('vehicles_status'), PARQUET_SNAPSHOT_FILE),
    };
    for (const file of Object.values(files)) {
      if (!fs.existsSync(file))
        throw new MobilityError(
          'ANALYSIS_DATA_INVALID',
          l10n.t(
            'The Parquet folder {0} describes a snapshot but lacks {1}. Write the Parquet again with mobility-api parquet.',
            resolved,
            file,
          ),
        );
    }
    snapshot = { dir: snapshotDir, manifest: snapshotManifest, files };
  }
  const itemVehicles = path.join(meta, PARQUET_ITEM_VEHICLES);
  const froms = parts.map((p) => p.manifest.from).sort();
  const tos = parts.map((p) => p.manifest.to).sort();
  return {
    folder: resolved,
    parquet: fs.existsSync(itemVehicles) ? { itemVehicles } : {},
    parts,
    ...(snapshot ? { snapshot } : {}),
    window: { start: froms[0], end: tos[tos.length - 1] },
  };
}

/** Reads the harvest at `folder`: refuses, saying why, a folder that is not one or that has no finished hour. */
export async function readHarvestSource(folder: string): Promise<HarvestSource> {
  const resolved = path.resolve(folder);
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(resolved, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw notAHarvest(
      resolved,
      code === 'ENOENT' ? l10n.t('no such folder') : code === 'ENOTDIR' ? l10n.t('it is a file') : errorMessage(err),
    );
  }
  if (
    entries.some((e) => e.isDirectory() && e.name === PARQUET_META_DIR) &&
    entries.some((e) => e.isDirectory() && e.name.startsWith('endpoint='))
  ) {
    return readParquetSource(resolved);
  }
  let dirs: string[];
  if (entries.some((e) => e.isFile() && e.name === MANIFEST_FILE)) dirs = [resolved];
  else {
    dirs = entries
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(resolved, e.name, MANIFEST_FILE)))
      .map((e) => path.join(resolved, e.name))
      .sort();
  }
  if (!dirs.length)
    throw notAHarvest(
      resolved,
      entries.length ? l10n.t('it holds no manifest.json, nor do its folders') : l10n.t('it is empty'),
    );
  const parts = await Promise.all(dirs.map(readPart));
  if (!parts.some((p) => p.hours.length)) {
    throw new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        'The harvest in {0} has no finished hour yet (every hour failed, is pending or was not fetched). Run the harvest again to fetch them.',
        resolved,
      ),
    );
  }
  // The snapshot of this harvest: `<folder>/snapshot`, or, for one endpoint's folder of a harvest of several, the one beside it.
  const candidates = [
    path.join(resolved, SNAPSHOT_DIR),
    ...(dirs[0] === resolved ? [path.join(path.dirname(resolved), SNAPSHOT_DIR)] : []),
  ];
  let snapshot: HarvestSnapshot | undefined;
  for (const dir of candidates) {
    const manifest = await readSnapshotManifest(dir);
    if (!manifest) continue;
    // Fixed names, whatever the description says: the analysis reads nothing outside the snapshot folder.
    const files = {
      vehicles: path.join(dir, 'vehicles.ndjson'),
      vehicles_status: path.join(dir, 'vehicles_status.ndjson'),
    };
    for (const file of Object.values(files)) {
      if (!fs.existsSync(file))
        throw new MobilityError(
          'ANALYSIS_DATA_INVALID',
          l10n.t('The snapshot in {0} lacks {1}. Take the snapshot again: harvest with --snapshot.', dir, file),
        );
    }
    snapshot = { dir, manifest, files };
    break;
  }
  const froms = parts.map((p) => p.manifest.from).sort();
  const tos = parts.map((p) => p.manifest.to).sort();
  return {
    folder: resolved,
    parts,
    ...(snapshot ? { snapshot } : {}),
    window: { start: froms[0], end: tos[tos.length - 1] },
  };
}
