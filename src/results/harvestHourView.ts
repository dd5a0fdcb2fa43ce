// The items of one harvested hour as the panel shows them under the heatmap: the hour file's NDJSON
// lines read into the resource's table (trips, events, telemetry), with a line that says what is shown.
import type { HourRecord } from '../core/harvest/harvestManifest';
import type { MdsHourEndpointId } from '../core/mdsEndpoints';
import type { DataTableView } from '../shared/dataTable';
import { formatBytes, plural } from '../shared/format';
import type { HarvestHourView } from '../shared/protocol';
import { HARVEST_NOUNS, hourSpan } from './harvestHeatmap';
import { eventTable, telemetryTable, tripTable } from './resourceReaders';

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
    case 'trips': return tripTable(items);
    case 'events_historical': return eventTable(items);
    case 'telemetry': return telemetryTable(items);
  }
}

/**
 * What the panel shows for `hour`: its items in a table when its record is done and its file was
 * read (`text`), else why there is nothing to show.
 */
export function harvestHourView(endpoint: MdsHourEndpointId, hour: string, record: HourRecord | undefined, text: string | undefined): HarvestHourView {
  const noun = HARVEST_NOUNS[endpoint];
  const span = hourSpan(hour);
  if (!record) return { hour, line: `${span}: not yet fetched; nothing to show.` };
  if (record.status !== 'items' && record.status !== 'empty') {
    const why = record.status === 'not_found' ? '404 not found' : record.status === 'pending' ? '202 still pending' : `failed${record.problem ? `: ${record.problem}` : ''}`;
    return { hour, line: `${span}: ${why}; no ${noun[1]} were written for this hour.` };
  }
  if (text === undefined) return { hour, line: `${span}: the hour file ${record.file ?? ''} could not be read; the next run fetches it again.` };
  const { items, badLines } = parseHourLines(text);
  const table = hourTableOf(endpoint, items);
  const bad = badLines ? ` ${plural(badLines, 'line')} of the file did not parse and ${badLines === 1 ? 'is' : 'are'} not shown.` : '';
  const line = items.length
    ? `${span}: ${plural(items.length, ...noun)} (${formatBytes(record.bytes)}) from ${record.file ?? 'the hour file'}.${bad}`
    : `${span}: 200 but empty: no ${noun[1]} in this hour.${bad}`;
  return { hour, line, table };
}
