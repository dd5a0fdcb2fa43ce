// A finding's device timeline for the results panel: the rows of core/analysis `timelineSql` (as the analysis worker
// answers them) as the panel's one table model, column by column, with the rows the finding names marked, and a line
// that says what the timeline holds and where its bounds cut it. No vscode.
import * as l10n from '@vscode/l10n';
import { TIMELINE_BOUNDS } from '../../core/analysis';
import type { AnalysisFindingRef, AnalysisFindingView, AnalysisTimelineView } from '../../shared/analysisViews';
import type { CategoryColumn, DataTableView, NumberColumn, TextColumn, TimeColumn } from '../../shared/dataTable';
import { formatTime } from '../../shared/dataTable';
import { formatCount, plural } from '../../shared/format';
import { localDecimal } from '../../shared/l10n';

type Row = Record<string, unknown>;

const numberOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : NaN);
const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A category column of `values`, code 0 the empty value. */
function category(id: string, label: string, values: readonly string[], states = false): CategoryColumn {
  const names = [''];
  const index = new Map<string, number>([['', 0]]);
  const codes = new Uint16Array(values.length);
  values.forEach((value, row) => {
    let code = index.get(value);
    if (code === undefined) {
      code = names.length;
      names.push(value);
      index.set(value, code);
    }
    codes[row] = code;
  });
  return { id, label, type: 'category', codes, names, ...(states ? { states: true } : {}) };
}

function detailOf(row: Row): string {
  if (row.kind === 'trip') {
    const duration = numberOf(row.duration);
    const distance = numberOf(row.distance);
    return l10n.t(
      '{0} s, {1} m',
      Number.isNaN(duration) ? '–' : formatCount(duration),
      Number.isNaN(distance) ? '–' : formatCount(distance),
    );
  }
  const speed = numberOf(row.speed);
  return Number.isNaN(speed) ? '' : l10n.t('{0} m/s', localDecimal(speed, 1));
}

/** The timeline of `finding` from the worker's rows (columns of `TIMELINE_COLUMNS`). */
export function analysisTimelineView(
  args: AnalysisFindingRef & { resultId: string; finding: AnalysisFindingView; rows: readonly Row[] },
): AnalysisTimelineView {
  const { rows, finding } = args;
  const n = rows.length;
  const kindName: Record<string, string> = {
    trip: l10n.t('trip'),
    event: l10n.t('event'),
    telemetry: l10n.t('telemetry point'),
  };
  const times = new Float64Array(n);
  const ends = new Float64Array(n);
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  const battery = new Float64Array(n);
  const marked = new Uint8Array(n);
  const kinds = new Uint8Array(n);
  const lanes: Record<string, number> = { trip: 0, event: 1, telemetry: 2 };
  rows.forEach((row, i) => {
    kinds[i] = lanes[textOf(row.kind)] ?? 1;
    times[i] = numberOf(row.time);
    ends[i] = numberOf(row.end_time);
    lat[i] = numberOf(row.lat);
    lng[i] = numberOf(row.lng);
    battery[i] = numberOf(row.battery_percent);
    marked[i] = row.marked === true ? 1 : 0;
  });
  const text = (id: string, label: string, values: string[]): TextColumn => ({ id, label, type: 'text', values });
  const time = (id: string, label: string, values: Float64Array): TimeColumn => ({ id, label, type: 'time', values });
  const batteryColumn: NumberColumn = {
    id: 'battery_percent',
    label: l10n.t('Battery'),
    type: 'number',
    values: battery,
    unit: ' %',
  };
  const table: DataTableView = {
    resource: 'timeline',
    noun: ['row', 'rows'],
    count: n,
    groupBy: 'kind',
    columns: [
      time('time', l10n.t('Time (UTC)'), times),
      category(
        'finding',
        l10n.t('Finding'),
        rows.map((_, i) => (marked[i] ? l10n.t('named by the finding') : '')),
      ),
      category(
        'kind',
        l10n.t('Kind'),
        rows.map((row) => kindName[textOf(row.kind)] ?? textOf(row.kind)),
      ),
      category(
        'vehicle_state',
        l10n.t('Vehicle state'),
        rows.map((row) => textOf(row.vehicle_state)),
        true,
      ),
      text(
        'event_types',
        l10n.t('Event types'),
        rows.map((row) => textOf(row.event_types)),
      ),
      time('end_time', l10n.t('Until'), ends),
      text(
        'trip_id',
        l10n.t('Trip'),
        rows.map((row) => textOf(row.trip_ids)),
      ),
      { id: 'position', label: l10n.t('Position'), type: 'position', lat, lng },
      batteryColumn,
      text('detail', l10n.t('Detail'), rows.map(detailOf)),
      text(
        'id',
        l10n.t('Id'),
        rows.map((row) => textOf(row.id)),
      ),
    ],
  };
  const count = (kind: string) => rows.filter((row) => row.kind === kind).length;
  const total = n ? numberOf(rows[0].total) : 0;
  const valid = [...times, ...ends].filter((t) => Number.isFinite(t) && Math.abs(t) < 8.64e15);
  const from = valid.length ? formatTime(Math.min(...valid)) : '–';
  const to = valid.length ? formatTime(Math.max(...valid)) : '–';
  const parts = [
    plural(count('trip'), 'trip'),
    plural(count('event'), 'event'),
    plural(count('telemetry'), 'telemetry point', 'telemetry points'),
  ].join(', ');
  const device = finding.device_id ?? '';
  let line = n
    ? l10n.t(
        'Device {0}: {1} from {2} to {3}; {4} named by the finding.',
        device,
        parts,
        from,
        to,
        formatCount(marked.reduce((a, b) => a + b, 0)),
      )
    : l10n.t('Device {0} has no trip, event or telemetry in the harvest near this finding.', device);
  if (total > n)
    line = `${line} ${l10n.t("Only the {0} rows nearest the finding's time are shown, of {1} within {2} hours of it.", formatCount(n), formatCount(total), TIMELINE_BOUNDS.spanMs / 3_600_000)}`;
  return { resultId: args.resultId, rule: args.rule, index: args.index, finding, line, table, marked, kinds };
}

/** The timeline message of a finding whose timeline could not be read. */
export function analysisTimelineError(
  args: AnalysisFindingRef & { resultId: string; finding: AnalysisFindingView; error: string },
): AnalysisTimelineView {
  return {
    resultId: args.resultId,
    rule: args.rule,
    index: args.index,
    finding: args.finding,
    line: l10n.t('The timeline of device {0} could not be read: {1}', args.finding.device_id ?? '', args.error),
    error: args.error,
  };
}
