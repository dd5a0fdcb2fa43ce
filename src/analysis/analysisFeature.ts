/**
 * Analyze Harvest…, Open Harvest as Notebook… and the harvest notebook's serializer and controller: the entry of
 * dist/analysis.js, loaded the first time one is used (registerAnalysis.ts), not at activation. DuckDB itself runs
 * in the analysis worker, a child process started on the first analysis (analysisClient.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { QueryAnswer } from '../core/analysis';
import { errorMessage, isMobilityError } from '../core/base';
import type { AnalysisFindingView } from '../shared/analysisViews';
import type { CommandDeps, CommandOutcome } from '../commands/commandDeps';
import { Cancelled } from '../commands/registerCommand';
import { configureHostL10n } from '../webview/l10nBundle';
import { AnalysisCancelled, AnalysisWorkerClient } from './analysisClient';
import { answerCsv, answerTextTable, harvestFolderOf, harvestMovedError, NOTEBOOK_TYPE, notebookText, parseNotebook, relativeHarvestPath, starterNotebook, vegaLiteSpec } from './harvestNotebook';
import type { HarvestNotebookData } from './harvestNotebook';
import type { CheckResult, RulesResult, SqlResult } from './workerProtocol';

// This bundle has its own copy of @vscode/l10n: point it at the extension's strings.
configureHostL10n();

/** Rows a notebook cell's answer carries at most (its CSV and JSON outputs); the text table shows fewer. */
const NOTEBOOK_ROWS = 10_000;

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
  execute(cells: readonly vscode.NotebookCell[], notebook: vscode.NotebookDocument, controller: vscode.NotebookController): Promise<void>;
}

export function createAnalysisFeature(deps: CommandDeps): AnalysisFeature {
  const client = new AnalysisWorkerClient(path.join(__dirname, 'analysisWorker.js'), (line) => deps.log.info('analysis', line));

  async function folderOf(arg: FolderArg, openLabel: string): Promise<string> {
    if (arg instanceof vscode.Uri) return arg.fsPath;
    if (arg?.folder) return path.resolve(arg.folder);
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel, title: vscode.l10n.t('The harvest folder (the one with manifest.json, or a folder of such folders)') });
    if (!picked?.[0]) throw new Cancelled();
    return picked[0].fsPath;
  }

  /** Runs `call` with progress and Cancel; a cancel ends the worker, and the command ends quietly. */
  async function withEngine<T>(title: string, message: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
        const stop = new AbortController();
        token.onCancellationRequested(() => stop.abort());
        progress.report({ message });
        return call(stop.signal);
      });
    } catch (err) {
      if (err instanceof AnalysisCancelled) throw new Cancelled();
      throw err;
    }
  }

  /** Runs the rules and the hourly metrics on the folder and shows the report, whose findings open their device's timeline. */
  async function analyze(arg: FolderArg, reveal: boolean): Promise<AnalyzeHarvestOutcome> {
    const folder = await folderOf(arg, vscode.l10n.t('Analyze'));
    const title = vscode.l10n.t('Analyze Harvest: {0}', path.basename(folder));
    deps.log.info('analyzeHarvest', folder);
    const report = await withEngine(title, vscode.l10n.t('running the data-quality rules…'), (signal) => client.request<CheckResult>({ op: 'check', folder, metrics: true }, signal));
    const timeline = (finding: AnalysisFindingView): Promise<QueryAnswer> => client.request<SqlResult>({
      op: 'timeline',
      folder: report.folder,
      device: finding.device_id ?? '',
      ...(finding.trip_id ? { trip: finding.trip_id } : {}),
      ...(finding.time && Number.isFinite(Date.parse(finding.time)) ? { time: Date.parse(finding.time) } : {}),
    });
    const resultId = deps.results.showAnalysis({ report, inUse: report.inUse, ...(report.metrics ? { metrics: report.metrics } : {}), timeline, reveal });
    if (report.inUse.length) void vscode.window.showWarningMessage(vscode.l10n.t('A harvest is still writing {0}: the report covers the hours it had finished. Analyze again when it is done.', report.inUse.join(', ')));
    return {
      ok: true,
      folder: report.folder,
      resultId,
      items: report.items,
      rules: report.rules.map((r) => ({ id: r.id, severity: r.severity, count: r.count })),
      skipped: report.skipped,
      inUse: report.inUse,
    };
  }

  return {
    async analyzeHarvest(arg) {
      const restore = !!arg && !(arg instanceof vscode.Uri) && arg.restore === true;
      if (!restore) return analyze(arg, true);
      try {
        return await analyze(arg, false);
      } catch (err) {
        if (err instanceof Cancelled) return { ok: false, code: 'CANCELLED', message: vscode.l10n.t('The analysis was cancelled.') };
        deps.log.warn('analyzeHarvest', `restoring a report: ${errorMessage(err)}`);
        return { ok: false, code: isMobilityError(err) ? err.code : 'UNEXPECTED', message: errorMessage(err) };
      }
    },

    async openNotebook(arg) {
      const folder = await folderOf(arg, vscode.l10n.t('Open as Notebook'));
      const rules = await withEngine(vscode.l10n.t('Open as Notebook: {0}', path.basename(folder)), vscode.l10n.t('reading the harvest…'), (signal) => client.request<RulesResult>({ op: 'rules', folder }, signal));
      let file = arg && !(arg instanceof vscode.Uri) && arg.file ? path.resolve(arg.file) : undefined;
      if (!file) {
        const picked = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.file(path.join(path.dirname(rules.folder), `${path.basename(rules.folder)}.mdsnb`)), filters: { [vscode.l10n.t('Harvest notebook')]: ['mdsnb'] }, title: vscode.l10n.t('Save the starter notebook') });
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
      const cells = data.cells.map((cell) => cell.kind === 'markdown'
        ? new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, cell.source, 'markdown')
        : new vscode.NotebookCellData(vscode.NotebookCellKind.Code, cell.source, 'sql'));
      const notebook = new vscode.NotebookData(cells);
      notebook.metadata = { harvest: data.harvest };
      return notebook;
    },

    serialize(data) {
      const harvest = typeof data.metadata?.harvest === 'string' ? data.metadata.harvest : '';
      const notebook: HarvestNotebookData = { harvest, cells: data.cells.map((c) => ({ kind: c.kind === vscode.NotebookCellKind.Markup ? 'markdown' : 'sql', source: c.value })) };
      return new TextEncoder().encode(notebookText(notebook));
    },

    async execute(cells, notebook, controller) {
      for (const cell of cells) {
        const execution = controller.createNotebookCellExecution(cell);
        execution.start(Date.now());
        const stop = new AbortController();
        execution.token.onCancellationRequested(() => stop.abort());
        try {
          const harvest = typeof notebook.metadata.harvest === 'string' ? notebook.metadata.harvest : '';
          const folder = harvestFolderOf(notebook.uri.fsPath, harvest);
          if (!fs.existsSync(folder)) throw harvestMovedError(notebook.uri.fsPath, harvest, folder);
          const answer = await client.request<SqlResult>({ op: 'sql', folder, sql: cell.document.getText(), maxRows: NOTEBOOK_ROWS }, stop.signal);
          await execution.replaceOutput(answerOutputs(answer));
          execution.end(true, Date.now());
        } catch (err) {
          const message = err instanceof AnalysisCancelled ? vscode.l10n.t('Cancelled: the query was stopped.') : isMobilityError(err) ? err.message : String(err);
          await execution.replaceOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name: isMobilityError(err) ? err.code : 'Error', message })]));
          execution.end(false, Date.now());
          if (err instanceof AnalysisCancelled) return;
        }
      }
    },

    dispose() {
      client.dispose();
    },
  };
}

/** A cell's outputs: the text table with the CSV beside it, a Vega-Lite chart when the answer has one, and the rows as JSON. */
function answerOutputs(answer: SqlResult): vscode.NotebookCellOutput[] {
  const outputs = [new vscode.NotebookCellOutput([
    vscode.NotebookCellOutputItem.text(answerTextTable(answer), 'text/plain'),
    vscode.NotebookCellOutputItem.text(answerCsv(answer), 'text/csv'),
  ])];
  const spec = vegaLiteSpec(answer);
  if (spec) outputs.push(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.json(spec, 'application/vnd.vegalite.v5+json')]));
  outputs.push(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.json({ columns: answer.columns, rows: answer.rows, total: answer.total }, 'application/json')]));
  return outputs;
}

export { NOTEBOOK_TYPE };
