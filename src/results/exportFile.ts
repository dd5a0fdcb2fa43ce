// Writes an export: chunks streamed to a temporary file beside the target, renamed onto it only when every
// chunk is written. A cancelled or failed export removes the temporary file, so no partial file is left.
import * as l10n from '@vscode/l10n';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { errorMessage } from '../core/base';

/** How an export ended. */
export type ExportOutcome = { ok: true; bytes: number } | { ok: false; cancelled: true } | { ok: false; cancelled: false; message: string };

/**
 * Streams `chunks` into `target`. `isCancelled` is asked between chunks; `onChunk` hears each chunk's size
 * (for progress). Waits for the stream to drain, so memory stays at a chunk or two whatever the size.
 */
export async function writeChunksAtomically(target: string, chunks: Iterable<string>, options: { isCancelled?: () => boolean; onChunk?: (bytes: number) => void } = {}): Promise<ExportOutcome> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(4).toString('hex')}.part`);
  const stream = fs.createWriteStream(temp, { flags: 'wx', encoding: 'utf8' });
  let bytes = 0;
  let failure: Error | undefined;
  stream.on('error', (err) => (failure ??= err));
  const discard = async () => {
    stream.destroy();
    await fs.promises.rm(temp, { force: true });
  };
  try {
    await once(stream, 'open');
    for (const chunk of chunks) {
      if (failure) break;
      if (options.isCancelled?.()) {
        await discard();
        return { ok: false, cancelled: true };
      }
      const size = Buffer.byteLength(chunk);
      bytes += size;
      if (!stream.write(chunk)) await once(stream, 'drain');
      options.onChunk?.(size);
    }
    if (options.isCancelled?.()) {
      await discard();
      return { ok: false, cancelled: true };
    }
    stream.end();
    if (!failure) await once(stream, 'finish');
    if (failure) throw failure;
    await fs.promises.rename(temp, target);
    return { ok: true, bytes };
  } catch (err) {
    await discard();
    const message = errorMessage(err);
    return { ok: false, cancelled: false, message: l10n.t('Could not write {0}: {1}. Choose a folder you can write to.', target, message) };
  }
}
