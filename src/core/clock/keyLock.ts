import path from 'node:path';
import { acquireCrossProcessLock, ensureStateDir, reasonOf } from './crossProcessLock';
import { KeyedQueue } from './keyedQueue';

/** The folder of the per-key clock files inside a state folder (the protocol: docs/copy-as-code.md). */
export const CLOCK_FOLDER = 'clock';

/**
 * The one lock of a key, shared by every signer (each VS Code window, the CLI, Copy as Code's programs): the
 * folder `<stateDir>/clock/iat-<digest>.lock`, made with an atomic mkdir (proper-lockfile here, the standard
 * library in the programs), its mtime refreshed every {@link LOCK_UPDATE_MS} while held, taken over when older
 * than {@link LOCK_STALE_MS}. It is held from reading the key's clock file until the answer's headers arrive.
 * Inside this process a {@link KeyedQueue} serves callers first come first served; `holds` tells the clock store
 * that the caller already has the key, so that it reads and writes the file without taking the lock again.
 */
export class KeyLocks {
  private readonly local = new KeyedQueue();
  private readonly held = new Set<string>();
  readonly clockDir: string;

  constructor(
    readonly stateDir: string,
    private readonly onProblem?: (message: string) => void,
  ) {
    this.clockDir = path.join(stateDir, CLOCK_FOLDER);
  }

  /** The clock file of a key, by the 32 hex digits of its digest. */
  fileOf(hex: string): string {
    return path.join(this.clockDir, `iat-${hex}`);
  }

  /** Whether this process holds the key's lock now. */
  holds(hex: string): boolean {
    return this.held.has(hex);
  }

  /** Waits for the key (this process's callers first, then other processes) and takes its lock; resolves to the release. */
  async acquire(hex: string, what: string, maxWaitMs: number, signal?: AbortSignal): Promise<() => Promise<void>> {
    const releaseLocal = await this.local.acquire(hex, signal);
    let releaseFile: () => Promise<void>;
    try {
      ensureStateDir(this.clockDir);
      releaseFile = await acquireCrossProcessLock(this.fileOf(hex), {
        what,
        maxWaitMs,
        signal,
        onCompromised: (message) => this.onProblem?.(message),
      });
    } catch (err) {
      releaseLocal();
      throw err;
    }
    this.held.add(hex);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.held.delete(hex);
      try {
        await releaseFile();
      } catch (err) {
        this.onProblem?.(`Could not release the lock of ${what}: ${reasonOf(err)}.`);
      } finally {
        // The next caller in this process starts once the lock folder is gone, not while it still is.
        releaseLocal();
      }
    };
  }
}
