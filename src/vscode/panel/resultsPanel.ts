// One results panel: a webview tab that shows one result at a time, with what must never reach the webview
// (tokens, raw pages) held here. The panels as a set, and what the commands call, are in resultsPanel.bundle.ts; what
// the webview's messages ask for is done by webviewMessages.ts.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/base';
import type { DataTableView } from '../../shared/dataTable';
import type { AnalysisRestore, HostMessage, WebviewMessage } from '../../shared/protocol';
import { parseWebviewMessage } from '../../shared/protocol';
import type { ResultSummary } from '../../shared/resultSummary';
import { historyEntryOf } from '../../results/history/historyEntry';
import { HISTORY_KEPT_IN_FULL } from '../../shared/historyViews';
import type { HistoryEntryView } from '../../shared/historyViews';
import { ResultHistory } from '../../results/history/resultHistory';
import { checkConformance, prepareConformance } from './conformanceCheck';
import type { ConformancePort } from './conformanceCheck';
import type { ExportRequest, ExportResultOutcome } from './exportResult';
import { exportResult } from './exportResult';
import type { HeldResult } from './heldResult';
import { hostL10n } from './l10nBundle';
import type { PagePort } from './pageLoader';
import { panelAssets, panelHtml } from './panelHtml';
import { runAgainOf } from './runAgain';
import { handleWebviewMessage } from './webviewMessages';
import type { WebviewMessageHost } from './webviewMessages';

export const LOG = '[results]';

/** One webview panel: one per environment, plus one for tokens without an environment. */
export class ResultsPanel implements vscode.Disposable {
  private ready = false;
  private pending: HostMessage[] = [];
  private current: HeldResult | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** What the page loader, the conformance check and the copy buttons may do with this panel. */
  private readonly port: PagePort & ConformancePort;
  /** What the webview's messages may do with this panel. */
  private readonly messageHost: WebviewMessageHost;
  /** A restored data-quality report while it is analysed again, or why that failed. */
  private analysisRestore: AnalysisRestore | undefined;
  private disposed = false;

  constructor(
    readonly key: string,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private restoredSummary: ResultSummary | undefined,
    onDisposed: (panel: ResultsPanel) => void,
    /** This session's sends in this panel, newest first; the last few in full (see results/resultHistory.ts). It
     * starts with what waited for the panel while it was not open (results/history/waitingHistories.ts). */
    private readonly history = new ResultHistory<HeldResult>(),
  ) {
    this.port = {
      post: (message) => this.post(message),
      isShown: (held) => this.current === held,
      recheck: (held, offset) => this.pagesAppended(held, offset),
      log,
      logTag: LOG,
      title: () => this.panel.title,
    };
    this.messageHost = {
      port: this.port,
      history: this.history,
      held: (resultId) => this.held(resultId),
      shown: () => this.current,
      restored: () => this.restoredSummary,
      post: (message) => this.post(message),
      postFor: (held, message) => this.postFor(held, message),
      showFromHistory: (resultId) => this.showFromHistory(resultId),
      export: (request) => this.export(request),
    };
    // The page loads nothing: its bundle and stylesheet are inline (panelHtml.ts says why).
    panel.webview.options = { enableScripts: true, localResourceRoots: [] };
    panel.webview.html = this.html(extensionUri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => {
        this.disposed = true;
        this.disposeListeners();
        onDisposed(this);
      }),
    );
  }

  private html(extensionUri: vscode.Uri): string {
    const webview = this.panel.webview;
    return panelHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64'),
      ...panelAssets(extensionUri.fsPath),
      title: this.panel.title,
      l10n: hostL10n(),
    });
  }

  /** The result shown now (for the export command). */
  get shown(): HeldResult | undefined {
    return this.current;
  }

  /**
   * Shows `result`, bringing the panel to the front unless `reveal` is false (a panel restored in a background tab
   * stays there). A send (a listing or a request error) becomes the newest entry of the panel's history.
   */
  show(result: HeldResult, title: string, reveal = true): void {
    if (result.view.kind === 'listing' || result.view.kind === 'requestError') {
      this.history.add(historyEntryOf(result.view, true), result, runAgainOf(result));
    }
    this.display(result, title, reveal);
  }

  /** Puts `result` on screen (new, or again from the history) and the history beside it. */
  private display(result: HeldResult, title: string, reveal: boolean): void {
    if (this.current !== result) this.current?.harvest?.dispose();
    this.current = result;
    this.restoredSummary = undefined;
    this.analysisRestore = undefined;
    this.panel.title = title;
    result.title = title;
    // Only the latest result matters; older queued messages belong to a replaced result.
    this.pending = [];
    const check = prepareConformance(result);
    const message: HostMessage = { type: 'show', panelKey: this.key, result: result.view };
    if (this.ready) this.post(message);
    else {
      // A new webview: VS Code holds messages until the page has loaded, so the result goes out now rather
      // than one round trip after the page's `ready` (which then re-sends it; the page ignores the repeat).
      this.send(message);
    }
    this.postHistory();
    if (reveal) this.reveal();
    if (check) checkConformance(result, result.pages, 0, this.port);
  }

  /**
   * Brings the panel to the front without taking the focus. When the text editor in front (the request file whose lens
   * was clicked) shares the panel's tab group, the panel moves beside it: revealed in its own group it would cover the
   * file, and every next send would need a click back to the file.
   */
  private reveal(): void {
    const group = vscode.window.tabGroups.activeTabGroup;
    const fileInFront =
      group.activeTab?.input instanceof vscode.TabInputText && group.viewColumn === this.panel.viewColumn;
    if (fileInFront) this.panel.reveal(vscode.ViewColumn.Beside, true);
    else if (!this.panel.visible) this.panel.reveal(undefined, true);
  }

  /** After "Load next page": the new pages' conformance, and the entry's summary line in the history. */
  private pagesAppended(held: HeldResult, offset: number): void {
    if (held.view.kind !== 'listing') return;
    if (held.view.conformance?.state === 'checked') checkConformance(held, held.pages.slice(offset), offset, this.port);
    this.history.update(historyEntryOf(held.view, true));
    this.postHistory();
  }

  /** The history beside the result shown, when the panel has one. */
  private postHistory(): void {
    const entries = this.history.list();
    if (entries.length) this.post({ type: 'history', entries, shownId: this.current?.view.id });
  }

  /** Shows the history entry `resultId` again, while it is kept in full. */
  private showFromHistory(resultId: string): void {
    const held = this.history.held(resultId);
    if (!held) {
      this.post({
        type: 'notice',
        level: 'error',
        text: vscode.l10n.t(
          'Only the last {0} results are kept in full; this one keeps its summary only. Run the request again.',
          HISTORY_KEPT_IN_FULL,
        ),
      });
      return;
    }
    this.display(held, held.title ?? this.panel.title, true);
  }

  /**
   * Shows the history entry `resultId` again and brings the panel to the front unless `reveal` is false (a test run's
   * link to its result): the title it is shown with, or why it cannot be (gone from the history, or kept as a summary only).
   */
  showKept(resultId: string, reveal = true): { ok: true; title: string } | { ok: false; message: string } {
    const held = this.history.held(resultId);
    if (!held) {
      const listed = this.history.entry(resultId) !== undefined;
      return {
        ok: false,
        message: listed
          ? vscode.l10n.t(
              'The results panel keeps the last {0} results in full; this one keeps its summary only. Run the test again to see its answer.',
              HISTORY_KEPT_IN_FULL,
            )
          : vscode.l10n.t(
              "This result is no longer in the results panel's history. Run the test again to see its answer.",
            ),
      };
    }
    const title = held.title ?? this.panel.title;
    this.display(held, title, reveal);
    return { ok: true, title };
  }

  /** The history's entries, newest first, as the panel lists them (no token: a jti at most). */
  historyEntries(): HistoryEntryView[] {
    return this.history.list();
  }

  private async exportHarvestHour(
    resultId: string,
    shown: { table: DataTableView; createdAt: number; window?: string },
    request: ExportRequest,
  ): Promise<ExportResultOutcome> {
    this.post({ type: 'busy', resultId, action: 'export', busy: true });
    try {
      const outcome = await exportResult(shown, [], [], request);
      if (!outcome.ok && outcome.cancelled && !request.path) return outcome;
      this.post({
        type: 'notice',
        level: outcome.ok || outcome.cancelled ? 'info' : 'error',
        text: outcome.ok ? outcome.text : outcome.message,
      });
      return outcome;
    } finally {
      this.post({ type: 'busy', resultId, action: 'export', busy: false });
    }
  }

  /** Exports the result shown (the panel's buttons and the export command). */
  async export(request: ExportRequest): Promise<ExportResultOutcome> {
    const held = this.current;
    const harvestTable = held?.harvest?.shownTable();
    if (held && held.view.kind === 'harvest') {
      if (!harvestTable)
        return { ok: false, message: 'Choose an hour with items in the heatmap first; its items are what is saved.' };
      return this.exportHarvestHour(
        held.view.id,
        { table: harvestTable, createdAt: held.view.createdAt, window: held.harvest?.shownHour() },
        request,
      );
    }
    if (!held || held.view.kind !== 'listing')
      return { ok: false, message: 'This panel shows no result to save. Run a request first.' };
    const view = held.view;
    this.post({ type: 'busy', resultId: view.id, action: 'export', busy: true });
    try {
      const outcome = await exportResult(view, held.pages, held.tokens, request);
      if (outcome.ok) this.log.info(`${LOG} ${outcome.text}`);
      if (!outcome.ok && outcome.cancelled && !request.path) return outcome;
      this.post({
        type: 'notice',
        level: outcome.ok || outcome.cancelled ? 'info' : 'error',
        text: outcome.ok ? outcome.text : outcome.message,
      });
      return outcome;
    } finally {
      this.post({ type: 'busy', resultId: view.id, action: 'export', busy: false });
    }
  }

  /** A restored data-quality report: being analysed again, or why that failed (shown while no result is). */
  restoreAnalysis(state: AnalysisRestore): void {
    if (this.disposed || this.current) return;
    this.analysisRestore = state;
    if (this.ready) this.post({ type: 'restore', panelKey: this.key, summary: this.restoredSummary, analysis: state });
  }

  /** Posts `message` while `held` is the result shown (a harvest's live updates). */
  postFor(held: HeldResult, message: HostMessage): void {
    if (this.current === held) this.post(message);
  }

  private post(message: HostMessage): void {
    if (!this.ready) {
      this.pending.push(message);
      return;
    }
    this.send(message);
  }

  private send(message: HostMessage): void {
    void this.panel.webview
      .postMessage(message)
      .then(undefined, (err: unknown) => this.log.warn(`${LOG} posting ${message.type} failed: ${String(err)}`));
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log.warn(`${LOG} ignored a webview message of unknown shape`);
      return;
    }
    this.handle(message).catch((err: unknown) => {
      const text = errorMessage(err);
      this.log.error(`${LOG} ${message.type} failed: ${text}`);
      this.post({ type: 'notice', level: 'error', text });
    });
  }

  private held(resultId: string): HeldResult | undefined {
    return this.current?.view.id === resultId ? this.current : undefined;
  }

  private async handle(message: WebviewMessage): Promise<void> {
    if (message.type !== 'ready') {
      await handleWebviewMessage(message, this.messageHost);
      return;
    }
    // The webview (re)loaded: after a reload, or when a hidden panel is shown again.
    this.ready = true;
    const queued = this.pending;
    this.pending = [];
    if (this.current) this.post({ type: 'show', panelKey: this.key, result: this.current.view });
    else if (!queued.some((m) => m.type === 'show'))
      this.post({
        type: 'restore',
        panelKey: this.key,
        summary: this.restoredSummary,
        ...(this.analysisRestore ? { analysis: this.analysisRestore } : {}),
      });
    for (const m of queued) if ((m.type !== 'show' && m.type !== 'history') || !this.current) this.post(m);
    if (this.current) this.postHistory();
  }

  private disposeListeners(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  dispose(): void {
    this.disposeListeners();
    this.panel.dispose();
  }
}
