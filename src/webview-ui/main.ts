// The results panel in the browser. It receives view models as structured-clone messages and builds
// DOM with textContent only (see dom.ts); it never sees a raw token and asks the host to copy one.
// This file dispatches the host's messages and keeps the panel's state; each kind of result renders in
// its own file (listingSection.ts, simpleResults.ts, harvestView.ts), the history in historySection.ts.
// First: the host's translation bundle, before any module builds a string.
import * as l10n from '@vscode/l10n';
import './l10nSetup';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import './results.css';
import './map/map.css';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import type { BodyView } from '../shared/listingViews';
import type {
  AnalysisRestore,
  HostMessage,
  PanelUiState,
  PersistedPanelState,
  ResultView,
  WebviewMessage,
} from '../shared/protocol';
import { PERSISTED_STATE_VERSION, isHostMessage, parsePersistedState } from '../shared/protocol';
import type { ResultSummary } from '../shared/resultSummary';
import { AnalysisView } from './sections/analysisSection';
import { conformanceVerdict } from './sections/conformanceSection';
import { append, button, clear, h, urlText } from './dom';
import { HarvestView } from './sections/harvestView';
import { HistorySection } from './sections/historySection';
import { ListingSection } from './sections/listingSection';
import type { PanelContext } from './panelContext';
import { resultHeader } from './panelContext';
import { updateRelative } from './sections/tokenSection';
import { renderRequestError, renderTokenComparison, renderTokenResult } from './simpleResults';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: PersistedPanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

class ResultsApp implements PanelContext {
  private readonly api = acquireVsCodeApi();
  private readonly root = document.getElementById('app') as HTMLElement;
  // Toasts for the eye; screen readers hear them (and every other meaningful change) through the one
  // small live region below, never through the page itself, so the token countdown stays silent.
  private readonly notices = h('div', { class: 'notices', 'data-testid': 'notices' });
  private readonly announcer = h('div', {
    class: 'visually-hidden',
    role: 'status',
    'aria-live': 'polite',
    'aria-atomic': 'true',
    'data-testid': 'announcer',
  });
  private panelKey = '';
  private summary: ResultSummary | undefined;
  readonly ui: PanelUiState;
  private result: ResultView | undefined;
  private readonly bodies = new Map<number, BodyView>();
  private listing: ListingSection | undefined;
  private readonly harvest = new HarvestView(
    (message) => this.post(message),
    (text) => this.announce(text),
  );
  private readonly history = new HistorySection(
    (message) => this.post(message),
    (text) => this.announce(text),
  );
  private readonly analysis = new AnalysisView(this);

  constructor() {
    const saved = parsePersistedState(this.api.getState());
    this.ui = saved?.ui ?? {};
    this.panelKey = saved?.panelKey ?? '';
    this.summary = saved?.summary;
    document.body.append(this.notices, this.announcer);
    this.root.before(this.history.element);
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (isHostMessage(event.data)) this.receive(event.data);
    });
    setInterval(() => {
      const now = Date.now();
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-live]'))) updateRelative(el, now);
    }, 1000);
    this.api.postMessage({ type: 'ready' });
  }

  /** Says `text` once in the live region (the same text twice in a row is still announced). */
  announce(text: string): void {
    const same = this.announcer.textContent?.replace(/\u00a0$/, '') === text;
    this.announcer.textContent = same && !this.announcer.textContent?.endsWith('\u00a0') ? `${text}\u00a0` : text;
  }

  post(message: WebviewMessage): void {
    this.api.postMessage(message);
  }

  persist(): void {
    if (!this.panelKey) return;
    this.api.setState({
      version: PERSISTED_STATE_VERSION,
      panelKey: this.panelKey,
      summary: this.summary,
      ui: this.ui,
    });
  }

  rerender(): void {
    this.render();
  }

  /** The listing on screen when it is result `resultId`. */
  private listingOf(resultId: string): ListingSection | undefined {
    return this.listing?.r.id === resultId ? this.listing : undefined;
  }

  private receive(message: HostMessage): void {
    switch (message.type) {
      case 'show': {
        const sameResult = this.result?.id === message.result.id;
        // The host sends a new panel its result at once and again when the page says `ready`.
        if (sameResult && this.root.firstElementChild?.classList.contains('result-header')) return;
        this.panelKey = message.panelKey;
        this.result = message.result;
        const before = this.summary;
        this.summary = message.result.summary;
        if (!sameResult) {
          this.bodies.clear();
          this.ui.pageIndex = 0;
          // A new report keeps the timeline that was open only when it is the same folder's (analysed again).
          if (message.result.kind !== 'analysis' || before?.analysis?.folder !== message.result.folder)
            this.ui.timeline = undefined;
        }
        this.render();
        this.persist();
        this.announce(`${message.result.title}: ${message.result.summary.line}`);
        return;
      }
      case 'restore':
        this.panelKey = message.panelKey;
        this.result = undefined;
        if (message.summary) this.summary = message.summary;
        this.renderRestored(message.analysis);
        this.persist();
        this.announce(this.summary ? l10n.t('Restored: {0}', this.summary.title) : l10n.t('Restored after a reload'));
        return;
      case 'pagesAppended':
        this.listingOf(message.resultId)?.appendPages(message);
        return;
      case 'conformance': {
        const listing = this.listingOf(message.resultId);
        if (!listing) return;
        listing.r.conformance = message.conformance;
        listing.renderConformance();
        if (message.conformance.state === 'checked') this.announce(conformanceVerdict(message.conformance));
        return;
      }
      case 'busy':
        this.listing?.busy(message.action, message.busy);
        return;
      case 'body':
        this.bodies.set(message.body.pageIndex, message.body);
        this.listingOf(message.body.resultId)?.bodyArrived(message.body);
        return;
      case 'notice':
        this.notice(message.text, message.level);
        return;
      case 'harvestProgress':
        this.harvest.progress(
          message.resultId,
          message.heatmap,
          message.running,
          message.stopped,
          message.summaryLine,
          message.step,
        );
        return;
      case 'harvestHour':
        this.harvest.hour(message.resultId, message.hour);
        return;
      case 'history':
        this.history.setEntries(message.entries, message.shownId);
        return;
      case 'historyCompare':
        this.history.showComparison(message.compare);
        return;
      case 'metricsView':
        this.analysis.omf?.answer(message.answer);
        return;
      case 'analysisTimeline':
        this.analysis.timeline(message.timeline);
        return;
    }
  }

  private notice(text: string, level: 'info' | 'error'): void {
    const el = h('div', { class: `notice ${level}` }, text);
    this.notices.appendChild(el);
    this.announce(level === 'error' ? l10n.t('Error: {0}', text) : text);
    setTimeout(() => el.remove(), level === 'error' ? 12_000 : 6000);
  }

  private render(): void {
    const r = this.result;
    clear(this.root);
    this.listing = undefined;
    if (!r) return;
    if (r.kind === 'listing') {
      this.listing = new ListingSection(this, r, this.root, this.bodies);
      this.listing.render();
    } else if (r.kind === 'requestError') renderRequestError(this.root, r, this);
    else if (r.kind === 'compare') renderTokenComparison(this.root, r, this);
    else if (r.kind === 'harvest') this.harvest.render(this.root, r);
    else if (r.kind === 'analysis') this.analysis.render(this.root, r);
    else renderTokenResult(this.root, r, this);
  }

  private renderRestored(analysis?: AnalysisRestore): void {
    clear(this.root);
    this.listing = undefined;
    const s = this.summary;
    if (s?.kind === 'analysis' && s.analysis) {
      this.renderRestoredAnalysis(s, s.analysis.folder, analysis);
      return;
    }
    if (!s) {
      this.root.appendChild(
        h(
          'p',
          { class: 'muted', 'data-testid': 'restored' },
          'This panel was restored after a reload. Results are not kept across reloads; run a request to see one here.',
        ),
      );
      return;
    }
    append(
      this.root,
      resultHeader(
        s.title,
        [s.environmentName ? `${s.environmentName} · ` : '', new Date(s.createdAt).toLocaleString()],
        s.canRunAgain
          ? [button(l10n.t('Run again'), () => this.post({ type: 'runAgain' }), { 'data-testid': 'run-again' })]
          : [],
      ),
      h('p', { 'data-testid': 'restored' }, s.line),
      s.url ? h('p', { class: 'muted' }, urlText(s.url)) : null,
      h(
        'p',
        { class: 'muted' },
        l10n.t(
          'Restored after a reload. The rows and tokens of a result are not stored (a listing can hold 100,000 vehicles, and tokens are secrets); run the request again for a fresh result with a fresh token.',
        ),
      ),
    );
  }

  /** A data-quality report after a reload: analysed again by the host, or why that failed, with a button to analyse again. */
  private renderRestoredAnalysis(s: ResultSummary, folder: string, analysis: AnalysisRestore | undefined): void {
    const again = button(l10n.t('Analyze Again'), () => this.post({ type: 'analyzeAgain' }), {
      'data-testid': 'analyze-again',
    });
    append(
      this.root,
      resultHeader(
        s.title,
        [l10n.t('Folder: {0}', folder), h('br'), h('span', { 'data-testid': 'summary-line' }, s.line)],
        analysis?.state === 'running' ? [] : [again],
      ),
      analysis?.state === 'running'
        ? h(
            'p',
            { role: 'status', 'data-testid': 'restored' },
            l10n.t(
              'Restored after a reload: the report is being made again from the folder (its findings are not stored)…',
            ),
          )
        : h(
            'div',
            { class: 'notice-inline', role: 'alert', 'data-testid': 'restored' },
            h(
              'p',
              null,
              analysis?.state === 'failed'
                ? l10n.t('This report could not be made again after the reload: {0}', analysis.problem)
                : l10n.t(
                    'Restored after a reload. The findings of a report are not stored; analyze the folder again to see them.',
                  ),
            ),
            h(
              'p',
              null,
              l10n.t('Analyze Again runs the rules on {0} again, or asks for the folder when it has moved.', folder),
            ),
          ),
    );
  }
}

new ResultsApp();
