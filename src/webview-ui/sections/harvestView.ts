// The harvest view of the results panel (Fetch Hours…): the coverage heatmap (days × 24 UTC hours) as an
// ARIA grid of buttons with text, a legend with counts, and under it the items of the hour chosen, in
// the resource's table. Arrow keys move between hours (one tab stop for the whole grid); Enter or a
// click asks the host for the hour's items. The heatmap is replaced live while the harvest runs.
import * as l10n from '@vscode/l10n';
import { nounText } from '../../shared/format';
import type { HarvestHeatmapView, HarvestHourView, HarvestResultView } from '../../shared/harvestViews';
import type { WebviewMessage } from '../../shared/protocol';
import { DataGrid } from '../grid/dataGrid';
import { button, clear, fill, focusedIn, h, urlText } from '../dom';
import '../harvest.css';

const HOURS = Array.from({ length: 24 }, (_, i) => String(i).padStart(2, '0'));

/** Renders one harvest result and keeps it current. */
export class HarvestView {
  private result: HarvestResultView | undefined;
  private gridHost: HTMLElement | undefined;
  private legendHost: HTMLElement | undefined;
  private lineHost: HTMLElement | undefined;
  private statusHost: HTMLElement | undefined;
  private hourHost: HTMLElement | undefined;
  private analyzeButton: HTMLElement | undefined;
  private table: DataGrid | undefined;
  /** The hour that holds the grid's one tab stop (the one chosen last, else the first of the range). */
  private focusHour: string | undefined;

  constructor(
    private readonly post: (message: WebviewMessage) => void,
    private readonly announce: (text: string) => void,
  ) {}

  /** The whole view of `r` into `root` (emptied by the caller). */
  render(root: HTMLElement, r: HarvestResultView): void {
    this.result = r;
    this.focusHour = r.hour?.hour;
    const env = r.environment;
    this.lineHost = h('span', { 'data-testid': 'summary-line' }, r.summary.line);
    this.statusHost = h('span', { 'data-testid': 'harvest-status' }, statusText(r.running, r.stopped, r.step));
    // Analyze Harvest… once the run has ended: its data-quality report, by the analysis engine.
    this.analyzeButton = button(
      l10n.t('Analyze Harvest…'),
      () => this.post({ type: 'analyzeHarvest', resultId: r.id }),
      {
        'data-testid': 'analyze-harvest',
        title: l10n.t(
          'The data-quality report of this folder: trips without their events, gaps, jumps, values in another unit…',
        ),
        disabled: r.running,
      },
    );
    root.appendChild(
      h(
        'header',
        { class: 'result-header' },
        h(
          'div',
          null,
          h('h1', { 'data-testid': 'result-title' }, r.title),
          h(
            'p',
            { class: 'muted sub' },
            h('span', { class: 'badge', translate: 'no' }, env.apiLabel),
            ' ',
            env.name,
            ' · ',
            h('span', { translate: 'no' }, env.stage),
            ' · ',
            urlText(env.baseUrl, { 'data-testid': 'base-url' }),
            h('br'),
            ...fill(
              l10n.t('Folder: {0}', '{0}'),
              h('span', { class: 'code-inline', 'data-testid': 'harvest-folder', translate: 'no' }, r.outDir),
            ),
            h('br'),
            this.statusHost,
            ' · ',
            this.lineHost,
          ),
        ),
        h('div', { class: 'toolbar' }, this.analyzeButton),
      ),
    );
    this.legendHost = h('ul', { class: 'heat-legend', 'aria-label': l10n.t('Legend'), 'data-testid': 'heat-legend' });
    this.gridHost = h('div', { class: 'heat-wrap' });
    root.appendChild(
      h(
        'section',
        { class: 'section-body' },
        h('h2', { class: 'heat-title' }, l10n.t('Coverage by UTC hour, {0} to {1}', r.from, r.to)),
        h(
          'p',
          { class: 'muted' },
          l10n.t(
            'Each cell is one hour: its item count, 0 (200 but empty), 404, 202 (still pending) or the failing status. Hover or focus a cell for its detail; Enter or a click shows its items below.',
          ),
        ),
        this.legendHost,
        this.gridHost,
      ),
    );
    this.hourHost = h('section', { class: 'section-body', 'data-testid': 'harvest-hour', 'aria-live': 'off' });
    root.appendChild(this.hourHost);
    this.renderHeatmap(r.heatmap);
    this.renderHour(r.hour);
  }

  /** A progress message for the result shown. */
  progress(
    resultId: string,
    heatmap: HarvestHeatmapView,
    running: boolean,
    stopped: string | undefined,
    summaryLine: string,
    step?: string,
  ): void {
    const r = this.result;
    if (!r || r.id !== resultId) return;
    const wasRunning = r.running;
    r.heatmap = heatmap;
    r.running = running;
    r.stopped = stopped;
    r.step = step;
    r.summary.line = summaryLine;
    if (this.lineHost) this.lineHost.textContent = summaryLine;
    if (this.statusHost) this.statusHost.textContent = statusText(running, stopped, step);
    this.analyzeButton?.toggleAttribute('disabled', running);
    this.renderHeatmap(heatmap);
    if (wasRunning && !running) this.announce(l10n.t('{0}: {1}', statusText(running, stopped), summaryLine));
  }

  /** The items of an hour the host read. */
  hour(resultId: string, hour: HarvestHourView): void {
    const r = this.result;
    if (!r || r.id !== resultId) return;
    r.hour = hour;
    this.renderHour(hour);
    this.announce(hour.line);
  }

  /** The table of the hour shown, for an export's query. */
  get query(): DataGrid['query'] {
    return this.table?.query ?? {};
  }

  private renderHeatmap(view: HarvestHeatmapView): void {
    const host = this.gridHost;
    const legend = this.legendHost;
    const r = this.result;
    if (!host || !legend || !r) return;
    const hadFocus = focusedIn(host)?.dataset.hour;
    clear(legend);
    for (const item of view.legend) {
      legend.appendChild(
        h(
          'li',
          { 'data-testid': `legend-${item.state}` },
          h('span', { class: `heat-swatch heat-${item.state}`, 'aria-hidden': 'true' }),
          l10n.t('{0}: {1}', item.label, item.count),
        ),
      );
    }
    const cells = view.days.flatMap((d) => d.cells);
    const focusable = cells.filter((c) => c.state !== 'outside');
    if (!this.focusHour || !focusable.some((c) => c.hour === this.focusHour)) this.focusHour = focusable[0]?.hour;
    const head = h(
      'tr',
      null,
      h('th', { scope: 'col', class: 'heat-day' }, l10n.t('Day (UTC)')),
      ...HOURS.map((hh) => h('th', { scope: 'col', 'aria-label': l10n.t('{0}:00', hh) }, hh)),
    );
    const body = h('tbody');
    for (const day of view.days) {
      const row = h('tr', null, h('th', { scope: 'row', class: 'heat-day' }, day.day));
      for (const cell of day.cells) {
        if (cell.state === 'outside') {
          row.appendChild(h('td', { class: 'heat-cell heat-outside', 'aria-label': cell.label }));
          continue;
        }
        const b = h(
          'button',
          {
            type: 'button',
            class: `heat heat-${cell.state}${r.hour?.hour === cell.hour ? ' heat-selected' : ''}`,
            'data-hour': cell.hour,
            'data-state': cell.state,
            'data-testid': `heat-${cell.hour}`,
            'aria-label': cell.label,
            'aria-pressed': r.hour?.hour === cell.hour ? 'true' : 'false',
            title: cell.detail,
            tabindex: cell.hour === this.focusHour ? 0 : -1,
          },
          cell.text,
        );
        b.addEventListener('click', () => this.choose(cell.hour));
        b.addEventListener('keydown', (event) => this.move(event, cell.hour));
        row.appendChild(h('td', { class: 'heat-cell' }, b));
      }
      body.appendChild(row);
    }
    clear(host);
    host.appendChild(
      h(
        'table',
        { class: 'heat-grid', 'data-testid': 'heatmap', 'aria-label': l10n.t('Coverage: {0}', view.line) },
        h('thead', null, head),
        body,
      ),
    );
    if (hadFocus) host.querySelector<HTMLElement>(`[data-hour="${hadFocus}"]`)?.focus();
  }

  private choose(hour: string): void {
    const r = this.result;
    if (!r) return;
    this.focusHour = hour;
    this.post({ type: 'showHarvestHour', resultId: r.id, hour });
  }

  /** Arrow keys move one hour (left, right) or one day (up, down); Home and End go to the day's first and last hour. */
  private move(event: KeyboardEvent, hour: string): void {
    const buttons = Array.from(this.gridHost?.querySelectorAll<HTMLElement>('button[data-hour]') ?? []);
    const index = buttons.findIndex((b) => b.dataset.hour === hour);
    const at = (target: string | undefined) => buttons.find((b) => b.dataset.hour === target);
    const shift = (hours: number) => {
      const ms = Date.parse(`${hour}:00:00Z`) + hours * 3_600_000;
      return new Date(ms).toISOString().slice(0, 13);
    };
    let next: HTMLElement | undefined;
    switch (event.key) {
      case 'ArrowRight':
        next = buttons[index + 1];
        break;
      case 'ArrowLeft':
        next = buttons[index - 1];
        break;
      case 'ArrowDown':
        next = at(shift(24));
        break;
      case 'ArrowUp':
        next = at(shift(-24));
        break;
      case 'Home':
        next = buttons.find((b) => b.dataset.hour?.slice(0, 10) === hour.slice(0, 10));
        break;
      case 'End':
        next = [...buttons].reverse().find((b) => b.dataset.hour?.slice(0, 10) === hour.slice(0, 10));
        break;
      default:
        return;
    }
    event.preventDefault();
    if (!next) return;
    for (const b of buttons) b.tabIndex = -1;
    next.tabIndex = 0;
    this.focusHour = next.dataset.hour;
    next.focus();
  }

  private renderHour(hour: HarvestHourView | undefined): void {
    const host = this.hourHost;
    const r = this.result;
    if (!host || !r) return;
    clear(host);
    this.table = undefined;
    for (const b of Array.from(this.gridHost?.querySelectorAll<HTMLElement>('button[data-hour]') ?? [])) {
      const selected = b.dataset.hour === hour?.hour;
      b.classList.toggle('heat-selected', selected);
      b.setAttribute('aria-pressed', selected ? 'true' : 'false');
    }
    if (!hour) {
      host.appendChild(
        h(
          'p',
          { class: 'muted', 'data-testid': 'harvest-hour-line' },
          l10n.t('Choose an hour in the heatmap to see its items.'),
        ),
      );
      return;
    }
    host.appendChild(h('h2', { class: 'heat-title' }, l10n.t('Items of {0}', hour.hour)));
    host.appendChild(h('p', { 'data-testid': 'harvest-hour-line' }, hour.line));
    if (!hour.table || hour.table.count === 0) return;
    const table = new DataGrid({}, () => undefined, this.announce);
    this.table = table;
    host.appendChild(table.element);
    table.setData(hour.table);
    const nouns = nounText(hour.table.noun[1]);
    const exportButton = (label: string, format: 'csv' | 'geojson', testid: string, title: string) =>
      button(label, () => this.post({ type: 'export', resultId: r.id, format, query: table.query }), {
        secondary: true,
        'data-testid': testid,
        title,
      });
    table.toolbar.append(
      exportButton(
        l10n.t('Save CSV'),
        'csv',
        'export-csv',
        l10n.t('Save the {0} shown (as filtered and sorted) as CSV', nouns),
      ),
    );
    if (hour.table.columns.some((c) => c.type === 'position'))
      table.toolbar.append(
        exportButton(
          l10n.t('Save GeoJSON'),
          'geojson',
          'export-geojson',
          l10n.t('Save the {0} shown (as filtered and sorted) as GeoJSON points', nouns),
        ),
      );
  }
}

function statusText(running: boolean, stopped: string | undefined, step?: string): string {
  if (running) return step ?? l10n.t('Fetching…');
  return stopped ? l10n.t('Stopped: {0}', stopped) : l10n.t('Finished');
}
