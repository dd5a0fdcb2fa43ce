// One results panel: a webview tab that shows one result at a time, with what must never reach the webview
// (tokens, raw pages) held here. The panels as a set, and what the commands call, are in resultsPanels.ts.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { COMMANDS } from '../commands/commandIds';
import type { ApiResult, HttpExchange, VehicleListing } from '../core/apiClient';
import type { Environment } from '../core/environment';
import type { ConformanceView, HostMessage, ListingResultView, ResultSummary, ResultView, WebviewMessage } from '../shared/protocol';
import { concatVehicleColumns, parseWebviewMessage } from '../shared/protocol';
import { concatDataTables } from '../shared/dataTable';
import type { DataTableView } from '../shared/dataTable';
import { mergeConformanceViews, resultConformanceView } from '../results/conformance';
import { listingOf, resourceTableOf, summaryOf, itemsOnAnyPage } from '../results/resultView';
import type { ExportRequest, ExportResultOutcome } from './exportResult';
import { exportResult } from './exportResult';
import { panelHtml } from './panelHtml';
import { hostL10n } from './l10nBundle';
import { bodyView } from '../results/bodyView';
import { itemsOnPage, listingLine, pageView } from '../results/listingView';
import { vehicleColumns } from '../results/vehicleReader';
import { errorMessage } from '../core/errors';
import type { HarvestSession } from './harvestPanel';


/** The commands "Run again" executes, with `{ environmentId }`. */
const RUN_AGAIN_COMMANDS = { vehicles: COMMANDS.listVehicles, status: COMMANDS.vehicleStatus } as const;

export const LOG = '[results]';


/** One result as the host holds it: the view, and what must never reach the webview. */
export interface HeldResult {
  view: ResultView;
  /** Raw tokens by page index (a token result has one, at 0). */
  tokens: string[];
  pages: HttpExchange[];
  environment?: Environment;
  loadNextPage?: (nextUrl: string) => Promise<VehicleListing>;
  /** showResult's "load next page": any resource. */
  loadNextResult?: (nextUrl: string) => Promise<ApiResult>;
  loadAllResult?: (nextUrl: string, onPage: (page: HttpExchange, pageNumber: number) => void, signal: AbortSignal) => Promise<ApiResult>;
  curlCommand?: () => Promise<string>;
  runAgain?: () => Promise<unknown>;
  loading?: boolean;
  /** The MDS endpoint for the conformance check (undefined: guessed from the body). */
  endpointId?: string;
  /** A harvest's view: its heatmap and the hour shown. */
  harvest?: HarvestSession;
}

/** The setting that turns the panel's conformance check off. */
const VALIDATE_SETTING = 'results.validate';

function validationOn(): boolean {
  return vscode.workspace.getConfiguration('mobilityApi').get<boolean>(VALIDATE_SETTING, true) !== false;
}

/** One webview panel: one per environment, plus one for tokens without an environment. */
export class ResultsPanel implements vscode.Disposable {
  private ready = false;
  private pending: HostMessage[] = [];
  private current: HeldResult | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly key: string,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private restoredSummary: ResultSummary | undefined,
    onDisposed: (panel: ResultsPanel) => void,
  ) {
    const webviewRoot = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    panel.webview.options = { enableScripts: true, localResourceRoots: [webviewRoot] };
    panel.webview.html = this.html(webviewRoot);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => {
        this.disposeListeners();
        onDisposed(this);
      }),
    );
  }

  private html(root: vscode.Uri): string {
    const webview = this.panel.webview;
    return panelHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'main.css')).toString(),
      title: this.panel.title,
      l10n: hostL10n(),
    });
  }

  /** The result shown now (for the export command). */
  get shown(): HeldResult | undefined {
    return this.current;
  }

  /** Shows `result`, bringing the panel to the front unless `reveal` is false (a panel restored in a background tab stays there). */
  show(result: HeldResult, title: string, reveal = true): void {
    if (this.current !== result) this.current?.harvest?.dispose();
    this.current = result;
    this.restoredSummary = undefined;
    this.panel.title = title;
    // Only the latest result matters; older queued messages belong to a replaced result.
    this.pending = [];
    if (result.view.kind === 'listing') {
      result.view.conformance = result.environment?.api !== 'mds' ? { state: 'notMds' } : validationOn() ? { state: 'checking' } : { state: 'off' };
    }
    const message: HostMessage = { type: 'show', panelKey: this.key, result: result.view };
    if (this.ready) this.post(message);
    else {
      // A new webview: VS Code holds messages until the page has loaded, so the result goes out now rather
      // than one round trip after the page's `ready` (which then re-sends it; the page ignores the repeat).
      this.send(message);
    }
    if (reveal && !this.panel.visible) this.panel.reveal(undefined, true);
    if (result.view.kind === 'listing' && result.view.conformance?.state === 'checking') this.checkConformance(result, result.pages, 0);
  }

  /**
   * Validates `pages` (starting at page `offset`) against the official MDS schemas after the result is on
   * screen: the validator takes a moment on 100,000 items, and the table should not wait for it.
   */
  private checkConformance(held: HeldResult, pages: HttpExchange[], offset: number): void {
    const view = held.view;
    if (view.kind !== 'listing') return;
    setImmediate(() => {
      if (this.current !== held) return;
      let checked: ConformanceView;
      try {
        checked = resultConformanceView({ pages }, held.endpointId, undefined, offset);
      } catch (err) {
        this.log.warn(`${LOG} conformance check failed: ${errorMessage(err)}`);
        checked = { state: 'notMds' };
      }
      view.conformance = offset === 0 ? checked : mergeConformanceViews(view.conformance, checked);
      if (checked.state === 'checked') this.log.info(`${LOG} MDS ${checked.endpoint}: ${checked.conforms ? 'conforms' : `${checked.findingCount} findings`}`);
      this.post({ type: 'conformance', resultId: view.id, conformance: view.conformance });
    });
  }

  private async exportHarvestHour(resultId: string, shown: { table: DataTableView; createdAt: number; window?: string }, request: ExportRequest): Promise<ExportResultOutcome> {
    this.post({ type: 'busy', resultId, action: 'export', busy: true });
    try {
      const outcome = await exportResult(shown, [], [], request);
      if (!outcome.ok && outcome.cancelled && !request.path) return outcome;
      this.post({ type: 'notice', level: outcome.ok || outcome.cancelled ? 'info' : 'error', text: outcome.ok ? outcome.text : outcome.message });
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
      if (!harvestTable) return { ok: false, message: 'Choose an hour with items in the heatmap first; its items are what is saved.' };
      return this.exportHarvestHour(held.view.id, { table: harvestTable, createdAt: held.view.createdAt, window: held.harvest?.shownHour() }, request);
    }
    if (!held || held.view.kind !== 'listing') return { ok: false, message: 'This panel shows no result to save. Run a request first.' };
    const view = held.view;
    this.post({ type: 'busy', resultId: view.id, action: 'export', busy: true });
    try {
      const outcome = await exportResult(view, held.pages, held.tokens, request);
      if (outcome.ok) this.log.info(`${LOG} ${outcome.text}`);
      if (!outcome.ok && outcome.cancelled && !request.path) return outcome;
      this.post({ type: 'notice', level: outcome.ok || outcome.cancelled ? 'info' : 'error', text: outcome.ok ? outcome.text : outcome.message });
      return outcome;
    } finally {
      this.post({ type: 'busy', resultId: view.id, action: 'export', busy: false });
    }
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
    void this.panel.webview.postMessage(message).then(undefined, (err: unknown) => this.log.warn(`${LOG} posting ${message.type} failed: ${String(err)}`));
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
    switch (message.type) {
      case 'ready': {
        // The webview (re)loaded: after a reload, or when a hidden panel is shown again.
        this.ready = true;
        const queued = this.pending;
        this.pending = [];
        if (this.current) this.post({ type: 'show', panelKey: this.key, result: this.current.view });
        else if (!queued.some((m) => m.type === 'show')) this.post({ type: 'restore', panelKey: this.key, summary: this.restoredSummary });
        for (const m of queued) if (m.type !== 'show' || !this.current) this.post(m);
        return;
      }
      case 'copyToken': {
        const held = this.held(message.resultId);
        const index = message.pageIndex ?? 0;
        const token = held?.tokens[index];
        if (!held || !token) {
          this.post({ type: 'notice', level: 'error', text: 'This token is no longer held (the panel was reloaded). Run the request again.' });
          return;
        }
        await vscode.env.clipboard.writeText(token);
        this.log.info(`${LOG} copied a token to the clipboard`);
        const text = held.view.kind === 'listing'
          ? `Copied the token of page ${index + 1}. It was already sent once; a server that enforces one token per request refuses it again: use "Copy curl" for a fresh one.`
          : 'Copied the token. Treat it like a password; it expires at its exp time.';
        this.post({ type: 'notice', level: 'info', text });
        return;
      }
      case 'copyPayload': {
        const payload = payloadOf(this.held(message.resultId)?.view, message.pageIndex ?? 0);
        if (!payload) {
          this.post({ type: 'notice', level: 'error', text: 'This token is no longer shown here. Open it again.' });
          return;
        }
        await vscode.env.clipboard.writeText(JSON.stringify(payload, null, 2));
        this.post({ type: 'notice', level: 'info', text: 'Copied the payload as JSON.' });
        return;
      }
      case 'copyCurl': {
        const held = this.held(message.resultId);
        if (!held?.curlCommand) {
          this.post({ type: 'notice', level: 'error', text: 'No curl command is available for this result. Run the request again.' });
          return;
        }
        this.post({ type: 'busy', resultId: message.resultId, action: 'copyCurl', busy: true });
        try {
          const command = await held.curlCommand();
          await vscode.env.clipboard.writeText(command);
          this.log.info(`${LOG} copied a curl command with a fresh token`);
          this.post({ type: 'notice', level: 'info', text: 'Copied a curl command with a fresh token. Run it once: the token is valid for one request.' });
        } finally {
          this.post({ type: 'busy', resultId: message.resultId, action: 'copyCurl', busy: false });
        }
        return;
      }
      case 'loadNextPage':
        await this.loadNextPage(message.resultId);
        return;
      case 'loadAllPages':
        await this.loadAllPages(message.resultId);
        return;
      case 'export': {
        if (!this.held(message.resultId)) {
          this.post({ type: 'notice', level: 'error', text: 'This result is no longer held (the panel was reloaded). Run the request again.' });
          return;
        }
        await this.export({ format: message.format, query: message.query, pageIndex: message.pageIndex });
        return;
      }
      case 'showHarvestHour': {
        const harvest = this.held(message.resultId)?.harvest;
        if (harvest) this.post(await harvest.hourMessage(message.hour));
        return;
      }
      case 'fetchHours': {
        const held = this.held(message.resultId);
        if (!held?.environment || !held.endpointId) return;
        await vscode.commands.executeCommand(COMMANDS.fetchHours, { environmentId: held.environment.id, endpointId: held.endpointId, to: hourOf(held.pages[0]?.url) });
        return;
      }
      case 'requestBody': {
        const held = this.held(message.resultId);
        const page = held?.pages[message.pageIndex];
        if (!held || !page) return;
        this.post({ type: 'body', body: bodyView(page, message.resultId, message.pageIndex) });
        return;
      }
      case 'openInEditor': {
        const page = this.held(message.resultId)?.pages[message.pageIndex];
        if (!page) return;
        const content = page.text ?? (page.bodyKind === 'json' ? JSON.stringify(page.body, null, 2) : '');
        const document = await vscode.workspace.openTextDocument({ content, language: page.bodyKind === 'json' ? 'json' : 'plaintext' });
        await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Active });
        return;
      }
      case 'runAgain': {
        const summary = this.current?.view.summary ?? this.restoredSummary;
        const environmentId = this.current?.environment?.id ?? summary?.environmentId;
        if (this.current?.runAgain) {
          await this.current.runAgain();
          return;
        }
        if (!environmentId || !summary?.canRunAgain) return;
        await vscode.commands.executeCommand(RUN_AGAIN_COMMANDS[summary.rerun ?? 'vehicles'], { environmentId });
        return;
      }
    }
  }

  /**
   * "Load all pages": every next page up to the page limit, a fresh token each, with progress and
   * Cancel in a notification; Cancel keeps what arrived (the pages are appended as one batch).
   */
  private async loadAllPages(resultId: string): Promise<void> {
    const held = this.held(resultId);
    const loadAll = held?.loadAllResult;
    if (!held || !loadAll) return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Loading every page of {0}', this.panel.title), cancellable: true }, (progress, cancel) => {
      const abort = new AbortController();
      cancel.onCancellationRequested(() => abort.abort());
      return this.loadNextPage(resultId, (nextUrl) => loadAll(nextUrl, (_page, n) => progress.report({ message: `page ${n}` }), abort.signal));
    });
  }

  private async loadNextPage(resultId: string, fetchAll?: (nextUrl: string) => Promise<ApiResult>): Promise<void> {
    const held = this.held(resultId);
    if (!held || held.view.kind !== 'listing' || (!held.loadNextPage && !held.loadNextResult && !fetchAll) || !held.environment || held.loading) return;
    const view: ListingResultView = held.view;
    const nextUrl = view.nextUrl;
    if (!nextUrl) return;
    held.loading = true;
    this.post({ type: 'busy', resultId, action: 'loadNextPage', busy: true });
    try {
      const fetchResult = fetchAll ?? held.loadNextResult;
      const moreResult = fetchResult ? await fetchResult(nextUrl) : undefined;
      const more = moreResult ? listingOf(moreResult) : await (held.loadNextPage as (url: string) => Promise<VehicleListing>)(nextUrl);
      if (this.current !== held) return;
      const now = Date.now();
      const offset = held.pages.length;
      const pages = more.pages.map((p, i) => pageView(p, offset + i, held.environment as Environment, now, moreResult ? itemsOnAnyPage(p, moreResult.itemsKey) : itemsOnPage(p)));
      const vehicles = vehicleColumns(more.items);
      const moreTable = moreResult && view.table ? resourceTableOf(moreResult) : undefined;
      if (moreTable && view.table) view.table = concatDataTables(view.table, moreTable);
      held.pages.push(...more.pages);
      held.tokens.push(...more.pages.map((p) => p.token?.token ?? ''));
      view.pages.push(...pages);
      view.vehicles = concatVehicleColumns(view.vehicles, vehicles);
      view.nextUrl = more.nextUrl;
      view.stoppedBecause = more.stoppedBecause;
      view.canLoadNext = !!more.nextUrl;
      view.canLoadAll = !!more.nextUrl && !!held.loadAllResult;
      const error = pages.find((p) => p.error)?.error;
      if (error && !view.error) view.error = error;
      const last = view.pages.at(-1)?.response;
      if (moreResult) {
        view.outcome = moreResult.outcome;
        view.summary.line = summaryOf(view, moreResult);
      } else {
        view.summary.line = listingLine({ status: last?.status, statusText: last?.statusText, itemCount: view.vehicles.count, pageCount: view.pages.length, moreExist: !!more.nextUrl });
      }
      const message: HostMessage = { type: 'pagesAppended', resultId, pages, vehicles, nextUrl: more.nextUrl, stoppedBecause: more.stoppedBecause, canLoadNext: view.canLoadNext, canLoadAll: view.canLoadAll, error, summaryLine: view.summary.line };
      if (moreTable) message.table = moreTable;
      this.post(message);
      if (view.conformance?.state === 'checked') this.checkConformance(held, more.pages, offset);
    } finally {
      held.loading = false;
      this.post({ type: 'busy', resultId, action: 'loadNextPage', busy: false });
    }
  }

  private disposeListeners(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  dispose(): void {
    this.disposeListeners();
    this.panel.dispose();
  }
}

/** The hour a request of an hour endpoint asked for (`?end_time=2025-11-05T13`), if any. */
function hourOf(url: string | undefined): string | undefined {
  const match = url ? /[?&](?:end_time|event_time|telemetry_time)=(\d{4}-\d{2}-\d{2}T\d{2})(?:&|$)/.exec(url) : null;
  return match?.[1];
}

/** The decoded payload a "Copy payload" button refers to: a page's token, the token, or a side of a comparison. */
function payloadOf(view: ResultView | undefined, index: number): Record<string, unknown> | undefined {
  switch (view?.kind) {
    case 'token':
      return view.token.payload;
    case 'compare':
      return index === 1 ? view.right.payload : view.left.payload;
    case 'listing':
      return view.pages[index]?.token?.payload;
    default:
      return undefined;
  }
}

