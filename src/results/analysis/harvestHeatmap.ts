// The coverage heatmap of a harvest (Fetch Hours… in the extension, the same folder as `mobility-api
// harvest`): days as rows, the 24 UTC hours as columns, each cell an hour's outcome in the manifest, with
// the text, the hover detail and the accessible name the panel shows. Plain data, no VS Code.
import * as l10n from '@vscode/l10n';
import type { HourRecord } from '../../core/harvest';
import type { MdsHourEndpointId } from '../../core/mds';
import { HOUR_MS, formatUtcHour, parseUtcHour } from '../../core/mds';
import { formatBytes, formatCount, nounText, plural } from '../../shared/format';
import type { HarvestHeatmapView, HeatmapCellState, HeatmapCellView, HeatmapDayView } from '../../shared/harvestViews';

/** The nouns of each hour endpoint's items: keys of the counted nouns of src/shared/format.ts, translated where used. */
export const HARVEST_NOUNS: Record<MdsHourEndpointId, [string, string]> = {
  trips: ['trip', 'trips'],
  events_historical: ['event', 'events'],
  telemetry: ['telemetry point', 'telemetry points'],
};

/** The legend's wording of every state a cell can have in the range, in the legend's order (built when used: l10n). */
export function heatmapStateLabels(): Record<Exclude<HeatmapCellState, 'outside'>, string> {
  return {
    items: l10n.t('With items'),
    empty: l10n.t('200 but empty'),
    not_found: l10n.t('404 not found'),
    pending: l10n.t('202 still pending'),
    failed: l10n.t('Failed'),
    fetching: l10n.t('Fetching now'),
    not_fetched: l10n.t('Not yet fetched'),
  };
}

/** The hover's line with the item count of an hour of `endpoint`: `Trips: 1,234`. */
function itemsLine(endpoint: MdsHourEndpointId, count: string): string {
  switch (endpoint) {
    case 'trips':
      return l10n.t('Trips: {0}', count);
    case 'events_historical':
      return l10n.t('Events: {0}', count);
    case 'telemetry':
      return l10n.t('Telemetry points: {0}', count);
  }
}

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
  return l10n.t('{0} {1}:00–{2}:00 UTC', hour.slice(0, 10), String(h).padStart(2, '0'), String(h + 1).padStart(2, '0'));
}

function cellText(state: HeatmapCellState, record: HourRecord | undefined): string {
  switch (state) {
    case 'items':
      return compactCount(record?.items ?? 0);
    case 'empty':
      return '0';
    case 'not_found':
      return '404';
    case 'pending':
      return '202';
    case 'failed':
      return record?.httpStatus !== undefined ? String(record.httpStatus) : l10n.t('fail');
    case 'fetching':
      return '…';
    case 'not_fetched':
      return '·';
    case 'outside':
      return '';
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
      const counted = plural(record?.items ?? 0, ...noun);
      return text === String(record?.items ?? 0) ? counted : l10n.t('{0} (shown as {1})', counted, text);
    }
    case 'empty':
      return l10n.t('0 {0} (200 but empty)', nounText(noun[1]));
    case 'not_found':
      return l10n.t('404 not found (not served: tried again by the next run)');
    case 'pending':
      return l10n.t('202 still pending (not processed yet: tried again by the next run)');
    case 'failed': {
      const status = record?.httpStatus;
      // The problem is the manifest's record, written in English by whichever run tried the hour (the CLI or the extension).
      if (status !== undefined)
        return record?.problem
          ? l10n.t('failed with {0}: {1}', status, record.problem)
          : l10n.t('failed with {0}', status);
      return record?.problem ? l10n.t('failed: {0}', record.problem) : l10n.t('failed');
    }
    case 'fetching':
      return l10n.t('being fetched now');
    case 'not_fetched':
      return l10n.t('not yet fetched');
    case 'outside':
      return l10n.t('not in the range');
  }
}

/** The hover: one fact a line. */
function detailOf(
  hour: string,
  state: HeatmapCellState,
  record: HourRecord | undefined,
  endpoint: MdsHourEndpointId,
): string {
  const lines = [hourSpan(hour), outcomeText(state, record, HARVEST_NOUNS[endpoint])];
  if (record) {
    if (record.httpStatus !== undefined) lines.push(l10n.t('HTTP status: {0}', record.httpStatus));
    lines.push(itemsLine(endpoint, formatCount(record.items)));
    lines.push(l10n.t('Bytes: {0}', formatBytes(record.bytes)));
    lines.push(
      record.requests !== record.attempts
        ? l10n.t(
            'Attempts: {0} ({1}, {2})',
            record.attempts,
            plural(record.requests, 'request'),
            plural(record.pages, 'page'),
          )
        : l10n.t('Attempts: {0}', record.attempts),
    );
    if (record.retryAfterSeconds !== undefined) lines.push(l10n.t('Retry-After: {0} s', record.retryAfterSeconds));
    lines.push(
      l10n.t(
        'Fetched: {0} in {1} ms',
        record.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
        formatCount(record.durationMs),
      ),
    );
  }
  return lines.join('\n');
}

/** The state of an hour: its record's status, else fetching / not fetched in the range, else outside. */
function stateOf(
  hour: string,
  inRange: boolean,
  record: HourRecord | undefined,
  fetching: string | undefined,
): HeatmapCellState {
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
  const counts: Record<Exclude<HeatmapCellState, 'outside'>, number> = {
    items: 0,
    empty: 0,
    not_found: 0,
    pending: 0,
    failed: 0,
    fetching: 0,
    not_fetched: 0,
  };
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
          label: l10n.t('{0}: {1}', hourSpan(hour), outcomeText(state, record, noun)),
          detail: detailOf(hour, state, record, input.endpoint),
          canShow: state === 'items' || state === 'empty',
        });
      }
      days.push({ day: formatUtcHour(day).slice(0, 10), cells });
    }
  }
  const labels = heatmapStateLabels();
  const legend = (Object.keys(labels) as Exclude<HeatmapCellState, 'outside'>[]).map((state) => ({
    state,
    label: labels[state],
    count: counts[state],
  }));
  const hours = Object.values(counts).reduce((a, b) => a + b, 0);
  const parts = [
    l10n.t('{0} with items ({1})', plural(counts.items, 'hour'), plural(items, ...noun)),
    l10n.t('{0} empty', formatCount(counts.empty)),
    l10n.t('{0} not found (404)', formatCount(counts.not_found)),
    l10n.t('{0} pending (202)', formatCount(counts.pending)),
    l10n.t('{0} failed', formatCount(counts.failed)),
  ];
  if (counts.fetching + counts.not_fetched)
    parts.push(l10n.t('{0} not yet fetched', formatCount(counts.fetching + counts.not_fetched)));
  return { days, legend, items, line: l10n.t('{0}: {1}', plural(hours, 'hour'), parts.join(l10n.t(', '))) };
}
