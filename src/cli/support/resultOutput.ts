// What the CLI prints of an answer: a listing or result as text (the summary line, what the outcome means, the first
// rows as the panel's table shows them), its --json body (tokens masked) and its conformance report.
import type { ApiResult, HttpExchange, VehicleListing } from '../../core/http';
import type { ConformanceReport } from '../../core/conformance';
import { resultConformance } from '../../results/requests/conformance';
import { pagesMasker } from '../../results/tokens/tokenPreview';
import { formatBytes, plural } from '../../shared/format';
import { modeOf } from './options';
import { listingLine } from '../../results/requests/listingView';
import { readVehicle } from '../../results/requests/vehicleReader';
import { resourceTableOf } from '../../results/requests/resultView';
import type { DataTableView } from '../../shared/dataTable';
import { cellText, visibleDataColumns } from '../../shared/dataTable';
import { describeFailure, fromServer } from './output';

/**
 * A server's answer as `--json` prints it: as it came, but for our own secrets the server may echo (each page's
 * token, the key id), hidden by value.
 */
export function answerJson(value: unknown, pages: readonly Pick<HttpExchange, 'token'>[]): string {
  const mask = pagesMasker(pages);
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? mask(v) : v), 2);
}

export function mergedBody(listing: VehicleListing): Record<string, unknown> {
  return {
    pages: listing.pages.length,
    [listing.listKey ?? 'vehicles']: listing.items,
    ...(listing.nextUrl ? { next: listing.nextUrl } : {}),
    ...(listing.stoppedBecause ? { stopped_because: listing.stoppedBecause } : {}),
  };
}

export function formatListing(listing: VehicleListing, maxRows = 20): string {
  const first = listing.pages[0];
  const last = listing.pages[listing.pages.length - 1];
  const bytes = listing.pages.reduce((n, p) => n + p.bytes, 0);
  const noun: [string, string] =
    listing.listKey === 'vehicles_status' ? ['vehicle status', 'vehicle statuses'] : ['vehicle', 'vehicles'];
  const summary = listingLine({
    status: last.status,
    statusText: last.statusText,
    itemCount: listing.items.length,
    pageCount: listing.pages.length,
    moreExist: !!listing.nextUrl,
    noun,
  });
  const lines = [
    `GET ${first.url}`,
    `${summary} · ${formatBytes(bytes)} · first byte after ${first.timings.ttfbMs.toFixed(0)} ms`,
  ];
  const problem = listing.pages.find((p) => p.bodyProblem)?.bodyProblem;
  if (problem) lines.push(`— ${fromServer(problem, 300)}`);
  const mask = pagesMasker(listing.pages);
  const rows = listing.items.slice(0, maxRows).map((item) => vehicleRow(item, mask));
  if (rows.length) {
    const header = ['device_id', 'vehicle_id', 'type', 'propulsion', 'state', 'battery'];
    // Columns that no shown row fills (a status listing has no vehicle_id) are left out.
    const shown = header.map((_, i) => rows.some((r) => r[i] !== ''));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (cells: string[]) =>
      cells
        .filter((_, i) => shown[i])
        .map((c, i) => c.padEnd(widths.filter((_, j) => shown[j])[i]))
        .join('  ')
        .trimEnd();
    lines.push('', fmt(header), ...rows.map(fmt));
    if (listing.items.length > rows.length)
      lines.push(`… ${listing.items.length - rows.length} more (use --json for all)`);
  }
  if (listing.nextUrl)
    lines.push(
      '',
      `More pages: ${listing.stoppedBecause ?? 'use --all-pages to fetch them all'} (next: ${fromServer(mask(listing.nextUrl), 2000)})`,
    );
  return lines.join('\n');
}

/** A table row of one vehicle, read by the same reader as the panel's table. */
function vehicleRow(item: unknown, mask: (text: string) => string): string[] {
  const v = readVehicle(item);
  const cell = (text: string) => fromServer(mask(text), 80);
  return [
    cell(v.deviceId),
    cell(v.vehicleId),
    cell(v.vehicleType),
    cell(v.propulsion),
    cell(v.state),
    Number.isNaN(v.batteryPercent) ? '' : `${v.batteryPercent}%`,
  ];
}

/** The first `maxRows` rows of a resource table, as the panel shows them (its visible columns and cell texts). */
function tableLines(table: DataTableView, maxRows: number, mask: (text: string) => string): string[] {
  const columns = visibleDataColumns(table);
  const n = Math.min(maxRows, table.count);
  const rows = Array.from({ length: n }, (_, r) => columns.map((c) => fromServer(mask(cellText(c, r)), 60)));
  const widths = columns.map((c, i) => Math.max(c.label.length, ...rows.map((row) => row[i].length)));
  const fmt = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [fmt(columns.map((c) => c.label)), ...rows.map(fmt)];
  if (table.count > n) out.push(`… ${table.count - n} more (use --json for all)`);
  return out;
}

/** What an outcome means, in one line, for the CLI's summary. */
const OUTCOME_TEXT: Record<ApiResult['outcome'], string> = {
  items: '',
  empty: 'answered with no items (a processed hour or listing that is empty)',
  body: 'answered with a body that holds no item list',
  not_processed: 'not processed yet (202): try again later',
  not_found: 'not found (404): no such resource, or an hour outside the data the provider serves',
  error: 'failed',
};

/** `GET <url>`, the summary line, what the outcome means, and the first items. */
export function formatResult(result: ApiResult, itemsKey = result.itemsKey, maxRows = 20): string {
  const first = result.pages[0];
  const last = result.pages[result.pages.length - 1];
  if (!last) return `GET ${result.url}: no answer`;
  if (itemsKey === 'vehicles' || itemsKey === 'vehicles_status') {
    const listing: VehicleListing = {
      pages: result.pages,
      items: result.items,
      listKey: itemsKey,
      nextUrl: result.nextUrl,
      stoppedBecause: result.stoppedBecause,
    };
    return formatListing(listing, maxRows);
  }
  // Trips, events, telemetry and stops: the panel's readers and columns, so both show the same values.
  const resourceTable = last.bodyKind === 'csv' ? undefined : resourceTableOf({ ...result, itemsKey });
  const noun: [string, string] = itemsKey ? [singular(itemsKey), itemsKey] : ['item', 'items'];
  const bytes = result.pages.reduce((n, p) => n + p.bytes, 0);
  const summary = listingLine({
    status: last.status,
    statusText: last.statusText,
    itemCount: result.items.length,
    pageCount: result.pages.length,
    moreExist: !!result.nextUrl,
    noun,
  });
  const lines = [
    `GET ${first.url}`,
    `${summary} · ${formatBytes(bytes)} · first byte after ${first.timings.ttfbMs.toFixed(0)} ms`,
  ];
  const meaning = OUTCOME_TEXT[result.outcome];
  if (result.outcome === 'error' || result.outcome === 'not_found') lines.push(describeFailure(last));
  else if (meaning)
    lines.push(
      meaning + (result.retryAfterSeconds !== undefined ? ` (Retry-After: ${result.retryAfterSeconds} s)` : ''),
    );
  const mask = pagesMasker(result.pages);
  if (last.bodyProblem) lines.push(`— ${fromServer(mask(last.bodyProblem), 300)}`);
  if (last.bodyKind === 'csv' && last.columns && last.rows) {
    lines.push('', last.columns.map((c) => fromServer(mask(c), 40)).join(' | '));
    for (const row of last.rows.slice(0, maxRows))
      lines.push(last.columns.map((c) => fromServer(mask(String(row[c] ?? '')), 40)).join(' | '));
    if (last.rows.length > maxRows) lines.push(`… ${last.rows.length - maxRows} more rows (use --json for all)`);
  } else if (resourceTable && resourceTable.count) {
    lines.push('', ...tableLines(resourceTable, maxRows, mask));
  } else if (result.items.length) {
    lines.push('');
    for (const item of result.items.slice(0, maxRows)) lines.push(fromServer(mask(JSON.stringify(item)), 160));
    if (result.items.length > maxRows) lines.push(`… ${result.items.length - maxRows} more (use --json for all)`);
  }
  if (result.nextUrl)
    lines.push(
      '',
      `More pages: ${result.stoppedBecause ?? 'use --all-pages to fetch them all'} (next: ${fromServer(mask(result.nextUrl), 2000)})`,
    );
  return lines.join('\n');
}

function singular(key: string): string {
  if (key === 'telemetry') return 'telemetry point';
  if (key === 'vehicles_status') return 'vehicle status';
  return key.replace(/s$/, '');
}

/** Every page's items under the result's key, for `--json --all-pages`. */
export function mergedResultBody(result: ApiResult): Record<string, unknown> {
  const pagesOf = result.pages.length;
  const last = result.pages[result.pages.length - 1];
  const items = last?.bodyKind === 'csv' ? (last.rows ?? []) : result.items;
  return {
    outcome: result.outcome,
    pages: pagesOf,
    [result.itemsKey ?? 'items']: items,
    ...(result.nextUrl ? { next: result.nextUrl } : {}),
    ...(result.stoppedBecause ? { stopped_because: result.stoppedBecause } : {}),
    ...(result.retryAfterSeconds !== undefined ? { retry_after_seconds: result.retryAfterSeconds } : {}),
  };
}

/** The conformance of a result, or a report saying why there is none. */
export function conformanceOf(
  result: ApiResult,
  endpointId: string | undefined,
  mode: string | undefined,
): ConformanceReport | undefined {
  return resultConformance(result, endpointId, modeOf(mode));
}

/** A conformance report as lines: the verdict, then each rule with its count and a few examples. */
export function formatConformance(report: ConformanceReport | undefined): string {
  if (!report) return 'MDS 2.0: not checked (not the answer of an MDS 2.0 endpoint, or no body to check)';
  const source = `official schemas ${report.schemaSource.repository}@${report.schemaSource.commit.slice(0, 7)}, mode ${report.mode}`;
  const lines = [
    report.conforms
      ? `MDS 2.0 (${report.endpoint}): conforms — ${plural(report.itemsChecked, 'item')} checked against the ${source}`
      : `MDS 2.0 (${report.endpoint}): does not conform — ${plural(report.findingCount, 'finding')} in ${plural(report.itemsWithFindings, 'item')} of ${report.itemsChecked} (${source})`,
  ];
  for (const rule of report.rules) {
    lines.push(
      `  ${String(rule.count).padStart(6)} × ${fromServer(rule.message, 200)} at ${rule.where || '/'} [${rule.keyword}]`,
    );
    for (const example of rule.examples.slice(0, 3))
      lines.push(`           ${example.path || '/'}: ${fromServer(example.value, 120)}`);
  }
  if (report.omittedFindings) lines.push(`  … ${report.omittedFindings} more findings of other rules`);
  if (report.schemaBugs.length) {
    lines.push(
      `  Schema problems (known bugs of the official schema, not the provider's): ${report.schemaBugs.map((r) => `${r.schemaBug ?? r.keyword} ×${r.count}`).join(', ')}`,
    );
  }
  return lines.join('\n');
}
