// The Body section of a listing: its table, the JSON tree and Raw text of the selected page, and the positions
// plot, as tabs. The host sends a page's body only when the tree or Raw view asks for it.
import * as l10n from '@vscode/l10n';
import type { DataTableView } from '../../shared/dataTable';
import { vehicleDataTable } from '../../shared/dataTableBuild';
import { formatCount, nounText } from '../../shared/format';
import type { BodyView, ListingResultView } from '../../shared/listingViews';
import type { PanelUiState } from '../../shared/protocol';
import { DataGrid } from '../grid/dataGrid';
import type { Child } from '../dom';
import { button, clear, h } from '../dom';
import { JsonTree } from '../grid/jsonTree';
import type { PanelContext } from '../panelContext';
import { ScatterPlot } from '../charts/scatterPlot';

type BodyViewId = NonNullable<PanelUiState['bodyView']>;
const BODY_VIEWS = (): { id: BodyViewId; label: string }[] => [
  { id: 'table', label: l10n.t('Vehicles') },
  { id: 'tree', label: 'JSON' },
  { id: 'raw', label: l10n.t('Raw') },
  { id: 'plot', label: l10n.t('Positions') },
];

/** The table a listing shows: its resource table, or its vehicles. */
export function tableOf(r: ListingResultView): DataTableView {
  return (
    r.table ??
    vehicleDataTable(
      r.vehicles,
      r.shape === 'mds-status' ? 'vehicles_status' : r.shape === 'maas' ? 'maas_vehicles' : 'vehicles',
    )
  );
}

/** Why the table is empty, by how the request ended. */
function noRowsText(r: ListingResultView, data: DataTableView): string {
  const many = nounText(data.noun[1]);
  if (r.error) return l10n.t('The answer holds no {0}: see the error above and the JSON view.', many);
  switch (r.outcome) {
    case 'not_processed':
      return l10n.t('The provider has not processed this hour yet: {0}.', r.summary.line);
    case 'empty':
      return l10n.t('No {0}: {1}.', many, r.summary.line);
    case 'body':
      return l10n.t('The body holds no list of items this panel shows as a table. See the JSON view.');
    default:
      return r.table || r.outcome
        ? l10n.t('No {0}. See the JSON view.', many)
        : l10n.t('The body holds no vehicles array (vehicles or vehicles_status). See the JSON view.');
  }
}

/** A JSON Pointer, or how to find one in the page's JSON once it is there (a table row's item). */
export type JsonPlace = string | ((json: unknown) => string);
/** The Body section of one listing. */
export class BodyTabs {
  readonly element: HTMLElement;
  private readonly views = BODY_VIEWS();
  private readonly tabs: HTMLElement & { selectedIndex: number };
  private readonly table: DataGrid;
  private readonly plot = new ScatterPlot();
  private readonly tree: JsonTree;
  private readonly treeHost = h('div');
  private readonly raw = h('div');
  private treePage = -1;
  private pendingJump: { pageIndex: number; pointer: JsonPlace } | undefined;
  readonly exportButtons: HTMLElement[] = [];

  constructor(
    private readonly ctx: PanelContext,
    private readonly r: ListingResultView,
    private readonly bodies: Map<number, BodyView>,
    private readonly pageIndex: () => number,
    /** Enter (or a double click) on a table row: `row` is its index over all pages. */
    openRow: (row: number) => void = () => {},
  ) {
    const ui = ctx.ui;
    const data = tableOf(r);
    const hasRows = data.count > 0;
    const initial = ui.bodyView ?? (hasRows ? 'table' : 'tree');
    this.tabs = h('vscode-tabs', { 'data-testid': 'body-tabs' });
    const panels = new Map<BodyViewId, HTMLElement>();
    const noun = nounText(data.noun[1]);
    const tableLabel = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}`;
    for (const view of this.views) {
      this.tabs.appendChild(
        h(
          'vscode-tab-header',
          { slot: 'header', 'data-testid': `view-${view.id}`, id: `tab-${view.id}` },
          view.id === 'table' ? (r.table || !hasRows ? tableLabel : view.label) : view.label,
        ),
      );
      const panel = h('vscode-tab-panel', { 'data-testid': `panel-${view.id}` });
      panels.set(view.id, panel);
      this.tabs.appendChild(panel);
    }
    this.tabs.selectedIndex = Math.max(
      0,
      this.views.findIndex((v) => v.id === initial),
    );
    ui.bodyView = initial;

    this.table = new DataGrid(
      {
        sortColumn: ui.sortColumn,
        sortDescending: ui.sortDescending,
        filter: ui.filter,
        stateFilter: ui.stateFilter,
      },
      (state, rows) => {
        ui.sortColumn = state.sortColumn;
        ui.sortDescending = state.sortDescending;
        ui.filter = state.filter;
        ui.stateFilter = state.stateFilter;
        ctx.persist();
        if (this.table?.data) this.plot.setData(this.table.data, rows);
      },
      (text) => ctx.announce(text),
      openRow,
    );
    this.tree = new JsonTree((text) => ctx.announce(text));
    const tablePanel = panels.get('table') as HTMLElement;
    tablePanel.appendChild(
      hasRows ? this.table.element : h('p', { class: 'muted', 'data-testid': 'no-vehicles' }, noRowsText(r, data)),
    );
    (panels.get('plot') as HTMLElement).appendChild(this.plot.element);
    (panels.get('tree') as HTMLElement).appendChild(this.treeHost);
    (panels.get('raw') as HTMLElement).appendChild(this.raw);
    this.table.setData(data);
    if (r.canExport && hasRows) {
      this.table.toolbar.append(this.exportButton(l10n.t('Save CSV'), 'csv', 'export-csv'));
      if (data.columns.some((c) => c.type === 'position'))
        this.table.toolbar.append(this.exportButton(l10n.t('Save GeoJSON'), 'geojson', 'export-geojson'));
    }
    this.plot.setData(data, this.table.rows);

    this.tabs.addEventListener('vsc-tabs-select', (event) => {
      const index = (event as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex;
      ui.bodyView = this.views[index]?.id ?? 'table';
      ctx.persist();
      this.renderViews();
    });
    this.renderViews();
    this.element = h('div', { class: 'section-body' }, this.tabs);
  }

  /** The table after pages were appended (the rows grow; sort and filter stay). */
  appendRows(): void {
    this.table.setData(tableOf(this.r), true);
  }

  /** Opens page `pageIndex`'s JSON tree at a JSON Pointer (a conformance finding's place, or a row's item). */
  jumpTo(pageIndex: number, pointer: JsonPlace): void {
    this.pendingJump = { pageIndex, pointer };
    this.ctx.ui.bodyView = 'tree';
    this.ctx.persist();
    this.tabs.selectedIndex = Math.max(
      0,
      this.views.findIndex((v) => v.id === 'tree'),
    );
    this.renderViews();
  }

  private exportButton(label: string, format: 'csv' | 'geojson' | 'raw', testid: string): HTMLElement {
    const r = this.r;
    const b = button(
      label,
      () => {
        this.ctx.post({
          type: 'export',
          resultId: r.id,
          format,
          query: this.table.query ?? {},
          pageIndex: this.pageIndex(),
        });
      },
      {
        secondary: true,
        'data-testid': testid,
        title:
          format === 'raw'
            ? l10n.t("Save this page's body as received (tokens removed)")
            : format === 'csv'
              ? l10n.t('Save the rows shown (as filtered and sorted) as CSV')
              : l10n.t('Save the rows shown (as filtered and sorted) as GeoJSON points'),
      },
    );
    this.exportButtons.push(b);
    return b;
  }

  /** The JSON tree and Raw views of the selected page, asking the host for the body when needed. */
  renderViews(): void {
    const { r, treeHost, raw, tree } = this;
    const view = this.ctx.ui.bodyView;
    if (view !== 'tree' && view !== 'raw') return;
    const index = this.pageIndex();
    const body = this.bodies.get(index);
    const pageNote =
      r.pages.length > 1 ? l10n.t('Page {0} of {1}. ', formatCount(index + 1), formatCount(r.pages.length)) : '';
    if (!body) {
      clear(treeHost);
      clear(raw);
      const loading = h('p', { class: 'muted' }, pageNote, l10n.t('Loading the body…'));
      (view === 'tree' ? treeHost : raw).appendChild(loading);
      this.ctx.post({ type: 'requestBody', resultId: r.id, pageIndex: index });
      return;
    }
    if (view === 'tree' && this.treePage !== index) {
      this.treePage = index;
      clear(treeHost);
      if (pageNote) treeHost.appendChild(h('p', { class: 'muted' }, pageNote));
      if (body.bodyKind === 'json') {
        tree.setValue(body.json);
        treeHost.appendChild(tree.element);
      } else {
        treeHost.appendChild(
          h(
            'p',
            { class: 'muted' },
            body.bodyKind === 'empty' ? l10n.t('The body is empty.') : l10n.t('The body is not JSON; see Raw.'),
          ),
        );
      }
    }
    const jump = this.pendingJump;
    if (view === 'tree' && jump && jump.pageIndex === index) {
      this.pendingJump = undefined;
      if (body.bodyKind === 'json')
        tree.revealPointer(typeof jump.pointer === 'string' ? jump.pointer : jump.pointer(body.json));
    }
    if (view === 'raw') {
      clear(raw);
      const notes: Child[] = [];
      if (body.rawReserialised)
        notes.push(l10n.t('The received text was too large to keep; this is the parsed body written out again. '));
      if (body.rawTruncated)
        notes.push(
          l10n.t(
            'Showing the first {0} of {1} characters. ',
            formatCount(body.raw.length),
            formatCount(body.rawTotalChars),
          ),
        );
      raw.append(
        h(
          'div',
          { class: 'toolbar' },
          h('span', { class: 'muted' }, pageNote, ...notes),
          button(
            l10n.t('Open in editor'),
            () => this.ctx.post({ type: 'openInEditor', resultId: r.id, pageIndex: index }),
            { secondary: true, 'data-testid': 'open-in-editor' },
          ),
          r.canExport && body.bodyKind !== 'empty' ? this.exportButton(l10n.t('Save body'), 'raw', 'export-raw') : null,
        ),
        h(
          'pre',
          { class: 'code raw', 'data-testid': 'raw-body', tabindex: 0 },
          body.bodyKind === 'empty' ? '' : body.raw,
        ),
      );
    }
  }
}
