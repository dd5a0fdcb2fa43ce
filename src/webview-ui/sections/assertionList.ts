// After a send from a request file, the result's header lists each of the request's assertions: passed, or failed
// with what was expected and what was found. Text only (the assertion and the values are data).
import * as l10n from '@vscode/l10n';
import type { AssertionResultView } from '../../shared/contractViews';
import { h } from '../dom';

/** The list, or nothing when the request had no assertions. */
export function assertionList(assertions: readonly AssertionResultView[] | undefined): HTMLElement | null {
  if (!assertions?.length) return null;
  const failed = assertions.filter((a) => !a.passed).length;
  const heading = failed
    ? l10n.t('Assertions: {0} of {1} failed', failed, assertions.length)
    : l10n.t('Assertions: all {0} passed', assertions.length);
  return h(
    'div',
    { class: 'assertion-results', 'data-testid': 'assertion-results' },
    h('span', { 'data-testid': 'assertion-summary' }, heading),
    h(
      'ul',
      null,
      ...assertions.map((a) =>
        h(
          'li',
          { class: a.passed ? 'assertion-passed' : 'assertion-failed', 'data-testid': 'assertion-result' },
          a.passed ? l10n.t('passed') : l10n.t('failed'),
          ' ',
          h('code', { translate: 'no' }, a.text),
          h('span', { class: 'muted' }, l10n.t(' (line {0})', a.line)),
          a.passed
            ? null
            : a.expected !== undefined
              ? h('span', null, l10n.t(': expected {0}, actual {1}', a.expected, a.actual ?? ''))
              : h('span', null, ': ', a.message ?? ''),
        ),
      ),
    ),
  );
}
