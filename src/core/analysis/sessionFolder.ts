/**
 * The temporary folder of an analysis session (its DuckDB database file and spill files), named with the process id
 * (`mobility-analysis-<pid>-<random>`), so that the folders a killed process left behind are found and removed when
 * the next session starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The start of a session folder's name in the temporary folder: `mobility-analysis-<pid>-<random>`. */
const SESSION_FOLDER_PREFIX = 'mobility-analysis-';

/** Whether process `pid` still runs (one we may not signal runs too). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the session folders of processes that ended without closing them (a worker killed by the system, a crash). */
async function removeAbandonedFolders(): Promise<void> {
  const entries = await fs.promises.readdir(os.tmpdir()).catch(() => [] as string[]);
  for (const name of entries) {
    const pid = name.startsWith(SESSION_FOLDER_PREFIX)
      ? Number(/^(\d+)-/.exec(name.slice(SESSION_FOLDER_PREFIX.length))?.[1])
      : NaN;
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isRunning(pid)) {
      await fs.promises.rm(path.join(os.tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** What `mobility-api parquet` writes at the top of its folder: nothing else is ever removed as its leftover. */
const PARQUET_TOP = /^(endpoint=.+|_harvest)$/;

/**
 * Removes the temporary Parquet folders (`<out>.tmp-<pid>`) that a `parquet` killed before its rename left in
 * `parent` (kill -9, a crash, a full disk): those of processes that no longer run and that hold only what `parquet`
 * writes, so that a folder of anyone else's named so stays.
 */
export async function removeAbandonedParquet(parent: string): Promise<string[]> {
  const removed: string[] = [];
  const entries = await fs.promises.readdir(parent, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
  for (const entry of entries) {
    const pid = Number(/\.tmp-(\d+)$/.exec(entry.name)?.[1]);
    if (!entry.isDirectory() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    const dir = path.join(parent, entry.name);
    const inside = await fs.promises.readdir(dir).catch(() => ['?']);
    if (!inside.every((name) => PARQUET_TOP.test(name))) continue;
    await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    removed.push(dir);
  }
  return removed;
}

/** A new session folder in the system's temporary folder, after removing those of processes that have ended. */
export async function newSessionFolder(): Promise<string> {
  await removeAbandonedFolders();
  return fs.promises.mkdtemp(path.join(os.tmpdir(), `${SESSION_FOLDER_PREFIX}${process.pid}-`));
}
