/**
 * The provider's monthly reports (MDS 2.0 provider/README.md, Reports: `/reports/YYYY-MM.csv`) for the months a
 * harvest covers, fetched with its snapshot (`harvest --snapshot`) into `<dir>/snapshot/reports/`, so that
 * `mobility-api check`'s `reports-vs-trips` compares them with the harvest's trips. A month whose report the provider
 * does not serve (404: not ended yet, or before it operated) is recorded with its status, not as an error.
 */
import * as l10n from '@vscode/l10n';
import type { ApiClient } from '../http';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import { MobilityError } from '../base';
import { buildEndpointRequest } from '../mds';

/** The folder of the reports inside the snapshot folder. */
export const REPORTS_DIR = 'reports';

/** What the snapshot's manifest records of one month's report. */
export interface ReportRecord {
  /** The HTTP status of `/reports/YYYY-MM.csv`. */
  status: number;
  /** The file under `reports/` (200 only). */
  file?: string;
  /** Data rows of the CSV (200 only). */
  rows?: number;
}

/** Any offset of a time zone from UTC lies within this, in hours: a local month starts at most this far from its UTC start. */
const MAX_OFFSET_HOURS = 14;

/** The months (`YYYY-MM`) a harvest from `from` to `to` (UTC hours, `YYYY-MM-DDTHH`) touches in any time zone. */
export function reportMonthsOf(from: string, to: string): string[] {
  const start = Date.parse(`${from}:00:00Z`) - MAX_OFFSET_HOURS * 3_600_000;
  const end = Date.parse(`${to}:00:00Z`) + (1 + MAX_OFFSET_HOURS) * 3_600_000;
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return [];
  const months: string[] = [];
  const first = new Date(start);
  for (
    let y = first.getUTCFullYear(), m = first.getUTCMonth();
    Date.UTC(y, m, 1) < end;
    m === 11 ? ((y += 1), (m = 0)) : (m += 1)
  ) {
    months.push(`${y}-${String(m + 1).padStart(2, '0')}`);
  }
  return months;
}

/** Fetches the report of each month: the files to write into `reports/` and the manifest's records. */
export async function fetchReports(
  client: ApiClient,
  environment: Environment,
  credential: Credential,
  months: readonly string[],
  signal?: AbortSignal,
): Promise<{ records: Record<string, ReportRecord>; files: [string, string][] }> {
  const records: Record<string, ReportRecord> = {};
  const files: [string, string][] = [];
  for (const month of months) {
    const request = buildEndpointRequest('mds', 'reports', { month });
    const result = await client.request(environment, credential, request, { signal });
    const page = result.pages[result.pages.length - 1];
    if (!page) continue;
    if (page.status !== 200) {
      records[month] = { status: page.status };
      continue;
    }
    if (page.text === undefined) {
      throw new MobilityError(
        'HARVEST_SNAPSHOT_FAILED',
        l10n.t('The report {0} is larger than can be kept; the hours harvested are kept.', request.path),
      );
    }
    const file = `${REPORTS_DIR}/${month}.csv`;
    files.push([file, page.text]);
    records[month] = { status: 200, file, rows: page.rows?.length ?? 0 };
  }
  return { records, files };
}
