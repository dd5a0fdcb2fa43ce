// The Request, Token, Response, Error and Pages sections. Every value from a response or a token is
// set as text through h(); nothing here parses HTML.
import type { ClaimDiffView, CompareResultView, ErrorView, HeaderView, PageView, RequestView, ResponseView, TimeView, TokenView } from '../shared/protocol';
import type { Child } from './dom';
import { formatBytes, formatCount } from '../shared/format';
import { button, formatMs, formatSpan, h, urlText } from './dom';
import { renderRefusal } from './refusalSection';

export interface SectionActions {
  copyToken?: (pageIndex: number) => void;
  copyCurl?: (pageIndex: number) => void;
  copyPayload?: (pageIndex: number) => void;
}

function kv(rows: [string, Child][], testid?: string): HTMLElement {
  return h('dl', { class: 'kv', 'data-testid': testid }, ...rows.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

function headersTable(headers: HeaderView[], testid: string): HTMLElement {
  if (!headers.length) return h('p', { class: 'muted' }, 'No headers.');
  return h('table', { class: 'headers', 'data-testid': testid },
    h('tbody', null, ...headers.map((header) => h('tr', null,
      h('th', { scope: 'row' }, header.name),
      h('td', { class: header.secret ? 'secret' : undefined }, header.value, header.secret ? h('span', { class: 'muted' }, '  (shortened; the token is never shown here)') : null)))));
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

export function renderRequest(request: RequestView, page: PageView | undefined, actions: SectionActions): HTMLElement {
  const index = page?.index ?? 0;
  const buttons: Child[] = [];
  if (actions.copyToken && request.tokenPreview) buttons.push(button('Copy token', () => actions.copyToken?.(index), { secondary: true, 'data-testid': 'copy-token', title: 'Copies the token this request carried (already used once)' }));
  if (actions.copyCurl) buttons.push(button('Copy curl (fresh token)', () => actions.copyCurl?.(index), { 'data-testid': 'copy-curl', title: 'Copies a curl command with a newly signed token' }));
  return h('div', { class: 'section-body', 'data-testid': 'request' },
    h('p', { class: 'request-line' }, h('span', { class: 'method' }, request.method), ' ', urlText(request.url, { 'data-testid': 'request-url' })),
    headersTable(request.headers, 'request-headers'),
    buttons.length ? h('div', { class: 'toolbar' }, ...buttons) : null,
    h('details', null, h('summary', null, 'curl (token as $TOKEN)'), h('pre', { class: 'code', 'data-testid': 'curl-preview' }, request.curlPreview)));
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
    el.textContent = delta > 0 ? `(expires in ${formatSpan(delta)})` : `(expired ${formatSpan(delta)} ago)`;
    el.classList.toggle('expired', delta <= 0);
  } else {
    el.textContent = delta > 0 ? `(in ${formatSpan(delta)})` : `(${formatSpan(delta)} ago)`;
  }
}

export function renderToken(token: TokenView, pageIndex: number, actions: SectionActions): HTMLElement {
  const severities: Record<string, string> = { error: 'Error', warning: 'Warning', info: 'Info' };
  const findings = token.findings.length
    ? h('ul', { class: 'findings', 'data-testid': 'findings' }, ...token.findings.map((f) => h('li', { class: `finding ${f.severity}` },
      h('span', { class: `severity ${f.severity}` }, severities[f.severity] ?? f.severity), ' ', f.message, ' ', h('span', { class: 'muted' }, `(spec ${f.rule}, ${f.id})`))))
    : h('p', { class: 'ok-text', 'data-testid': 'findings' }, 'No findings: the token follows the spec as far as can be told without the server.');
  const signature = h('span', { 'data-testid': 'signature-state', 'data-state': token.signature.state },
    token.signature.state === 'verified'
      ? h('span', { class: 'ok-text' }, 'Verified with the stored credential whose kid matches')
      : token.signature.state === 'failed'
        ? h('span', { class: 'error-text' }, `Does not verify: ${token.signature.reason}`)
        : h('span', { class: 'muted' }, typeof token.header.kid === 'string' ? `Not verified: no stored credential has kid "${token.header.kid}"` : 'Not verified: the token has no kid to find a stored credential by'));
  const rows = [
    ['Source', token.source],
    ['Token', h('span', null, h('code', { 'data-testid': 'token-preview' }, token.preview), h('span', { class: 'muted' }, ` (${formatCount(token.length)} characters; shortened)`))],
    ['Algorithm', typeof token.header.alg === 'string' ? token.header.alg : JSON.stringify(token.header.alg ?? null)],
    ['Key id', token.header.kid === undefined ? h('span', { class: 'muted' }, 'none') : typeof token.header.kid === 'string' ? token.header.kid : JSON.stringify(token.header.kid)],
    timeRow('iat', token.iat, false),
    timeRow('nbf', token.nbf, false),
    timeRow('exp', token.exp, true),
    token.lifetimeSeconds !== undefined ? ['Lifetime', token.lifetimeSeconds < 60 ? formatSpan(token.lifetimeSeconds) : `${token.lifetimeSeconds} s (${formatSpan(token.lifetimeSeconds)})`] : undefined,
    ['Signature', signature],
  ].filter((r): r is [string, Child] => Array.isArray(r));
  const actionsBar: Child[] = [];
  if (token.canCopy && actions.copyToken) {
    actionsBar.push(button('Copy token', () => actions.copyToken?.(pageIndex), { 'data-testid': 'copy-token', secondary: token.alreadyUsed }));
  }
  if (actions.copyPayload) actionsBar.push(button('Copy payload as JSON', () => actions.copyPayload?.(pageIndex), { 'data-testid': 'copy-payload', secondary: true }));
  return h('div', { class: 'section-body', 'data-testid': 'token' },
    kv(rows, 'token-facts'),
    token.alreadyUsed ? h('p', { class: 'muted' }, 'This token was sent with the request. Tokens are single-use: copy it to inspect it, not to send it again.') : null,
    actionsBar.length ? h('div', { class: 'toolbar' }, ...actionsBar) : null,
    h('h4', null, 'Findings'),
    findings,
    h('div', { class: 'two-col' },
      h('div', null, h('h4', null, 'Header'), h('pre', { class: 'code', 'data-testid': 'token-header' }, JSON.stringify(token.header, null, 2))),
      h('div', null, h('h4', null, 'Payload'), h('pre', { class: 'code', 'data-testid': 'token-payload' }, JSON.stringify(token.payload, null, 2)))));
}

export function renderResponse(response: ResponseView): HTMLElement {
  const t = response.timings;
  return h('div', { class: 'section-body', 'data-testid': 'response' },
    kv([
      ['Status', statusBadge(response.status, response.statusText)],
      ['Size', `${formatBytes(response.bytes)}${response.contentType ? ` · ${response.contentType}` : ''}`],
      ['Time', h('span', null, formatMs(t.totalMs), h('span', { class: 'muted' }, ` (waited for key ${formatMs(t.queuedMs)}, signing ${formatMs(t.signMs)}, first byte ${formatMs(t.ttfbMs)})`))],
      ...(response.redirectedFrom?.length ? [['Redirected from', h('span', null, ...response.redirectedFrom.flatMap((url, i) => [i ? ' → ' : null, urlText(url)]))] as [string, Child]] : []),
      ...(response.bodyProblem ? [['Body', h('span', { class: 'error-text' }, response.bodyProblem)] as [string, Child]] : []),
    ], 'response-facts'),
    h('h4', null, 'Headers'),
    headersTable(response.headers, 'response-headers'));
}

export function renderError(error: ErrorView, extra?: Child): HTMLElement {
  const md = error.mdsError;
  return h('section', { class: 'error-panel', 'aria-label': 'Error', 'data-testid': 'error-panel' },
    h('h2', null, error.status !== undefined ? statusBadge(error.status, error.statusText ?? '') : null, error.status !== undefined ? ' ' : null, h('span', { 'data-testid': 'error-title' }, error.status !== undefined ? (md?.error ?? '') : error.title)),
    error.statusMeaning ? h('p', { 'data-testid': 'status-meaning' }, error.statusMeaning) : null,
    error.code ? h('p', null, h('code', { 'data-testid': 'error-code' }, error.code)) : null,
    error.message ? h('p', { class: 'error-message', 'data-testid': 'error-message' }, error.message) : null,
    md?.description ? h('p', { class: 'error-message', 'data-testid': 'error-description' }, md.description) : null,
    error.rule ? kv([
      ['Rule', h('code', { 'data-testid': 'error-rule' }, error.rule.id)],
      ...(error.rule.spec ? [['Spec', `section ${error.rule.spec}`] as [string, Child]] : []),
      ...(error.rule.requirement ? [['Requirement', error.rule.requirement] as [string, Child]] : []),
    ], 'error-rule-facts') : null,
    error.facts.length ? kv(error.facts.map((f) => [f.name || 'detail', f.value] as [string, Child]), 'error-facts') : null,
    error.explanation ? renderRefusal(error.explanation) : null,
    error.tips.length ? h('div', { class: 'tips' }, h('h4', null, 'What to try next'), h('ul', { 'data-testid': 'error-tips' }, ...error.tips.map((tip) => h('li', null, tip)))) : null,
    extra);
}

/**
 * The pages of a listing. Each page number is a button (the row is also clickable with the mouse);
 * the page shown below carries aria-current. The table scrolls sideways rather than squeezing URLs.
 */
export function renderPages(pages: PageView[], selected: number, onSelect: (index: number) => void): HTMLElement {
  const table = h('table', { class: 'pages', 'data-testid': 'pages' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Page'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Vehicles'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Size'), h('th', { scope: 'col' }, 'URL'))),
    h('tbody', null, ...pages.map((page) => {
      const current = page.index === selected;
      const select = h('button', { type: 'button', class: 'page-select', 'aria-current': current ? 'true' : undefined, 'data-testid': 'page-select', title: 'Show this page\'s request, token, response and body' }, `Page ${page.index + 1}`);
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

const DIFF_LABEL: Record<ClaimDiffView['state'], string> = { same: 'same', different: 'differs', onlyLeft: 'only in the first', onlyRight: 'only in the second' };

/**
 * Two tokens side by side: every header parameter and claim in one table, the rows that differ
 * marked (class and a word, not colour alone), with a note where the difference can decide
 * acceptance; then each token's own decoded view.
 */
export function renderComparison(view: CompareResultView, actions: SectionActions): HTMLElement {
  // The note goes in a row of its own under the claim, so that the values keep their width in a narrow column.
  const rows = view.claims.flatMap((c) => [
    h('tr', { class: `diff-${c.state}`, 'data-testid': 'diff-row', 'data-claim': `${c.part}.${c.name}`, 'data-state': c.state },
      h('th', { scope: 'row' }, c.part === 'header' ? `header ${c.name}` : c.name, c.state === 'same' ? null : h('div', { class: 'diff-mark' }, DIFF_LABEL[c.state])),
      h('td', { class: 'value' }, c.left ?? h('span', { class: 'muted' }, '(absent)')),
      h('td', { class: 'value' }, c.right ?? h('span', { class: 'muted' }, '(absent)'))),
    c.note ? h('tr', { class: `diff-${c.state} diff-note-row` }, h('td', { colspan: 3, class: 'note', 'data-testid': 'diff-note', 'data-claim': `${c.part}.${c.name}` }, c.note)) : null,
  ].filter((row): row is HTMLTableRowElement => row !== null));
  return h('div', { class: 'section-body', 'data-testid': 'comparison' },
    h('p', { 'data-testid': 'diff-count' }, view.differences === 0 ? 'No header parameter or claim differs.' : `${view.differences} ${view.differences === 1 ? 'entry differs' : 'entries differ'} (marked).`),
    h('table', { class: 'headers diff', 'data-testid': 'diff-table' },
      h('thead', null, h('tr', null, h('th', null, 'Claim'), h('th', null, `First: ${view.left.source}`), h('th', null, `Second: ${view.right.source}`))),
      h('tbody', null, ...rows)),
    h('div', { class: 'two-col' },
      h('div', { 'data-testid': 'compare-left' }, h('h4', null, 'First token'), renderToken(view.left, 0, actions)),
      h('div', { 'data-testid': 'compare-right' }, h('h4', null, 'Second token'), renderToken(view.right, 1, actions))));
}
