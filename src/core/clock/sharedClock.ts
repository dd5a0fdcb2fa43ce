import os from 'node:os';
import path from 'node:path';
import { defaultStateDir, FileClockStore } from './fileClockStore';
import { KeyLocks } from './keyLock';
import { SharedKeyQueue } from './sharedKeyQueue';

/**
 * The per-key issue clock and request queue that every signer of a key shares: the mark of each key in
 * `<stateDir>/clock/iat-<hash>`, under the one lock `<stateDir>/clock/iat-<hash>.lock` that the store and the
 * queue share (the protocol of docs/copy-as-code.md, which Copy as Code's programs follow too). Every window,
 * CLI run, script and program that signs with one key must use the same state folder.
 */
export interface SharedClock {
  stateDir: string;
  store: FileClockStore;
  queue: SharedKeyQueue;
}

/** Opens the shared clock of a state folder (nothing is touched on disk until the first token). */
export function openSharedClock(
  stateDir: string,
  options: { onProblem?: (message: string) => void } = {},
): SharedClock {
  const locks = new KeyLocks(stateDir, options.onProblem);
  return {
    stateDir,
    store: new FileClockStore(stateDir, { ...options, locks }),
    queue: new SharedKeyQueue(stateDir, { ...options, locks }),
  };
}

/**
 * The state folder a CLI run uses: `--state-dir <dir>` (relative to the working folder, `~` for the
 * home folder), else the state folder rule (`defaultStateDir`: the same in every signer).
 */
export function stateDirOption(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = given?.trim() ? given.trim() : defaultStateDir(env);
  return path.resolve(expandHome(dir));
}

/** `~` or `~/…` as the home folder. */
export function expandHome(dir: string): string {
  return dir === '~' || dir.startsWith('~/') || dir.startsWith('~\\') ? path.join(os.homedir(), dir.slice(1)) : dir;
}
