// The Conformance section: the result checked against the official MDS 2.0 schemas, on the host. It says
// "MDS 2.0: conforms" or lists the findings grouped by rule (count, message, where, examples with their
// value); each example's JSON Pointer is a button that opens that place in the JSON tree. Findings caused
// by a known bug of the official schemas are labelled so and folded away. Every text is set as text.
import * as l10n from '@vscode/l10n';
import type { ConformanceRuleView, ConformanceView } from '../../shared/conformanceViews';
import { formatCount, plural } from '../../shared/format';
import type { Child } from '../dom';
import { dataText, fill, h } from '../dom';

/** The section's one-line verdict, for the heading and the live region. */
export function conformanceVerdict(view: ConformanceView | undefined): string {
  switch (view?.state) {
    case undefined:
    case 'checking':
      return l10n.t('MDS 2.0: checking…');
    case 'off':
      return l10n.t('MDS 2.0: not checked ({0} is off)', 'mobilityApi.results.validate');
    case 'notMds':
      return l10n.t('Not an MDS 2.0 answer: nothing to check');
    case 'checked':
      return view.conforms
        ? l10n.t('MDS 2.0: conforms')
        : l10n.t(
            'MDS 2.0: {0} in {1} of {2}',
            plural(view.findingCount, 'finding'),
            formatCount(view.itemsWithFindings),
            plural(view.itemsChecked, 'item'),
          );
  }
}

function ruleItem(
  rule: ConformanceRuleView,
  onJump: (pageIndex: number, pointer: string) => void,
  bug: boolean,
): HTMLElement {
  const examples = rule.examples.map((example) => {
    const jump = h(
      'button',
      {
        type: 'button',
        class: 'link-button',
        translate: example.path ? 'no' : undefined,
        'data-testid': 'finding-path',
        'data-page': example.pageIndex,
        'data-path': example.path,
        title: l10n.t('Show this place in the JSON tree'),
      },
      example.path || l10n.t('(the whole body)'),
    );
    jump.addEventListener('click', () => onJump(example.pageIndex, example.path));
    return h(
      'li',
      null,
      jump,
      example.pageIndex > 0 ? h('span', { class: 'muted' }, l10n.t(' (page {0})', example.pageIndex + 1)) : null,
      ' ',
      h('span', { class: 'muted' }, l10n.t('value ')),
      h('code', { 'data-testid': 'finding-value' }, example.value),
    );
  });
  const more =
    rule.count > rule.examples.length
      ? h('li', { class: 'muted' }, l10n.t('and {0} more', formatCount(rule.count - rule.examples.length)))
      : null;
  return h(
    'li',
    {
      class: `rule${bug ? ' schema-bug' : ''}`,
      'data-testid': bug ? 'schema-bug-rule' : 'conformance-rule',
      'data-keyword': rule.keyword,
    },
    h(
      'div',
      { class: 'rule-head' },
      h('span', { class: 'rule-count', 'data-testid': 'rule-count' }, `${formatCount(rule.count)} ×`),
      ' ',
      h('span', { 'data-testid': 'rule-message' }, rule.message),
      bug && rule.schemaBug
        ? h(
            'span',
            { class: 'badge schema-bug-label', 'data-testid': 'schema-bug-label' },
            ...fill(l10n.t('schema bug: {0}', '{0}'), dataText(rule.schemaBug)),
          )
        : null,
    ),
    h(
      'div',
      { class: 'muted' },
      l10n.t('where '),
      h('code', { 'data-testid': 'rule-where' }, rule.where || l10n.t('(the whole body)')),
      ...fill(l10n.t(' · rule {0}', '{0}'), dataText(rule.keyword)),
    ),
    h('ul', { class: 'examples' }, ...examples, more),
  );
}

/** The section's content. `onJump` opens a page's JSON tree at a JSON Pointer. */
export function renderConformance(
  view: ConformanceView | undefined,
  onJump: (pageIndex: number, pointer: string) => void,
): HTMLElement {
  const verdict = conformanceVerdict(view);
  const children: Child[] = [];
  if (view?.state === 'checked') {
    children.push(
      h(
        'p',
        {
          class: view.conforms ? 'ok-text verdict' : 'error-text verdict',
          'data-testid': 'conformance-verdict',
          'data-conforms': String(view.conforms),
        },
        verdict,
      ),
    );
    children.push(
      h(
        'p',
        { class: 'muted' },
        ...fill(
          l10n.t('Endpoint {0}, mode {1}; {2} checked against {3}.', '{0}', '{1}', '{2}', '{3}'),
          dataText(view.endpoint),
          dataText(view.mode),
          plural(view.itemsChecked, 'item'),
          dataText(view.schemaSource),
        ),
      ),
    );
    if (view.rules.length) {
      children.push(
        h('h4', null, l10n.t('What the provider should fix')),
        h(
          'ul',
          { class: 'rules', 'data-testid': 'conformance-rules' },
          ...view.rules.map((r) => ruleItem(r, onJump, false)),
        ),
      );
    }
    if (view.omittedFindings)
      children.push(
        h(
          'p',
          { class: 'muted' },
          l10n.t('{0} of other rules (counted, not listed).', plural(view.omittedFindings, 'further finding')),
        ),
      );
    if (view.schemaBugs.length) {
      const count = view.schemaBugs.reduce((n, r) => n + r.count, 0);
      children.push(
        h(
          'details',
          { class: 'schema-bugs', 'data-testid': 'schema-bugs' },
          h(
            'summary',
            null,
            l10n.t(
              "{0} caused by known bugs of the official schemas (not the provider's fault)",
              plural(count, 'finding'),
            ),
          ),
          h('ul', { class: 'rules' }, ...view.schemaBugs.map((r) => ruleItem(r, onJump, true))),
        ),
      );
    }
  } else {
    children.push(
      h(
        'p',
        { class: 'muted verdict', 'data-testid': 'conformance-verdict', 'data-state': view?.state ?? 'checking' },
        verdict,
      ),
    );
  }
  return h('div', { class: 'section-body', 'data-testid': 'conformance' }, ...children);
}
