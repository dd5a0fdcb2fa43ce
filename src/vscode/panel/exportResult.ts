// Saves what a results panel shows: the table's rows as CSV, their positions as GeoJSON, or a page's body
// as received. The rows are rebuilt here from the result the host holds, with the webview's filter and
// sort (never rows from the webview); the file is written in chunks with cancellable progress, to a
// temporary name renamed at the end, and every token the result carried is scrubbed from what is written.
import path from 'node:path';
import * as vscode from 'vscode';
import type { HttpExchange } from '../../core/http';
import type { DataTableView, TableQuery } from '../../shared/dataTable';
import { queryRows } from '../../shared/dataTable';
import { plural } from '../../shared/format';
import type { ExportFormat, ListingResultView } from '../../shared/listingViews';
import { exportFileName, writeChunksAtomically } from '../../results/history/exportFile';
import { countPoints, csvChunks, EXPORT_CHUNK_ROWS, geoJsonChunks } from '../../results/history/exportWriters';
import { tableOfView } from '../../results/requests/resultView';
import { scrub } from '../../results/tokens/tokenPreview';

/** What the export command and the panel's buttons ask for. */
export interface ExportRequest {
  format: ExportFormat;
  query: TableQuery;
  pageIndex?: number;
  /** A file path: no save dialog (tests, scripts). */
  path?: string;
}

/** How an export ended, for the panel's notice and the command's caller. */
export type ExportResultOutcome =
  { ok: true; path: string; bytes: number; text: string } | { ok: false; cancelled?: boolean; message: string };

const RAW_CHUNK_CHARS = 1 << 20;

function* rawChunks(text: string, secrets: readonly string[]): Generator<string> {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = scrub(scrubbed, secret);
  for (let i = 0; i < scrubbed.length; i += RAW_CHUNK_CHARS) yield scrubbed.slice(i, i + RAW_CHUNK_CHARS);
}

function rawText(page: HttpExchange): string {
  if (page.text !== undefined) return page.text;
  return page.bodyKind === 'json' ? JSON.stringify(page.body, null, 2) : typeof page.body === 'string' ? page.body : '';
}

function extensionOf(format: ExportFormat, page: HttpExchange | undefined): string {
  if (format === 'csv') return 'csv';
  if (format === 'geojson') return 'geojson';
  return page?.bodyKind === 'json' ? 'json' : page?.bodyKind === 'csv' ? 'csv' : 'txt';
}

/** Exports `view` (held with its `pages` and `tokens`), or a table of its own (a harvested hour's items), as `request` asks. */
export async function exportResult(
  view: ListingResultView | { table: DataTableView; createdAt: number; window?: string },
  pages: readonly HttpExchange[],
  tokens: readonly string[],
  request: ExportRequest,
): Promise<ExportResultOutcome> {
  const secrets = tokens.filter((t) => t.length >= 8);
  const table = 'kind' in view ? tableOfView(view) : view.table;
  const rows = request.format === 'raw' ? new Uint32Array(0) : queryRows(table, request.query);
  const page = request.format === 'raw' ? pages[request.pageIndex ?? 0] : undefined;
  let chunks: Iterable<string>;
  let what: string;
  let steps: number;
  if (request.format === 'csv') {
    if (rows.length === 0)
      return { ok: false, message: `There are no ${table.noun[1]} to save${table.count ? ' with this filter' : ''}.` };
    chunks = csvChunks(table, rows, secrets);
    what = plural(rows.length, ...table.noun);
    steps = Math.ceil(rows.length / EXPORT_CHUNK_ROWS) + 1;
  } else if (request.format === 'geojson') {
    const points = countPoints(table, rows);
    if (points === 0) return { ok: false, message: `These ${table.noun[1]} have no positions to save.` };
    chunks = geoJsonChunks(table, rows, secrets);
    what = plural(points, 'position');
    steps = Math.ceil(rows.length / EXPORT_CHUNK_ROWS) + 2;
  } else {
    if (!page) return { ok: false, message: 'This page is no longer held. Run the request again.' };
    const text = rawText(page);
    chunks = rawChunks(text, secrets);
    what = vscode.l10n.t('the body of page {0}', (request.pageIndex ?? 0) + 1);
    steps = Math.max(1, Math.ceil(text.length / RAW_CHUNK_CHARS));
  }

  let target = request.path;
  if (!target) {
    const ext = extensionOf(request.format, page);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = exportFileName(
      'kind' in view
        ? { resource: table.resource, url: (page ?? pages[0])?.url ?? view.pages[0]?.url, fetchedAt: view.createdAt }
        : { resource: table.resource, window: view.window, fetchedAt: view.createdAt },
      ext,
    );
    const uri = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters:
        ext === 'geojson'
          ? { GeoJSON: ['geojson', 'json'] }
          : ext === 'csv'
            ? { CSV: ['csv'] }
            : ext === 'json'
              ? { JSON: ['json'] }
              : { Text: ['txt'] },
      saveLabel: vscode.l10n.t('Save'),
      title: vscode.l10n.t('Save {0}', what),
    });
    if (!uri) return { ok: false, cancelled: true, message: vscode.l10n.t('Not saved.') };
    if (uri.scheme !== 'file') return { ok: false, message: vscode.l10n.t('Choose a file on this machine.') };
    target = uri.fsPath;
  }
  const file = target;
  const outcome = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Saving {0} to {1}', what, path.basename(file)),
      cancellable: true,
    },
    (progress, cancel) =>
      writeChunksAtomically(file, chunks, {
        isCancelled: () => cancel.isCancellationRequested,
        onChunk: () => progress.report({ increment: 100 / steps }),
      }),
  );
  if (outcome.ok)
    return {
      ok: true,
      path: file,
      bytes: outcome.bytes,
      text: vscode.l10n.t('Saved {0} to {1}.', what, path.basename(file)),
    };
  if (outcome.cancelled)
    return { ok: false, cancelled: true, message: `Cancelled: ${path.basename(file)} was not written.` };
  return { ok: false, message: outcome.message };
}
