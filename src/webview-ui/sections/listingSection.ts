// A listing (any request's answer) in the results panel: the header with the token behind it, the error, the
// conformance verdict, the pages, the selected page's request, token and response, and the Body tabs.
import * as l10n from '@vscode/l10n';
import { concatDataTables } from '../../shared/dataTableBuild';
import { formatCount, plural } from '../../shared/format';
import type { BodyView, ListingResultView } from '../../shared/listingViews';
import { concatVehicleColumns } from '../../shared/listingViews';
import type { HostMessage } from '../../shared/protocol';
import { BodyTabs, tableOf } from './bodyTabs';
import type { JsonPlace } from './bodyTabs';
import { conformanceVerdict, renderConformance } from './conformanceSection';
import { grpcActions, renderGrpcParts, renderGrpcSections } from './grpcSection';
import type { Child } from '../dom';
import { button, clear, focusedIn, h, urlText } from '../dom';
import type { PanelContext } from '../panelContext';
import { collapsible, environmentLine, resultHeader, tokenFactsLine } from '../panelContext';
import { renderClockNotice } from './refusalSection';
import { renderError, renderPages, renderRequest, renderResponse } from './sectionParts';
import { renderToken } from './tokenSection';
import { itemPointer, rowPlace } from '../../shared/gridLayout';
import { assertionList } from './assertionList';

/** The Pages section's heading: "Pages (3)", "Pages (3, more available)". */
function pagesHeading(count: number, more: boolean): string {
  return more ? l10n.t('Pages ({0}, more available)', formatCount(count)) : l10n.t('Pages ({0})', formatCount(count));
}

/** One listing on screen; `root` is the panel's main element, rendered into once. */
export class ListingSection {
  private readonly pageSections: {
    request?: HTMLElement;
    token?: HTMLElement;
    response?: HTMLElement;
    pages?: HTMLElement;
  } = {};
  private nextButtons: HTMLElement[] = [];
  private grpcButtons: HTMLElement[] = [];
  /** A long stream's part chooser for the JSON and Raw views. */
  private partNav: HTMLElement | undefined;
  private conformanceHost: HTMLElement | undefined;
  private body: BodyTabs | undefined;

  constructor(
    private readonly ctx: PanelContext,
    readonly r: ListingResultView,
    private readonly root: HTMLElement,
    private readonly bodies: Map<number, BodyView>,
  ) {}

  /** The page shown below the Pages list. */
  pageIndex(): number {
    const i = this.ctx.ui.pageIndex ?? 0;
    return i < this.r.pages.length ? i : 0;
  }

  render(): void {
    if (this.r.grpc) {
      this.renderGrpc(this.r.grpc);
      return;
    }
    const { r, ctx } = this;
    const actions: Child[] = [];
    if (r.canCopyCurl)
      actions.push(
        button(
          l10n.t('Copy curl (fresh token)'),
          () => ctx.post({ type: 'copyCurl', resultId: r.id, pageIndex: this.pageIndex() }),
          { 'data-testid': 'copy-curl-top' },
        ),
      );
    actions.push(
      button(l10n.t('Run again'), () => ctx.post({ type: 'runAgain' }), {
        secondary: true,
        'data-testid': 'run-again',
      }),
    );
    if (r.canFetchHours)
      actions.push(
        button(l10n.t('Fetch hours…'), () => ctx.post({ type: 'fetchHours', resultId: r.id }), {
          secondary: true,
          'data-testid': 'fetch-hours',
          title: l10n.t('Fetch a range of hours of this endpoint into a folder, with a coverage heatmap'),
        }),
      );
    const tokenLine = tokenFactsLine(r.tokenFacts, r.pages.length);
    const sub = [
      ...environmentLine(r),
      r.credentialLabel ? l10n.t(' · credential {0}', r.credentialLabel) : '',
      h('br'),
      h('span', { 'data-testid': 'summary-line' }, r.summary.line),
      tokenLine ? h('br') : null,
      tokenLine,
      assertionList(r.assertions),
    ];
    this.root.appendChild(resultHeader(r.title, sub, actions));
    if (r.error) this.root.appendChild(renderError(r.error));
    if (r.clockNotice) this.root.appendChild(renderClockNotice(r.clockNotice));
    if (r.stoppedBecause)
      this.root.appendChild(
        h('p', { class: 'note', 'data-testid': 'stopped-because' }, `Stopped: ${r.stoppedBecause}.`),
      );
    if (r.conformance && r.conformance.state !== 'notMds') {
      this.conformanceHost = h('div');
      const findings = r.conformance.state === 'checked' && !r.conformance.conforms;
      this.root.appendChild(
        collapsible(conformanceVerdict(r.conformance), this.conformanceHost, findings, 'section-conformance'),
      );
      this.renderConformance();
    }

    const pagesHost = h('div', { class: 'section-body' });
    this.pageSections.pages = pagesHost;
    this.root.appendChild(
      collapsible(
        pagesHeading(r.pages.length, !!r.nextUrl),
        pagesHost,
        r.pages.length > 1 || !!r.nextUrl,
        'section-pages',
      ),
    );
    this.renderPagesList();

    this.pageSections.request = h('div');
    this.pageSections.token = h('div');
    this.pageSections.response = h('div');
    const failed = !!r.error;
    this.root.appendChild(collapsible(l10n.t('Request'), this.pageSections.request, failed, 'section-request'));
    this.root.appendChild(
      collapsible(l10n.t('Token'), this.pageSections.token, failed && r.error?.status === 401, 'section-token'),
    );
    this.root.appendChild(collapsible(l10n.t('Response'), this.pageSections.response, failed, 'section-response'));
    this.renderPageSections();

    this.body = new BodyTabs(
      ctx,
      r,
      this.bodies,
      () => this.pageIndex(),
      (row) => this.openRow(row),
    );
    this.root.appendChild(collapsible(l10n.t('Body'), this.body.element, true, 'section-body'));
  }

  /** A gRPC call's answer: its call, details, metadata and token sections instead of pages, request and response. */
  private renderGrpc(call: NonNullable<ListingResultView['grpc']>): void {
    const { r, ctx } = this;
    this.grpcButtons = grpcActions(r, call, ctx);
    const tokenLine = tokenFactsLine(r.tokenFacts, 1);
    const sub = [
      ...environmentLine(r),
      r.credentialLabel ? l10n.t(' · credential {0}', r.credentialLabel) : '',
      h('br'),
      h('span', { 'data-testid': 'summary-line' }, r.summary.line),
      tokenLine ? h('br') : null,
      tokenLine,
      assertionList(r.assertions),
    ];
    this.root.appendChild(resultHeader(r.title, sub, this.grpcButtons));
    if (r.error) this.root.appendChild(renderError(r.error));
    this.root.append(...renderGrpcSections(r, call, ctx));
    this.body = new BodyTabs(
      ctx,
      r,
      this.bodies,
      () => this.pageIndex(),
      (row) => (call.streamed ? this.openRow(row) : this.jumpTo(0, '')),
    );
    this.partNav = r.pages.length > 1 ? h('div', { class: 'toolbar', 'data-testid': 'grpc-parts' }) : undefined;
    this.renderPartNav();
    this.root.appendChild(
      collapsible(l10n.t('Body'), h('div', null, this.partNav, this.body.element), true, 'section-body'),
    );
  }

  /** A long stream's JSON and Raw views show one part of its messages at a time: which one, and the way to the others. */
  private renderPartNav(): void {
    const nav = this.partNav;
    if (!nav) return;
    renderGrpcParts(nav, this.r.pages, this.pageIndex(), (to) => {
      this.ctx.ui.pageIndex = to;
      this.ctx.persist();
      this.renderPartNav();
      this.body?.renderViews();
      this.ctx.announce(nav.querySelector('[data-testid="grpc-part"]')?.textContent ?? '');
    });
  }

  /** The conformance section's content and heading, after the host's check arrived. */
  renderConformance(): void {
    const r = this.r;
    if (!this.conformanceHost) {
      // The first answer said "checking": the section exists from the first render unless the result is not MDS.
      if (r.conformance?.state === 'notMds') return;
      this.ctx.rerender();
      return;
    }
    clear(this.conformanceHost);
    if (!r.conformance) return;
    this.conformanceHost.appendChild(
      renderConformance(r.conformance, (pageIndex, pointer) => this.jumpTo(pageIndex, pointer)),
    );
    const section = this.root.querySelector('[data-testid="section-conformance"]');
    section?.setAttribute('heading', conformanceVerdict(r.conformance));
    if (r.conformance?.state === 'checked' && !r.conformance.conforms) section?.setAttribute('open', '');
  }

  /** Enter on a table row: its item in its page's JSON tree. */
  private openRow(row: number): void {
    const at = rowPlace(
      this.r.pages.map((p) => p.itemCount),
      row,
    );
    if (at) this.jumpTo(at.pageIndex, (json) => itemPointer(json, at.itemIndex));
  }

  /** Opens page `pageIndex`'s JSON tree at a JSON Pointer (a conformance finding's place, or a row's item). */
  private jumpTo(pageIndex: number, pointer: JsonPlace): void {
    if (this.pageIndex() !== pageIndex) {
      this.ctx.ui.pageIndex = pageIndex;
      this.renderPagesList();
      this.renderPageSections();
      this.renderPartNav();
    }
    this.root.querySelector('[data-testid="section-body"]')?.setAttribute('open', '');
    this.body?.jumpTo(pageIndex, pointer);
  }

  /** The host is busy with (or done with) loading pages or saving. */
  busy(action: Extract<HostMessage, { type: 'busy' }>['action'], busy: boolean): void {
    if (action === 'export') {
      for (const b of this.body?.exportButtons ?? []) b.toggleAttribute('disabled', busy);
      if (busy) this.ctx.announce(l10n.t('Saving…'));
    }
    if (action === 'copyGrpcurl') {
      for (const b of this.grpcButtons) if (b.dataset.testid === 'copy-grpcurl') b.toggleAttribute('disabled', busy);
    }
    if (action === 'loadNextPage') {
      for (const b of this.nextButtons) {
        b.toggleAttribute('disabled', busy);
        if (b.dataset.testid === 'load-next-page')
          b.textContent = busy ? l10n.t('Loading the next page…') : l10n.t('Load next page');
      }
      if (busy) this.ctx.announce(l10n.t('Loading the next page…'));
    }
  }

  /** A page's body arrived: the tree or Raw view shows it when it is the page selected. */
  bodyArrived(body: BodyView): void {
    if (body.pageIndex === this.pageIndex()) this.body?.renderViews();
  }

  private renderPagesList(): void {
    const r = this.r;
    const host = this.pageSections.pages;
    if (!host) return;
    // Choosing a page rebuilds the list: keep the keyboard focus on the chosen page.
    const hadFocus = focusedIn(host) !== undefined;
    clear(host);
    this.nextButtons = [];
    host.appendChild(renderPages(r.pages, this.pageIndex(), (index) => this.selectPage(index)));
    const more: Child[] = [];
    if (r.canLoadNext) more.push(this.nextButton('Load next page', 'loadNextPage', 'load-next-page'));
    if (r.canLoadNext && r.canLoadAll)
      more.push(this.nextButton(l10n.t('Load all pages'), 'loadAllPages', 'load-all-pages'));
    if (r.nextUrl)
      more.push(h('span', { class: 'muted' }, 'Next: ', urlText(r.nextUrl, { 'data-testid': 'next-url' })));
    else more.push(h('span', { class: 'muted' }, l10n.t('This is the last page.')));
    host.appendChild(h('div', { class: 'toolbar' }, ...more));
    if (hadFocus) host.querySelector<HTMLElement>('[aria-current="true"]')?.focus();
  }

  private nextButton(label: string, type: 'loadNextPage' | 'loadAllPages', testid: string): HTMLElement {
    const b = button(label, () => this.ctx.post({ type, resultId: this.r.id }), {
      'data-testid': testid,
      secondary: true,
    });
    this.nextButtons.push(b);
    return b;
  }

  private selectPage(index: number): void {
    this.ctx.ui.pageIndex = index;
    this.ctx.persist();
    this.renderPagesList();
    this.renderPageSections();
    this.body?.renderViews();
  }

  private renderPageSections(): void {
    const r = this.r;
    const page = r.pages[this.pageIndex()];
    const { request, token, response } = this.pageSections;
    if (!page || !request || !token || !response) return;
    const post = this.ctx.post.bind(this.ctx);
    const actions = {
      copyToken: (i: number) => post({ type: 'copyToken', resultId: r.id, pageIndex: i }),
      copyCurl: r.canCopyCurl ? (i: number) => post({ type: 'copyCurl', resultId: r.id, pageIndex: i }) : undefined,
      copyPayload: (i: number) => post({ type: 'copyPayload', resultId: r.id, pageIndex: i }),
    };
    const label =
      r.pages.length > 1
        ? h(
            'p',
            { class: 'muted' },
            l10n.t(
              'Page {0} of {1} (choose another under Pages)',
              formatCount(page.index + 1),
              formatCount(r.pages.length),
            ),
          )
        : null;
    clear(request);
    request.append(...[label, renderRequest(page.request, page, actions)].filter((x): x is HTMLElement => !!x));
    clear(token);
    token.appendChild(
      page.token
        ? renderToken(page.token, page.index, actions)
        : h('p', { class: 'muted' }, 'No token was decoded for this page.'),
    );
    clear(response);
    response.appendChild(renderResponse(page.response));
  }

  /** More pages arrived: the table grows, the summary line and the Pages section follow. Returns the new summary line. */
  appendPages(message: Extract<HostMessage, { type: 'pagesAppended' }>): void {
    const r = this.r;
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
    r.summary.line =
      message.summaryLine ??
      `${last ? `${last.response.status} ${last.response.statusText}`.trim() : ''} · ${plural(r.vehicles.count, 'vehicle')} · ${plural(r.pages.length, 'page')}`;
    this.ctx.persist();
    const first = message.pages[0];
    if (first)
      this.ctx.announce(
        `${message.pages.length === 1 ? l10n.t('Page {0} loaded', first.index + 1) : l10n.t('Pages {0} to {1} loaded', first.index + 1, first.index + message.pages.length)}: ${r.summary.line}${message.error ? l10n.t('. Error: {0}', message.error.title) : ''}`,
      );
    if (wasEmpty || message.error) {
      this.ctx.rerender();
      return;
    }
    this.body?.appendRows();
    const summaryLine = this.root.querySelector('[data-testid="summary-line"]');
    if (summaryLine) summaryLine.textContent = r.summary.line;
    const pagesSection = this.root.querySelector('[data-testid="section-pages"]');
    pagesSection?.setAttribute('heading', pagesHeading(r.pages.length, !!r.nextUrl));
    this.renderPagesList();
  }
}
