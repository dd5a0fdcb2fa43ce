/**
 * How the harvest writes, so that a crash (Ctrl-C, `kill -9`, a full disk) at any moment leaves a
 * folder whose manifest tells the truth: every file is written under a temporary name, flushed to
 * disk, then renamed into place; a reader never sees half of one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';

/**
 * Writes `data` to an open file. Every byte the harvest writes goes through it, so a test (or an
 * embedding that wants to) can make writing fail as a full or read-only disk does.
 */
export type HarvestWrite = (handle: FileHandle, data: Uint8Array) => Promise<unknown>;

/** The default: `handle.write`, looping until every byte is written. */
export const writeAll: HarvestWrite = async (handle, data) => {
  let offset = 0;
  while (offset < data.byteLength) {
    const { bytesWritten } = await handle.write(data, offset, data.byteLength - offset);
    offset += bytesWritten;
  }
};

/** Temporary files end with this; a run removes the ones a crashed run left behind. */
export const TEMP_SUFFIX = '.tmp';

/** `.<name>.<pid>-<random>.tmp` beside `target`: hidden, and never taken for a finished file. */
export function tempPathFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`,
  );
}

/** What the harvest was doing when the file system failed. */
export type WriteAction =
  'write' | 'read' | 'create the folder' | 'read the folder' | 'create the lock' | 'remove the unfinished file';

/** `Cannot <doing> <where>` in the display language. */
function cannot(doing: WriteAction, where: string): string {
  switch (doing) {
    case 'write':
      return l10n.t('Cannot write {0}', where);
    case 'read':
      return l10n.t('Cannot read {0}', where);
    case 'create the folder':
      return l10n.t('Cannot create the folder {0}', where);
    case 'read the folder':
      return l10n.t('Cannot read the folder {0}', where);
    case 'create the lock':
      return l10n.t('Cannot create the lock {0}', where);
    case 'remove the unfinished file':
      return l10n.t('Cannot remove the unfinished file {0}', where);
  }
}

/** Why a file-system call failed, and what to do about it, by its error code; `folder` is the one that could not be written. */
function reasonOf(err: unknown, folder: string): string {
  switch ((err as NodeJS.ErrnoException)?.code ?? '') {
    case 'ENOSPC':
      return l10n.t('the disk is full (ENOSPC). Free some space, or harvest into a folder on another disk');
    case 'EDQUOT':
      return l10n.t('the disk quota is used up (EDQUOT). Free some space, or harvest into a folder on another disk');
    case 'EROFS':
      return l10n.t(
        'the folder {0} is not writable: its file system is read-only (EROFS). Choose an --out folder on a writable disk',
        folder,
      );
    case 'EACCES':
      return l10n.t(
        'the folder {0} is not writable: permission denied (EACCES). Choose an --out folder you may write to, or fix its permissions',
        folder,
      );
    case 'EPERM':
      return l10n.t(
        'the folder {0} is not writable: the operation is not permitted (EPERM). Choose an --out folder you may write to, or fix its permissions',
        folder,
      );
    case 'ENOTDIR':
      return l10n.t('a part of that path is a file, not a folder (ENOTDIR). Choose another --out folder');
    case 'EISDIR':
      return l10n.t('a folder stands where a file should be (EISDIR). Remove it, or choose another --out folder');
    case 'EEXIST':
      return l10n.t('a file stands where a folder should be (EEXIST). Choose another --out folder');
    case 'ENOENT':
      // The folder is there, yet creating anything in it says "no such file": a folder of the system's own
      // (/proc, /sys, /dev/fd), whose entries the kernel makes; nothing can be written there.
      if (isFolder(folder))
        return l10n.t(
          'the folder {0} exists but nothing can be created in it (ENOENT): it is a special folder of the system (such as /proc, /sys or /dev/fd), not one on a disk. Choose an --out folder on a disk, such as one in your home folder',
          folder,
        );
      return l10n.t(
        'the folder {0} does not exist, or was removed while harvesting (ENOENT). Choose an --out folder that stays in place',
        folder,
      );
    default:
      return l10n.t('{0}. Check the --out folder', (err as Error)?.message ?? String(err));
  }
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A MobilityError for a file-system failure at `where`, saying what to do about it. `folder` is the
 * folder a refused write names: by default the one holding `where` (the folder itself when creating it).
 */
export function writeFailed(err: unknown, where: string, doing: WriteAction, folder?: string): MobilityError {
  if (err instanceof MobilityError) return err;
  const inFolder =
    folder ?? (doing === 'create the folder' || doing === 'read the folder' ? where : path.dirname(where));
  return new MobilityError(
    'HARVEST_WRITE_FAILED',
    l10n.t(
      '{0}: {1}. Hours already recorded in the manifest are kept; run the same command again to resume.',
      cannot(doing, where),
      reasonOf(err, inFolder),
    ),
    { cause: err },
  );
}

/** Flushes a folder's entry list, so that a rename survives a power cut (not possible on every platform). */
export async function syncFolder(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open a folder for syncing; the rename itself is still atomic there.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Creates `dir` and its parents, or HARVEST_WRITE_FAILED naming it (and the folder that cannot be written). */
export async function ensureFolder(dir: string): Promise<void> {
  try {
    await fs.promises.mkdir(dir, { recursive: true });
    const stat = await fs.promises.stat(dir);
    if (!stat.isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (err) {
    const cause = (err as NodeJS.ErrnoException)?.code === 'ENOENT' ? await whyNoFolder(dir) : undefined;
    throw cause
      ? writeFailed(cause.err, dir, 'create the folder', cause.folder)
      : writeFailed(err, dir, 'create the folder');
  }
}

/**
 * Node's recursive mkdir says ENOENT when a folder on the way cannot be created on a read-only file
 * system. Creating the first missing folder alone tells the real reason (EROFS, EACCES…) and which
 * existing folder refused it; undefined when that does not fail (the caller keeps the first error).
 */
async function whyNoFolder(dir: string): Promise<{ err: unknown; folder: string } | undefined> {
  let child = path.resolve(dir);
  let parent = path.dirname(child);
  while (
    parent !== child &&
    !(await fs.promises.stat(parent).then(
      () => true,
      () => false,
    ))
  ) {
    child = parent;
    parent = path.dirname(child);
  }
  if (parent === child) return undefined;
  try {
    await fs.promises.mkdir(child);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code !== 'EEXIST') return { err, folder: parent };
  }
  return undefined;
}

/**
 * Writes `text` to `target` all or nothing: temp file, write, fsync, rename, folder fsync.
 * `beforeRename` runs while the temporary file is written and flushed, and must finish before the
 * rename (the caller's own flush that the new file's content depends on).
 */
export async function writeFileAtomically(
  target: string,
  text: string,
  write: HarvestWrite,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const temp = tempPathFor(target);
  let handle: FileHandle | undefined;
  // Settled as a value, so that its failure is not unhandled while the file is still being written.
  const alongside = beforeRename?.().then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  try {
    handle = await fs.promises.open(temp, 'wx');
    await write(handle, Buffer.from(text, 'utf8'));
    await handle.sync();
    await handle.close();
    handle = undefined;
    const failed = await alongside;
    if (failed) throw failed.err;
    await fs.promises.rename(temp, target);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true }).catch(() => undefined);
    throw writeFailed(err, target, 'write');
  }
  await syncFolder(path.dirname(target));
}

/**
 * The file of one hour, streamed: items are appended page by page to a temporary file, which
 * `commit` flushes and renames into place. Until then the hour's final name holds nothing new;
 * `discard` removes the temporary file.
 *
 * Writing runs behind the caller: `append` hands a page to the disk and returns, so that the next
 * request does not wait for it; it waits only while the previous page is still being written (memory
 * holds two pages at most). A failed write is thrown by the next `append` or by `commit`.
 */
export class HourFileWriter {
  private handle: FileHandle | undefined;
  private readonly temp: string;
  /** The page being written; settles (never rejects) when it is on the file. */
  private writing: Promise<void> = Promise.resolve();
  private failed: { err: unknown } | undefined;
  /** Bytes handed to the file so far. */
  bytes = 0;
  /** Items handed to the file so far. */
  items = 0;

  constructor(
    readonly target: string,
    private readonly write: HarvestWrite,
  ) {
    this.temp = tempPathFor(target);
  }

  /** Appends items as NDJSON: one `JSON.stringify` per line (it never contains a raw newline). */
  async append(items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    const text = items.map((item) => `${JSON.stringify(item)}\n`).join('');
    const data = Buffer.from(text, 'utf8');
    await this.settled();
    this.writing = (async () => {
      this.handle ??= await fs.promises.open(this.temp, 'wx');
      await this.write(this.handle, data);
    })().catch((err: unknown) => {
      this.failed = { err };
    });
    this.bytes += data.byteLength;
    this.items += items.length;
  }

  /**
   * Waits for the last page, flushes the file to disk and gives it its final name (an hour without
   * items gets an empty file). The folder's entry is flushed by the caller before the manifest
   * records the hour (once for several hours: a folder sync per hour would double the cost of a fast
   * provider's hour).
   */
  async commit(): Promise<void> {
    try {
      await this.settled();
      this.handle ??= await fs.promises.open(this.temp, 'wx');
      await this.handle.sync();
      await this.handle.close();
      this.handle = undefined;
      await fs.promises.rename(this.temp, this.target);
    } catch (err) {
      await this.discard();
      throw writeFailed(err, this.target, 'write');
    }
  }

  /** Drops what was written (a failed or interrupted hour), once the page being written is done. Never throws. */
  async discard(): Promise<void> {
    await this.writing;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    this.bytes = 0;
    this.items = 0;
    await fs.promises.rm(this.temp, { force: true }).catch(() => undefined);
  }

  /** Waits for the page being written; throws its failure. */
  private async settled(): Promise<void> {
    await this.writing;
    if (this.failed) throw writeFailed(this.failed.err, this.temp, 'write');
  }
}
