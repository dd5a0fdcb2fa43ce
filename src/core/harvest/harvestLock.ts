import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { check, lock } from 'proper-lockfile';
import * as l10n from '@vscode/l10n';
import { LOCK_STALE_MS, LOCK_UPDATE_MS } from '../clock';
import { MobilityError } from '../base';
import { writeFailed } from './harvestFiles';

/** The lock folder inside the output folder (proper-lockfile's lock is a folder created atomically). */
export const HARVEST_LOCK_NAME = 'harvest.lock';

/**
 * How long a harvest waits for the lock of its folder by default: a little longer than a killed
 * harvest's lock takes to go stale, so that re-running right after `kill -9` resumes instead of
 * being refused, while a live harvest (which refreshes its lock every second) keeps it.
 */
export const DEFAULT_LOCK_WAIT_MS = LOCK_STALE_MS + 2000;

/** A held lock: `lost` is set when another process took it over (we stalled, or it was removed). */
export interface HarvestLock {
  release(): Promise<void>;
  lost(): string | undefined;
}

/**
 * Takes the lock of the output folder `outDir` (which must exist) with proper-lockfile, waiting up
 * to `waitMs` while another harvest holds it; HARVEST_FOLDER_IN_USE names the folder when it does
 * not come free.
 */
export async function lockHarvestFolder(outDir: string, waitMs: number, signal?: AbortSignal): Promise<HarvestLock> {
  const lockPath = path.join(outDir, HARVEST_LOCK_NAME);
  const deadline = Date.now() + waitMs;
  let lostReason: string | undefined;
  for (;;) {
    try {
      const release = await lock(outDir, {
        lockfilePath: lockPath,
        realpath: false,
        stale: LOCK_STALE_MS,
        update: LOCK_UPDATE_MS,
        retries: 0,
        onCompromised: (err) => {
          lostReason = l10n.t(
            'The lock {0} was lost while harvesting ({1}); another harvest may be writing the folder.',
            lockPath,
            err.message,
          );
        },
      });
      return {
        release: async () => {
          await release().catch(() => undefined);
        },
        lost: () => lostReason,
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw writeFailed(err, lockPath, 'create the lock');
    }
    if (Date.now() >= deadline) {
      throw new MobilityError(
        'HARVEST_FOLDER_IN_USE',
        l10n.t(
          'Another harvest is writing the folder {0} (it holds {1}). Wait until it ends, or harvest into another folder. A harvest that was killed gives the lock up within {2} s.',
          outDir,
          lockPath,
          Math.round(LOCK_STALE_MS / 1000),
        ),
      );
    }
    if (signal?.aborted)
      throw new MobilityError('CANCELLED', l10n.t('The harvest was stopped while waiting for the lock of its folder.'));
    await delay(Math.min(250, Math.max(1, deadline - Date.now())), undefined, { signal }).catch(() => undefined);
  }
}

/** Whether a live harvest holds the lock of `outDir` now (a lock left by a killed harvest goes stale and does not count). */
export async function harvestFolderInUse(outDir: string): Promise<boolean> {
  return check(outDir, {
    lockfilePath: path.join(outDir, HARVEST_LOCK_NAME),
    realpath: false,
    stale: LOCK_STALE_MS,
  }).catch(() => false);
}
