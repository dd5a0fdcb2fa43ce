// The controls in the bar above the results table: the filter field (its placeholder names the table's text
// columns) and the group menu (the values of its state or category column, most rows first, with their counts).
// The grid (dataGrid.ts) holds what they chose and filters its rows by it.
import * as l10n from '@vscode/l10n';
import type { DataTableView } from '../../shared/dataTable';
import { groupColumn, groupCounts } from '../../shared/dataTable';
import { formatCount, nounText } from '../../shared/format';
import { clear, h } from '../dom';

type Field = HTMLElement & { value: string };

/** The filter field, holding `value`; `onFilter` gets its text once typing pauses. */
export function filterField(value: string, onFilter: (text: string) => void): Field {
  const field: Field = h('vscode-textfield', {
    placeholder: l10n.t('Filter'),
    'data-testid': 'table-filter',
    'aria-label': l10n.t('Filter rows'),
  });
  field.value = value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  field.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => onFilter(field.value), 120);
  });
  return field;
}

/** The group menu; `onGroup` gets the value chosen ('' for all). */
export function groupMenu(onGroup: (value: string) => void): Field {
  const select: Field = h('vscode-single-select', {
    'data-testid': 'state-filter',
    'aria-label': l10n.t('Group'),
    label: l10n.t('Group'),
  });
  select.addEventListener('change', () => onGroup(select.value));
  return select;
}

/** Names both controls after `cols` ("Filter trips by …"); the group menu is hidden when the table has no group column. */
export function labelControls(filter: Field, select: Field, cols: DataTableView): void {
  filter.setAttribute('aria-label', l10n.t('Filter {0}', nounText(cols.noun[1])));
  filter.setAttribute(
    'placeholder',
    l10n.t(
      'Filter {0} by {1}',
      nounText(cols.noun[1]),
      cols.columns
        .filter((c) => !c.hidden && (c.type === 'text' || c.type === 'category'))
        .map((c) => c.label.toLowerCase())
        .slice(0, 4)
        .join(', '),
    ),
  );
  const group = groupColumn(cols);
  select.hidden = !group;
  if (group) {
    select.setAttribute('aria-label', group.label);
    select.setAttribute('label', group.label);
  }
}

/**
 * Fills the group menu with the values of `cols`' group column and selects `chosen` while it is one of them. Returns
 * the choice kept: undefined when `chosen` is no longer a value.
 */
export function renderGroupOptions(select: Field, cols: DataTableView, chosen: string | undefined): string | undefined {
  clear(select);
  const counts = groupCounts(cols);
  const group = groupColumn(cols);
  select.appendChild(
    h(
      'vscode-option',
      { value: '' },
      group?.states ? l10n.t('All states') : l10n.t('All ({0})', group?.label.toLowerCase() ?? l10n.t('groups')),
    ),
  );
  for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (name === '') continue;
    select.appendChild(h('vscode-option', { value: name }, `${name} (${formatCount(n)})`));
  }
  const kept = chosen && !counts.has(chosen) ? undefined : chosen;
  select.value = kept ?? '';
  select.toggleAttribute('disabled', counts.size <= 1 && counts.has(''));
  return kept;
}
