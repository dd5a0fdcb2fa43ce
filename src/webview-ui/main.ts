// The results panel in the browser. It receives view models as structured-clone messages and builds
// DOM with textContent only (see dom.ts); it never sees a raw token and asks the host to copy one.
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
import type {
  BodyView,
  CompareResultView,
  HostMessage,
  ListingResultView,
  PanelUiState,
  PersistedPanelState,
  RequestErrorResultView,
  ResultSummary,
  ResultView,
  TokenResultView,
  WebviewMessage,
} from '../shared/protocol';
import { PERSISTED_STATE_VERSION, concatVehicleColumns, isHostMessage, parsePersistedState } from '../shared/protocol';
import type { DataTableView } from '../shared/dataTable';
import { concatDataTables, vehicleDataTable } from '../shared/dataTable';
import { conformanceVerdict, renderConformance } from './conformanceSection';
import type { Child } from './dom';
import { formatCount, nounText, plural } from '../shared/format';
import { append, button, clear, h, urlText } from './dom';
import { JsonTree } from './jsonTree';
import { renderClockNotice } from './refusalSection';
import { ScatterPlot } from './scatterPlot';
import { renderComparison, renderError, renderPages, renderRequest, renderResponse, renderToken, updateRelative } from './sections';
import { DataGrid } from './dataGrid';
import { itemPointer, rowPlace } from '../shared/gridLayout';
import { HarvestView } from './harvestView';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: PersistedPanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type BodyViewId = NonNullable<PanelUiState['bodyView']>;
const BODY_VIEWS: { id: BodyViewId; label: string }[] = [
  { id: 'table', label: l10n.t('Vehicles') },
  { id: 'tree', label: 'JSON' },
  { id: 'raw', label: l10n.t('Raw') },
  { id: 'plot', label: l10n.t('Positions') },
];

class ResultsApp {
  private readonly api = acquireVsCodeApi();
  private readonly root = document.getElementById('app') as HTMLElement;
  // Toasts for the eye; screen readers hear them (and every other meaningful change) through the one
  // small live region below, never through the page itself, so the token countdown stays silent.
  private readonly notices = h('div', { class: 'notices', 'data-testid': 'notices' });
  private readonly announcer = h('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', 'data-testid': 'announcer' });
  private panelKey = '';
  private summary: ResultSummary | undefined;
  private ui: PanelUiState;
  private result: ResultView | undefined;
  private bodies = new Map<number, BodyView>();
  private table: DataGrid | undefined;
  private conformanceHost: HTMLElement | undefined;
  private tabs: (HTMLElement & { selectedIndex: number }) | undefined;
  private exportButtons: HTMLElement[] = [];
  private plot: ScatterPlot | undefined;
  private tree: JsonTree | undefined;
  private treePage = -1;
  private pageSections: { request?: HTMLElement; token?: HTMLElement; response?: HTMLElement; pages?: HTMLElement; raw?: HTMLElement; treeHost?: HTMLElement } = {};
  private nextButtons: HTMLElement[] = [];
  private readonly harvest = new HarvestView((message) => this.post(message), (text) => this.announce(text));

  constructor() {
    const saved = parsePersistedState(this.api.getState());
    this.ui = saved?.ui ?? {};
    this.panelKey = saved?.panelKey ?? '';
    this.summary = saved?.summary;
    document.body.append(this.notices, this.announcer);
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
  private announce(text: string): void {
    const same = this.announcer.textContent?.replace(/\u00a0$/, '') === text;
    this.announcer.textContent = same && !this.announcer.textContent?.endsWith('\u00a0') ? `${text}\u00a0` : text;
  }

  private post(message: WebviewMessage): void {
    this.api.postMessage(message);
  }

  private persist(): void {
    if (!this.panelKey) return;
    this.api.setState({ version: PERSISTED_STATE_VERSION, panelKey: this.panelKey, summary: this.summary, ui: this.ui });
  }

  private receive(message: HostMessage): void {
    switch (message.type) {
      case 'show': {
        const sameResult = this.result?.id === message.result.id;
        // The host sends a new panel its result at once and again when the page says `ready`.
        if (sameResult && this.root.firstElementChild?.classList.contains('result-header')) return;
        this.panelKey = message.panelKey;
        this.result = message.result;
        this.summary = message.result.summary;
        if (!sameResult) {
          this.bodies.clear();
          this.ui.pageIndex = 0;
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
        this.renderRestored();
        this.persist();
        this.announce(this.summary ? l10n.t('Restored: {0}', this.summary.title) : l10n.t('Restored after a reload'));
        return;
      case 'pagesAppended':
        this.appendPages(message);
        return;
      case 'conformance': {
        const r = this.result;
        if (r?.kind !== 'listing' || r.id !== message.resultId) return;
        r.conformance = message.conformance;
        this.renderConformanceSection();
        if (message.conformance.state === 'checked') this.announce(conformanceVerdict(message.conformance));
        return;
      }
      case 'busy':
        if (message.action === 'export') {
          for (const b of this.exportButtons) b.toggleAttribute('disabled', message.busy);
          if (message.busy) this.announce(l10n.t('Saving…'));
        }
        if (message.action === 'loadNextPage') {
          for (const b of this.nextButtons) {
            b.toggleAttribute('disabled', message.busy);
            if (b.dataset.testid === 'load-next-page') b.textContent = message.busy ? l10n.t('Loading the next page…') : l10n.t('Load next page');
          }
          if (message.busy) this.announce(l10n.t('Loading the next page…'));
        }
        return;
      case 'body':
        this.bodies.set(message.body.pageIndex, message.body);
        if (this.result?.id === message.body.resultId && message.body.pageIndex === this.pageIndex()) this.renderBodyViews();
        return;
      case 'notice':
        this.notice(message.text, message.level);
        return;
      case 'harvestProgress':
        this.harvest.progress(message.resultId, message.heatmap, message.running, message.stopped, message.summaryLine);
        return;
      case 'harvestHour':
        this.harvest.hour(message.resultId, message.hour);
        return;
    }
  }

  private notice(text: string, level: 'info' | 'error'): void {
    const el = h('div', { class: `notice ${level}` }, text);
    this.notices.appendChild(el);
    this.announce(level === 'error' ? l10n.t('Error: {0}', text) : text);
    setTimeout(() => el.remove(), level === 'error' ? 12_000 : 6000);
  }

  private pageIndex(): number {
    const r = this.result;
    if (r?.kind !== 'listing') return 0;
    const i = this.ui.pageIndex ?? 0;
    return i < r.pages.length ? i : 0;
  }

  private header(title: string, sub: Child[], actions: Child[]): HTMLElement {
    return h('header', { class: 'result-header' },
      h('div', null, h('h1', { 'data-testid': 'result-title' }, title), h('p', { class: 'muted sub' }, ...sub)),
      h('div', { class: 'toolbar' }, ...actions));
  }

  private render(): void {
    const r = this.result;
    clear(this.root);
    this.table = undefined;
    this.plot = undefined;
    this.tree = undefined;
    this.treePage = -1;
    this.pageSections = {};
    this.nextButtons = [];
    this.exportButtons = [];
    this.conformanceHost = undefined;
    this.tabs = undefined;
    if (!r) return;
    if (r.kind === 'listing') this.renderListing(r);
    else if (r.kind === 'requestError') this.renderRequestError(r);
    else if (r.kind === 'compare') this.renderComparison(r);
    else if (r.kind === 'harvest') this.harvest.render(this.root, r);
    else this.renderTokenResult(r);
  }

  private environmentLine(r: ResultView): Child[] {
    const env = r.environment;
    if (!env) return [];
    return [h('span', { class: 'badge', translate: 'no' }, env.apiLabel), ' ', env.name, ' · ', h('span', { translate: 'no' }, env.stage), ' · ', urlText(env.baseUrl, { 'data-testid': 'base-url' })];
  }

  private loadAllButton(r: ListingResultView): HTMLElement {
    const b = button(l10n.t('Load all pages'), () => this.post({ type: 'loadAllPages', resultId: r.id }), { 'data-testid': 'load-all-pages', secondary: true });
    this.nextButtons.push(b);
    return b;
  }

  private loadNextButton(r: ListingResultView): HTMLElement {
    const b = button('Load next page', () => this.post({ type: 'loadNextPage', resultId: r.id }), { 'data-testid': 'load-next-page', secondary: true });
    this.nextButtons.push(b);
    return b;
  }

  private renderListing(r: ListingResultView): void {
    const actions: Child[] = [];
    if (r.canCopyCurl) actions.push(button(l10n.t('Copy curl (fresh token)'), () => this.post({ type: 'copyCurl', resultId: r.id, pageIndex: this.pageIndex() }), { 'data-testid': 'copy-curl-top' }));
    actions.push(button(l10n.t('Run again'), () => this.post({ type: 'runAgain' }), { secondary: true, 'data-testid': 'run-again' }));
    if (r.canFetchHours) actions.push(button(l10n.t('Fetch hours…'), () => this.post({ type: 'fetchHours', resultId: r.id }), { secondary: true, 'data-testid': 'fetch-hours', title: l10n.t('Fetch a range of hours of this endpoint into a folder, with a coverage heatmap') }));
    const sub = [...this.environmentLine(r), r.credentialLabel ? l10n.t(' · credential {0}', r.credentialLabel) : '', h('br'), h('span', { 'data-testid': 'summary-line' }, r.summary.line)];
    this.root.appendChild(this.header(r.title, sub, actions));
    if (r.error) this.root.appendChild(renderError(r.error));
    if (r.clockNotice) this.root.appendChild(renderClockNotice(r.clockNotice));
    if (r.stoppedBecause) this.root.appendChild(h('p', { class: 'note', 'data-testid': 'stopped-because' }, `Stopped: ${r.stoppedBecause}.`));
    if (r.conformance && r.conformance.state !== 'notMds') {
      this.conformanceHost = h('div');
      const findings = r.conformance.state === 'checked' && !r.conformance.conforms;
      this.root.appendChild(this.collapsible(conformanceVerdict(r.conformance), this.conformanceHost, findings, 'section-conformance'));
      this.renderConformanceSection();
    }

    const pagesHost = h('div', { class: 'section-body' });
    this.pageSections.pages = pagesHost;
    this.root.appendChild(this.collapsible(pagesHeading(r.pages.length, !!r.nextUrl), pagesHost, r.pages.length > 1 || !!r.nextUrl, 'section-pages'));
    this.renderPagesList();

    this.pageSections.request = h('div');
    this.pageSections.token = h('div');
    this.pageSections.response = h('div');
    const failed = !!r.error;
    this.root.appendChild(this.collapsible(l10n.t('Request'), this.pageSections.request, failed, 'section-request'));
    this.root.appendChild(this.collapsible(l10n.t('Token'), this.pageSections.token, failed && r.error?.status === 401, 'section-token'));
    this.root.appendChild(this.collapsible(l10n.t('Response'), this.pageSections.response, failed, 'section-response'));
    this.renderPageSections();

    this.root.appendChild(this.collapsible(l10n.t('Body'), this.bodySection(r), true, 'section-body'));
  }

  /** The conformance section's content and heading, after the host's check arrived. */
  private renderConformanceSection(): void {
    const r = this.result;
    if (r?.kind !== 'listing') return;
    if (!this.conformanceHost) {
      // The first answer said "checking": the section exists from the first render unless the result is not MDS.
      if (r.conformance?.state === 'notMds') return;
      this.render();
      return;
    }
    clear(this.conformanceHost);
    this.conformanceHost.appendChild(renderConformance(r.conformance, (pageIndex, pointer) => this.jumpTo(pageIndex, pointer)));
    const section = this.root.querySelector('[data-testid="section-conformance"]');
    section?.setAttribute('heading', conformanceVerdict(r.conformance));
    if (r.conformance?.state === 'checked' && !r.conformance.conforms) section?.setAttribute('open', '');
  }

  /** Opens page `pageIndex`'s JSON tree at a JSON Pointer (a conformance finding's place). */
  private jumpTo(pageIndex: number, pointer: string | ((json: unknown) => string)): void {
    const r = this.result;
    if (r?.kind !== 'listing') return;
    this.pendingJump = { pageIndex, pointer };
    if (this.pageIndex() !== pageIndex) {
      this.ui.pageIndex = pageIndex;
      this.renderPagesList();
      this.renderPageSections();
    }
    this.selectBodyView('tree');
    this.root.querySelector('[data-testid="section-body"]')?.setAttribute('open', '');
    this.renderBodyViews();
  }

  private pendingJump: { pageIndex: number; pointer: string | ((json: unknown) => string) } | undefined;

  /** Enter on a table row: its item in its page's JSON tree. */
  private openRow(row: number): void {
    const at = this.result?.kind === 'listing' ? rowPlace(this.result.pages.map((p) => p.itemCount), row) : undefined;
    if (at) this.jumpTo(at.pageIndex, (json) => itemPointer(json, at.itemIndex));
  }

  private selectBodyView(id: BodyViewId): void {
    this.ui.bodyView = id;
    this.persist();
    if (this.tabs) this.tabs.selectedIndex = Math.max(0, BODY_VIEWS.findIndex((v) => v.id === id));
  }

  private exportButton(label: string, format: 'csv' | 'geojson' | 'raw', testid: string): HTMLElement {
    const r = this.result;
    const b = button(label, () => {
      if (r?.kind !== 'listing') return;
      this.post({ type: 'export', resultId: r.id, format, query: this.table?.query ?? {}, pageIndex: this.pageIndex() });
    }, { secondary: true, 'data-testid': testid, title: format === 'raw' ? l10n.t('Save this page\'s body as received (tokens removed)') : format === 'csv' ? l10n.t('Save the rows shown (as filtered and sorted) as CSV') : l10n.t('Save the rows shown (as filtered and sorted) as GeoJSON points') });
    this.exportButtons.push(b);
    return b;
  }

  private collapsible(heading: string, content: HTMLElement, open: boolean, testid: string): HTMLElement {
    return h('vscode-collapsible', { heading, open, 'data-testid': testid }, content);
  }

  private renderPagesList(): void {
    const r = this.result;
    const host = this.pageSections.pages;
    if (r?.kind !== 'listing' || !host) return;
    // Choosing a page rebuilds the list: keep the keyboard focus on the chosen page.
    const hadFocus = host.contains(document.activeElement);
    clear(host);
    this.nextButtons = [];
    host.appendChild(renderPages(r.pages, this.pageIndex(), (index) => this.selectPage(index)));
    const more: Child[] = [];
    if (r.canLoadNext) more.push(this.loadNextButton(r));
    if (r.canLoadNext && r.canLoadAll) more.push(this.loadAllButton(r));
    if (r.nextUrl) more.push(h('span', { class: 'muted' }, 'Next: ', urlText(r.nextUrl, { 'data-testid': 'next-url' })));
    else more.push(h('span', { class: 'muted' }, l10n.t('This is the last page.')));
    host.appendChild(h('div', { class: 'toolbar' }, ...more));
    if (hadFocus) host.querySelector<HTMLElement>('[aria-current="true"]')?.focus();
  }

  private selectPage(index: number): void {
    this.ui.pageIndex = index;
    this.persist();
    this.renderPagesList();
    this.renderPageSections();
    this.renderBodyViews();
  }

  private renderPageSections(): void {
    const r = this.result;
    if (r?.kind !== 'listing') return;
    const page = r.pages[this.pageIndex()];
    const { request, token, response } = this.pageSections;
    if (!page || !request || !token || !response) return;
    const actions = {
      copyToken: (i: number) => this.post({ type: 'copyToken', resultId: r.id, pageIndex: i }),
      copyCurl: r.canCopyCurl ? (i: number) => this.post({ type: 'copyCurl', resultId: r.id, pageIndex: i }) : undefined,
      copyPayload: (i: number) => this.post({ type: 'copyPayload', resultId: r.id, pageIndex: i }),
    };
    const label = r.pages.length > 1 ? h('p', { class: 'muted' }, l10n.t('Page {0} of {1} (choose another under Pages)', formatCount(page.index + 1), formatCount(r.pages.length))) : null;
    clear(request);
    request.append(...[label, renderRequest(page.request, page, actions)].filter((x): x is HTMLElement => !!x));
    clear(token);
    token.appendChild(page.token ? renderToken(page.token, page.index, actions) : h('p', { class: 'muted' }, 'No token was decoded for this page.'));
    clear(response);
    response.appendChild(renderResponse(page.response));
  }

  private bodySection(r: ListingResultView): HTMLElement {
    const data = tableOf(r);
    const hasRows = data.count > 0;
    const initial = this.ui.bodyView ?? (hasRows ? 'table' : 'tree');
    const tabs = h('vscode-tabs', { 'data-testid': 'body-tabs' }) as HTMLElement & { selectedIndex: number };
    this.tabs = tabs;
    const panels = new Map<BodyViewId, HTMLElement>();
    const noun = nounText(data.noun[1]);
    const tableLabel = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}`;
    for (const view of BODY_VIEWS) {
      tabs.appendChild(h('vscode-tab-header', { slot: 'header', 'data-testid': `view-${view.id}`, id: `tab-${view.id}` }, view.id === 'table' ? (r.table || !hasRows ? tableLabel : view.label) : view.label));
      const panel = h('vscode-tab-panel', { 'data-testid': `panel-${view.id}` });
      panels.set(view.id, panel);
      tabs.appendChild(panel);
    }
    tabs.selectedIndex = Math.max(0, BODY_VIEWS.findIndex((v) => v.id === initial));
    this.ui.bodyView = initial;

    this.table = new DataGrid({
      sortColumn: this.ui.sortColumn,
      sortDescending: this.ui.sortDescending,
      filter: this.ui.filter,
      stateFilter: this.ui.stateFilter,
    }, (state, rows) => {
      this.ui.sortColumn = state.sortColumn;
      this.ui.sortDescending = state.sortDescending;
      this.ui.filter = state.filter;
      this.ui.stateFilter = state.stateFilter;
      this.persist();
      if (this.plot && this.table?.data) this.plot.setData(this.table.data, rows);
    }, (text) => this.announce(text), (row) => this.openRow(row));
    this.plot = new ScatterPlot();
    this.tree = new JsonTree((text) => this.announce(text));
    this.pageSections.treeHost = h('div');
    this.pageSections.raw = h('div');
    const tablePanel = panels.get('table') as HTMLElement;
    tablePanel.appendChild(hasRows ? this.table.element : h('p', { class: 'muted', 'data-testid': 'no-vehicles' }, noRowsText(r, data)));
    (panels.get('plot') as HTMLElement).appendChild(this.plot.element);
    (panels.get('tree') as HTMLElement).appendChild(this.pageSections.treeHost);
    (panels.get('raw') as HTMLElement).appendChild(this.pageSections.raw);
    this.table.setData(data);
    if (r.canExport && hasRows) {
      this.table.toolbar.append(this.exportButton(l10n.t('Save CSV'), 'csv', 'export-csv'));
      if (data.columns.some((c) => c.type === 'position')) this.table.toolbar.append(this.exportButton(l10n.t('Save GeoJSON'), 'geojson', 'export-geojson'));
    }
    this.plot.setData(data, this.table.rows);

    tabs.addEventListener('vsc-tabs-select', (event) => {
      const index = (event as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex;
      this.ui.bodyView = BODY_VIEWS[index]?.id ?? 'table';
      this.persist();
      this.renderBodyViews();
    });
    this.renderBodyViews();
    return h('div', { class: 'section-body' }, tabs);
  }

  /** The JSON tree and Raw views of the selected page, asking the host for the body when needed. */
  private renderBodyViews(): void {
    const r = this.result;
    const { treeHost, raw } = this.pageSections;
    if (r?.kind !== 'listing' || !treeHost || !raw || !this.tree) return;
    const view = this.ui.bodyView;
    if (view !== 'tree' && view !== 'raw') return;
    const index = this.pageIndex();
    const body = this.bodies.get(index);
    const pageNote = r.pages.length > 1 ? l10n.t('Page {0} of {1}. ', formatCount(index + 1), formatCount(r.pages.length)) : '';
    if (!body) {
      clear(treeHost);
      clear(raw);
      const loading = h('p', { class: 'muted' }, pageNote, l10n.t('Loading the body…'));
      (view === 'tree' ? treeHost : raw).appendChild(loading);
      this.post({ type: 'requestBody', resultId: r.id, pageIndex: index });
      return;
    }
    if (view === 'tree' && this.treePage !== index) {
      this.treePage = index;
      clear(treeHost);
      if (pageNote) treeHost.appendChild(h('p', { class: 'muted' }, pageNote));
      if (body.bodyKind === 'json') {
        this.tree.setValue(body.json);
        treeHost.appendChild(this.tree.element);
      } else {
        treeHost.appendChild(h('p', { class: 'muted' }, body.bodyKind === 'empty' ? l10n.t('The body is empty.') : l10n.t('The body is not JSON; see Raw.')));
      }
    }
    const jump = this.pendingJump;
    if (view === 'tree' && jump && jump.pageIndex === index) {
      this.pendingJump = undefined;
      if (body.bodyKind === 'json') this.tree.revealPointer(typeof jump.pointer === 'string' ? jump.pointer : jump.pointer(body.json));
    }
    if (view === 'raw') {
      clear(raw);
      const notes: Child[] = [];
      if (body.rawReserialised) notes.push(l10n.t('The received text was too large to keep; this is the parsed body written out again. '));
      if (body.rawTruncated) notes.push(l10n.t('Showing the first {0} of {1} characters. ', formatCount(body.raw.length), formatCount(body.rawTotalChars)));
      raw.append(
        h('div', { class: 'toolbar' }, h('span', { class: 'muted' }, pageNote, ...notes), button(l10n.t('Open in editor'), () => this.post({ type: 'openInEditor', resultId: r.id, pageIndex: index }), { secondary: true, 'data-testid': 'open-in-editor' }),
          r.canExport && body.bodyKind !== 'empty' ? this.exportButton(l10n.t('Save body'), 'raw', 'export-raw') : null),
        h('pre', { class: 'code raw', 'data-testid': 'raw-body', tabindex: 0 }, body.bodyKind === 'empty' ? '' : body.raw),
      );
    }
  }

  private appendPages(message: Extract<HostMessage, { type: 'pagesAppended' }>): void {
    const r = this.result;
    if (r?.kind !== 'listing' || r.id !== message.resultId) return;
    r.pages.push(...message.pages);
    const wasEmpty = tableOf(r).count === 0;
    r.vehicles = concatVehicleColumns(r.vehicles, message.vehicles);
    if (r.table && message.table) r.table = concatDataTables(r.table, message.table);
    r.nextUrl = message.nextUrl;
    r.stoppedBecause = message.stoppedBecause;
    r.canLoadNext = message.canLoadNext;
    r.canLoadAll = message.canLoadAll;
    if (message.error && !r.error) r.error = message.error;
    const last = message.pages[message.pages.length - 1];
    r.summary.line = message.summaryLine ?? `${last ? `${last.response.status} ${last.response.statusText}`.trim() : ''} · ${plural(r.vehicles.count, 'vehicle')} · ${plural(r.pages.length, 'page')}`;
    this.summary = r.summary;
    this.persist();
    const first = message.pages[0];
    if (first) this.announce(`${message.pages.length === 1 ? l10n.t('Page {0} loaded', first.index + 1) : l10n.t('Pages {0} to {1} loaded', first.index + 1, first.index + message.pages.length)}: ${r.summary.line}${message.error ? l10n.t('. Error: {0}', message.error.title) : ''}`);
    if (wasEmpty || message.error) {
      this.render();
      return;
    }
    this.table?.setData(tableOf(r), true);
    const summaryLine = this.root.querySelector('[data-testid="summary-line"]');
    if (summaryLine) summaryLine.textContent = r.summary.line;
    const pagesSection = this.root.querySelector('[data-testid="section-pages"]');
    pagesSection?.setAttribute('heading', pagesHeading(r.pages.length, !!r.nextUrl));
    this.renderPagesList();
  }

  private renderRequestError(r: RequestErrorResultView): void {
    this.root.appendChild(this.header(r.title, this.environmentLine(r), [button(l10n.t('Run again'), () => this.post({ type: 'runAgain' }), { 'data-testid': 'run-again' })]));
    this.root.appendChild(renderError(r.error, r.url ? h('p', null, 'Request: GET ', urlText(r.url, { 'data-testid': 'request-url' })) : null));
  }

  private renderTokenResult(r: TokenResultView): void {
    this.root.appendChild(this.header(r.title, this.environmentLine(r), []));
    const actions = {
      copyToken: () => this.post({ type: 'copyToken', resultId: r.id, pageIndex: 0 }),
      copyPayload: () => this.post({ type: 'copyPayload', resultId: r.id, pageIndex: 0 }),
    };
    this.root.appendChild(this.collapsible(l10n.t('Token'), renderToken(r.token, 0, actions), true, 'section-token'));
  }

  private renderComparison(r: CompareResultView): void {
    this.root.appendChild(this.header(r.title, [h('span', { 'data-testid': 'summary-line' }, r.summary.line)], []));
    const actions = {
      copyToken: (i: number) => this.post({ type: 'copyToken', resultId: r.id, pageIndex: i }),
      copyPayload: (i: number) => this.post({ type: 'copyPayload', resultId: r.id, pageIndex: i }),
    };
    this.root.appendChild(this.collapsible(l10n.t('Comparison'), renderComparison(r, actions), true, 'section-compare'));
  }

  private renderRestored(): void {
    clear(this.root);
    const s = this.summary;
    if (!s) {
      this.root.appendChild(h('p', { class: 'muted', 'data-testid': 'restored' }, 'This panel was restored after a reload. Results are not kept across reloads; run a request to see one here.'));
      return;
    }
    append(this.root,
      this.header(s.title, [s.environmentName ? `${s.environmentName} · ` : '', new Date(s.createdAt).toLocaleString()], s.canRunAgain ? [button(l10n.t('Run again'), () => this.post({ type: 'runAgain' }), { 'data-testid': 'run-again' })] : []),
      h('p', { 'data-testid': 'restored' }, s.line),
      s.url ? h('p', { class: 'muted' }, urlText(s.url)) : null,
      h('p', { class: 'muted' }, l10n.t('Restored after a reload. The rows and tokens of a result are not stored (a listing can hold 100,000 vehicles, and tokens are secrets); run the request again for a fresh result with a fresh token.')),
    );
  }
}

/** The Pages section's heading: "Pages (3)", "Pages (3, more available)". */
function pagesHeading(count: number, more: boolean): string {
  return more ? l10n.t('Pages ({0}, more available)', formatCount(count)) : l10n.t('Pages ({0})', formatCount(count));
}

/** The table a listing shows: its resource table, or its vehicles. */
function tableOf(r: ListingResultView): DataTableView {
  return r.table ?? vehicleDataTable(r.vehicles, r.shape === 'mds-status' ? 'vehicles_status' : r.shape === 'maas' ? 'maas_vehicles' : 'vehicles');
}

/** Why the table is empty, by how the request ended. */
function noRowsText(r: ListingResultView, data: DataTableView): string {
  const many = nounText(data.noun[1]);
  if (r.error) return l10n.t('The answer holds no {0}: see the error above and the JSON view.', many);
  switch (r.outcome) {
    case 'not_processed': return l10n.t('The provider has not processed this hour yet: {0}.', r.summary.line);
    case 'empty': return l10n.t('No {0}: {1}.', many, r.summary.line);
    case 'body': return l10n.t('The body holds no list of items this panel shows as a table. See the JSON view.');
    default: return r.table || r.outcome ? l10n.t('No {0}. See the JSON view.', many) : l10n.t('The body holds no vehicles array (vehicles or vehicles_status). See the JSON view.');
  }
}

new ResultsApp();
