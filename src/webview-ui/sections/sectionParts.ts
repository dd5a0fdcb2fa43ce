// The Request, Response, Error and Pages sections, and the parts other sections share (key-value lists, header
// tables, status badges). Every value from a response is set as text through h(); nothing here parses HTML.
import * as l10n from '@vscode/l10n';
import type { ErrorView, HeaderView, PageView, RequestView, ResponseView } from '../../shared/listingViews';
import type { Child } from '../dom';
import { formatBytes, formatCount } from '../../shared/format';
import { button, formatMs, h, urlText } from '../dom';
import { renderRefusal } from './refusalSection';

export interface SectionActions {
  copyToken?: (pageIndex: number) => void;
  copyCurl?: (pageIndex: number) => void;
  copyPayload?: (pageIndex: number) => void;
}

export function kv(rows: [string, Child][], testid?: string): HTMLElement {
  return h(
    'dl',
    { class: 'kv', 'data-testid': testid },
    ...rows.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
  );
}

export function headersTable(headers: HeaderView[], testid: string): HTMLElement {
  if (!headers.length) return h('p', { class: 'muted' }, l10n.t('No headers.'));
  return h(
    'table',
    { class: 'headers', 'data-testid': testid },
    h(
      'tbody',
      null,
      ...headers.map((header) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, header.name),
          h(
            'td',
            { class: header.secret ? 'secret' : undefined },
            header.value,
            header.secret
              ? h('span', { class: 'muted' }, l10n.t('  (shortened; the token is never shown here)'))
              : null,
          ),
        ),
      ),
    ),
  );
}

function statusClass(status: number): string {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'client-error';
  return 'server-error';
}

export function statusBadge(status: number, statusText: string): HTMLElement {
  return h(
    'span',
    { class: `status ${statusClass(status)}`, 'data-testid': 'status' },
    `${status} ${statusText}`.trim(),
  );
}

/** A gRPC status as a badge: its name (`OK`, `UNAUTHENTICATED`) says it, not the colour alone. */
export function grpcStatusBadge(name: string, ok: boolean): HTMLElement {
  return h('span', { class: `status ${ok ? 'ok' : 'client-error'}`, 'data-testid': 'status', translate: 'no' }, name);
}

export function renderRequest(request: RequestView, page: PageView | undefined, actions: SectionActions): HTMLElement {
  const index = page?.index ?? 0;
  const buttons: Child[] = [];
  if (actions.copyToken && request.tokenPreview)
    buttons.push(
      button(l10n.t('Copy token'), () => actions.copyToken?.(index), {
        secondary: true,
        'data-testid': 'copy-token',
        title: l10n.t('Copies the token this request carried (already used once)'),
      }),
    );
  if (actions.copyCurl)
    buttons.push(
      button(l10n.t('Copy curl (fresh token)'), () => actions.copyCurl?.(index), {
        'data-testid': 'copy-curl',
        title: l10n.t('Copies a curl command with a newly signed token'),
      }),
    );
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'request' },
    h(
      'p',
      { class: 'request-line' },
      h('span', { class: 'method' }, request.method),
      ' ',
      urlText(request.url, { 'data-testid': 'request-url' }),
    ),
    headersTable(request.headers, 'request-headers'),
    buttons.length ? h('div', { class: 'toolbar' }, ...buttons) : null,
    h(
      'details',
      null,
      h('summary', null, l10n.t('curl (token as $TOKEN)')),
      h('pre', { class: 'code', 'data-testid': 'curl-preview' }, request.curlPreview),
    ),
  );
}

export function renderResponse(response: ResponseView): HTMLElement {
  const t = response.timings;
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'response' },
    kv(
      [
        [l10n.t('Status'), statusBadge(response.status, response.statusText)],
        [
          l10n.t('Size'),
          h(
            'span',
            null,
            formatBytes(response.bytes),
            response.contentType ? ' · ' : null,
            response.contentType ? h('span', { translate: 'no' }, response.contentType) : null,
          ),
        ],
        [
          l10n.t('Time'),
          h(
            'span',
            null,
            formatMs(t.totalMs),
            h(
              'span',
              { class: 'muted' },
              l10n.t(
                ' (waited for key {0}, signing {1}, first byte {2})',
                formatMs(t.queuedMs),
                formatMs(t.signMs),
                formatMs(t.ttfbMs),
              ),
            ),
          ),
        ],
        ...(response.redirectedFrom?.length
          ? [
              [
                l10n.t('Redirected from'),
                h('span', null, ...response.redirectedFrom.flatMap((url, i) => [i ? ' → ' : null, urlText(url)])),
              ] as [string, Child],
            ]
          : []),
        ...(response.bodyProblem
          ? [[l10n.t('Body'), h('span', { class: 'error-text' }, response.bodyProblem)] as [string, Child]]
          : []),
      ],
      'response-facts',
    ),
    h('h4', null, l10n.t('Headers')),
    headersTable(response.headers, 'response-headers'),
  );
}

export function renderError(error: ErrorView, extra?: Child): HTMLElement {
  const md = error.mdsError;
  return h(
    'section',
    { class: 'error-panel', 'aria-label': l10n.t('Error'), 'data-testid': 'error-panel' },
    h(
      'h2',
      null,
      error.status !== undefined ? statusBadge(error.status, error.statusText ?? '') : null,
      error.status !== undefined ? ' ' : null,
      h('span', { 'data-testid': 'error-title' }, error.status !== undefined ? (md?.error ?? '') : error.title),
    ),
    error.statusMeaning ? h('p', { 'data-testid': 'status-meaning' }, error.statusMeaning) : null,
    error.code ? h('p', null, h('code', { 'data-testid': 'error-code' }, error.code)) : null,
    error.message ? h('p', { class: 'error-message', 'data-testid': 'error-message' }, error.message) : null,
    md?.description ? h('p', { class: 'error-message', 'data-testid': 'error-description' }, md.description) : null,
    error.rule
      ? kv(
          [
            [l10n.t('Rule'), h('code', { 'data-testid': 'error-rule' }, error.rule.id)],
            ...(error.rule.spec ? [[l10n.t('Spec'), l10n.t('section {0}', error.rule.spec)] as [string, Child]] : []),
            ...(error.rule.requirement ? [[l10n.t('Requirement'), error.rule.requirement] as [string, Child]] : []),
          ],
          'error-rule-facts',
        )
      : null,
    error.facts.length
      ? kv(
          error.facts.map((f) => [f.name || 'detail', f.value] as [string, Child]),
          'error-facts',
        )
      : null,
    error.explanation ? renderRefusal(error.explanation) : null,
    error.tips.length
      ? h(
          'div',
          { class: 'tips' },
          h('h4', null, l10n.t('What to try next')),
          h('ul', { 'data-testid': 'error-tips' }, ...error.tips.map((tip) => h('li', null, tip))),
        )
      : null,
    extra,
  );
}

/**
 * The pages of a listing. Each page number is a button (the row is also clickable with the mouse);
 * the page shown below carries aria-current. The table scrolls sideways rather than squeezing URLs.
 */
export function renderPages(pages: PageView[], selected: number, onSelect: (index: number) => void): HTMLElement {
  const table = h(
    'table',
    { class: 'pages', 'data-testid': 'pages' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, l10n.t('Page')),
        h('th', { scope: 'col' }, l10n.t('Status')),
        h('th', { scope: 'col' }, l10n.t('Vehicles')),
        h('th', { scope: 'col' }, l10n.t('Time')),
        h('th', { scope: 'col' }, l10n.t('Size')),
        h('th', { scope: 'col' }, l10n.t('URL')),
      ),
    ),
    h(
      'tbody',
      null,
      ...pages.map((page) => {
        const current = page.index === selected;
        const select = h(
          'button',
          {
            type: 'button',
            class: 'page-select',
            'aria-current': current ? 'true' : undefined,
            'data-testid': 'page-select',
            title: l10n.t("Show this page's request, token, response and body"),
          },
          l10n.t('Page {0}', formatCount(page.index + 1)),
        );
        select.addEventListener('click', (e) => {
          e.stopPropagation();
          onSelect(page.index);
        });
        const row = h(
          'tr',
          { class: current ? 'selected' : undefined },
          h('td', null, select),
          h('td', null, statusBadge(page.response.status, page.response.statusText)),
          h('td', { class: 'num' }, formatCount(page.itemCount)),
          h('td', { class: 'num' }, formatMs(page.response.timings.totalMs)),
          h('td', { class: 'num' }, formatBytes(page.response.bytes)),
          h('td', null, urlText(page.url)),
        );
        row.addEventListener('click', () => onSelect(page.index));
        return row;
      }),
    ),
  );
  return h('div', { class: 'table-scroll' }, table);
}
