import fs from 'node:fs';
import { AnalysisSession, formatOf, readHarvestSource } from '../../core/analysis';
import type { QueryAnswer } from '../../core/analysis';
import { MobilityError } from '../../core/base';
import type { CliIo } from '../support/cliIo';
import { memoryLimitOption, parse } from '../support/options';
import { formatQueryAnswer } from '../support/output';
import { printUsage } from '../support/usage';
import { withAnalysisSession } from '../support/sessionSignals';
import { GEOGRAPHY_OPTIONS, geographiesFrom } from '../support/geographiesOption';

/**
 * `mobility-api sql <folder> "<query>" [--json | --csv] [--out <file.csv|.json|.parquet>] [--timeout <s>] [--geographies <file|URL>]`:
 * one read-only query over the views trips, events, telemetry, vehicles and vehicles_status of a harvest folder, and
 * the geography tables (geographies, trips_geographies, events_geographies, telemetry_geographies; filled with --geographies). Exit 0 when it ran, 2 for bad
 * input (not a harvest, a query that writes, a query error with DuckDB's line and column).
 */
export async function sqlCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      json: { type: 'boolean' },
      csv: { type: 'boolean' },
      out: { type: 'string' },
      'memory-limit': { type: 'string' },
      'temp-limit': { type: 'string' },
      timeout: { type: 'string' },
      ...GEOGRAPHY_OPTIONS,
    },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length !== 2)
    throw new MobilityError(
      'USAGE',
      'sql takes a harvest folder and one query: mobility-api sql <folder> "SELECT count(*) FROM trips".',
    );
  if (values.json && values.csv) throw new MobilityError('USAGE', 'Give --json or --csv, not both.');
  const [folder, query] = positionals;
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0))
    throw new MobilityError(
      'USAGE',
      `--timeout ${values.timeout}: give the most seconds the query may run, such as 30.`,
    );
  if (values.out !== undefined) formatOf(values.out);
  const source = await readHarvestSource(folder);
  for (const part of source.parts)
    if (part.inUse)
      io.err(`mobility-api: a harvest is still writing ${part.dir}; the answer covers the hours it had finished.`);
  const geographies = await geographiesFrom(values, io);
  const options = {
    writable: values.out !== undefined ? [values.out] : [],
    ...memoryLimitOption(values['memory-limit'], values['temp-limit']),
    ...(geographies ? { geographies } : {}),
  };
  return withAnalysisSession(io, source, options, (session) => answer(session, query, values, io, timeout));
}

/** Runs the query of `sql` and prints or saves its answer. */
async function answer(
  session: AnalysisSession,
  query: string,
  values: { out?: string; json?: boolean; csv?: boolean },
  io: CliIo,
  timeout: number | undefined,
): Promise<number> {
  if (values.out !== undefined) {
    if (fs.existsSync(values.out) && fs.statSync(values.out).isDirectory())
      throw new MobilityError(
        'USAGE',
        `--out ${values.out} is a folder; name a file ending in .csv, .json or .parquet.`,
      );
    await session.exportQuery(query, values.out, timeout);
    io.err(`Wrote ${values.out}.`);
    return 0;
  }
  const result = await session.query(query, timeout);
  io.out(values.json ? JSON.stringify(result.rows, null, 2) : values.csv ? csvOf(result) : formatQueryAnswer(result));
  return 0;
}

/** RFC 4180 CSV: fields with a comma, quote or line break are quoted; nested values as JSON. */
function csvOf(answer: QueryAnswer): string {
  const field = (value: unknown): string => {
    const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [
    answer.columns.map((c) => field(c.name)).join(','),
    ...answer.rows.map((row) => answer.columns.map((c) => field(row[c.name])).join(',')),
  ].join('\n');
}
