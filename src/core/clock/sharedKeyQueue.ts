import type { KeyRequestQueue } from './keyedQueue';
import { keyIdHex } from './stateDir';
import { KeyLocks } from './keyLock';

export interface SharedKeyQueueOptions {
  /** Told when a lock was lost or could not be released; never holds a secret. */
  onProblem?: (message: string) => void;
  /**
   * Give up after waiting this long for other processes; default 120 s (a holder keeps the key
   * until its response headers arrive, which a slow server may take its whole timeout for).
   */
  maxWaitMs?: number;
  /** The key locks shared with the clock store of the same state folder. */
  locks?: KeyLocks;
}

/**
 * Orders the requests of one key across every signer that uses the same state folder (VS Code windows,
 * CLI runs, scripts, Copy as Code's programs), from reading the key's clock until the response headers
 * arrive, so that a server enforcing spec 5.1 rule 6 receives them in `iat` order. The lock is the key's
 * clock file's (`<stateDir>/clock/iat-<hash>.lock`, see {@link KeyLocks}); the file name is a hash of the
 * key id, so a listing of the folder shows no key ids.
 */
export class SharedKeyQueue implements KeyRequestQueue {
  readonly locks: KeyLocks;

  constructor(
    readonly stateDir: string,
    private readonly options: SharedKeyQueueOptions = {},
  ) {
    this.locks = options.locks ?? new KeyLocks(stateDir, options.onProblem);
  }

  async acquire(keyId: string, signal?: AbortSignal): Promise<() => void> {
    const release = await this.locks.acquire(
      keyIdHex(keyId),
      'the requests of a key',
      this.options.maxWaitMs ?? 120_000,
      signal,
    );
    return () => void release();
  }

  /** The lock's base path for a key (proper-lockfile adds `.lock`): its clock file. */
  lockBaseOf(keyId: string): string {
    return this.locks.fileOf(keyIdHex(keyId));
  }
}
