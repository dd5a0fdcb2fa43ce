// "Skip to table": the first Tab stop of the panel while a result has a table, so that the keyboard
// reaches the rows in two key presses instead of passing every button of the header first. It opens
// the body section and the table tab when they are closed, then focuses the table.
import * as l10n from '@vscode/l10n';
import { h } from './dom';

let link: HTMLElement | undefined;
let target: (() => HTMLElement | undefined) | undefined;

function sync(): void {
  const el = target?.();
  if (link) link.hidden = !el || !el.isConnected;
}

/** Shows the link while `table()` returns a table in the page. Called by the table; one link per page. */
export function useSkipLink(table: () => HTMLElement | undefined): void {
  target = table;
  queueMicrotask(sync);
  if (link) return;
  const button = h(
    'button',
    { type: 'button', class: 'skip-link', 'data-testid': 'skip-to-table' },
    l10n.t('Skip to table'),
  );
  button.addEventListener('click', () => {
    const el = target?.();
    if (!el) return;
    el.closest('vscode-collapsible')?.setAttribute('open', '');
    const panel = el.closest('vscode-tab-panel');
    if (panel && panel.hasAttribute('hidden'))
      document.querySelector<HTMLElement>('[data-testid="view-table"]')?.click();
    // The tab panel shows on the tabs' next render.
    requestAnimationFrame(() => el.focus());
  });
  link = button;
  document.body.prepend(button);
  // Results replace the page's content; the link follows whether a table is in it.
  new MutationObserver(sync).observe(document.getElementById('app') ?? document.body, { childList: true });
}
