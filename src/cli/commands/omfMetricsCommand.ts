import * as l10n from '@vscode/l10n';
import { readHarvestSource } from '../../core/analysis';
import { MobilityError } from '../../core/base';
import {
  DEFAULT_DEPLOYED_STATES,
  METRICS_DIMENSIONS,
  checkTimeZone,
  parseIntervalDuration,
  parseMeasures,
  runOmfMetrics,
  vehicleStates,
} from '../../core/metrics';
import type { MetricsDimension, OmfMetricsOptions, OmfMetricsReport, OutsideGeographies } from '../../core/metrics';
import { GEOGRAPHY_OPTIONS, geographiesFrom } from '../support/geographiesOption';
import { withAnalysisSession } from '../support/sessionSignals';
import type { CliIo } from '../support/cliIo';
import { memoryLimitOption, parse } from '../support/options';
import { formatQueryAnswer } from '../support/output';

/** The options of `metrics --measures`, beside the harvest folder. */
export const OMF_METRICS_OPTIONS = {
  ...GEOGRAPHY_OPTIONS,
  measures: { type: 'string' },
  interval: { type: 'string' },
  timezone: { type: 'string' },
  dimensions: { type: 'string' },
  geographies: { type: 'string' },
  k: { type: 'string' },
  'avg-of': { type: 'string' },
  'deployed-states': { type: 'string' },
  'stale-after-hours': { type: 'string' },
  'min-trip-seconds': { type: 'string' },
  'max-trip-seconds': { type: 'string' },
  json: { type: 'boolean' },
  'memory-limit': { type: 'string' },
  'temp-limit': { type: 'string' },
} as const;

function wholeNumber(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim()))
    throw new MobilityError('USAGE', l10n.t('{0} {1}: give a whole number, 0 or more.', flag, text));
  return Number(text.trim());
}

/** The options of the OMF metrics from the command line, each checked before the harvest is read. */
export function omfMetricsOptions(values: Record<string, string | boolean | string[] | undefined>): OmfMetricsOptions {
  const str = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  if (str('interval') === undefined)
    throw new MobilityError(
      'USAGE',
      l10n.t('metrics --measures needs --interval <ISO 8601 duration>, such as PT15M, PT1H, P1D or P1M.'),
    );
  const interval = parseIntervalDuration(str('interval') ?? '');
  const dimensions = (str('dimensions') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const d of dimensions) {
    if (!(METRICS_DIMENSIONS as readonly string[]).includes(d))
      throw new MobilityError(
        'USAGE',
        l10n.t('--dimensions {0}: the dimensions are {1}.', d, METRICS_DIMENSIONS.join(', ')),
      );
  }
  if (dimensions.includes('geography_id')) {
    if (str('geographies') === undefined)
      throw new MobilityError(
        'USAGE',
        l10n.t(
          '--dimensions geography_id needs --geographies <file>: the MDS Geography document whose geographies the metrics are counted in.',
        ),
      );
  } else if (str('geographies') !== undefined) {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        '--geographies counts the metrics per geography: add geography_id to --dimensions (or leave --geographies out for the whole area).',
      ),
    );
  }
  const states = str('deployed-states')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? [...DEFAULT_DEPLOYED_STATES];
  for (const s of states)
    if (!vehicleStates().includes(s))
      throw new MobilityError(
        'USAGE',
        l10n.t('--deployed-states {0}: the vehicle states are {1}.', s, vehicleStates().join(', ')),
      );
  if (!states.length) throw new MobilityError('USAGE', l10n.t('--deployed-states: name at least one vehicle state.'));
  const tripSeconds = {
    min: wholeNumber(str('min-trip-seconds'), '--min-trip-seconds', 10),
    max: wholeNumber(str('max-trip-seconds'), '--max-trip-seconds', 5 * 3600),
  };
  if (tripSeconds.min > tripSeconds.max)
    throw new MobilityError(
      'USAGE',
      l10n.t('--min-trip-seconds {0} is more than --max-trip-seconds {1}.', tripSeconds.min, tripSeconds.max),
    );
  const stale = wholeNumber(str('stale-after-hours'), '--stale-after-hours', 48);
  if (stale < 1) throw new MobilityError('USAGE', l10n.t('--stale-after-hours: give at least 1 hour.'));
  const avgOf =
    str('avg-of') !== undefined
      ? parseIntervalDuration(str('avg-of') ?? '')
      : parseIntervalDuration(
          interval.unit === 'minutes' || (interval.unit === 'hours' && interval.amount === 1) ? 'PT15M' : 'PT1H',
        );
  return {
    measures: parseMeasures(str('measures') ?? ''),
    interval,
    timeZone: checkTimeZone(str('timezone') ?? 'UTC'),
    dimensions: dimensions as MetricsDimension[],
    k: wholeNumber(str('k'), '--k', 10),
    avgOf,
    deployedStates: states,
    staleAfterMs: stale * 3_600_000,
    tripSeconds,
  };
}

/** The incomplete intervals in words, one line each. */
export function incompleteLines(report: OmfMetricsReport): string[] {
  return report.incomplete.map((g) =>
    l10n.t(
      '{0}: no value for {1}: {2}',
      g.interval_start,
      g.measures.join(', '),
      g.hours.map((h) => `${h.hour} ${h.why}`).join('; '),
    ),
  );
}

/** The items in no geography, which no row counts (OMF counts within a geographic area). */
export function outsideLine(outside: OutsideGeographies): string {
  return l10n.t(
    'mobility-api: outside every geography (in no row): {0} of {1} trip starts, {2} of {3} trip ends, {4} of {5} events.',
    outside.tripStarts,
    outside.trips,
    outside.tripEnds,
    outside.trips,
    outside.events,
    outside.allEvents,
  );
}

/**
 * `mobility-api metrics <harvest> --measures <m,…> --interval <duration> [--timezone <tz>] [--dimensions …] [--k <n>]
 * [--json]`: the OMF metrics; `--json` prints the Metrics Query API's response, the incomplete intervals go to stderr.
 */
export async function omfMetricsCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, OMF_METRICS_OPTIONS, true);
  if (positionals.length !== 1)
    throw new MobilityError(
      'USAGE',
      l10n.t('metrics takes one harvest folder: mobility-api metrics <folder> --measures <m,…> --interval <duration>.'),
    );
  const options = omfMetricsOptions(values);
  const source = await readHarvestSource(positionals[0]);
  const geographies = await geographiesFrom(values, io);
  for (const part of source.parts)
    if (part.inUse)
      io.err(
        l10n.t('mobility-api: a harvest is still writing {0}; the metrics cover the hours it had finished.', part.dir),
      );
  return withAnalysisSession(
    io,
    source,
    { ...memoryLimitOption(values['memory-limit'], values['temp-limit']), ...(geographies ? { geographies } : {}) },
    async (session) => {
      const report = await runOmfMetrics(session, options);
      const notes = incompleteLines(report);
      if (report.outside) io.err(outsideLine(report.outside));
      if (values.json) {
        io.out(JSON.stringify(report.response, null, 2));
        if (notes.length) io.err([l10n.t('Incomplete intervals (null in the rows):'), ...notes].join('\n'));
        return 0;
      }
      const r = report.response;
      const answer = {
        columns: r.columns.map((c) => ({ name: c.name })),
        rows: r.rows.map((row) =>
          Object.fromEntries(r.columns.map((c, i) => [c.name, row[i] === null ? l10n.t('missing') : row[i]])),
        ),
      };
      io.out(
        [
          l10n.t(
            'OMF metrics of {0}, {1} intervals in {2}, k = {3} (counts below k show -1):',
            source.folder,
            r.query.interval,
            r.query.timezone,
            r.query.k_value,
          ),
          formatQueryAnswer(answer),
          ...(notes.length ? ['', l10n.t('Incomplete intervals (missing, not 0):'), ...notes] : []),
        ].join('\n'),
      );
      return 0;
    },
  );
}
