// The results table's rows: the recycled row elements ("slots") of the virtualised grid, the text of their cells,
// and their order in the DOM. The grid (dataGrid.ts) decides which rows are in view and where the cursor is.
import type { DataColumn } from '../../shared/dataTable';
import { cellText } from '../../shared/dataTable';
import { clear, h } from '../dom';
import { fitText } from './gridColumns';

export const ROW_HEIGHT = 24;

/** One row element of the grid and the position (in the rows as shown) it holds, -1 for none. */
export interface RowSlot {
  el: HTMLElement;
  cells: HTMLElement[];
  row: number;
}

export function isNumeric(column: DataColumn): boolean {
  return column.type === 'number' || column.type === 'time' || column.type === 'position';
}

/** A CSS class for a state name from response data: letters, digits and "_" only. */
export function stateClass(state: string): string {
  return `state-${state.toLowerCase().replace(/[^a-z0-9_]/g, '') || 'none'}`;
}

/** A new, empty row of `columns`, laid out by the header's column template and appended to `body`. */
export function newRowSlot(body: HTMLElement, columns: DataColumn[], template: string): RowSlot {
  const cells = columns.map((c) =>
    h('div', { class: `vt-cell${isNumeric(c) ? ' num' : ''}`, role: 'gridcell', 'data-col': c.id }),
  );
  const el = h('div', { class: 'vt-row', role: 'row' }, ...cells);
  el.style.gridTemplateColumns = template;
  body.appendChild(el);
  return { el, cells, row: -1 };
}

/**
 * The cells of data row `row`: a state with its coloured dot, any other value shortened to the characters that fit its
 * column (`fits`), identifiers (`ids`) in the middle.
 */
export function fillCells(
  cells: HTMLElement[],
  columns: DataColumn[],
  row: number,
  fits: number[],
  ids: boolean[],
): void {
  columns.forEach((column, i) => {
    const cell = cells[i];
    const text = cellText(column, row);
    if (column.type === 'category' && column.states) {
      clear(cell);
      if (text) cell.append(h('span', { class: `dot ${stateClass(text)}`, 'aria-hidden': 'true' }), text);
    } else {
      fitText(cell, text, fits[i] ?? text.length, ids[i], column.type === 'text');
    }
  });
}

/** Recycled rows end up anywhere in the DOM; a screen reader reads DOM order, so put them back in row order. */
export function keepReadingOrder(body: HTMLElement, slots: RowSlot[]): void {
  let previous = -1;
  let ordered = true;
  for (let el = body.firstElementChild; el; el = el.nextElementSibling) {
    const row = Number(el.getAttribute('aria-rowindex'));
    if (row < previous) {
      ordered = false;
      break;
    }
    previous = row;
  }
  if (ordered) return;
  const sorted = [...slots].sort((a, b) => a.row - b.row);
  for (const slot of sorted) body.appendChild(slot.el);
}
