// The items of one harvested hour as the panel shows them under the heatmap: the hour file's NDJSON
// lines read into the resource's table (trips, events, telemetry), with a line that says what is shown.
import * as l10n from '@vscode/l10n';
import type { HourRecord } from '../../core/harvest';
import type { MdsHourEndpointId } from '../../core/mds';
import type { DataTableView } from '../../shared/dataTable';
import { formatBytes, nounText, plural } from '../../shared/format';
import { isSingular } from '../../shared/l10n';
import type { HarvestHourView } from '../../shared/harvestViews';
import { HARVEST_NOUNS, hourSpan } from './harvestHeatmap';
import { eventTable, telemetryTable, tripTable } from '../requests/resourceReaders';

/** The items of an hour file: one JSON value a line (a last line without newline is read too); a line that does not parse is counted, not shown. */
export function parseHourLines(text: string): { items: unknown[]; badLines: number } {
  const items: unknown[] = [];
  let badLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      items.push(JSON.parse(line));
    } catch {
      badLines++;
    }
  }
  return { items, badLines };
}

/** The resource table of an hour endpoint's items. */
export function hourTableOf(endpoint: MdsHourEndpointId, items: readonly unknown[]): DataTableView {
  switch (endpoint) {
    case 'trips':
      return tripTable(items);
    case 'events_historical':
      return eventTable(items);
    case 'telemetry':
      return telemetryTable(items);
  }
}

/**
 * What the panel shows for `hour`: its items in a table when its record is done and its file was
 * read (`text`), else why there is nothing to show.
 */
export function harvestHourView(
  endpoint: MdsHourEndpointId,
  hour: string,
  record: HourRecord | undefined,
  text: string | undefined,
): HarvestHourView {
  const noun = HARVEST_NOUNS[endpoint];
  const span = hourSpan(hour);
  if (!record) return { hour, line: l10n.t('{0}: not yet fetched; nothing to show.', span) };
  if (record.status !== 'items' && record.status !== 'empty') {
    const nouns = nounText(noun[1]);
    if (record.status === 'not_found')
      return { hour, line: l10n.t('{0}: 404 not found; no {1} were written for this hour.', span, nouns) };
    if (record.status === 'pending')
      return { hour, line: l10n.t('{0}: 202 still pending; no {1} were written for this hour.', span, nouns) };
    // The problem is the manifest's record, in English whichever run wrote it.
    return {
      hour,
      line: record.problem
        ? l10n.t('{0}: failed: {1}; no {2} were written for this hour.', span, record.problem, nouns)
        : l10n.t('{0}: failed; no {1} were written for this hour.', span, nouns),
    };
  }
  if (text === undefined)
    return {
      hour,
      line: l10n.t('{0}: the hour file {1} could not be read; the next run fetches it again.', span, record.file ?? ''),
    };
  const { items, badLines } = parseHourLines(text);
  const table = hourTableOf(endpoint, items);
  const bad =
    badLines === 0
      ? ''
      : isSingular(badLines)
        ? l10n.t('{0} of the file did not parse and is not shown.', plural(badLines, 'line'))
        : l10n.t('{0} of the file did not parse and are not shown.', plural(badLines, 'line'));
  const shown = items.length
    ? record.file
      ? l10n.t('{0}: {1} ({2}) from {3}.', span, plural(items.length, ...noun), formatBytes(record.bytes), record.file)
      : l10n.t('{0}: {1} ({2}) from the hour file.', span, plural(items.length, ...noun), formatBytes(record.bytes))
    : l10n.t('{0}: 200 but empty: no {1} in this hour.', span, nounText(noun[1]));
  return { hour, line: bad ? l10n.t('{0} {1}', shown, bad) : shown, table };
}
