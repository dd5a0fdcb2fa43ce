import { METRICS_GROUPS, readHarvestSource, runMetrics } from '../../core/analysis';
import type { MetricsGroup } from '../../core/analysis';
import { MobilityError } from '../../core/base';
import type { CliIo } from '../support/cliIo';
import { memoryLimitOption, parse } from '../support/options';
import { formatQueryAnswer } from '../support/output';
import { printUsage } from '../support/usage';
import { withAnalysisSession } from '../support/sessionSignals';
import { omfMetricsCommand } from './omfMetricsCommand';

/**
 * `mobility-api metrics <folder> [--json] [--by vehicle_type|propulsion_type|provider_id]`: per hour, the vehicles in
 * the public right-of-way (from the events), trips started and ended, trip duration and distance (median, p90) and
 * telemetry points; per day, trips per vehicle. Exit 0, or 2 for bad input.
 */
export async function metricsCommand(args: string[], io: CliIo): Promise<number> {
  if (args.some((a) => a === '--measures' || a.startsWith('--measures='))) return omfMetricsCommand(args, io);
  const { values, positionals } = parse(
    args,
    {
      json: { type: 'boolean' },
      by: { type: 'string' },
      'memory-limit': { type: 'string' },
      'temp-limit': { type: 'string' },
    },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length !== 1)
    throw new MobilityError(
      'USAGE',
      'metrics takes one harvest folder: mobility-api metrics <folder> [--by vehicle_type|propulsion_type|provider_id] [--json].',
    );
  if (values.by !== undefined && !(METRICS_GROUPS as readonly string[]).includes(values.by)) {
    throw new MobilityError('USAGE', `--by ${values.by}: group by one of ${METRICS_GROUPS.join(', ')}.`);
  }
  const source = await readHarvestSource(positionals[0]);
  for (const part of source.parts)
    if (part.inUse)
      io.err(`mobility-api: a harvest is still writing ${part.dir}; the metrics cover the hours it had finished.`);
  return withAnalysisSession(
    io,
    source,
    memoryLimitOption(values['memory-limit'], values['temp-limit']),
    async (session) => {
      const { answers, ...report } = await runMetrics(session, values.by as MetricsGroup | undefined);
      if (values.json) {
        io.out(JSON.stringify(report, null, 2));
        return 0;
      }
      io.out(
        [
          `Metrics of ${report.folder}, ${report.window.start} to ${report.window.end}${report.by ? ` by ${report.by}` : ''}`,
          '',
          "Per hour (vehicles in the PROW at the hour's end, from the events; durations in s, distances in m, of the trips ended):",
          formatQueryAnswer(answers.hours),
          '',
          'Per day (vehicles: in the PROW at the end of at least one hour of the day):',
          formatQueryAnswer(answers.days),
        ].join('\n'),
      );
      return 0;
    },
  );
}
