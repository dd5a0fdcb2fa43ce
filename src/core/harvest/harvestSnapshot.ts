/**
 * The snapshot a harvest takes with `--snapshot`: every page of `/vehicles` and `/vehicles/status` (a fresh token per
 * page, as every request), once at the end of the run, into `<dir>/snapshot/`: `vehicles.ndjson`,
 * `vehicles_status.ndjson` and `snapshot.json` (when, from where, how many, and the status feed's `last_updated`),
 * and with `reportMonths` the monthly reports of those months in `reports/` (harvestReports.ts).
 * The folder is written whole or not at all: into a temporary folder beside it, flushed, then renamed into place
 * (a previous snapshot is replaced only once the new one is complete).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import type { ApiClient } from '../http';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import { normaliseBaseUrl } from '../environment';
import { MobilityError, errorMessage } from '../base';
import { buildEndpointRequest } from '../mds';
import type { HarvestWrite } from './harvestFiles';
import { ensureFolder, syncFolder, writeAll, writeFailed } from './harvestFiles';
import type { ReportRecord } from './harvestReports';
import { fetchReports } from './harvestReports';

/** The snapshot's folder inside a harvest folder. */
export const SNAPSHOT_DIR = 'snapshot';
/** The snapshot's description file. */
export const SNAPSHOT_FILE = 'snapshot.json';
export const SNAPSHOT_FORMAT = 'mobility-api-snapshot';

/** The pages one snapshot list may have (a server that links its pages in a loop stops here). */
const MAX_SNAPSHOT_PAGES = 10_000;

/** What `snapshot.json` records. */
export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT;
  formatVersion: 1;
  baseUrl: string;
  /** When the fetch began, ISO 8601. */
  fetchedAt: string;
  /** The newest `last_updated` of /vehicles/status pages (ms), when the provider gave one. */
  lastUpdated?: number;
  lists: Record<SnapshotList, { file: string; items: number; pages: number }>;
  /** The monthly reports fetched with the snapshot (`reportMonths`), by month `YYYY-MM`; harvestReports.ts. */
  reports?: Record<string, ReportRecord>;
}

export type SnapshotList = 'vehicles' | 'vehicles_status';
const LISTS: readonly SnapshotList[] = ['vehicles', 'vehicles_status'];

/** What to fetch the snapshot with. */
export interface SnapshotOptions {
  client: ApiClient;
  environment: Environment;
  credential: Credential;
  /** The harvest folder; the snapshot goes to `<outDir>/snapshot/`. */
  outDir: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  write?: HarvestWrite;
  /** Months (`YYYY-MM`) whose `/reports/YYYY-MM.csv` to fetch too, into `reports/` (`reportMonthsOf`). */
  reportMonths?: readonly string[];
}

/**
 * Fetches both lists and writes the snapshot folder. Throws HARVEST_SNAPSHOT_FAILED (saying which list and why)
 * when a list cannot be fetched whole, CANCELLED when stopped, HARVEST_WRITE_FAILED when the folder cannot be
 * written; in every case a previous snapshot stays as it was and no half folder is left.
 */
export async function harvestSnapshot(options: SnapshotOptions): Promise<SnapshotManifest> {
  const outDir = path.resolve(options.outDir);
  const baseUrl = normaliseBaseUrl(options.environment.baseUrl, options.environment.name);
  const fetchedAt = new Date().toISOString();
  const fetched: Partial<Record<SnapshotList, { items: unknown[]; pages: number }>> = {};
  let lastUpdated: number | undefined;
  for (const list of LISTS) {
    const request = buildEndpointRequest('mds', list, {}, { headers: options.headers });
    const result = await options.client.request(options.environment, options.credential, request, {
      allPages: true,
      maxPages: MAX_SNAPSHOT_PAGES,
      signal: options.signal,
    });
    const last = result.pages[result.pages.length - 1];
    if (result.outcome !== 'items' && result.outcome !== 'empty') {
      const status = last ? `${last.status}${last.statusText ? ` ${last.statusText}` : ''}` : '';
      const why =
        result.outcome === 'body'
          ? l10n.t('the answer has no "{0}" list', list)
          : result.outcome === 'not_processed'
            ? l10n.t('202: not processed yet')
            : status || result.outcome;
      throw new MobilityError(
        'HARVEST_SNAPSHOT_FAILED',
        l10n.t(
          'The snapshot of {0} could not be fetched: {1}. The hours harvested are kept; run the same command again to take the snapshot.',
          request.path,
          why,
        ),
      );
    }
    if (result.stoppedBecause) {
      throw new MobilityError(
        'HARVEST_SNAPSHOT_FAILED',
        l10n.t(
          'The snapshot of {0} is incomplete: {1}. The hours harvested are kept; run the same command again to take the snapshot.',
          request.path,
          result.stoppedBecause,
        ),
      );
    }
    fetched[list] = { items: result.items, pages: result.pages.length };
    if (list === 'vehicles_status') {
      for (const page of result.pages) {
        const stamp =
          page.body && typeof page.body === 'object' ? (page.body as Record<string, unknown>).last_updated : undefined;
        if (typeof stamp === 'number' && Number.isFinite(stamp)) lastUpdated = Math.max(lastUpdated ?? stamp, stamp);
      }
    }
  }
  const reports = options.reportMonths?.length
    ? await fetchReports(options.client, options.environment, options.credential, options.reportMonths, options.signal)
    : undefined;
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    formatVersion: 1,
    baseUrl,
    fetchedAt,
    ...(lastUpdated !== undefined ? { lastUpdated } : {}),
    lists: {
      vehicles: {
        file: 'vehicles.ndjson',
        items: fetched.vehicles?.items.length ?? 0,
        pages: fetched.vehicles?.pages ?? 0,
      },
      vehicles_status: {
        file: 'vehicles_status.ndjson',
        items: fetched.vehicles_status?.items.length ?? 0,
        pages: fetched.vehicles_status?.pages ?? 0,
      },
    },
    ...(reports ? { reports: reports.records } : {}),
  };
  await writeSnapshot(
    outDir,
    manifest,
    fetched as Record<SnapshotList, { items: unknown[] }>,
    options.write ?? writeAll,
    reports?.files ?? [],
  );
  return manifest;
}

async function writeSnapshot(
  outDir: string,
  manifest: SnapshotManifest,
  lists: Record<SnapshotList, { items: unknown[] }>,
  write: HarvestWrite,
  extra: readonly [string, string][],
): Promise<void> {
  await ensureFolder(outDir);
  const target = path.join(outDir, SNAPSHOT_DIR);
  const temp = path.join(outDir, `.${SNAPSHOT_DIR}.tmp-${process.pid}`);
  const old = path.join(outDir, `.${SNAPSHOT_DIR}.old-${process.pid}`);
  await fs.promises.rm(temp, { recursive: true, force: true });
  try {
    await fs.promises.mkdir(temp);
    const files: [string, string][] = [
      ...LISTS.map((list): [string, string] => [
        manifest.lists[list].file,
        lists[list].items.map((item) => `${JSON.stringify(item)}\n`).join(''),
      ]),
      ...extra,
      [SNAPSHOT_FILE, `${JSON.stringify(manifest, null, 2)}\n`],
    ];
    for (const [name, text] of files) {
      await fs.promises.mkdir(path.dirname(path.join(temp, name)), { recursive: true });
      const handle = await fs.promises.open(path.join(temp, name), 'wx');
      try {
        await write(handle, Buffer.from(text, 'utf8'));
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    await syncFolder(temp);
    const hadOne = await fs.promises.stat(target).then(
      () => true,
      () => false,
    );
    if (hadOne) await fs.promises.rename(target, old);
    try {
      await fs.promises.rename(temp, target);
    } catch (err) {
      if (hadOne) await fs.promises.rename(old, target).catch(() => undefined);
      throw err;
    }
    await syncFolder(outDir);
    if (hadOne) await fs.promises.rm(old, { recursive: true, force: true });
  } catch (err) {
    await fs.promises.rm(temp, { recursive: true, force: true }).catch(() => undefined);
    throw err instanceof MobilityError ? err : writeFailed(err, target, 'write');
  }
}

/** Reads `<dir>/snapshot/snapshot.json`; undefined when there is none, a clear error when it is not one. */
export async function readSnapshotManifest(dir: string): Promise<SnapshotManifest | undefined> {
  const file = path.join(dir, SNAPSHOT_FILE);
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw new MobilityError('ANALYSIS_DATA_INVALID', l10n.t('Cannot read {0}: {1}.', file, errorMessage(err)), {
      cause: err,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        '{0} is not a snapshot description ({1}). Take the snapshot again: harvest with --snapshot.',
        file,
        errorMessage(err),
      ),
      { cause: err },
    );
  }
  const m = parsed as Partial<SnapshotManifest>;
  if (!m || m.format !== SNAPSHOT_FORMAT || typeof m.lists !== 'object' || !m.lists) {
    throw new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t('{0} is not a snapshot description. Take the snapshot again: harvest with --snapshot.', file),
    );
  }
  return m as SnapshotManifest;
}
