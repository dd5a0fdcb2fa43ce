import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_PARQUET_PARTITION,
  readHarvestSource,
  removeAbandonedParquet,
  temporaryPathOf,
} from '../../core/analysis';
import { MobilityError, errorMessage } from '../../core/base';
import type { CliIo } from '../support/cliIo';
import { memoryLimitOption, parse } from '../support/options';
import { printUsage } from '../support/usage';
import { withAnalysisSession } from '../support/sessionSignals';

/**
 * `mobility-api parquet <folder> [--out <dir>] [--partition day|hour]`: the harvest as Parquet (zstd), in Hive-style
 * partitions `endpoint=trips/date=2026-11-20/…` with `hour` a column (by hour: `endpoint=trips/date=2026-11-20/hour=07/…`),
 * written into a temporary folder beside `--out` (`<out>.tmp-<pid>`) and renamed into place when every endpoint is
 * written, so that a reader never sees half of it; such folders that a killed `parquet` left are removed by the next.
 * Default --out: `<folder>/parquet`. The /vehicles snapshot goes to `endpoint=vehicles/` and `endpoint=vehicles_status/`;
 * the manifests and the snapshot's description to `_harvest/`, so that check, sql and metrics read the Parquet folder
 * as they read the harvest.
 */
export async function parquetCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      out: { type: 'string' },
      json: { type: 'boolean' },
      partition: { type: 'string' },
      'memory-limit': { type: 'string' },
      'temp-limit': { type: 'string' },
    },
    true,
  );
  if (values.help) return printUsage(io);
  const partition = values.partition ?? DEFAULT_PARQUET_PARTITION;
  if (partition !== 'hour' && partition !== 'day')
    throw new MobilityError(
      'USAGE',
      `--partition ${partition}: give day (date=…/ folders, hour a column, the default) or hour (date=…/hour=…/ folders).`,
    );
  if (positionals.length !== 1)
    throw new MobilityError('USAGE', 'parquet takes one harvest folder: mobility-api parquet <folder> [--out <dir>].');
  const source = await readHarvestSource(positionals[0]);
  if (source.parquet)
    throw new MobilityError(
      'USAGE',
      `${source.folder} is the Parquet of a harvest already. Name the harvest folder it was written from (the one with manifest.json), or run check, sql and metrics on this one.`,
    );
  const out = path.resolve(values.out ?? path.join(source.folder, 'parquet'));
  const parent = path.dirname(out);
  for (const left of await removeAbandonedParquet(parent))
    io.err(`mobility-api: removed ${left}, left by a parquet that did not end.`);
  if (fs.existsSync(out))
    throw new MobilityError('USAGE', `--out ${out} exists already. Name a new folder, or remove that one first.`);
  try {
    fs.accessSync(parent, fs.constants.W_OK);
    if (!fs.statSync(parent).isDirectory())
      throw Object.assign(new Error('it is a file, not a folder'), { code: 'ENOTDIR' });
  } catch (err) {
    throw new MobilityError(
      'ANALYSIS_WRITE_FAILED',
      `Cannot write into ${parent} (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}). Choose an --out folder whose parent exists and is writable.`,
    );
  }
  for (const part of source.parts)
    if (part.inUse)
      io.err(`mobility-api: a harvest is still writing ${part.dir}; the Parquet files hold the hours it had finished.`);
  const temp = temporaryPathOf(out);
  return withAnalysisSession(
    io,
    source,
    { writable: [out], ...memoryLimitOption(values['memory-limit'], values['temp-limit']) },
    async (session) => {
      try {
        fs.mkdirSync(temp);
        const written = await session.writeParquet(temp, partition);
        fs.renameSync(temp, out);
        if (values.json) io.out(JSON.stringify({ out, endpoints: written }, null, 2));
        else
          io.out(
            [
              `Wrote ${out} (Parquet, zstd, partitioned by endpoint, ${partition === 'day' ? 'date (hour a column)' : 'date and hour'}):`,
              ...written.map((w) => `  ${w.view}: ${w.rows} items`),
            ].join('\n'),
          );
        return 0;
      } catch (err) {
        fs.rmSync(temp, { recursive: true, force: true });
        throw err;
      }
    },
  );
}
