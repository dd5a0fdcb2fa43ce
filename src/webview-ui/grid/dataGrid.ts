// The table of every resource (vehicles, trips, events, telemetry, stops, report CSVs): a virtualised
// table over a DataTableView. Only the rows in view (plus a few) exist in the DOM, all of one fixed
// height and recycled while scrolling, so 100,000 rows scroll like 100. Columns start wide enough for
// their header and (sampled) values, scroll sideways, and resize by their header edge; a value that
// does not fit is shortened in the middle, whole in its tooltip and for screen readers.
// For assistive technology it is an ARIA grid, one Tab stop with a row cursor (aria-activedescendant):
// the arrows, PageUp/PageDown and Home/End move it, Enter opens the row's item; aria-rowcount says how
// many rows there are, each rendered row its aria-rowindex, and the rows in the DOM are kept in reading
// order. Column headers hold sort buttons and resize edges.
import * as l10n from '@vscode/l10n';
import type { DataColumn, DataTableView } from '../../shared/dataTable';
import { DataTableSorter, cellText, groupColumn, groupCounts, queryRows, rowCountText, visibleDataColumns } from '../../shared/dataTable';
import { formatCount, nounText } from '../../shared/format';
import { columnChars, cursorAfterKey, isIdColumn } from '../../shared/gridLayout';
import { clear, h } from '../dom';
import { charsInWidth, fitText, resizeHandle, widthForChars } from './gridColumns';
import { useSkipLink } from '../skipLink';

export const ROW_HEIGHT = 24;
let gridCount = 0;

function isNumeric(column: DataColumn): boolean {
  return column.type === 'number' || column.type === 'time' || column.type === 'position';
}
const OVERSCAN = 8;

export interface TableState {
  sortColumn?: string;
  sortDescending?: boolean;
  filter?: string;
  stateFilter?: string;
}

/** A CSS class for a state name from response data: letters, digits and "_" only. */
export function stateClass(state: string): string {
  return `state-${state.toLowerCase().replace(/[^a-z0-9_]/g, '') || 'none'}`;
}

interface RowSlot {
  el: HTMLElement;
  cells: HTMLElement[];
  row: number;
}

/** The grid's test id and names per resource: the vehicle table keeps the names it always had. */
function namesOf(table: DataTableView): { testid: string; label: string } {
  const vehicles = table.resource === 'vehicles' || table.resource === 'vehicles_status' || table.resource === 'maas_vehicles';
  const many = nounText(table.noun[1]);
  const label = many.charAt(0).toUpperCase() + many.slice(1);
  return { testid: vehicles ? 'vehicle-table' : `${table.resource}-table`, label: vehicles ? l10n.t('Vehicles') : label };
}

export class DataGrid {
  readonly element: HTMLElement;
  private cols: DataTableView | undefined;
  private columns: DataColumn[] = [];
  private sorter: DataTableSorter | undefined;
  private order: Uint32Array = new Uint32Array(0);
  private readonly scroller: HTMLElement;
  private readonly header: HTMLElement;
  private readonly body: HTMLElement;
  private readonly count: HTMLElement;
  private readonly filterField: HTMLElement & { value: string };
  private readonly stateSelect: HTMLElement & { value: string };
  private slots: RowSlot[] = [];
  private frame = 0;
  private filterTimer: ReturnType<typeof setTimeout> | undefined;
  private orderTimer: ReturnType<typeof setTimeout> | undefined;
  private state: TableState;
  /** Column widths in pixels, by column id; kept across new data of the same columns. */
  private readonly widths = new Map<string, number>();
  /** Characters that fit in each shown column. */
  private fits: number[] = [];
  /** Which shown columns hold identifiers. */
  private ids: boolean[] = [];
  /** The row cursor: a position in the rows as shown, -1 for none. */
  private cursor = -1;
  /** Each row's element id is this and its data row: the cursor's id changes as it moves, so a screen reader announces the move. */
  private readonly idPrefix = `vt-${++gridCount}-row-`;
  /** Per data row, 1 for a row to mark (a finding's rows in a device timeline); a column says the same in words. */
  private marked: Uint8Array | undefined;

  /**
   * `onOpen(row)` opens a row's item (the data row index, as in `cellText`): Enter, or a double click.
   * `options.skipLink: false` leaves out the page's "Skip to table" link (a notebook's output is not our page).
   */
  constructor(initial: TableState, private readonly onChange: (state: TableState, rows: Uint32Array) => void, private readonly announce: (text: string) => void = () => {}, private readonly onOpen: (row: number) => void = () => {}, options: { skipLink?: boolean } = {}) {
    this.state = { ...initial };
    this.filterField = h('vscode-textfield', { placeholder: l10n.t('Filter'), 'data-testid': 'table-filter', 'aria-label': l10n.t('Filter rows') });
    this.filterField.value = this.state.filter ?? '';
    this.filterField.addEventListener('input', () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.update({ filter: this.filterField.value }), 120);
    });
    this.stateSelect = h('vscode-single-select', { 'data-testid': 'state-filter', 'aria-label': l10n.t('Group'), label: l10n.t('Group') });
    this.stateSelect.addEventListener('change', () => this.update({ stateFilter: this.stateSelect.value }));
    this.count = h('span', { class: 'muted', 'data-testid': 'row-count' });
    this.header = h('div', { class: 'vt-header', role: 'row', 'aria-rowindex': 1 });
    this.body = h('div', { class: 'vt-body', role: 'rowgroup' });
    // One Tab stop: the arrows move the row cursor; the sort buttons and resize edges of its header come next in Tab order.
    this.scroller = h('div', { class: 'vt', role: 'grid', 'aria-readonly': 'true', tabindex: 0, 'data-testid': 'vehicle-table', 'aria-label': l10n.t('Vehicles') }, this.header, this.body);
    this.toolbar = h('div', { class: 'toolbar' }, this.filterField, this.stateSelect, this.count);
    this.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.scroller.addEventListener('keydown', (event) => this.onKey(event));
    this.scroller.addEventListener('focus', () => {
      if (this.cursor < 0 && this.order.length) this.moveCursor(this.firstVisibleRow());
    });
    this.body.addEventListener('click', (event) => {
      const position = this.positionOf(event.target);
      if (position === undefined) return;
      this.moveCursor(position);
      this.scroller.focus({ preventScroll: true });
    });
    this.body.addEventListener('dblclick', (event) => {
      const position = this.positionOf(event.target);
      if (position !== undefined) this.onOpen(this.order[position]);
    });
    if (options.skipLink !== false) useSkipLink(() => (this.scroller.isConnected ? this.scroller : undefined));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    this.element = h('div', { class: 'vt-wrap' }, this.toolbar, this.scroller);
  }

  /** The bar above the table (filter, group menu, count): export buttons go here. */
  readonly toolbar: HTMLElement;

  /** What the user chose: the export rebuilds these rows on the host. */
  get query(): { filter?: string; group?: string; sortColumn?: string; sortDescending?: boolean } {
    return { filter: this.state.filter, group: this.state.stateFilter, sortColumn: this.state.sortColumn, sortDescending: this.state.sortDescending };
  }

  /** The data shown. */
  get data(): DataTableView | undefined {
    return this.cols;
  }

  /** New data. `keepScroll` when rows were appended to the same result. */
  setData(cols: DataTableView, keepScroll = false): void {
    this.cols = cols;
    this.sorter = new DataTableSorter(cols);
    this.columns = visibleDataColumns(cols);
    const names = namesOf(cols);
    this.scroller.setAttribute('data-testid', names.testid);
    this.scroller.setAttribute('aria-label', names.label);
    this.scroller.setAttribute('data-resource', cols.resource);
    this.filterField.setAttribute('aria-label', l10n.t('Filter {0}', nounText(cols.noun[1])));
    this.filterField.setAttribute('placeholder', l10n.t('Filter {0} by {1}', nounText(cols.noun[1]), cols.columns.filter((c) => !c.hidden && (c.type === 'text' || c.type === 'category')).map((c) => c.label.toLowerCase()).slice(0, 4).join(', ')));
    const group = groupColumn(cols);
    this.stateSelect.hidden = !group;
    if (group) {
      this.stateSelect.setAttribute('aria-label', group.label);
      this.stateSelect.setAttribute('label', group.label);
    }
    if (this.state.sortColumn && !this.columns.some((c) => c.id === this.state.sortColumn)) this.state.sortColumn = undefined;
    for (const column of this.columns) if (!this.widths.has(column.id)) this.widths.set(column.id, widthForChars(columnChars(column, cols.count)));
    this.applyWidths();
    this.renderHeader();
    this.renderStateOptions();
    for (const slot of this.slots) slot.el.remove();
    this.slots = [];
    if (!keepScroll) this.cursor = -1;
    this.refresh();
    if (!keepScroll) this.scroller.scrollTop = 0;
  }

  /** Marks the data rows whose entry is 1 (a bar at the row's start); the table's text must say it too. */
  markRows(marked: Uint8Array | undefined): void {
    this.marked = marked;
    for (const slot of this.slots) slot.row = -1;
    this.render();
  }

  /** The rows in view order (filtered and sorted). */
  get rows(): Uint32Array {
    return this.order;
  }

  /** Sets the grid's column template and width from `widths`: the table is as wide as its columns and scrolls sideways. */
  private applyWidths(): void {
    const px = this.columns.map((c) => this.widths.get(c.id) ?? 120);
    this.fits = px.map(charsInWidth);
    this.ids = this.columns.map(isIdColumn);
    // The last column takes what is left of a wide panel.
    const template = px.map((w, i) => (i === px.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`)).join(' ');
    this.header.style.gridTemplateColumns = template;
    for (const slot of this.slots) slot.el.style.gridTemplateColumns = template;
    this.scroller.style.setProperty('--vt-width', `${px.reduce((a, b) => a + b, 0)}px`);
  }

  private resizeColumn(id: string, width: number): void {
    this.widths.set(id, width);
    this.applyWidths();
    for (const slot of this.slots) slot.row = -1;
    this.render();
  }

  private update(change: Partial<TableState>): void {
    this.state = { ...this.state, ...change };
    this.cursor = -1;
    this.refresh();
    this.scroller.scrollTop = 0;
    this.announce(this.count.textContent ?? '');
  }

  private refresh(): void {
    const cols = this.cols;
    if (!cols || !this.sorter) return;
    const rows = queryRows(cols, this.query, this.sorter);
    this.order = rows;
    this.body.style.height = `${rows.length * ROW_HEIGHT}px`;
    this.scroller.setAttribute('aria-rowcount', String(rows.length + 1));
    this.count.textContent = rowCountText(cols, rows.length);
    this.count.setAttribute('data-rows', String(rows.length));
    if (this.cursor >= rows.length) this.cursor = rows.length - 1;
    for (const slot of this.slots) slot.row = -1;
    this.updateHeaderSort();
    this.render();
    this.onChange({ ...this.state }, rows);
  }

  private renderHeader(): void {
    clear(this.header);
    for (const column of this.columns) {
      const sort = h('button', { type: 'button', class: 'vt-sort', 'data-col': column.id, title: l10n.t('{0}: click to sort', column.label) }, h('span', { class: 'vt-sort-label' }, column.label), h('span', { class: 'sort-mark', 'aria-hidden': 'true' }));
      sort.addEventListener('click', () => {
        const descending = this.state.sortColumn === column.id ? !this.state.sortDescending : false;
        this.state = { ...this.state, sortColumn: column.id, sortDescending: descending };
        this.refresh();
        this.announce(descending ? l10n.t('Sorted by {0}, descending', column.label) : l10n.t('Sorted by {0}, ascending', column.label));
      });
      const edge = resizeHandle(column.label, () => this.widths.get(column.id) ?? 120, (width) => this.resizeColumn(column.id, width));
      this.header.appendChild(h('div', { class: `vt-cell vt-head${isNumeric(column) ? ' num' : ''}`, role: 'columnheader', 'data-col': column.id, title: column.label }, sort, edge));
    }
  }

  private updateHeaderSort(): void {
    for (const cell of Array.from(this.header.children) as HTMLElement[]) {
      const id = cell.getAttribute('data-col');
      const active = id !== null && id === this.state.sortColumn;
      cell.setAttribute('aria-sort', active ? (this.state.sortDescending ? 'descending' : 'ascending') : 'none');
      const mark = cell.querySelector('.sort-mark');
      if (mark) mark.textContent = active ? (this.state.sortDescending ? ' ▼' : ' ▲') : '';
    }
  }

  private renderStateOptions(): void {
    const cols = this.cols;
    if (!cols) return;
    clear(this.stateSelect);
    const counts = groupCounts(cols);
    const group = groupColumn(cols);
    this.stateSelect.appendChild(h('vscode-option', { value: '' }, group?.states ? l10n.t('All states') : l10n.t('All ({0})', group?.label.toLowerCase() ?? l10n.t('groups'))));
    for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1])) {
      if (name === '') continue;
      this.stateSelect.appendChild(h('vscode-option', { value: name }, `${name} (${formatCount(n)})`));
    }
    if (this.state.stateFilter && !counts.has(this.state.stateFilter)) this.state.stateFilter = undefined;
    this.stateSelect.value = this.state.stateFilter ?? '';
    this.stateSelect.toggleAttribute('disabled', counts.size <= 1 && counts.has(''));
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    const cols = this.cols;
    if (!cols) return;
    const viewport = this.scroller.clientHeight || 400;
    const top = Math.max(0, this.scroller.scrollTop - this.header.offsetHeight);
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.order.length, Math.ceil((top + viewport) / ROW_HEIGHT) + OVERSCAN);
    const needed = Math.max(0, last - first);
    while (this.slots.length < needed) this.slots.push(this.newSlot());
    while (this.slots.length > needed) this.slots.pop()?.el.remove();
    // Keep slots whose row stays in range where they are; only the rest get new content.
    const free: RowSlot[] = [];
    const placed = new Set<number>();
    for (const slot of this.slots) {
      if (slot.row >= first && slot.row < last && !placed.has(slot.row)) placed.add(slot.row);
      else free.push(slot);
    }
    for (let r = first; r < last && free.length; r++) {
      if (placed.has(r)) continue;
      const slot = free.pop() as RowSlot;
      this.fill(slot, r);
    }
    // The cursor's row may have scrolled out (its slot recycled) or back in.
    if (this.cursor >= 0 && this.slots.some((slot) => slot.row === this.cursor)) this.scroller.setAttribute('aria-activedescendant', `${this.idPrefix}${this.order[this.cursor]}`);
    else this.scroller.removeAttribute('aria-activedescendant');
    // Not on every scroll frame: once scrolling pauses.
    clearTimeout(this.orderTimer);
    this.orderTimer = setTimeout(() => this.keepReadingOrder(), 120);
  }

  /** Recycled rows end up anywhere in the DOM; a screen reader reads DOM order, so put them back in row order. */
  private keepReadingOrder(): void {
    let previous = -1;
    let ordered = true;
    for (let el = this.body.firstElementChild; el; el = el.nextElementSibling) {
      const row = Number(el.getAttribute('aria-rowindex'));
      if (row < previous) {
        ordered = false;
        break;
      }
      previous = row;
    }
    if (ordered) return;
    const sorted = [...this.slots].sort((a, b) => a.row - b.row);
    for (const slot of sorted) this.body.appendChild(slot.el);
  }

  private newSlot(): RowSlot {
    const cells = this.columns.map((c) => h('div', { class: `vt-cell${isNumeric(c) ? ' num' : ''}`, role: 'gridcell', 'data-col': c.id }));
    const el = h('div', { class: 'vt-row', role: 'row' }, ...cells);
    el.style.gridTemplateColumns = this.header.style.gridTemplateColumns;
    this.body.appendChild(el);
    return { el, cells, row: -1 };
  }

  private fill(slot: RowSlot, position: number): void {
    const row = this.order[position];
    slot.row = position;
    slot.el.style.transform = `translateY(${position * ROW_HEIGHT}px)`;
    slot.el.setAttribute('aria-rowindex', String(position + 2));
    slot.el.setAttribute('data-row', String(row));
    slot.el.id = `${this.idPrefix}${row}`;
    slot.el.classList.toggle('odd', position % 2 === 1);
    slot.el.classList.toggle('vt-marked', this.marked?.[row] === 1);
    this.markCursor(slot);
    this.columns.forEach((column, i) => {
      const cell = slot.cells[i];
      const text = cellText(column, row);
      if (column.type === 'category' && column.states) {
        clear(cell);
        if (text) cell.append(h('span', { class: `dot ${stateClass(text)}`, 'aria-hidden': 'true' }), text);
      } else {
        fitText(cell, text, this.fits[i] ?? text.length, this.ids[i], column.type === 'text');
      }
    });
  }

  private markCursor(slot: RowSlot): void {
    const active = slot.row === this.cursor && this.cursor >= 0;
    slot.el.classList.toggle('vt-cursor', active);
    if (active) slot.el.setAttribute('aria-selected', 'true');
    else slot.el.removeAttribute('aria-selected');
  }

  /** The position of the row a click landed in. */
  private positionOf(target: EventTarget | null): number | undefined {
    const el = target instanceof Element ? target.closest('.vt-row') : null;
    const slot = this.slots.find((s) => s.el === el);
    return slot && slot.row >= 0 ? slot.row : undefined;
  }

  private firstVisibleRow(): number {
    const top = Math.max(0, this.scroller.scrollTop);
    return Math.min(this.order.length - 1, Math.ceil(top / ROW_HEIGHT));
  }

  private onKey(event: KeyboardEvent): void {
    if (event.target !== this.scroller || event.altKey) return;
    if (event.key === 'Enter' || event.key === ' ') {
      if (this.cursor < 0 || this.cursor >= this.order.length) return;
      event.preventDefault();
      if (event.key === 'Enter') this.onOpen(this.order[this.cursor]);
      return;
    }
    const pageRows = Math.max(1, Math.floor((this.scroller.clientHeight - this.header.offsetHeight) / ROW_HEIGHT));
    const next = cursorAfterKey(event, this.cursor, this.order.length, pageRows);
    if (next === undefined) return;
    event.preventDefault();
    this.moveCursor(next);
  }

  /** Puts the cursor on row `position`, scrolled into view and rendered, and tells assistive technology. */
  private moveCursor(position: number): void {
    this.cursor = position;
    const headerHeight = this.header.offsetHeight;
    const top = position * ROW_HEIGHT;
    const view = Math.max(ROW_HEIGHT, this.scroller.clientHeight - headerHeight);
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > this.scroller.scrollTop + view) this.scroller.scrollTop = top + ROW_HEIGHT - view;
    for (const slot of this.slots) this.markCursor(slot);
    this.render();
    this.keepReadingOrder();
  }
}
