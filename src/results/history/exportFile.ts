// Writes an export: chunks streamed to a temporary file beside the target, renamed onto it only when every
// chunk is written. A cancelled or failed export removes the temporary file, so no partial file is left.
import * as l10n from '@vscode/l10n';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { errorMessage } from '../../core/base';

/** How an export ended. */
export type ExportOutcome =
  { ok: true; bytes: number } | { ok: false; cancelled: true } | { ok: false; cancelled: false; message: string };

/**
 * Streams `chunks` into `target`. `isCancelled` is asked between chunks; `onChunk` hears each chunk's size
 * (for progress). Waits for the stream to drain, so memory stays at a chunk or two whatever the size.
 */
export async function writeChunksAtomically(
  target: string,
  chunks: Iterable<string | Uint8Array>,
  options: { isCancelled?: () => boolean; onChunk?: (bytes: number) => void } = {},
): Promise<ExportOutcome> {
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
    return {
      ok: false,
      cancelled: false,
      message: l10n.t('Could not write {0}: {1}. Choose a folder you can write to.', target, message),
    };
  }
}

/** A UTC hour `YYYY-MM-DDTHH`, as MDS hour parameters take it. */
const HOUR_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}$/;

/** `2026-11-24T13-05`: a time in a file name (no ":"), UTC. */
function fileTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace(':', '-');
}

/**
 * The window of data a request asks for, for a file name: the hour of `end_time`, `event_time` or
 * `telemetry_time` (`2026-11-24T13`), a `start_time`…`end_time` range in ms
 * (`2026-11-24T13-00_2026-11-24T14-00`), else undefined (a snapshot such as vehicles).
 */
export function dataWindowOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(url, 'http://x.invalid').searchParams;
  } catch {
    return undefined;
  }
  for (const name of ['end_time', 'event_time', 'telemetry_time']) {
    const value = params.get(name);
    if (value && HOUR_TEXT.test(value)) return value;
  }
  const start = Number(params.get('start_time'));
  const end = Number(params.get('end_time'));
  if (params.has('start_time') && params.has('end_time') && Number.isFinite(start) && Number.isFinite(end))
    return `${fileTime(start)}_${fileTime(end)}`;
  return undefined;
}

/**
 * An export's default file name from what the data is, not from when it is saved: the endpoint and its
 * window (`trips_2026-11-24T13.csv`); a snapshot without a window gets the time it was fetched
 * (`vehicles_2026-11-24T13-05.csv`, UTC). Only letters, digits, `-`, `_` and `.`.
 */
export function exportFileName(
  args: { resource: string; window?: string; url?: string; fetchedAt: number },
  ext: string,
): string {
  const window = args.window ?? dataWindowOf(args.url) ?? fileTime(args.fetchedAt);
  const safe = (text: string) => text.replace(/[^A-Za-z0-9_.-]+/g, '-');
  return `${safe(args.resource)}_${safe(window)}.${ext}`;
}
