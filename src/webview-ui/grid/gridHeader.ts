// The results table's header row: a sort button and a resize edge per column, and the sort mark of the column
// the rows are sorted by. What a click on a sort button does is the grid's (dataGrid.ts).
import * as l10n from '@vscode/l10n';
import type { DataColumn } from '../../shared/dataTable';
import { clear, h } from '../dom';
import { resizeHandle } from './gridColumns';
import { isNumeric } from './gridRows';

/** What the header's controls do: sort by a column, and read and set a column's width in pixels. */
export interface HeaderActions {
  sortBy(column: DataColumn): void;
  widthOf(id: string): number;
  resize(id: string, width: number): void;
}

/** Fills `header` with a cell per column: its sort button and its resize edge. */
export function renderHeader(header: HTMLElement, columns: DataColumn[], actions: HeaderActions): void {
  clear(header);
  for (const column of columns) {
    const sort = h(
      'button',
      { type: 'button', class: 'vt-sort', 'data-col': column.id, title: l10n.t('{0}: click to sort', column.label) },
      h('span', { class: 'vt-sort-label' }, column.label),
      h('span', { class: 'sort-mark', 'aria-hidden': 'true' }),
    );
    sort.addEventListener('click', () => actions.sortBy(column));
    const edge = resizeHandle(
      column.label,
      () => actions.widthOf(column.id),
      (width) => actions.resize(column.id, width),
    );
    header.appendChild(
      h(
        'div',
        {
          class: `vt-cell vt-head${isNumeric(column) ? ' num' : ''}`,
          role: 'columnheader',
          'data-col': column.id,
          title: column.label,
        },
        sort,
        edge,
      ),
    );
  }
}

/** Marks the column the rows are sorted by (aria-sort and an arrow); the others say "none". */
export function markSort(header: HTMLElement, sortColumn: string | undefined, descending: boolean | undefined): void {
  for (const cell of Array.from(header.children) as HTMLElement[]) {
    const id = cell.getAttribute('data-col');
    const active = id !== null && id === sortColumn;
    cell.setAttribute('aria-sort', active ? (descending ? 'descending' : 'ascending') : 'none');
    const mark = cell.querySelector('.sort-mark');
    if (mark) mark.textContent = active ? (descending ? ' ▼' : ' ▲') : '';
  }
}
