// The Request, Token, Response, Error and Pages sections. Every value from a response or a token is
// set as text through h(); nothing here parses HTML.
import * as l10n from '@vscode/l10n';
import type { ErrorView, HeaderView, PageView, RequestView, ResponseView } from '../../shared/listingViews';
import type { ClaimDiffView, CompareResultView, TimeView, TokenView } from '../../shared/tokenViews';
import type { Child } from '../dom';
import { formatBytes, formatCount } from '../../shared/format';
import { button, formatMs, formatSpan, h, urlText } from '../dom';
import { renderRefusal } from './refusalSection';

export interface SectionActions {
  copyToken?: (pageIndex: number) => void;
  copyCurl?: (pageIndex: number) => void;
  copyPayload?: (pageIndex: number) => void;
}

export function kv(rows: [string, Child][], testid?: string): HTMLElement {
  return h('dl', { class: 'kv', 'data-testid': testid }, ...rows.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

export function headersTable(headers: HeaderView[], testid: string): HTMLElement {
  if (!headers.length) return h('p', { class: 'muted' }, l10n.t('No headers.'));
  return h('table', { class: 'headers', 'data-testid': testid },
    h('tbody', null, ...headers.map((header) => h('tr', null,
      h('th', { scope: 'row' }, header.name),
      h('td', { class: header.secret ? 'secret' : undefined }, header.value, header.secret ? h('span', { class: 'muted' }, l10n.t('  (shortened; the token is never shown here)')) : null)))));
}

function statusClass(status: number): string {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'client-error';
  return 'server-error';
}

export function statusBadge(status: number, statusText: string): HTMLElement {
  return h('span', { class: `status ${statusClass(status)}`, 'data-testid': 'status' }, `${status} ${statusText}`.trim());
}

/** A gRPC status as a badge: its name (`OK`, `UNAUTHENTICATED`) says it, not the colour alone. */
export function grpcStatusBadge(name: string, ok: boolean): HTMLElement {
  return h('span', { class: `status ${ok ? 'ok' : 'client-error'}`, 'data-testid': 'status', translate: 'no' }, name);
}

export function renderRequest(request: RequestView, page: PageView | undefined, actions: SectionActions): HTMLElement {
  const index = page?.index ?? 0;
  const buttons: Child[] = [];
  if (actions.copyToken && request.tokenPreview) buttons.push(button(l10n.t('Copy token'), () => actions.copyToken?.(index), { secondary: true, 'data-testid': 'copy-token', title: l10n.t('Copies the token this request carried (already used once)') }));
  if (actions.copyCurl) buttons.push(button(l10n.t('Copy curl (fresh token)'), () => actions.copyCurl?.(index), { 'data-testid': 'copy-curl', title: l10n.t('Copies a curl command with a newly signed token') }));
  return h('div', { class: 'section-body', 'data-testid': 'request' },
    h('p', { class: 'request-line' }, h('span', { class: 'method' }, request.method), ' ', urlText(request.url, { 'data-testid': 'request-url' })),
    headersTable(request.headers, 'request-headers'),
    buttons.length ? h('div', { class: 'toolbar' }, ...buttons) : null,
    h('details', null, h('summary', null, l10n.t('curl (token as $TOKEN)')), h('pre', { class: 'code', 'data-testid': 'curl-preview' }, request.curlPreview)));
}

function timeRow(label: string, t: TimeView | undefined, live: boolean): [string, Child] | undefined {
  if (!t) return undefined;
  const relative = h('span', { class: 'muted', 'data-time': t.seconds, 'data-live': live ? label : undefined, 'data-testid': `time-${label}` });
  updateRelative(relative, Date.now());
  return [label, h('span', null, `${t.seconds} · ${t.iso} `, relative)];
}

/** Sets "(in 4 min 05 s)" / "(12 s ago)" on an element with `data-time` (seconds). */
export function updateRelative(el: HTMLElement, now: number): void {
  const seconds = Number(el.getAttribute('data-time'));
  if (!Number.isFinite(seconds)) return;
  const delta = seconds - now / 1000;
  const live = el.getAttribute('data-live');
  if (live === 'exp') {
    el.textContent = delta > 0 ? l10n.t('(expires in {0})', formatSpan(delta)) : l10n.t('(expired {0} ago)', formatSpan(delta));
    el.classList.toggle('expired', delta <= 0);
  } else {
    el.textContent = delta > 0 ? l10n.t('(in {0})', formatSpan(delta)) : l10n.t('({0} ago)', formatSpan(delta));
  }
}

export function renderToken(token: TokenView, pageIndex: number, actions: SectionActions): HTMLElement {
  const severities: Record<string, string> = { error: l10n.t('Error'), warning: l10n.t('Warning'), info: l10n.t('Info') };
  const findings = token.findings.length
    ? h('ul', { class: 'findings', 'data-testid': 'findings' }, ...token.findings.map((f) => h('li', { class: `finding ${f.severity}` },
      h('span', { class: `severity ${f.severity}` }, severities[f.severity] ?? f.severity), ' ', f.message, ' ', h('span', { class: 'muted' }, l10n.t('(spec {0}, {1})', f.rule, f.id)))))
    : h('p', { class: 'ok-text', 'data-testid': 'findings' }, l10n.t('No findings: the token follows the spec as far as can be told without the server.'));
  const signature = h('span', { 'data-testid': 'signature-state', 'data-state': token.signature.state },
    token.signature.state === 'verified'
      ? h('span', { class: 'ok-text' }, l10n.t('Verified with the stored credential whose kid matches'))
      : token.signature.state === 'failed'
        ? h('span', { class: 'error-text' }, l10n.t('Does not verify: {0}', token.signature.reason))
        : h('span', { class: 'muted' }, typeof token.header.kid === 'string' ? l10n.t('Not verified: no stored credential has kid "{0}"', token.header.kid) : l10n.t('Not verified: the token has no kid to find a stored credential by')));
  const rows = [
    [l10n.t('Source'), token.source],
    [l10n.t('Token'), h('span', null, h('code', { 'data-testid': 'token-preview' }, token.preview), h('span', { class: 'muted' }, l10n.t(' ({0} characters; shortened)', formatCount(token.length))))],
    [l10n.t('Algorithm'), typeof token.header.alg === 'string' ? token.header.alg : JSON.stringify(token.header.alg ?? null)],
    [l10n.t('Key id'), token.header.kid === undefined ? h('span', { class: 'muted' }, l10n.t('none')) : h('span', { translate: 'no' }, typeof token.header.kid === 'string' ? token.header.kid : JSON.stringify(token.header.kid))],
    timeRow('iat', token.iat, false),
    timeRow('nbf', token.nbf, false),
    timeRow('exp', token.exp, true),
    token.lifetimeSeconds !== undefined ? [l10n.t('Lifetime'), token.lifetimeSeconds < 60 ? formatSpan(token.lifetimeSeconds) : l10n.t('{0} s ({1})', token.lifetimeSeconds, formatSpan(token.lifetimeSeconds))] : undefined,
    [l10n.t('Signature'), signature],
  ].filter((r): r is [string, Child] => Array.isArray(r));
  const actionsBar: Child[] = [];
  if (token.canCopy && actions.copyToken) {
    actionsBar.push(button(l10n.t('Copy token'), () => actions.copyToken?.(pageIndex), { 'data-testid': 'copy-token', secondary: token.alreadyUsed }));
  }
  if (actions.copyPayload) actionsBar.push(button(l10n.t('Copy payload as JSON'), () => actions.copyPayload?.(pageIndex), { 'data-testid': 'copy-payload', secondary: true }));
  return h('div', { class: 'section-body', 'data-testid': 'token' },
    kv(rows, 'token-facts'),
    token.alreadyUsed ? h('p', { class: 'muted' }, l10n.t('This token was sent with the request. Tokens are single-use: copy it to inspect it, not to send it again.')) : null,
    actionsBar.length ? h('div', { class: 'toolbar' }, ...actionsBar) : null,
    h('h4', null, l10n.t('Findings')),
    findings,
    h('div', { class: 'two-col' },
      h('div', null, h('h4', null, l10n.t('Header')), h('pre', { class: 'code', 'data-testid': 'token-header' }, token.headerText)),
      h('div', null, h('h4', null, l10n.t('Payload')), h('pre', { class: 'code', 'data-testid': 'token-payload' }, token.payloadText))));
}

export function renderResponse(response: ResponseView): HTMLElement {
  const t = response.timings;
  return h('div', { class: 'section-body', 'data-testid': 'response' },
    kv([
      [l10n.t('Status'), statusBadge(response.status, response.statusText)],
      [l10n.t('Size'), h('span', null, formatBytes(response.bytes), response.contentType ? ' · ' : null, response.contentType ? h('span', { translate: 'no' }, response.contentType) : null)],
      [l10n.t('Time'), h('span', null, formatMs(t.totalMs), h('span', { class: 'muted' }, l10n.t(' (waited for key {0}, signing {1}, first byte {2})', formatMs(t.queuedMs), formatMs(t.signMs), formatMs(t.ttfbMs))))],
      ...(response.redirectedFrom?.length ? [[l10n.t('Redirected from'), h('span', null, ...response.redirectedFrom.flatMap((url, i) => [i ? ' → ' : null, urlText(url)]))] as [string, Child]] : []),
      ...(response.bodyProblem ? [[l10n.t('Body'), h('span', { class: 'error-text' }, response.bodyProblem)] as [string, Child]] : []),
    ], 'response-facts'),
    h('h4', null, l10n.t('Headers')),
    headersTable(response.headers, 'response-headers'));
}

export function renderError(error: ErrorView, extra?: Child): HTMLElement {
  const md = error.mdsError;
  return h('section', { class: 'error-panel', 'aria-label': l10n.t('Error'), 'data-testid': 'error-panel' },
    h('h2', null, error.status !== undefined ? statusBadge(error.status, error.statusText ?? '') : null, error.status !== undefined ? ' ' : null, h('span', { 'data-testid': 'error-title' }, error.status !== undefined ? (md?.error ?? '') : error.title)),
    error.statusMeaning ? h('p', { 'data-testid': 'status-meaning' }, error.statusMeaning) : null,
    error.code ? h('p', null, h('code', { 'data-testid': 'error-code' }, error.code)) : null,
    error.message ? h('p', { class: 'error-message', 'data-testid': 'error-message' }, error.message) : null,
    md?.description ? h('p', { class: 'error-message', 'data-testid': 'error-description' }, md.description) : null,
    error.rule ? kv([
      [l10n.t('Rule'), h('code', { 'data-testid': 'error-rule' }, error.rule.id)],
      ...(error.rule.spec ? [[l10n.t('Spec'), l10n.t('section {0}', error.rule.spec)] as [string, Child]] : []),
      ...(error.rule.requirement ? [[l10n.t('Requirement'), error.rule.requirement] as [string, Child]] : []),
    ], 'error-rule-facts') : null,
    error.facts.length ? kv(error.facts.map((f) => [f.name || 'detail', f.value] as [string, Child]), 'error-facts') : null,
    error.explanation ? renderRefusal(error.explanation) : null,
    error.tips.length ? h('div', { class: 'tips' }, h('h4', null, l10n.t('What to try next')), h('ul', { 'data-testid': 'error-tips' }, ...error.tips.map((tip) => h('li', null, tip)))) : null,
    extra);
}

/**
 * The pages of a listing. Each page number is a button (the row is also clickable with the mouse);
 * the page shown below carries aria-current. The table scrolls sideways rather than squeezing URLs.
 */
export function renderPages(pages: PageView[], selected: number, onSelect: (index: number) => void): HTMLElement {
  const table = h('table', { class: 'pages', 'data-testid': 'pages' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, l10n.t('Page')), h('th', { scope: 'col' }, l10n.t('Status')), h('th', { scope: 'col' }, l10n.t('Vehicles')), h('th', { scope: 'col' }, l10n.t('Time')), h('th', { scope: 'col' }, l10n.t('Size')), h('th', { scope: 'col' }, l10n.t('URL')))),
    h('tbody', null, ...pages.map((page) => {
      const current = page.index === selected;
      const select = h('button', { type: 'button', class: 'page-select', 'aria-current': current ? 'true' : undefined, 'data-testid': 'page-select', title: l10n.t('Show this page\'s request, token, response and body') }, l10n.t('Page {0}', formatCount(page.index + 1)));
      select.addEventListener('click', (e) => {
        e.stopPropagation();
        onSelect(page.index);
      });
      const row = h('tr', { class: current ? 'selected' : undefined },
        h('td', null, select),
        h('td', null, statusBadge(page.response.status, page.response.statusText)),
        h('td', { class: 'num' }, formatCount(page.itemCount)),
        h('td', { class: 'num' }, formatMs(page.response.timings.totalMs)),
        h('td', { class: 'num' }, formatBytes(page.response.bytes)),
        h('td', null, urlText(page.url)));
      row.addEventListener('click', () => onSelect(page.index));
      return row;
    })));
  return h('div', { class: 'table-scroll' }, table);
}

const DIFF_LABEL: Record<ClaimDiffView['state'], string> = { same: l10n.t('same'), different: l10n.t('differs'), onlyLeft: l10n.t('only in the first'), onlyRight: l10n.t('only in the second') };

/**
 * Two tokens side by side: every header parameter and claim in one table, the rows that differ
 * marked (class and a word, not colour alone), with a note where the difference can decide
 * acceptance; then each token's own decoded view.
 */
export function renderComparison(view: CompareResultView, actions: SectionActions): HTMLElement {
  // The note goes in a row of its own under the claim, so that the values keep their width in a narrow column.
  const rows = view.claims.flatMap((c) => [
    h('tr', { class: `diff-${c.state}`, 'data-testid': 'diff-row', 'data-claim': `${c.part}.${c.name}`, 'data-state': c.state },
      h('th', { scope: 'row' }, c.part === 'header' ? l10n.t('header {0}', c.name) : c.name, c.state === 'same' ? null : h('div', { class: 'diff-mark' }, DIFF_LABEL[c.state])),
      h('td', { class: 'value' }, c.left ?? h('span', { class: 'muted' }, l10n.t('(absent)'))),
      h('td', { class: 'value' }, c.right ?? h('span', { class: 'muted' }, l10n.t('(absent)')))),
    c.note ? h('tr', { class: `diff-${c.state} diff-note-row` }, h('td', { colspan: 3, class: 'note', 'data-testid': 'diff-note', 'data-claim': `${c.part}.${c.name}` }, c.note)) : null,
  ].filter((row): row is HTMLTableRowElement => row !== null));
  return h('div', { class: 'section-body', 'data-testid': 'comparison' },
    h('p', { 'data-testid': 'diff-count' }, view.differences === 0 ? l10n.t('No header parameter or claim differs.') : view.differences === 1 ? l10n.t('{0} entry differs (marked).', view.differences) : l10n.t('{0} entries differ (marked).', view.differences)),
    h('table', { class: 'headers diff', 'data-testid': 'diff-table' },
      h('thead', null, h('tr', null, h('th', null, l10n.t('Claim')), h('th', null, l10n.t('First: {0}', view.left.source)), h('th', null, l10n.t('Second: {0}', view.right.source)))),
      h('tbody', null, ...rows)),
    h('div', { class: 'two-col' },
      h('div', { 'data-testid': 'compare-left' }, h('h4', null, l10n.t('First token')), renderToken(view.left, 0, actions)),
      h('div', { 'data-testid': 'compare-right' }, h('h4', null, l10n.t('Second token')), renderToken(view.right, 1, actions))));
}
