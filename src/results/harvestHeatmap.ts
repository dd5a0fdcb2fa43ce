// The coverage heatmap of a harvest (Fetch Hours… in the extension, the same folder as `mobility-api
// harvest`): days as rows, the 24 UTC hours as columns, each cell an hour's outcome in the manifest, with
// the text, the hover detail and the accessible name the panel shows. Plain data, no VS Code.
import type { HourRecord } from '../core/harvest/harvestManifest';
import type { MdsHourEndpointId } from '../core/mdsEndpoints';
import { HOUR_MS, formatUtcHour, parseUtcHour } from '../core/utcHour';
import { formatBytes, formatCount, plural } from '../shared/format';
import type { HarvestHeatmapView, HeatmapCellState, HeatmapCellView, HeatmapDayView } from '../shared/protocol';

/** The nouns of each hour endpoint's items. */
export const HARVEST_NOUNS: Record<MdsHourEndpointId, [string, string]> = {
  trips: ['trip', 'trips'],
  events_historical: ['event', 'events'],
  telemetry: ['telemetry point', 'telemetry points'],
};

/** The legend's wording of every state a cell can have in the range, in the legend's order. */
export const HEATMAP_STATE_LABELS: Record<Exclude<HeatmapCellState, 'outside'>, string> = {
  items: 'With items',
  empty: '200 but empty',
  not_found: '404 not found',
  pending: '202 still pending',
  failed: 'Failed',
  fetching: 'Fetching now',
  not_fetched: 'Not yet fetched',
};

/** What a harvest's heatmap is built from: the manifest's hours (or the records seen so far) and the range asked for. */
export interface HeatmapInput {
  endpoint: MdsHourEndpointId;
  /** First and last hour of the range, `YYYY-MM-DDTHH`, both included. */
  from: string;
  to: string;
  /** `manifest.hours`: how every hour tried so far ended. */
  hours: Readonly<Record<string, HourRecord>>;
  /** The hour being fetched now, while a harvest runs. */
  fetching?: string;
}

/** `1.2k` for a cell 4 characters wide; exact counts are in the label and hover. */
function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** `2025-11-04 13:00–14:00 UTC`. */
export function hourSpan(hour: string): string {
  const h = Number(hour.slice(11, 13));
  return `${hour.slice(0, 10)} ${String(h).padStart(2, '0')}:00–${String(h + 1).padStart(2, '0')}:00 UTC`;
}

function cellText(state: HeatmapCellState, record: HourRecord | undefined): string {
  switch (state) {
    case 'items': return compactCount(record?.items ?? 0);
    case 'empty': return '0';
    case 'not_found': return '404';
    case 'pending': return '202';
    case 'failed': return record?.httpStatus !== undefined ? String(record.httpStatus) : 'fail';
    case 'fetching': return '…';
    case 'not_fetched': return '·';
    case 'outside': return '';
  }
}

/**
 * The outcome in words, for the accessible name: "53 trips", "404 not found (tried again next run)".
 * It holds the cell's text (`0`, `404`, `500`…), so that what is seen is what is heard and can be said to voice control.
 */
function outcomeText(state: HeatmapCellState, record: HourRecord | undefined, noun: [string, string]): string {
  switch (state) {
    case 'items': {
      const text = cellText(state, record);
      return `${plural(record?.items ?? 0, ...noun)}${text === String(record?.items ?? 0) ? '' : ` (shown as ${text})`}`;
    }
    case 'empty': return `0 ${noun[1]} (200 but empty)`;
    case 'not_found': return '404 not found (not served: tried again by the next run)';
    case 'pending': return '202 still pending (not processed yet: tried again by the next run)';
    case 'failed': return `failed${record?.httpStatus !== undefined ? ` with ${record.httpStatus}` : ''}${record?.problem ? `: ${record.problem}` : ''}`;
    case 'fetching': return 'being fetched now';
    case 'not_fetched': return 'not yet fetched';
    case 'outside': return 'not in the range';
  }
}

/** The hover: one fact a line. */
function detailOf(hour: string, state: HeatmapCellState, record: HourRecord | undefined, noun: [string, string]): string {
  const lines = [hourSpan(hour), outcomeText(state, record, noun)];
  if (record) {
    if (record.httpStatus !== undefined) lines.push(`HTTP status: ${record.httpStatus}`);
    lines.push(`${noun[1].charAt(0).toUpperCase()}${noun[1].slice(1)}: ${formatCount(record.items)}`);
    lines.push(`Bytes: ${formatBytes(record.bytes)}`);
    lines.push(`Attempts: ${record.attempts}${record.requests !== record.attempts ? ` (${plural(record.requests, 'request')}, ${plural(record.pages, 'page')})` : ''}`);
    if (record.retryAfterSeconds !== undefined) lines.push(`Retry-After: ${record.retryAfterSeconds} s`);
    lines.push(`Fetched: ${record.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} in ${formatCount(record.durationMs)} ms`);
  }
  return lines.join('\n');
}

/** The state of an hour: its record's status, else fetching / not fetched in the range, else outside. */
function stateOf(hour: string, inRange: boolean, record: HourRecord | undefined, fetching: string | undefined): HeatmapCellState {
  if (hour === fetching) return 'fetching';
  if (record) return record.status;
  return inRange ? 'not_fetched' : 'outside';
}

/**
 * The heatmap of a harvest: every day from `from`'s to `to`'s, 24 cells each. Hours of those days
 * outside the range show their record when an earlier run left one, else nothing. Throws nothing: a
 * range that does not parse gives no days.
 */
export function harvestHeatmapView(input: HeatmapInput): HarvestHeatmapView {
  const fromMs = parseUtcHour(input.from);
  const toMs = parseUtcHour(input.to);
  const noun = HARVEST_NOUNS[input.endpoint];
  const counts: Record<Exclude<HeatmapCellState, 'outside'>, number> = { items: 0, empty: 0, not_found: 0, pending: 0, failed: 0, fetching: 0, not_fetched: 0 };
  const days: HeatmapDayView[] = [];
  let items = 0;
  if (fromMs !== undefined && toMs !== undefined && toMs >= fromMs) {
    const firstDay = fromMs - (fromMs % (24 * HOUR_MS));
    for (let day = firstDay; day <= toMs; day += 24 * HOUR_MS) {
      const cells: HeatmapCellView[] = [];
      for (let h = 0; h < 24; h++) {
        const ms = day + h * HOUR_MS;
        const hour = formatUtcHour(ms);
        const inRange = ms >= fromMs && ms <= toMs;
        const record = input.hours[hour];
        const state = stateOf(hour, inRange, record, input.fetching);
        if (inRange && state !== 'outside') {
          counts[state]++;
          if (state === 'items') items += record?.items ?? 0;
        }
        cells.push({
          hour,
          state,
          text: cellText(state, record),
          label: `${hourSpan(hour)}: ${outcomeText(state, record, noun)}`,
          detail: detailOf(hour, state, record, noun),
          canShow: state === 'items' || state === 'empty',
        });
      }
      days.push({ day: formatUtcHour(day).slice(0, 10), cells });
    }
  }
  const legend = (Object.keys(HEATMAP_STATE_LABELS) as Exclude<HeatmapCellState, 'outside'>[]).map((state) => ({ state, label: HEATMAP_STATE_LABELS[state], count: counts[state] }));
  const hours = Object.values(counts).reduce((a, b) => a + b, 0);
  const parts = [`${plural(counts.items, 'hour')} with items (${plural(items, ...noun)})`, `${counts.empty} empty`, `${counts.not_found} not found (404)`, `${counts.pending} pending (202)`, `${counts.failed} failed`];
  if (counts.fetching + counts.not_fetched) parts.push(`${counts.fetching + counts.not_fetched} not yet fetched`);
  return { days, legend, items, line: `${plural(hours, 'hour')}: ${parts.join(', ')}` };
}
