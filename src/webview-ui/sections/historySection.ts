// The panel's history (issue #24): this session's sends in this panel, newest first, each with its endpoint and
// path, time, HTTP status and the jti of the token behind it. Choosing one shows it again; picking two and
// "Compare" asks the host for a side-by-side summary (status, timing, counts, headers, items by id).
import * as l10n from '@vscode/l10n';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import { formatCount } from '../../shared/format';
import type { CompareSideView, HistoryCompareView, HistoryEntryView, ItemDiffView } from '../../shared/historyViews';
import type { GrpcStatusMark } from '../../shared/historyViews';
import { HISTORY_KEPT_IN_FULL } from '../../shared/historyViews';
import type { WebviewMessage } from '../../shared/protocol';
import type { Child } from '../dom';
import { button, clear, dataText, focusedIn, formatMs, h } from '../dom';
import { grpcStatusBadge, statusBadge } from './sectionParts';

type Checkbox = HTMLElement & { checked: boolean };

function timeText(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

function statusOf(e: { status?: number; statusText?: string; grpc?: GrpcStatusMark }): Child {
  if (e.grpc) return grpcStatusBadge(e.grpc.status, e.grpc.ok);
  return e.status === undefined
    ? h('span', { class: 'muted' }, l10n.t('no answer'))
    : statusBadge(e.status, e.statusText ?? '');
}

function jtiOf(jti: string | undefined): Child {
  return jti ? h('code', { translate: 'no' }, jti) : h('span', { class: 'muted' }, l10n.t('none'));
}

/** The history: one closed line above the result, "History (3)", opened by the user. Hidden while the panel has no send. */
export class HistorySection {
  readonly element = h('section', { class: 'history', 'aria-label': l10n.t('History'), 'data-testid': 'history' });
  private readonly collapsible = h('vscode-collapsible', {
    heading: l10n.t('History'),
    'data-testid': 'section-history',
  });
  private readonly list = h('div', { class: 'section-body' });
  private readonly compareHost = h('div', { 'data-testid': 'history-compare-result' });
  private entries: HistoryEntryView[] = [];
  /** The ids picked for Compare, in the order picked (at most two). */
  private picked: string[] = [];

  constructor(
    private readonly post: (message: WebviewMessage) => void,
    private readonly announce: (text: string) => void,
  ) {
    this.collapsible.append(this.list, this.compareHost);
    this.element.appendChild(this.collapsible);
    this.element.toggleAttribute('hidden', true);
  }

  /** The host's list, newest first, and the entry shown. */
  setEntries(entries: HistoryEntryView[], shownId: string | undefined): void {
    this.entries = entries;
    this.picked = this.picked.filter((id) => entries.some((e) => e.id === id && e.kept && e.kind === 'listing'));
    this.element.toggleAttribute('hidden', entries.length === 0);
    // Closed until the user opens it, its count on its title: the result comes first, the table above the fold.
    this.collapsible.setAttribute('heading', l10n.t('History ({0})', formatCount(entries.length)));
    this.renderList(shownId);
  }

  private renderList(shownId: string | undefined): void {
    const hadFocus = focusedIn(this.list)?.dataset.id;
    clear(this.list);
    const compare = button(
      l10n.t('Compare the two picked'),
      () => {
        const [a, b] = this.picked;
        if (a && b) this.post({ type: 'compareHistory', leftId: a, rightId: b });
      },
      { 'data-testid': 'history-compare', secondary: true, disabled: this.picked.length !== 2 },
    );
    const rows = this.entries.map((e) => {
      const current = e.id === shownId;
      const show = h(
        'button',
        {
          type: 'button',
          class: 'page-select',
          'data-testid': 'history-show',
          'data-id': e.id,
          'aria-current': current ? 'true' : undefined,
          disabled: !e.kept,
          title: e.kept
            ? l10n.t('Show this result again')
            : e.canRunAgain
              ? l10n.t('Only its summary is kept: Run again sends the request again')
              : l10n.t('Only its summary is kept; run the request again'),
        },
        dataText(`${e.method} ${e.path}`),
      );
      show.addEventListener('click', () => this.post({ type: 'showHistoryEntry', resultId: e.id }));
      // The checkbox's name is for screen readers only; the row shows what it is.
      const pick = h(
        'vscode-checkbox',
        { 'data-testid': 'history-pick', 'data-id': e.id, disabled: !e.kept || e.kind !== 'listing' },
        h(
          'span',
          { class: 'visually-hidden' },
          l10n.t('Compare {0} of {1}', `${e.method} ${e.path}`, timeText(e.createdAt)),
        ),
      ) as Checkbox;
      pick.checked = this.picked.includes(e.id);
      pick.addEventListener('change', () => {
        this.picked = this.picked.filter((id) => id !== e.id);
        if (pick.checked) this.picked.push(e.id);
        // A third pick replaces the first.
        if (this.picked.length > 2) this.picked.shift();
        this.renderList(shownId);
      });
      // A summary-only entry cannot be shown again, but its request can be sent again (a new result, on top).
      const again =
        !e.kept && e.canRunAgain
          ? button(l10n.t('Run again'), () => this.post({ type: 'runHistoryEntryAgain', resultId: e.id }), {
              'data-testid': 'history-run-again',
              'data-id': e.id,
              secondary: true,
              title: l10n.t('Send {0} again with a fresh token', `${e.method} ${e.path}`),
            })
          : null;
      return h(
        'tr',
        { class: current ? 'selected' : undefined, 'data-testid': 'history-entry', 'data-id': e.id },
        h('td', null, pick),
        h('td', null, show, h('div', { class: 'muted' }, e.title, e.kept ? null : l10n.t(' · summary only')), again),
        h('td', null, statusOf(e)),
        h('td', { class: 'num' }, timeText(e.createdAt)),
        h('td', { 'data-testid': 'history-jti' }, jtiOf(e.jti)),
      );
    });
    this.list.append(
      h(
        'p',
        { class: 'muted' },
        l10n.t(
          "This session's requests in this panel, newest first. The last {0} keep everything and can be shown again and compared; older ones keep their summary only, and Run again sends their request again. Nothing here is kept after a reload.",
          HISTORY_KEPT_IN_FULL,
        ),
      ),
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'pages history-table', 'data-testid': 'history-table' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, l10n.t('Compare')),
              h('th', { scope: 'col' }, l10n.t('Request')),
              h('th', { scope: 'col' }, l10n.t('Status')),
              h('th', { scope: 'col' }, l10n.t('Time')),
              h('th', { scope: 'col' }, l10n.t('Token jti')),
            ),
          ),
          h('tbody', null, ...rows),
        ),
      ),
      h(
        'div',
        { class: 'toolbar' },
        compare,
        h(
          'span',
          { class: 'muted', 'data-testid': 'history-pick-hint' },
          this.picked.length === 2 ? l10n.t('Two picked.') : l10n.t('Pick two answers to compare them.'),
        ),
      ),
    );
    if (hadFocus) this.list.querySelector<HTMLElement>(`[data-id="${CSS.escape(hadFocus)}"]`)?.focus();
  }

  /** The host's comparison of the two picked. */
  showComparison(view: HistoryCompareView): void {
    clear(this.compareHost);
    this.compareHost.appendChild(renderHistoryComparison(view));
    this.announce(
      l10n.t(
        'Compared: {0} added, {1} removed, {2} changed',
        view.items.addedCount,
        view.items.removedCount,
        view.items.changedCount,
      ),
    );
  }
}

function sideHeading(side: CompareSideView): Child {
  return h(
    'span',
    null,
    dataText(`${side.method} ${side.path}`),
    h('div', { class: 'muted' }, timeText(side.createdAt)),
  );
}

function itemsText(diff: ItemDiffView): string {
  return l10n.t(
    '{0} added, {1} removed, {2} changed, {3} the same',
    formatCount(diff.addedCount),
    formatCount(diff.removedCount),
    formatCount(diff.changedCount),
    formatCount(diff.sameCount),
  );
}

function idList(label: string, ids: string[], total: number, testid: string): HTMLElement | null {
  if (!total) return null;
  return h(
    'div',
    { 'data-testid': testid },
    h('h5', null, label),
    h(
      'ul',
      { class: 'id-list' },
      ...ids.map((id) => h('li', null, dataText(id))),
      total > ids.length ? h('li', { class: 'muted' }, l10n.t('and {0} more', formatCount(total - ids.length))) : null,
    ),
  );
}

/** Two results side by side: the older on the left. */
export function renderHistoryComparison(view: HistoryCompareView): HTMLElement {
  const { left, right, items } = view;
  const row = (label: string, a: Child, b: Child, testid: string) =>
    h('tr', { 'data-testid': testid }, h('th', { scope: 'row' }, label), h('td', null, a), h('td', null, b));
  const count = (s: CompareSideView) => `${formatCount(s.itemCount)} ${s.itemCount === 1 ? s.noun[0] : s.noun[1]}`;
  return h(
    'section',
    {
      class: 'section-body history-comparison',
      'aria-label': l10n.t('Comparison'),
      'data-testid': 'history-comparison',
    },
    h('h3', null, l10n.t('Comparison')),
    h(
      'table',
      { class: 'headers diff', 'data-testid': 'history-compare-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, ''),
          h('th', { scope: 'col' }, l10n.t('Older')),
          h('th', { scope: 'col' }, l10n.t('Newer')),
        ),
      ),
      h(
        'tbody',
        null,
        row(l10n.t('Request'), sideHeading(left), sideHeading(right), 'compare-request'),
        row(l10n.t('Status'), statusOf(left), statusOf(right), 'compare-status'),
        row(l10n.t('Time'), formatMs(left.totalMs), formatMs(right.totalMs), 'compare-time'),
        row(l10n.t('Pages'), formatCount(left.pageCount), formatCount(right.pageCount), 'compare-pages'),
        row(l10n.t('Items'), count(left), count(right), 'compare-items'),
        row(l10n.t('Token jti'), jtiOf(left.jti), jtiOf(right.jti), 'compare-jti'),
      ),
    ),
    h('h4', null, l10n.t('Response headers that differ')),
    view.headers.length
      ? h(
          'table',
          { class: 'headers diff', 'data-testid': 'compare-headers' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, l10n.t('Header')),
              h('th', { scope: 'col' }, l10n.t('Older')),
              h('th', { scope: 'col' }, l10n.t('Newer')),
            ),
          ),
          h(
            'tbody',
            null,
            ...view.headers.map((d) =>
              h(
                'tr',
                { 'data-testid': 'compare-header' },
                h('th', { scope: 'row', translate: 'no' }, d.name),
                h('td', null, d.left ?? h('span', { class: 'muted' }, l10n.t('(absent)'))),
                h('td', null, d.right ?? h('span', { class: 'muted' }, l10n.t('(absent)'))),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted', 'data-testid': 'compare-headers' }, l10n.t('No response header differs.')),
    h('h4', null, items.comparable ? l10n.t('Items by {0}', items.idLabel ?? '') : l10n.t('Items')),
    items.comparable
      ? h(
          'div',
          { 'data-testid': 'compare-item-diff' },
          h('p', { 'data-testid': 'compare-item-counts' }, itemsText(items)),
          idList(l10n.t('Added'), items.added, items.addedCount, 'compare-added'),
          idList(l10n.t('Removed'), items.removed, items.removedCount, 'compare-removed'),
          idList(l10n.t('Changed'), items.changed, items.changedCount, 'compare-changed'),
        )
      : h(
          'p',
          { class: 'muted', 'data-testid': 'compare-item-diff' },
          l10n.t('The two answers have no id column in common: only their counts compare.'),
        ),
  );
}
