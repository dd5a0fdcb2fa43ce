import path from 'node:path';
import type { KeyRequestQueue } from './keyedQueue';
import { acquireCrossProcessLock, ensureStateDir, reasonOf } from './crossProcessLock';
import { keyIdDigest } from './fileClockStore';
import { KeyedQueue } from './keyedQueue';

export interface SharedKeyQueueOptions {
  /** Told when a lock was lost or could not be released; never holds a secret. */
  onProblem?: (message: string) => void;
  /**
   * Give up after waiting this long for other processes; default 120 s (a holder keeps the key
   * until its response headers arrive, which a slow server may take its whole timeout for).
   */
  maxWaitMs?: number;
}

/**
 * Orders the requests of one key across every process that uses the same state folder (VS Code
 * windows, CLI runs, scripts), from signing until the response headers arrive, so that a server
 * enforcing spec 5.1 rule 6 receives them in `iat` order. Inside the process a {@link KeyedQueue}
 * serves callers first come first served; the one at its head then takes the key's lock folder
 * `<stateDir>/locks/key-<hash>.lock` (proper-lockfile). The file name is a hash of the key id, so
 * a listing of the folder shows no key ids.
 */
export class SharedKeyQueue implements KeyRequestQueue {
  private readonly local = new KeyedQueue();
  readonly lockDir: string;

  constructor(readonly stateDir: string, private readonly options: SharedKeyQueueOptions = {}) {
    this.lockDir = path.join(stateDir, 'locks');
  }

  async acquire(keyId: string, signal?: AbortSignal): Promise<() => void> {
    const releaseLocal = await this.local.acquire(keyId, signal);
    let releaseFile: () => Promise<void>;
    try {
      ensureStateDir(this.lockDir);
      releaseFile = await acquireCrossProcessLock(this.lockBaseOf(keyId), {
        what: `the requests of key "${keyId}"`,
        maxWaitMs: this.options.maxWaitMs ?? 120_000,
        signal,
        onCompromised: (message) => this.options.onProblem?.(message),
      });
    } catch (err) {
      releaseLocal();
      throw err;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The next caller in this process starts once the lock folder is gone, not while it still is.
      void releaseFile()
        .catch((err: unknown) => this.options.onProblem?.(`Could not release the request lock of key "${keyId}": ${reasonOf(err)}.`))
        .finally(releaseLocal);
    };
  }

  /** The lock's base path for a key (proper-lockfile adds `.lock`), named by the key id's digest. */
  lockBaseOf(keyId: string): string {
    return path.join(this.lockDir, `key-${keyIdDigest(keyId).slice('sha256:'.length)}`);
  }
}
