// A harvest's folder before anything is fetched: the hours of the range, the folder's manifest (or a new one), and
// the folder and manifest made to agree after a crash. See docs/harvest.md.
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { MdsHourEndpointId } from '../mds';
import { parseUtcHour, utcHoursBetween } from '../mds';
import { TEMP_SUFFIX, writeFailed } from './harvestFiles';
import type { HarvestManifest } from './harvestManifest';
import { DONE_STATUSES, HARVEST_FORMAT, HARVEST_FORMAT_VERSION, hourFileOf, parseManifest } from './harvestManifest';

/** The most hours one run takes (about eleven years): a typo in a year should not start a 100-year run. */
export const MAX_HARVEST_HOURS = 100_000;
const HOUR_FILE = /^\d{4}-\d{2}-\d{2}T\d{2}\.ndjson$/;

/** Every hour of the range; PARAMETER_INVALID saying what to fix. */
export function hoursOf(from: string, to: string): string[] {
  const fromMs = parseUtcHour(from);
  const toMs = parseUtcHour(to);
  if (fromMs === undefined)
    throw new MobilityError(
      'PARAMETER_INVALID',
      l10n.t(
        'The first hour {0} is not a UTC hour; write YYYY-MM-DDTHH (UTC), for example 2024-11-05T14.',
        JSON.stringify(from),
      ),
    );
  if (toMs === undefined)
    throw new MobilityError(
      'PARAMETER_INVALID',
      l10n.t(
        'The last hour {0} is not a UTC hour; write YYYY-MM-DDTHH (UTC), for example 2024-11-05T14.',
        JSON.stringify(to),
      ),
    );
  if (toMs < fromMs)
    throw new MobilityError(
      'PARAMETER_INVALID',
      l10n.t('The last hour {0} is before the first hour {1}; swap them.', to, from),
    );
  const count = (toMs - fromMs) / 3_600_000 + 1;
  if (count > MAX_HARVEST_HOURS)
    throw new MobilityError(
      'PARAMETER_INVALID',
      l10n.t(
        '{0} to {1} is {2} hours; one harvest takes at most {3}. Split the range (each part may use the same folder).',
        from,
        to,
        count,
        MAX_HARVEST_HOURS,
      ),
    );
  return utcHoursBetween(fromMs, toMs);
}

/** The folder's manifest, or a new one; refuses the harvest of another endpoint or base URL. */
export async function openManifest(
  file: string,
  endpoint: MdsHourEndpointId,
  baseUrl: string,
  pathTemplate: string,
  hourParameter: string,
  hours: string[],
): Promise<{ manifest: HarvestManifest; originalText: string | undefined }> {
  let text: string | undefined;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeFailed(err, file, 'read');
  }
  const first = hours[0];
  const last = hours[hours.length - 1];
  const now = new Date().toISOString();
  if (text === undefined) {
    const manifest: HarvestManifest = {
      format: HARVEST_FORMAT,
      formatVersion: HARVEST_FORMAT_VERSION,
      endpoint,
      path: pathTemplate,
      hourParameter,
      baseUrl,
      from: first,
      to: last,
      createdAt: now,
      updatedAt: now,
      hours: {},
    };
    return { manifest, originalText: undefined };
  }
  const manifest = parseManifest(text, file);
  if (manifest.endpoint !== endpoint) {
    throw new MobilityError(
      'HARVEST_FOLDER_MISMATCH',
      l10n.t(
        'The folder {0} holds a harvest of {1}, not {2}. Harvest {2} into another folder (one folder per endpoint and provider).',
        path.dirname(file),
        manifest.endpoint,
        endpoint,
      ),
    );
  }
  if (manifest.baseUrl !== baseUrl) {
    throw new MobilityError(
      'HARVEST_FOLDER_MISMATCH',
      l10n.t(
        'The folder {0} holds a harvest from {1}, not {2}. Harvest into another folder (one folder per endpoint and provider), or give the same base URL to resume.',
        path.dirname(file),
        manifest.baseUrl,
        baseUrl,
      ),
    );
  }
  const originalText = JSON.stringify(manifest);
  if (first < manifest.from) manifest.from = first;
  if (last > manifest.to) manifest.to = last;
  return { manifest, originalText };
}

/**
 * Makes the folder and the manifest agree before anything is fetched: temporary files of a crashed
 * run are removed, an hour file the manifest does not record as done is removed (it is fetched
 * again), and a done hour whose file is missing or has another size is recorded as failed (so it is
 * fetched again).
 */
export async function reconcile(outDir: string, endpointDir: string, manifest: HarvestManifest): Promise<void> {
  for (const dir of [outDir, endpointDir]) {
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch (err) {
      throw writeFailed(err, dir, 'read the folder');
    }
    for (const name of names) {
      const hour = name.slice(0, -'.ndjson'.length);
      const orphan =
        dir === endpointDir && HOUR_FILE.test(name) && !DONE_STATUSES.includes(manifest.hours[hour]?.status);
      if ((name.startsWith('.') && name.endsWith(TEMP_SUFFIX)) || orphan) {
        try {
          await fs.promises.rm(path.join(dir, name), { force: true });
        } catch (err) {
          throw writeFailed(err, path.join(dir, name), 'remove the unfinished file');
        }
      }
    }
  }
  for (const [hour, record] of Object.entries(manifest.hours)) {
    if (!DONE_STATUSES.includes(record.status)) continue;
    const file = path.join(outDir, ...hourFileOf(manifest.endpoint, hour).split('/'));
    const size = await fs.promises.stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === record.bytes) continue;
    manifest.hours[hour] = {
      ...record,
      status: 'failed',
      items: 0,
      bytes: 0,
      problem:
        size === undefined
          ? 'its file was missing; fetched again by the next run'
          : `its file had ${size} bytes, not the ${record.bytes} recorded; fetched again by the next run`,
    };
    delete manifest.hours[hour]?.file;
    if (size !== undefined) await fs.promises.rm(file, { force: true }).catch(() => undefined);
  }
}
