// One SQL answer of the harvest notebook, as its output shows it: a line chart when the answer has a time column and
// numeric columns, then the results panel's own table (dataGrid.ts: sort, filter, 100,000 rows virtualised, resizable
// columns, the keyboard's row cursor), and Save CSV / Save JSON, which post the rows as shown (sorted and filtered)
// to the extension, which asks where to save them. An answer per geography (a `geography_id` column and a numeric
// one, with the geographies the setting loads) gets the Metrics view's map (map/geoMap.ts) above. Every value is set as text.
import * as l10n from '@vscode/l10n';
import type { ExportAnswerMessage, SqlAnswerData } from '../../shared/sqlAnswer';
import { answerChart, rowsInOrder, sqlAnswerTable } from '../../shared/sqlAnswer';
import { formatCount } from '../../shared/format';
import { isRecord } from '../../shared/isRecord';
import { DataGrid } from '../grid/dataGrid';
import { button, h } from '../dom';
import { lineChart } from '../charts/lineChart';
import { answerMap } from '../../shared/metricsMap/answerMap';
import { geoMapFigure } from '../map/geoMap';

/** The map of an answer per geography, with a line saying what it shows; null for any other answer. */
function mapOf(answer: SqlAnswerData): HTMLElement | null {
  const map = answerMap(answer);
  if (!map || !answer.shapes) return null;
  const summary = l10n.t(
    'Map of {0} geographies shaded by {1}; the table below has every value.',
    answer.shapes.length,
    map.measure,
  );
  return h(
    'div',
    { 'data-testid': 'sql-map' },
    geoMapFigure(
      answer.shapes,
      { measure: map.measure, count: map.count, range: map.range, valueOf: (id) => map.values.get(id) ?? null },
      summary,
    ),
    map.repeated
      ? h(
          'p',
          { class: 'muted' },
          l10n.t(
            '{0} geographies have several rows: the map shows the last row of each. Filter the cell to one interval (WHERE) to choose which.',
            map.repeated,
          ),
        )
      : null,
  );
}

export class SqlAnswerView {
  readonly element: HTMLElement;
  private readonly grid: DataGrid;
  private readonly status: HTMLElement;

  /** `post` sends a message to the extension; without it (no extension to answer) there is no export. */
  constructor(
    private readonly answer: SqlAnswerData,
    private readonly post: ((message: ExportAnswerMessage) => void) | undefined,
  ) {
    const live = h('span', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
    const announce = (text: string): void => {
      live.textContent = text;
    };
    this.grid = new DataGrid(
      {},
      () => undefined,
      announce,
      () => undefined,
      { skipLink: false },
    );
    this.status = h('span', { class: 'muted', 'data-testid': 'export-status', role: 'status' });
    if (post) {
      this.grid.toolbar.append(
        button(l10n.t('Save CSV'), () => this.export('csv'), { secondary: true, 'data-testid': 'export-csv' }),
        button(l10n.t('Save JSON'), () => this.export('json'), { secondary: true, 'data-testid': 'export-json' }),
        this.status,
      );
    }
    const chart = answerChart(answer);
    const cut =
      answer.total > answer.rows.length
        ? h(
            'p',
            { class: 'muted', 'data-testid': 'rows-cut' },
            l10n.t(
              'The query gave {0} rows; the first {1} are here. Narrow it (WHERE, LIMIT) or aggregate to see the rest.',
              formatCount(answer.total),
              formatCount(answer.rows.length),
            ),
          )
        : null;
    this.element = h(
      'div',
      { class: 'mae-sql', 'data-testid': 'sql-answer' },
      mapOf(answer),
      chart ? lineChart(chart) : null,
      cut,
      this.grid.element,
      live,
    );
  }

  /** Fills the table: call once the element is in the page, so that the table measures its room. */
  show(): void {
    this.grid.setData(sqlAnswerTable(this.answer));
  }

  private export(format: 'csv' | 'json'): void {
    this.status.textContent = l10n.t('Saving…');
    this.post?.({
      type: 'exportSqlAnswer',
      format,
      columns: this.answer.columns,
      rows: rowsInOrder(this.answer, this.grid.rows),
    });
  }

  /** The extension's answer to an export: saved (the file's name), cancelled, or failed. */
  onHostMessage(message: unknown): void {
    if (!isRecord(message) || message.type !== 'exportedSqlAnswer' || !this.status.textContent) return;
    this.status.textContent =
      typeof message.saved === 'string'
        ? l10n.t('Saved {0}', message.saved)
        : typeof message.error === 'string'
          ? message.error
          : '';
  }
}
