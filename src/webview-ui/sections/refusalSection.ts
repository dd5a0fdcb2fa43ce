// The explanation of a refused request (401/403) and the clock-skew notice, as text nodes only.
import * as l10n from '@vscode/l10n';
import type { RefusalExplanationView } from '../../shared/listingViews';
import { h } from '../dom';

const VERDICT_LABEL: Record<RefusalExplanationView['evidence'][number]['verdict'], string> = {
  ok: l10n.t('OK'),
  problem: l10n.t('Problem'),
  unknown: l10n.t('Unknown'),
};

/** "Why was it refused": the likely cause in one line, then each piece of evidence with its verdict. */
export function renderRefusal(explanation: RefusalExplanationView): HTMLElement {
  return h(
    'div',
    { class: 'refusal', 'data-testid': 'refusal' },
    h('h4', null, l10n.t('Why it was refused')),
    h('p', { class: 'refusal-cause', 'data-testid': 'refusal-cause' }, explanation.cause),
    h(
      'ul',
      { class: 'refusal-evidence', 'data-testid': 'refusal-evidence' },
      ...explanation.evidence.map((e) =>
        h(
          'li',
          { 'data-verdict': e.verdict },
          h('span', { class: e.verdict === 'problem' ? 'severity error' : 'muted' }, `${VERDICT_LABEL[e.verdict]}: `),
          h('strong', null, e.label),
          ` — ${e.detail}`,
        ),
      ),
    ),
  );
}

/** A note that this computer's clock is off the server's, and what to do. */
export function renderClockNotice(text: string): HTMLElement {
  return h('p', { class: 'note clock-notice', role: 'status', 'data-testid': 'clock-notice' }, text);
}
