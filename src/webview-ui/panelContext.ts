// What each section of the results panel may do with the panel (post to the host, announce, persist the UI
// choices, render the whole result again), and the pieces every result's page shares: the header and sections.
import * as l10n from '@vscode/l10n';
import type { TokenFactsView } from '../shared/historyViews';
import type { PanelUiState, ResultView, WebviewMessage } from '../shared/protocol';
import type { Child } from './dom';
import { h, urlText } from './dom';

/** The panel as its sections see it. */
export interface PanelContext {
  post(message: WebviewMessage): void;
  /** Says `text` once in the live region. */
  announce(text: string): void;
  /** Stores the UI choices (`ui`) and the summary with the webview's state. */
  persist(): void;
  readonly ui: PanelUiState;
  /** Renders the whole result again (after a change of its shape). */
  rerender(): void;
}

/** The header of a result: its title, a line below it, and its buttons. */
export function resultHeader(title: string, sub: Child[], actions: Child[]): HTMLElement {
  return h(
    'header',
    { class: 'result-header' },
    h('div', null, h('h1', { 'data-testid': 'result-title' }, title), h('p', { class: 'muted sub' }, ...sub)),
    h('div', { class: 'toolbar' }, ...actions),
  );
}

/** "MDS Provider API · Staging · staging · https://…": where the result came from. */
export function environmentLine(r: ResultView): Child[] {
  const env = 'environment' in r ? r.environment : undefined;
  if (!env) return [];
  return [
    h('span', { class: 'badge', translate: 'no' }, env.apiLabel),
    ' ',
    env.name,
    ' · ',
    h('span', { translate: 'no' }, env.stage),
    ' · ',
    urlText(env.baseUrl, { 'data-testid': 'base-url' }),
  ];
}

/** "Token jti 4f…, issued 2025-11-05T13:00:01Z, expires 2025-11-05T13:05:01Z": the token behind a result, in its header. */
export function tokenFactsLine(facts: TokenFactsView | undefined, pageCount: number): HTMLElement | null {
  if (!facts) return null;
  const value = (text: string | undefined, testid: string) =>
    text
      ? h('code', { translate: 'no', 'data-testid': testid }, text)
      : h('span', { class: 'muted', 'data-testid': testid }, l10n.t('none'));
  return h(
    'span',
    { class: 'token-facts-line', 'data-testid': 'header-token' },
    pageCount > 1 ? l10n.t('Token of page {0}: ', facts.pageNumber) : l10n.t('Token: '),
    'jti ',
    value(facts.jti, 'header-jti'),
    ' · iat ',
    value(facts.iat, 'header-iat'),
    ' · exp ',
    value(facts.exp, 'header-exp'),
  );
}

/** A section that opens and closes (vscode-elements: a button with aria-expanded, keyboard included). */
export function collapsible(heading: string, content: HTMLElement, open: boolean, testid: string): HTMLElement {
  return h('vscode-collapsible', { heading, open, 'data-testid': testid }, content);
}
