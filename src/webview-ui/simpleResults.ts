// The results that are one section each: a request that got no answer, a decoded token, and two tokens compared.
import * as l10n from '@vscode/l10n';
import type { RequestErrorResultView } from '../shared/listingViews';
import type { CompareResultView, TokenResultView } from '../shared/tokenViews';
import { button, h, urlText } from './dom';
import type { PanelContext } from './panelContext';
import { collapsible, environmentLine, resultHeader } from './panelContext';
import { renderError } from './sections/sectionParts';
import { renderComparison, renderToken } from './sections/tokenSection';

export function renderRequestError(root: HTMLElement, r: RequestErrorResultView, ctx: PanelContext): void {
  root.appendChild(
    resultHeader(r.title, environmentLine(r), [
      button(l10n.t('Run again'), () => ctx.post({ type: 'runAgain' }), { 'data-testid': 'run-again' }),
    ]),
  );
  root.appendChild(
    renderError(
      r.error,
      r.url ? h('p', null, 'Request: GET ', urlText(r.url, { 'data-testid': 'request-url' })) : null,
    ),
  );
}

export function renderTokenResult(root: HTMLElement, r: TokenResultView, ctx: PanelContext): void {
  root.appendChild(resultHeader(r.title, environmentLine(r), []));
  const actions = {
    copyToken: () => ctx.post({ type: 'copyToken', resultId: r.id, pageIndex: 0 }),
    copyPayload: () => ctx.post({ type: 'copyPayload', resultId: r.id, pageIndex: 0 }),
  };
  root.appendChild(collapsible(l10n.t('Token'), renderToken(r.token, 0, actions), true, 'section-token'));
}

export function renderTokenComparison(root: HTMLElement, r: CompareResultView, ctx: PanelContext): void {
  root.appendChild(resultHeader(r.title, [h('span', { 'data-testid': 'summary-line' }, r.summary.line)], []));
  const actions = {
    copyToken: (i: number) => ctx.post({ type: 'copyToken', resultId: r.id, pageIndex: i }),
    copyPayload: (i: number) => ctx.post({ type: 'copyPayload', resultId: r.id, pageIndex: i }),
  };
  root.appendChild(collapsible(l10n.t('Comparison'), renderComparison(r, actions), true, 'section-compare'));
}
