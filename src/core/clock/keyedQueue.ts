import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';

/**
 * Serialises requests per key id: `acquire` resolves once the key is free and returns the release.
 * The default (`KeyedQueue`) orders requests inside one process; a cross-process implementation
 * can order them across every process that signs with the same key.
 */
export interface KeyRequestQueue {
  acquire(keyId: string, signal?: AbortSignal): Promise<() => void>;
}

/**
 * One holder at a time per key, first come first served. Used so that requests signed with one key
 * reach the server in the order of their `iat` (spec 5.1 rule 6): the next token for a key is
 * signed only once the previous request on that key has its response headers or has failed.
 */
export class KeyedQueue implements KeyRequestQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Waits for the key to be free and returns its release function. An aborted `signal` while
   * waiting rejects with CANCELLED and leaves the queue as if the caller had never come.
   */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal);
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // The chain continues once the previous holder is done AND we released (or gave up).
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    try {
      await waitOrAbort(previous, signal);
    } catch (err) {
      release();
      throw err;
    }
    let released = false;
    return () => {
      if (!released) {
        released = true;
        release();
      }
    };
  }

  /** Number of keys with a holder or waiters (for tests and diagnostics). */
  get busyKeys(): number {
    return this.tails.size;
  }
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new MobilityError('CANCELLED', l10n.t('The request was cancelled before it was sent.'));
}

function waitOrAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () =>
      reject(
        new MobilityError(
          'CANCELLED',
          l10n.t(
            'The request was cancelled while it waited for the previous request on the same key; nothing was sent.',
          ),
        ),
      );
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) onAbort();
        else resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
