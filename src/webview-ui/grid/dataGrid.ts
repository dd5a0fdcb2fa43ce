// The table of every resource (vehicles, trips, events, telemetry, stops, report CSVs): a virtualised
// table over a DataTableView. Only the rows in view (plus a few) exist in the DOM, all of one fixed
// height and recycled while scrolling, so 100,000 rows scroll like 100. Columns start wide enough for
// their header and (sampled) values, scroll sideways, and resize by their header edge; a value that
// does not fit is shortened in the middle, whole in its tooltip and for screen readers.
// For assistive technology it is an ARIA grid, one Tab stop with a row cursor (aria-activedescendant):
// the arrows, PageUp/PageDown and Home/End move it, Enter opens the row's item; aria-rowcount says how
// many rows there are, each rendered row its aria-rowindex, and the rows in the DOM are kept in reading
// order. Column headers hold sort buttons and resize edges (gridHeader.ts); the rows' cells are filled by gridRows.ts,
// the filter field and group menu built by gridToolbar.ts.
import * as l10n from '@vscode/l10n';
import type { DataColumn, DataTableView } from '../../shared/dataTable';
import { DataTableSorter, queryRows, rowCountText, visibleDataColumns } from '../../shared/dataTable';
import { nounText } from '../../shared/format';
import { columnChars, cursorAfterKey, isIdColumn } from '../../shared/gridLayout';
import { h } from '../dom';
import { charsInWidth, widthForChars } from './gridColumns';
import { markSort, renderHeader } from './gridHeader';
import { ROW_HEIGHT, fillCells, keepReadingOrder, newRowSlot } from './gridRows';
import type { RowSlot } from './gridRows';
import { filterField, groupMenu, labelControls, renderGroupOptions } from './gridToolbar';
import { useSkipLink } from '../skipLink';

let gridCount = 0;
const OVERSCAN = 8;

export interface TableState {
  sortColumn?: string;
  sortDescending?: boolean;
  filter?: string;
  stateFilter?: string;
}

/** The grid's test id and names per resource: the vehicle table keeps the names it always had. */
function namesOf(table: DataTableView): { testid: string; label: string } {
  const vehicles =
    table.resource === 'vehicles' || table.resource === 'vehicles_status' || table.resource === 'maas_vehicles';
  const many = nounText(table.noun[1]);
  const label = many.charAt(0).toUpperCase() + many.slice(1);
  return {
    testid: vehicles ? 'vehicle-table' : `${table.resource}-table`,
    label: vehicles ? l10n.t('Vehicles') : label,
  };
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
  constructor(
    initial: TableState,
    private readonly onChange: (state: TableState, rows: Uint32Array) => void,
    private readonly announce: (text: string) => void = () => {},
    private readonly onOpen: (row: number) => void = () => {},
    options: { skipLink?: boolean } = {},
  ) {
    this.state = { ...initial };
    this.filterField = filterField(this.state.filter ?? '', (filter) => this.update({ filter }));
    this.stateSelect = groupMenu((stateFilter) => this.update({ stateFilter }));
    this.count = h('span', { class: 'muted', 'data-testid': 'row-count' });
    this.header = h('div', { class: 'vt-header', role: 'row', 'aria-rowindex': 1 });
    this.body = h('div', { class: 'vt-body', role: 'rowgroup' });
    // One Tab stop: the arrows move the row cursor; the sort buttons and resize edges of its header come next in Tab order.
    this.scroller = h(
      'div',
      {
        class: 'vt',
        role: 'grid',
        'aria-readonly': 'true',
        tabindex: 0,
        'data-testid': 'vehicle-table',
        'aria-label': l10n.t('Vehicles'),
      },
      this.header,
      this.body,
    );
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
    return {
      filter: this.state.filter,
      group: this.state.stateFilter,
      sortColumn: this.state.sortColumn,
      sortDescending: this.state.sortDescending,
    };
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
    labelControls(this.filterField, this.stateSelect, cols);
    if (this.state.sortColumn && !this.columns.some((c) => c.id === this.state.sortColumn))
      this.state.sortColumn = undefined;
    for (const column of this.columns)
      if (!this.widths.has(column.id)) this.widths.set(column.id, widthForChars(columnChars(column, cols.count)));
    this.applyWidths();
    renderHeader(this.header, this.columns, {
      sortBy: (column) => this.sortBy(column),
      widthOf: (id) => this.widths.get(id) ?? 120,
      resize: (id, width) => this.resizeColumn(id, width),
    });
    if (renderGroupOptions(this.stateSelect, cols, this.state.stateFilter) !== this.state.stateFilter)
      this.state.stateFilter = undefined;
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
    markSort(this.header, this.state.sortColumn, this.state.sortDescending);
    this.render();
    this.onChange({ ...this.state }, rows);
  }

  /** A click on a column's sort button: by that column, ascending first, the other way on the next click. */
  private sortBy(column: DataColumn): void {
    const descending = this.state.sortColumn === column.id ? !this.state.sortDescending : false;
    this.state = { ...this.state, sortColumn: column.id, sortDescending: descending };
    this.refresh();
    this.announce(
      descending ? l10n.t('Sorted by {0}, descending', column.label) : l10n.t('Sorted by {0}, ascending', column.label),
    );
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
    while (this.slots.length < needed)
      this.slots.push(newRowSlot(this.body, this.columns, this.header.style.gridTemplateColumns));
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
    if (this.cursor >= 0 && this.slots.some((slot) => slot.row === this.cursor))
      this.scroller.setAttribute('aria-activedescendant', `${this.idPrefix}${this.order[this.cursor]}`);
    else this.scroller.removeAttribute('aria-activedescendant');
    // Not on every scroll frame: once scrolling pauses.
    clearTimeout(this.orderTimer);
    this.orderTimer = setTimeout(() => keepReadingOrder(this.body, this.slots), 120);
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
    fillCells(slot.cells, this.columns, row, this.fits, this.ids);
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
    keepReadingOrder(this.body, this.slots);
  }
}
