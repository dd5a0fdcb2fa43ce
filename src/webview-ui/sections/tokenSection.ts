// The Token section (a decoded token: its facts, times, findings, header and payload) and two tokens compared.
// Every value from a token is set as text through h(); nothing here parses HTML.
import * as l10n from '@vscode/l10n';
import type { ClaimDiffView, CompareResultView, TimeView, TokenView } from '../../shared/tokenViews';
import type { Child } from '../dom';
import { formatCount } from '../../shared/format';
import { button, formatSpan, h } from '../dom';
import type { SectionActions } from './sectionParts';
import { kv } from './sectionParts';

function timeRow(label: string, t: TimeView | undefined, live: boolean): [string, Child] | undefined {
  if (!t) return undefined;
  const relative = h('span', {
    class: 'muted',
    'data-time': t.seconds,
    'data-live': live ? label : undefined,
    'data-testid': `time-${label}`,
  });
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
    el.textContent =
      delta > 0 ? l10n.t('(expires in {0})', formatSpan(delta)) : l10n.t('(expired {0} ago)', formatSpan(delta));
    el.classList.toggle('expired', delta <= 0);
  } else {
    el.textContent = delta > 0 ? l10n.t('(in {0})', formatSpan(delta)) : l10n.t('({0} ago)', formatSpan(delta));
  }
}

export function renderToken(token: TokenView, pageIndex: number, actions: SectionActions): HTMLElement {
  const severities: Record<string, string> = {
    error: l10n.t('Error'),
    warning: l10n.t('Warning'),
    info: l10n.t('Info'),
  };
  const findings = token.findings.length
    ? h(
        'ul',
        { class: 'findings', 'data-testid': 'findings' },
        ...token.findings.map((f) =>
          h(
            'li',
            { class: `finding ${f.severity}` },
            h('span', { class: `severity ${f.severity}` }, severities[f.severity] ?? f.severity),
            ' ',
            f.message,
            ' ',
            h('span', { class: 'muted' }, l10n.t('(spec {0}, {1})', f.rule, f.id)),
          ),
        ),
      )
    : h(
        'p',
        { class: 'ok-text', 'data-testid': 'findings' },
        l10n.t('No findings: the token follows the spec as far as can be told without the server.'),
      );
  const signature = h(
    'span',
    { 'data-testid': 'signature-state', 'data-state': token.signature.state },
    token.signature.state === 'verified'
      ? h('span', { class: 'ok-text' }, l10n.t('Verified with the stored credential whose kid matches'))
      : token.signature.state === 'failed'
        ? h('span', { class: 'error-text' }, l10n.t('Does not verify: {0}', token.signature.reason))
        : h(
            'span',
            { class: 'muted' },
            typeof token.header.kid === 'string'
              ? l10n.t('Not verified: no stored credential has kid "{0}"', token.header.kid)
              : l10n.t('Not verified: the token has no kid to find a stored credential by'),
          ),
  );
  const rows = [
    [l10n.t('Source'), token.source],
    [
      l10n.t('Token'),
      h(
        'span',
        null,
        h('code', { 'data-testid': 'token-preview' }, token.preview),
        h('span', { class: 'muted' }, l10n.t(' ({0} characters; shortened)', formatCount(token.length))),
      ),
    ],
    [
      l10n.t('Algorithm'),
      typeof token.header.alg === 'string' ? token.header.alg : JSON.stringify(token.header.alg ?? null),
    ],
    [
      l10n.t('Key id'),
      token.header.kid === undefined
        ? h('span', { class: 'muted' }, l10n.t('none'))
        : h(
            'span',
            { translate: 'no' },
            typeof token.header.kid === 'string' ? token.header.kid : JSON.stringify(token.header.kid),
          ),
    ],
    timeRow('iat', token.iat, false),
    timeRow('nbf', token.nbf, false),
    timeRow('exp', token.exp, true),
    token.lifetimeSeconds !== undefined
      ? [
          l10n.t('Lifetime'),
          token.lifetimeSeconds < 60
            ? formatSpan(token.lifetimeSeconds)
            : l10n.t('{0} s ({1})', token.lifetimeSeconds, formatSpan(token.lifetimeSeconds)),
        ]
      : undefined,
    [l10n.t('Signature'), signature],
  ].filter((r): r is [string, Child] => Array.isArray(r));
  const actionsBar: Child[] = [];
  if (token.canCopy && actions.copyToken) {
    actionsBar.push(
      button(l10n.t('Copy token'), () => actions.copyToken?.(pageIndex), {
        'data-testid': 'copy-token',
        secondary: token.alreadyUsed,
      }),
    );
  }
  if (actions.copyPayload)
    actionsBar.push(
      button(l10n.t('Copy payload as JSON'), () => actions.copyPayload?.(pageIndex), {
        'data-testid': 'copy-payload',
        secondary: true,
      }),
    );
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'token' },
    kv(rows, 'token-facts'),
    token.alreadyUsed
      ? h(
          'p',
          { class: 'muted' },
          l10n.t(
            'This token was sent with the request. Tokens are single-use: copy it to inspect it, not to send it again.',
          ),
        )
      : null,
    actionsBar.length ? h('div', { class: 'toolbar' }, ...actionsBar) : null,
    h('h4', null, l10n.t('Findings')),
    findings,
    h(
      'div',
      { class: 'two-col' },
      h(
        'div',
        null,
        h('h4', null, l10n.t('Header')),
        h('pre', { class: 'code', 'data-testid': 'token-header' }, token.headerText),
      ),
      h(
        'div',
        null,
        h('h4', null, l10n.t('Payload')),
        h('pre', { class: 'code', 'data-testid': 'token-payload' }, token.payloadText),
      ),
    ),
  );
}

const DIFF_LABEL: Record<ClaimDiffView['state'], string> = {
  same: l10n.t('same'),
  different: l10n.t('differs'),
  onlyLeft: l10n.t('only in the first'),
  onlyRight: l10n.t('only in the second'),
};

/**
 * Two tokens side by side: every header parameter and claim in one table, the rows that differ
 * marked (class and a word, not colour alone), with a note where the difference can decide
 * acceptance; then each token's own decoded view.
 */
export function renderComparison(view: CompareResultView, actions: SectionActions): HTMLElement {
  // The note goes in a row of its own under the claim, so that the values keep their width in a narrow column.
  const rows = view.claims.flatMap((c) =>
    [
      h(
        'tr',
        {
          class: `diff-${c.state}`,
          'data-testid': 'diff-row',
          'data-claim': `${c.part}.${c.name}`,
          'data-state': c.state,
        },
        h(
          'th',
          { scope: 'row' },
          c.part === 'header' ? l10n.t('header {0}', c.name) : c.name,
          c.state === 'same' ? null : h('div', { class: 'diff-mark' }, DIFF_LABEL[c.state]),
        ),
        h('td', { class: 'value' }, c.left ?? h('span', { class: 'muted' }, l10n.t('(absent)'))),
        h('td', { class: 'value' }, c.right ?? h('span', { class: 'muted' }, l10n.t('(absent)'))),
      ),
      c.note
        ? h(
            'tr',
            { class: `diff-${c.state} diff-note-row` },
            h(
              'td',
              { colspan: 3, class: 'note', 'data-testid': 'diff-note', 'data-claim': `${c.part}.${c.name}` },
              c.note,
            ),
          )
        : null,
    ].filter((row): row is HTMLTableRowElement => row !== null),
  );
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'comparison' },
    h(
      'p',
      { 'data-testid': 'diff-count' },
      view.differences === 0
        ? l10n.t('No header parameter or claim differs.')
        : view.differences === 1
          ? l10n.t('{0} entry differs (marked).', view.differences)
          : l10n.t('{0} entries differ (marked).', view.differences),
    ),
    h(
      'table',
      { class: 'headers diff', 'data-testid': 'diff-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, l10n.t('Claim')),
          h('th', null, l10n.t('First: {0}', view.left.source)),
          h('th', null, l10n.t('Second: {0}', view.right.source)),
        ),
      ),
      h('tbody', null, ...rows),
    ),
    h(
      'div',
      { class: 'two-col' },
      h(
        'div',
        { 'data-testid': 'compare-left' },
        h('h4', null, l10n.t('First token')),
        renderToken(view.left, 0, actions),
      ),
      h(
        'div',
        { 'data-testid': 'compare-right' },
        h('h4', null, l10n.t('Second token')),
        renderToken(view.right, 1, actions),
      ),
    ),
  );
}
