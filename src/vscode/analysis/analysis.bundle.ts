/**
 * Analyze Harvest…, Open Harvest as Notebook…, the harvest notebook's serializer, its controller ("Harvest SQL
 * (DuckDB)"), the exports its renderer asks for, and the context key of the Explorer's menu: the entry of
 * dist/analysis.js, loaded the first time one is used or a notebook opens (registerAnalysis.ts), and a second after
 * activation in a window with a folder (for the context key), never during activation. DuckDB itself runs in the
 * analysis worker, a child process started on the first analysis (analysisClient.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { QueryAnswer } from '../../core/analysis';
import { errorMessage, isCancelled, isMobilityError } from '../../core/base';
import type { AnalysisFindingView } from '../../shared/analysisViews';
import { skippedInVsCode } from '../../results/analysis/analysisView';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { Cancelled } from '../platform/registerCommand';
import { configureHostL10n, hostL10n } from '../panel/l10nBundle';
import { AnalysisWorkerClient } from './analysisClient';
import { geographiesSetting, metricsViewHost } from './metricsViewHost';
import { isRecord } from '../../shared/isRecord';
import { writeWhole } from '../platform/writeWhole';
import { parseExportAnswerMessage } from '../../shared/sqlAnswer';
import type { ExportAnswerResult } from '../../shared/sqlAnswer';
import {
  answerOutputForms,
  exportFileText,
  harvestFolderOf,
  harvestMovedError,
  NOTEBOOK_TYPE,
  notebookText,
  parseNotebook,
  relativeHarvestPath,
  starterNotebook,
} from './harvestNotebook';
import type { HarvestNotebookData } from './harvestNotebook';
import type { CheckResult, RulesResult, SqlResult } from './workerProtocol';
import { watchHarvestFolders } from './harvestFolderWatch';

// This bundle has its own copy of @vscode/l10n: point it at the extension's strings.
configureHostL10n();

/** Rows a notebook cell's answer carries at most (the renderer's table and the CSV); the text table shows fewer. */
const NOTEBOOK_ROWS = 100_000;
/**
 * The language of a notebook's SQL cells: package.json's own `duckdb-sql` ("SQL (DuckDB)", VS Code's SQL grammar), as
 * VS Code's `sql` language is labelled "MS SQL"; a cell a user set to `sql` still runs.
 */
const CELL_LANGUAGE = 'duckdb-sql';
/** The notebook renderer of package.json's `notebookRenderer` (src/webview-ui/notebookRenderer.ts). */
const RENDERER_ID = 'mobilityApi.sqlAnswer';

/** What Analyze Harvest… returns (tests and scripts read it): the report's rules and counts, never the findings' text. */
export type AnalyzeHarvestOutcome = CommandOutcome<{
  folder: string;
  resultId: string;
  items: Record<string, number>;
  rules: { id: string; severity: string; count: number }[];
  skipped: { id: string; why: string }[];
  inUse: string[];
}>;

export type OpenNotebookOutcome = CommandOutcome<{ file: string; cells: number }>;

/**
 * What a caller passes: the Explorer's folder, or `{ folder, file? }`; whatever is missing is asked for. `restore`:
 * the results panel brings a report back after a reload (shown in its tab without bringing it to the front; a
 * failure is returned for the panel to show, not shown as a message).
 */
type FolderArg = vscode.Uri | { folder?: string; file?: string; restore?: boolean } | undefined;

export interface AnalysisFeature extends vscode.Disposable {
  analyzeHarvest(arg: FolderArg): Promise<AnalyzeHarvestOutcome>;
  openNotebook(arg: FolderArg): Promise<OpenNotebookOutcome>;
  deserialize(content: Uint8Array): vscode.NotebookData;
  serialize(data: vscode.NotebookData): Uint8Array;
}

/** Whether one folder is the other or inside it. */
function overlaps(a: string, b: string): boolean {
  const inside = (child: string, parent: string) => {
    const rel = path.relative(parent, child);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  return inside(a, b) || inside(b, a);
}

export function createAnalysisFeature(deps: CommandDeps): AnalysisFeature {
  const client = new AnalysisWorkerClient(
    path.join(__dirname, 'analysisWorker.js'),
    (line) => deps.log.info('analysis', line),
    () => vscode.workspace.getConfiguration('mobilityApi').get<string>('analysis.memoryLimit')?.trim() || undefined,
    () => vscode.workspace.getConfiguration('mobilityApi').get<string>('analysis.tempLimit')?.trim() || undefined,
  );

  async function folderOf(arg: FolderArg, openLabel: string): Promise<string> {
    if (arg instanceof vscode.Uri) return arg.fsPath;
    if (arg?.folder) return path.resolve(arg.folder);
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel,
      title: vscode.l10n.t('The harvest folder (the one with manifest.json, or a folder of such folders)'),
    });
    if (!picked?.[0]) throw new Cancelled();
    return picked[0].fsPath;
  }

  /** Runs `call` with progress and Cancel; a cancel ends the worker, and the command ends quietly. */
  async function withEngine<T>(title: string, message: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => {
        const stop = new AbortController();
        token.onCancellationRequested(() => stop.abort());
        progress.report({ message });
        return call(stop.signal);
      },
    );
  }

  /** Runs the rules and the hourly metrics on the folder and shows the report, whose findings open their device's timeline. */
  async function analyze(arg: FolderArg, reveal: boolean): Promise<AnalyzeHarvestOutcome> {
    const folder = await folderOf(arg, vscode.l10n.t('Analyze'));
    const title = vscode.l10n.t('Analyze Harvest: {0}', path.basename(folder));
    deps.log.info('analyzeHarvest', folder);
    // A Fetch Hours of this window still writing the folder when it is read (its snapshot, after the hours' lock is given up) counts too.
    const writing = [...deps.session.harvesting].filter((dir) => overlaps(dir, folder));
    const report = await withEngine(title, vscode.l10n.t('running the data-quality rules…'), (signal) =>
      client.request<CheckResult>({ op: 'check', folder, metrics: true, thresholds: configuredThresholds() }, signal),
    );
    report.inUse = [...report.inUse, ...writing.filter((dir) => !report.inUse.some((u) => overlaps(u, dir)))];
    const timeline = (finding: AnalysisFindingView): Promise<QueryAnswer> =>
      client.request<SqlResult>({
        op: 'timeline',
        folder: report.folder,
        device: finding.device_id ?? '',
        ...(finding.trip_id ? { trip: finding.trip_id } : {}),
        ...(finding.time && Number.isFinite(Date.parse(finding.time)) ? { time: Date.parse(finding.time) } : {}),
      });
    const metricsView = (id: string) => metricsViewHost(deps, client, report.folder, id);
    const resultId = deps.results.showAnalysis({
      report,
      inUse: report.inUse,
      ...(report.metrics ? { metrics: report.metrics } : {}),
      timeline,
      metricsView,
      reveal,
    });
    if (report.inUse.length)
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'A harvest is still writing {0}: the report covers the hours it had finished. Analyze again when it is done.',
          report.inUse.join(', '),
        ),
      );
    return {
      ok: true,
      folder: report.folder,
      resultId,
      items: report.items,
      rules: report.rules.map((r) => ({ id: r.id, severity: r.severity, count: r.count })),
      skipped: skippedInVsCode(report),
      inUse: report.inUse,
    };
  }

  /** Runs SQL cells one after another over the notebook's harvest; a cancel stops the rest. */
  async function execute(
    cells: readonly vscode.NotebookCell[],
    notebook: vscode.NotebookDocument,
    controller: vscode.NotebookController,
  ): Promise<void> {
    for (const cell of cells) {
      const execution = controller.createNotebookCellExecution(cell);
      execution.start(Date.now());
      const stop = new AbortController();
      execution.token.onCancellationRequested(() => stop.abort());
      try {
        const harvest = typeof notebook.metadata.harvest === 'string' ? notebook.metadata.harvest : '';
        const folder = harvestFolderOf(notebook.uri.fsPath, harvest);
        if (!fs.existsSync(folder)) throw harvestMovedError(notebook.uri.fsPath, harvest, folder);
        const geographies = geographiesSetting();
        const answer = await client.request<SqlResult>(
          {
            op: 'sql',
            folder,
            sql: cell.document.getText(),
            maxRows: NOTEBOOK_ROWS,
            ...(geographies ? { geographies } : {}),
          },
          stop.signal,
        );
        await execution.replaceOutput(answerOutputs(answer));
        execution.end(true, Date.now());
      } catch (err) {
        const message = isCancelled(err)
          ? vscode.l10n.t('Cancelled: the query was stopped.')
          : isMobilityError(err)
            ? err.message
            : String(err);
        await execution.replaceOutput(
          new vscode.NotebookCellOutput([
            vscode.NotebookCellOutputItem.error({ name: isMobilityError(err) ? err.code : 'Error', message }),
          ]),
        );
        execution.end(false, Date.now());
        if (isCancelled(err)) return;
      }
    }
  }

  /** The renderer asks for VS Code's display language and our translations (it cannot read them), or to save rows. */
  async function answerRenderer(editor: vscode.NotebookEditor, message: unknown): Promise<void> {
    if (isRecord(message) && message.type === 'l10n?') {
      await messaging.postMessage({ type: 'l10n', ...hostL10n() }, editor);
      return;
    }
    await exportAnswer(editor, message);
  }

  /** Saves the rows the renderer shows (its sort and filter) where the user says, and tells the renderer the file's name. */
  async function exportAnswer(editor: vscode.NotebookEditor, message: unknown): Promise<void> {
    const request = parseExportAnswerMessage(message);
    if (!request) return;
    const reply = (result: ExportAnswerResult) => void messaging.postMessage(result, editor);
    try {
      const name = `${path.basename(editor.notebook.uri.path, '.mdsnb')}-answer.${request.format}`;
      const target = await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.joinPath(editor.notebook.uri, '..', name),
        filters: request.format === 'csv' ? { [vscode.l10n.t('CSV')]: ['csv'] } : { [vscode.l10n.t('JSON')]: ['json'] },
        title: vscode.l10n.t('Export {0} rows as {1}', request.rows.length, request.format.toUpperCase()),
      });
      if (!target) {
        reply({ type: 'exportedSqlAnswer' });
        return;
      }
      await writeWhole(target, exportFileText(request.format, request.columns, request.rows));
      deps.log.info('notebook', `exported ${request.rows.length} rows as ${request.format} to ${target.fsPath}`);
      reply({ type: 'exportedSqlAnswer', saved: path.basename(target.path) });
    } catch (err) {
      const message = vscode.l10n.t(
        'Could not export the answer: {0}',
        isMobilityError(err) ? err.message : err instanceof Error ? err.message : String(err),
      );
      deps.log.warn('notebook', message);
      void vscode.window.showErrorMessage(message);
      reply({ type: 'exportedSqlAnswer', error: message });
    }
  }

  const controller = vscode.notebooks.createNotebookController(
    'mobilityApi.harvestSql',
    NOTEBOOK_TYPE,
    vscode.l10n.t('Harvest SQL (DuckDB)'),
  );
  controller.supportedLanguages = [CELL_LANGUAGE, 'sql'];
  controller.supportsExecutionOrder = false;
  controller.description = vscode.l10n.t("Runs SQL cells over the notebook's harvest folder");
  controller.executeHandler = (cells, notebook, c) => execute(cells, notebook, c);
  const messaging = vscode.notebooks.createRendererMessaging(RENDERER_ID);
  const owned: vscode.Disposable[] = [
    controller,
    messaging.onDidReceiveMessage((e) => void answerRenderer(e.editor, e.message)),
    watchHarvestFolders(),
  ];

  return {
    async analyzeHarvest(arg) {
      const restore = !!arg && !(arg instanceof vscode.Uri) && arg.restore === true;
      if (!restore) return analyze(arg, true);
      try {
        return await analyze(arg, false);
      } catch (err) {
        if (isCancelled(err))
          return { ok: false, code: 'CANCELLED', message: vscode.l10n.t('The analysis was cancelled.') };
        deps.log.warn('analyzeHarvest', `restoring a report: ${errorMessage(err)}`);
        return {
          ok: false,
          code: isMobilityError(err) ? err.code : 'ANALYSIS_ENGINE_FAILED',
          message: errorMessage(err),
        };
      }
    },

    async openNotebook(arg) {
      const folder = await folderOf(arg, vscode.l10n.t('Open as Notebook'));
      const rules = await withEngine(
        vscode.l10n.t('Open as Notebook: {0}', path.basename(folder)),
        vscode.l10n.t('reading the harvest…'),
        (signal) => client.request<RulesResult>({ op: 'rules', folder, thresholds: configuredThresholds() }, signal),
      );
      let file = arg && !(arg instanceof vscode.Uri) && arg.file ? path.resolve(arg.file) : undefined;
      if (!file) {
        const picked = await vscode.window.showSaveDialog({
          defaultUri: vscode.Uri.file(path.join(path.dirname(rules.folder), `${path.basename(rules.folder)}.mdsnb`)),
          filters: { [vscode.l10n.t('Harvest notebook')]: ['mdsnb'] },
          title: vscode.l10n.t('Save the starter notebook'),
        });
        if (!picked) throw new Cancelled();
        file = picked.fsPath;
      }
      const data = starterNotebook(rules, relativeHarvestPath(file, rules.folder));
      await fs.promises.writeFile(file, notebookText(data));
      const document = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
      await vscode.window.showNotebookDocument(document);
      deps.log.info('openHarvestNotebook', `${file}: ${data.cells.length} cells over ${rules.folder}`);
      return { ok: true, file, cells: data.cells.length };
    },

    deserialize(content) {
      const data = parseNotebook(new TextDecoder().decode(content), vscode.l10n.t('This file'));
      const cells = data.cells.map((cell) =>
        cell.kind === 'markdown'
          ? new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, cell.source, 'markdown')
          : new vscode.NotebookCellData(vscode.NotebookCellKind.Code, cell.source, CELL_LANGUAGE),
      );
      const notebook = new vscode.NotebookData(cells);
      notebook.metadata = { harvest: data.harvest };
      return notebook;
    },

    serialize(data) {
      const harvest = typeof data.metadata?.harvest === 'string' ? data.metadata.harvest : '';
      const notebook: HarvestNotebookData = {
        harvest,
        cells: data.cells.map((c) => ({
          kind: c.kind === vscode.NotebookCellKind.Markup ? 'markdown' : 'sql',
          source: c.value,
        })),
      };
      return new TextEncoder().encode(notebookText(notebook));
    },

    dispose() {
      client.dispose();
      for (const d of owned) d.dispose();
    },
  };
}

/** A cell's output: one output in several forms (harvestNotebook.ts's answerOutputForms), ours first. */
function answerOutputs(answer: SqlResult): vscode.NotebookCellOutput[] {
  return [
    new vscode.NotebookCellOutput(
      answerOutputForms(answer).map((form) =>
        'text' in form
          ? vscode.NotebookCellOutputItem.text(form.text, form.mime)
          : vscode.NotebookCellOutputItem.json(form.json, form.mime),
      ),
    ),
  ];
}

export { NOTEBOOK_TYPE };

/** `mobilityApi.analysis.thresholds` as the CLI's `name=value` pairs (the worker checks names and values as `--threshold` does). */
function configuredThresholds(): string[] {
  const configured =
    vscode.workspace.getConfiguration('mobilityApi').get<Record<string, unknown>>('analysis.thresholds') ?? {};
  return Object.entries(typeof configured === 'object' && configured !== null ? configured : {}).map(
    ([name, value]) => `${name}=${String(value)}`,
  );
}
