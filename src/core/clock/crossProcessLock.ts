import * as l10n from '@vscode/l10n';
import fs from 'node:fs';
import path from 'node:path';
import { MobilityError } from '../base';

/**
 * A lock whose holder stops refreshing it (killed with SIGKILL, or a frozen machine) is taken over
 * this long after its last refresh. Short, because a waiter blocks that long after a crash; long
 * enough that a live holder whose event loop stalls (a busy extension host, a paused laptop) is
 * not robbed of it: the holder refreshes every {@link LOCK_UPDATE_MS}, so it would have to stall
 * for about 4 s. proper-lockfile does not accept less than 2 s.
 */
export const LOCK_STALE_MS = 5000;
/** How often a holder refreshes its lock's mtime (proper-lockfile: at least 1 s, at most stale / 2). */
export const LOCK_UPDATE_MS = 1000;

export interface CrossProcessLockOptions {
  /** What the lock guards, for messages: e.g. `the token clock state file /x/issue-clock.json`. */
  what: string;
  /** Give up with CLOCK_STORE_FAILED after waiting this long for another process. */
  maxWaitMs: number;
  signal?: AbortSignal;
  /**
   * Called when the lock was taken from us (we stalled longer than the stale time, or another
   * process removed it). proper-lockfile's default would throw from a timer and end the process.
   */
  onCompromised: (message: string) => void;
}

/**
 * Takes the lock of `base` (the directory `<base>.lock`, created by proper-lockfile) for this process,
 * waiting while another process holds it. Resolves to the release function. The folder of `base`
 * must exist.
 *
 * A stale lock is taken over only under a second lock, `<base>.takeover.lock`: proper-lockfile on
 * its own lets two waiters that find the same stale lock both remove it, the slower one removing the
 * lock the faster one had just made, so that both hold it (every waiter polls, so after a holder
 * dies they all find its lock stale within a few milliseconds). Under the takeover lock,
 * proper-lockfile checks again that the lock is stale before it removes it. That second lock can
 * itself go stale only if its holder dies within those few milliseconds.
 */
export async function acquireCrossProcessLock(
  base: string,
  options: CrossProcessLockOptions,
): Promise<() => Promise<void>> {
  // Loaded on first use, not when the extension activates: proper-lockfile and graceful-fs patch fs as they load.
  const { lock } = await import('proper-lockfile');
  const deadline = Date.now() + options.maxWaitMs;
  const onCompromised = (err: Error) =>
    options.onCompromised(
      `The lock on ${options.what} was lost while held (${err.message}); another process may have taken it over.`,
    );
  let pauseMs = 1;
  for (;;) {
    if (options.signal?.aborted) throw aborted();
    let stale = false;
    try {
      // Retries are ours, not proper-lockfile's, so that a cancelled request stops waiting at once.
      return await lockUnlessStale(lock, base, onCompromised);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === STALE) stale = true;
      else if (code !== 'ELOCKED') throw lockFailed(base, options.what, err);
    }
    if (stale) {
      const taken = await takeOver(lock, base, onCompromised).catch((err: unknown) => {
        throw lockFailed(base, options.what, err);
      });
      if (taken) return taken;
    }
    if (Date.now() >= deadline) {
      throw new MobilityError(
        'CLOCK_STORE_FAILED',
        l10n.t(
          'Another process has held the lock on {0} for more than {1} s. If no other mobility-api or VS Code window is working, remove the folder {2}.lock and try again.',
          options.what,
          Math.round(options.maxWaitMs / 1000),
          base,
        ),
      );
    }
    await pause(pauseMs, options.signal);
    // Polls fast at first (a holder usually keeps it for a few milliseconds), then every 25 ms.
    pauseMs = Math.min(25, pauseMs * 2);
  }
}

/** proper-lockfile's `lock`, passed in because the library is loaded on first use. */
type LockFn = typeof import('proper-lockfile').lock;

/** The code of the error `lockUnlessStale` fails with when it found the lock stale. */
const STALE = 'EMOBILITYSTALELOCK';

const lockOptions = (onCompromised: (err: Error) => void) => ({
  realpath: false,
  stale: LOCK_STALE_MS,
  update: LOCK_UPDATE_MS,
  retries: 0,
  onCompromised,
});

/**
 * One lock's refreshes kept off the next holder's lock. proper-lockfile refreshes with a `stat`, then a
 * `utimes` from the stat's callback, which does not look whether the lock was released meanwhile: a release
 * between the two lets the `utimes` land on the lock folder the next holder made in between, and that
 * holder's own next refresh finds an mtime not its own and declares its lock lost ("Unable to update lock
 * within the stale threshold"; the more likely the busier the machine). With this file system a refresh is
 * skipped once the release has begun, and the release waits for one already under way.
 */
function refreshGuard() {
  let releasing = false;
  let refreshing: Promise<void> = Promise.resolve();
  const fileSystem = {
    ...fs,
    utimes: (file: string, atime: Date, mtime: Date, callback: (err: NodeJS.ErrnoException | null) => void) => {
      // proper-lockfile's callback after a release returns at once; until then it counts as refreshed.
      if (releasing) return callback(null);
      refreshing = new Promise((done) =>
        fs.utimes(file, atime, mtime, (err) => {
          done();
          callback(err);
        }),
      );
    },
  };
  const guard = (release: () => Promise<void>) => async () => {
    releasing = true;
    await refreshing;
    await release();
  };
  return { fileSystem, guard };
}

/** proper-lockfile's `lock` of `file` with our options and a {@link refreshGuard}; `fsOverrides` go on top of it. */
async function guardedLock(
  lock: LockFn,
  file: string,
  onCompromised: (err: Error) => void,
  fsOverrides: object = {},
): Promise<() => Promise<void>> {
  const refresh = refreshGuard();
  return refresh.guard(
    await lock(file, { ...lockOptions(onCompromised), fs: { ...refresh.fileSystem, ...fsOverrides } }),
  );
}

/**
 * proper-lockfile's `lock`, except that it does not take over a stale lock: it fails with {@link STALE}
 * instead. proper-lockfile removes a stale lock with `rmdir` on its own; while it acquires, that one
 * call is refused (afterwards `rmdir` is the release and passes through).
 */
async function lockUnlessStale(
  lock: LockFn,
  base: string,
  onCompromised: (err: Error) => void,
): Promise<() => Promise<void>> {
  const lockDir = `${base}.lock`;
  let acquiring = true;
  const refusedRmdir = {
    rmdir: (dir: string, callback: (err: NodeJS.ErrnoException | null) => void) => {
      if (acquiring && path.resolve(dir) === path.resolve(lockDir)) {
        callback(Object.assign(new Error(`the lock ${lockDir} is stale`), { code: STALE }));
        return;
      }
      fs.rmdir(dir, callback);
    },
  };
  try {
    return await guardedLock(lock, base, onCompromised, refusedRmdir);
  } finally {
    acquiring = false;
  }
}

/**
 * Takes over the stale lock of `base` while holding `<base>.takeover.lock`, so that only one waiter at
 * a time removes it; proper-lockfile checks again under it that the lock is still stale. Undefined
 * when another waiter is taking it over, or has already.
 */
async function takeOver(
  lock: LockFn,
  base: string,
  onCompromised: (err: Error) => void,
): Promise<(() => Promise<void>) | undefined> {
  let releaseGuard: () => Promise<void>;
  try {
    // Released within milliseconds; refreshed like any lock, so that a guard whose holder died goes stale too.
    releaseGuard = await guardedLock(lock, `${base}.takeover`, () => undefined);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw err;
  }
  try {
    return await guardedLock(lock, base, onCompromised);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw err;
  } finally {
    await releaseGuard().catch(() => undefined);
  }
}

/** Creates `dir` (and its parents) for state files, or says clearly why it cannot. */
export function ensureStateDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!fs.statSync(dir).isDirectory())
      throw Object.assign(new Error('it is a file, not a folder'), { code: 'ENOTDIR' });
  } catch (err) {
    throw new MobilityError(
      'CLOCK_STORE_FAILED',
      l10n.t('Cannot use the state folder {0} for the token clock: {1}. {2}', dir, reasonOf(err), FIX_STATE_DIR),
      { cause: err },
    );
  }
}

/** What a user can do about a state folder that cannot be used. */
export const FIX_STATE_DIR =
  'Make it a writable folder, or choose another one with the setting mobilityApi.stateDirectory, the CLI option --state-dir or the variable MOBILITY_API_STATE_DIR (every window and script that signs with one key must use the same folder).';

/** A short reason for a file-system error, by its code. */
export function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EEXIST':
      return 'a file of that name is in the way';
    case 'ENOENT':
      return 'a part of the path does not exist';
    case 'ENOSPC':
      return 'the disk is full';
    default:
      return e?.message ?? String(err);
  }
}

function lockFailed(base: string, what: string, err: unknown): MobilityError {
  return new MobilityError(
    'CLOCK_STORE_FAILED',
    l10n.t(
      'Cannot lock {0} (lock folder {1}.lock in {2}): {3}. {4}',
      what,
      base,
      String(path.dirname(base)),
      reasonOf(err),
      FIX_STATE_DIR,
    ),
    { cause: err },
  );
}

function aborted(): MobilityError {
  return new MobilityError(
    'CANCELLED',
    l10n.t(
      'The request was cancelled while it waited for another process signing with the same key; nothing was sent.',
    ),
  );
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
