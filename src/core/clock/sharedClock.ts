import os from 'node:os';
import path from 'node:path';
import { defaultStateDir, FileClockStore } from './fileClockStore';
import { SharedKeyQueue } from './sharedKeyQueue';

/**
 * The per-key issue clock and request queue that every process signing with a key shares: the
 * marks in `<stateDir>/issue-clock.json`, the per-key request locks in `<stateDir>/locks/`. Every
 * window, CLI run and script that signs with one key must use the same state folder.
 */
export interface SharedClock {
  stateDir: string;
  store: FileClockStore;
  queue: SharedKeyQueue;
}

/** Opens the shared clock of a state folder (nothing is touched on disk until the first token). */
export function openSharedClock(stateDir: string, options: { onProblem?: (message: string) => void } = {}): SharedClock {
  return { stateDir, store: new FileClockStore(stateDir, options), queue: new SharedKeyQueue(stateDir, options) };
}

/**
 * The state folder a CLI run uses: `--state-dir <dir>` (relative to the working folder, `~` for the
 * home folder), else `$MOBILITY_API_STATE_DIR`, else the platform's user state folder.
 */
export function stateDirOption(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = given?.trim() ? given.trim() : defaultStateDir(env);
  return path.resolve(expandHome(dir));
}

/** `~` or `~/…` as the home folder. */
export function expandHome(dir: string): string {
  return dir === '~' || dir.startsWith('~/') || dir.startsWith('~\\') ? path.join(os.homedir(), dir.slice(1)) : dir;
}
