// The pure parts of Analyze Harvest and the harvest notebook (issue 31, VS Code): the `.mdsnb` format (round trip,
// bad files refused with what to fix), the harvest folder relative to the notebook and the error when it has moved,
// the starter notebook (metrics, one cell per rule with the rule's own SQL), a SQL answer's outputs (CSV, a
// Vega-Lite chart only with a time column and numeric columns, the text table), the panel's view of a report, and the
// panel's "Analyze Harvest…" message.
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  answerCsv,
  answerOutputForms,
  answerTextTable,
  exportFileText,
  findingsQuery,
  harvestFolderOf,
  harvestMovedError,
  notebookText,
  parseNotebook,
  relativeHarvestPath,
  starterNotebook,
  vegaLiteSpec,
} from '../../src/vscode/analysis/harvestNotebook';
import type { RulesResult, SqlResult } from '../../src/vscode/analysis/workerProtocol';
import type { CheckReport } from '../../src/core/analysis';
import { DEFAULT_THRESHOLDS, metricsSql } from '../../src/core/analysis';
import {
  answerChart,
  parseExportAnswerMessage,
  parseSqlAnswer,
  rowsInOrder,
  SQL_ANSWER_MIME,
  sqlAnswerTable,
} from '../../src/shared/sqlAnswer';
import { cellText, queryRows } from '../../src/shared/dataTable';
import { analysisResultView } from '../../src/results/analysis/analysisView';
import { ANALYSIS_FINDINGS_SHOWN } from '../../src/shared/analysisViews';
import { parseWebviewMessage } from '../../src/shared/protocol';

describe('harvest notebook and the analysis view (issue 31)', () => {
  it('writes and reads a notebook: cells and the harvest path come back as they were', () => {
    const data = {
      harvest: '../harvests/nov',
      cells: [
        { kind: 'markdown' as const, source: '# Trips\n' },
        { kind: 'sql' as const, source: 'SELECT count(*)\nFROM trips' },
      ],
    };
    const text = notebookText(data);
    assert.deepEqual(parseNotebook(text, 'a.mdsnb'), data);
    assert.equal(notebookText(parseNotebook(text, 'a.mdsnb')), text, 'stable text: saving twice changes nothing');
    assert.deepEqual(
      parseNotebook('', 'new.mdsnb'),
      { harvest: '', cells: [] },
      'a new, empty file is an empty notebook',
    );
  });

  it('refuses a file that is not a harvest notebook, saying what to fix', () => {
    assert.throws(() => parseNotebook('{"cells": [', 'x.mdsnb'), /x\.mdsnb is not a harvest notebook: it is not JSON/);
    assert.throws(() => parseNotebook('{"cells": []}', 'x.mdsnb'), /needs "format": "mobility-api-notebook"/);
    assert.throws(
      () =>
        parseNotebook(
          JSON.stringify({ format: 'mobility-api-notebook', cells: [{ kind: 'python', source: 'x' }] }),
          'x.mdsnb',
        ),
      /cell 1 needs "kind" \("markdown" or "sql"\)/,
    );
  });

  it('names the harvest folder relative to the notebook, and says where it looked when the folder has moved', () => {
    const notebook = path.join(path.sep, 'work', 'notes', 'nov.mdsnb');
    const folder = path.join(path.sep, 'work', 'harvests', 'nov');
    const relative = relativeHarvestPath(notebook, folder);
    assert.equal(relative, '../harvests/nov');
    assert.equal(harvestFolderOf(notebook, relative), folder);
    assert.throws(() => harvestFolderOf(notebook, ''), /names no harvest folder/);
    const moved = harvestMovedError(notebook, relative, folder);
    assert.equal(moved.code, 'ANALYSIS_NOT_A_HARVEST');
    assert.match(moved.message, /The harvest folder of nov\.mdsnb is not there: "\.\.\/harvests\/nov"/);
    assert.match(moved.message, /set "harvest" in the notebook's metadata to its new place/);
  });

  it("starts a notebook with the metrics queries of `mobility-api metrics` and one cell per rule holding that rule's own SQL", () => {
    const window = { start: Date.UTC(2026, 10, 20, 8), end: Date.UTC(2026, 10, 20, 10) };
    const rules: RulesResult = {
      folder: '/h',
      window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T09:59:59Z' },
      rules: [
        {
          code: 'MDS-EVENT-DUPLICATE',
          id: 'duplicate-events',
          title: 'No event twice',
          severity: 'error',
          basis: 'MDS #667',
          sql: 'SELECT device_id FROM events',
        },
        { code: 'MDS-HOUR-COVERAGE', id: 'hour-coverage', title: 'Every hour', severity: 'warning', basis: 'manifest' },
      ],
      metrics: metricsSql(window),
    };
    const nb = starterNotebook(rules, 'h');
    assert.equal(nb.harvest, 'h');
    const sql = nb.cells.filter((c) => c.kind === 'sql').map((c) => c.source);
    // The metrics cells hold the very text `mobility-api metrics` runs (metricsSql), readable: no source indentation.
    assert.deepEqual(sql, [
      metricsSql(window).hours,
      metricsSql(window).days,
      findingsQuery('SELECT device_id FROM events'),
    ]);
    assert.match(
      sql[2],
      /FROM \(\nSELECT device_id FROM events\n\) AS finding\(device_id, trip_id, "time", detail\)/,
      "the rule's own SQL inside, as it stands",
    );
    assert.match(sql[0], /^WITH\n/);
    assert.match(sql[0], /prow_at_hour_end/);
    assert.match(sql[1], /trips_per_vehicle_at_hour_ends/);
    assert.ok(
      sql.slice(0, 2).every((text) => text.split('\n').every((line) => line === line.trimEnd())),
      'no trailing spaces',
    );
    assert.ok(!/^ {4}/m.test(sql[0].split('\n')[0]), 'dedented');
    assert.ok(
      nb.cells.some(
        (c) =>
          c.kind === 'markdown' &&
          /MDS-EVENT-DUPLICATE \(error\): No event twice/.test(c.source) &&
          /MDS #667/.test(c.source),
      ),
    );
    assert.ok(
      nb.cells.some(
        (c) => c.kind === 'markdown' && /MDS-HOUR-COVERAGE/.test(c.source) && /--rule MDS-HOUR-COVERAGE/.test(c.source),
      ),
      'a rule without SQL says how to run it',
    );
  });

  const answer = (columns: [string, string][], rows: unknown[][]): SqlResult => ({
    columns: columns.map(([name, type]) => ({ name, type })),
    rows: rows.map((r) => Object.fromEntries(columns.map(([name], i) => [name, r[i]]))),
    total: rows.length,
  });
  /** What our output form carries for `result`. */
  const answerOutputData = (result: SqlResult) => {
    const data = parseSqlAnswer((answerOutputForms(result)[0] as { json: unknown }).json);
    assert.ok(data);
    return data;
  };

  it('charts an answer with a time column and numeric columns, and nothing else', () => {
    const hourly = answer(
      [
        ['hour', 'TIMESTAMP'],
        ['trips', 'BIGINT'],
        ['p90', 'DOUBLE'],
      ],
      [
        ['2026-11-20T09:00:00.000Z', 5, 700],
        ['2026-11-20T08:00:00.000Z', 3, 600.5],
      ],
    );
    const t8 = Date.UTC(2026, 10, 20, 8);
    const t9 = t8 + 3_600_000;
    assert.deepEqual(
      answerChart(answerOutputData(hourly)),
      {
        time: 'hour',
        values: ['trips', 'p90'],
        series: [
          {
            name: 'trips',
            points: [
              [t8, 3],
              [t9, 5],
            ],
          },
          {
            name: 'p90',
            points: [
              [t8, 600.5],
              [t9, 700],
            ],
          },
        ],
      },
      'one line per numeric column, in time order',
    );
    const spec = vegaLiteSpec(hourly) as {
      $schema: string;
      data: { values: { time: string; series: string; value: number }[] };
      encoding: { x: { field: string; type: string; title: string }; color: { field: string } };
    };
    assert.match(spec.$schema, /vega-lite\/v5/);
    assert.deepEqual(spec.encoding.x, { field: 'time', type: 'temporal', title: 'hour' });
    assert.equal(spec.encoding.color.field, 'series');
    assert.deepEqual(spec.data.values[0], { time: '2026-11-20T08:00:00.000Z', series: 'trips', value: 3 });
    assert.equal(spec.data.values.length, 4);
    // MDS times are BIGINT milliseconds: a numeric column named as a time is the time axis.
    const ms = answerChart(
      answerOutputData(
        answer(
          [
            ['start_time', 'BIGINT'],
            ['vehicle_state', 'VARCHAR'],
            ['n', 'BIGINT'],
          ],
          [
            [1, 'available', 2],
            [1, 'reserved', 4],
          ],
        ),
      ),
    );
    assert.equal(ms?.time, 'start_time');
    assert.equal(ms?.group, 'vehicle_state', 'one line per state');
    assert.deepEqual(
      ms?.series.map((s) => s.name),
      ['available', 'reserved'],
    );
    // The metrics write hours and days as text (`2026-11-20T08`, `2026-11-20`): named as a time, they are the time axis.
    const metrics = answerChart(
      answerOutputData(
        answer(
          [
            ['hour', 'VARCHAR'],
            ['prow_at_hour_end', 'BIGINT'],
          ],
          [
            ['2026-11-20T08', 7],
            ['2026-11-20T09', 9],
          ],
        ),
      ),
    );
    assert.deepEqual(metrics?.series, [
      {
        name: 'prow_at_hour_end',
        points: [
          [t8, 7],
          [t9, 9],
        ],
      },
    ]);
    assert.equal(
      answerChart(
        answerOutputData(
          answer(
            [
              ['date', 'VARCHAR'],
              ['trips', 'BIGINT'],
            ],
            [['2026-11-20', 7]],
          ),
        ),
      )?.series[0].points[0][0],
      Date.UTC(2026, 10, 20),
    );
    assert.equal(
      vegaLiteSpec(
        answer(
          [
            ['hour', 'VARCHAR'],
            ['n', 'BIGINT'],
          ],
          [['soon', 1]],
        ),
      ),
      undefined,
      'text that is no time: no chart',
    );
    assert.equal(
      vegaLiteSpec(
        answer(
          [
            ['device_id', 'VARCHAR'],
            ['n', 'BIGINT'],
          ],
          [['d', 1]],
        ),
      ),
      undefined,
      'no time column: no chart',
    );
    assert.equal(
      vegaLiteSpec(
        answer(
          [
            ['hour', 'TIMESTAMP'],
            ['state', 'VARCHAR'],
          ],
          [['2026-11-20T08:00:00.000Z', 'x']],
        ),
      ),
      undefined,
      'no numeric column: no chart',
    );
  });

  it('gives a cell one output whose first form is ours (the answer as columns and rows), then Vega-Lite, CSV and text for other renderers', () => {
    const a = answer(
      [
        ['hour', 'TIMESTAMP'],
        ['device_id', 'VARCHAR'],
        ['n', 'BIGINT'],
        ['loc', 'STRUCT(lat DOUBLE, lng DOUBLE)'],
        ['big', 'HUGEINT'],
      ],
      [
        ['2026-11-20T08:00:00.000Z', '<b>d1</b>', 3, { lat: 1, lng: 2 }, '170141183460469231731687303715884105727'],
        ['2026-11-20T09:00:00.000Z', 'd2', null, null, 1],
      ],
    );
    const forms = answerOutputForms({ ...a, total: 9 });
    assert.deepEqual(
      forms.map((f) => f.mime),
      [SQL_ANSWER_MIME, 'application/vnd.vegalite.v5+json', 'text/csv', 'text/plain'],
    );
    const ours = forms[0] as { json: unknown };
    const data = parseSqlAnswer(JSON.parse(JSON.stringify(ours.json)));
    assert.ok(data, 'our form survives JSON as VS Code stores it, and the renderer reads it back');
    assert.deepEqual(
      data.columns.map((c) => c.name),
      ['hour', 'device_id', 'n', 'loc', 'big'],
    );
    assert.deepEqual(
      data.rows[1],
      ['2026-11-20T09:00:00.000Z', 'd2', null, null, 1],
      "rows as arrays in the columns' order; a missing value is null",
    );
    assert.equal(data.total, 9, 'how many rows the query gave, beyond those sent');
    assert.match((forms[2] as { text: string }).text, /^hour,device_id,n,loc,big\r\n/);
    assert.deepEqual(
      answerOutputForms(answer([['device_id', 'VARCHAR']], [['d']])).map((f) => f.mime),
      [SQL_ANSWER_MIME, 'text/csv', 'text/plain'],
      'no chart: no Vega-Lite form',
    );
    assert.equal(
      parseSqlAnswer({ columns: [{ name: 'a' }], rows: [], total: 0 }),
      undefined,
      'a column without its type is refused',
    );
    assert.equal(
      parseSqlAnswer({ columns: [], rows: [1], total: 1 }),
      undefined,
      'a row that is not a list is refused',
    );

    // The renderer's table: numbers sort as numbers, TIMESTAMP is a time, text and structs are text (never markup), a
    // HUGEINT beyond 2^53 (sent as text) stays text with every digit.
    const table = sqlAnswerTable(data);
    assert.deepEqual(
      table.columns.map((c) => [c.id, c.type]),
      [
        ['hour', 'time'],
        ['device_id', 'text'],
        ['n', 'number'],
        ['loc', 'text'],
        ['big', 'text'],
      ],
    );
    assert.equal(table.count, 2);
    assert.equal(cellText(table.columns[0], 0), '2026-11-20 08:00:00Z');
    assert.equal(cellText(table.columns[1], 0), '<b>d1</b>');
    assert.equal(cellText(table.columns[3], 0), '{"lat":1,"lng":2}');
    assert.equal(cellText(table.columns[4], 0), '170141183460469231731687303715884105727');
    const sorted = queryRows(table, { sortColumn: 'n', sortDescending: true });
    assert.deepEqual(Array.from(sorted), [0, 1], 'an empty cell sorts last');
    assert.deepEqual(
      rowsInOrder(data, queryRows(table, { sortColumn: 'device_id', sortDescending: true })).map((r) => r[1]),
      ['d2', '<b>d1</b>'],
      'an export takes the rows as the table shows them',
    );
    const twice = sqlAnswerTable({
      columns: [
        { name: 'x', type: 'BIGINT' },
        { name: 'x', type: 'BIGINT' },
      ],
      rows: [[1, 2]],
      total: 1,
    });
    assert.deepEqual(
      twice.columns.map((c) => c.id),
      ['x', 'x#2'],
      'a name given twice is two columns',
    );
  });

  it("takes the renderer's export request only whole, and writes the rows as CSV or JSON", () => {
    const columns = [
      { name: 'device_id', type: 'VARCHAR' },
      { name: 'n', type: 'BIGINT' },
    ];
    const message = {
      type: 'exportSqlAnswer',
      format: 'csv',
      columns,
      rows: [
        ['=1+1', 2],
        ['b', null],
      ],
    };
    assert.deepEqual(parseExportAnswerMessage(message), message);
    assert.equal(parseExportAnswerMessage({ ...message, format: 'html' }), undefined);
    assert.equal(parseExportAnswerMessage({ ...message, rows: [['a']] }), undefined, 'a row shorter than the columns');
    assert.equal(parseExportAnswerMessage({ ...message, columns: 'x' }), undefined);
    assert.equal(exportFileText('csv', columns, message.rows), "device_id,n\r\n'=1+1,2\r\nb,\r\n");
    assert.deepEqual(JSON.parse(exportFileText('json', columns, message.rows)), [
      { device_id: '=1+1', n: 2 },
      { device_id: 'b', n: null },
    ]);
  });

  it('writes an answer as CSV, with formulas kept as text, and as a text table', () => {
    const a = answer(
      [
        ['device_id', 'VARCHAR'],
        ['n', 'BIGINT'],
        ['loc', 'STRUCT(lat DOUBLE, lng DOUBLE)'],
      ],
      [
        ['=HYPERLINK("x")', -1, { lat: 1, lng: 2 }],
        ['a,b', null, null],
      ],
    );
    assert.equal(answerCsv(a), 'device_id,n,loc\r\n"\'=HYPERLINK(""x"")",-1,"{""lat"":1,""lng"":2}"\r\n"a,b",,\r\n');
    const table = answerTextTable({ ...a, total: 7 }).split('\n');
    assert.match(table[0], /^device_id\s+n\s+loc$/);
    assert.match(table[table.length - 1], /2 of 7 rows/);
  });

  it("the panel's view of a report: a summary line, at most the first findings of a rule, the folders still written", () => {
    const findings = Array.from({ length: ANALYSIS_FINDINGS_SHOWN + 5 }, (_, i) => ({
      device_id: `<img src=x onerror=alert(${i})>`,
      trip_id: null,
      time: '2026-11-20T08:00:00.000Z',
      detail: 'twice',
    }));
    const report: CheckReport = {
      report_version: '1.0',
      mode: 'micromobility',
      thresholds: DEFAULT_THRESHOLDS,
      folder: '/data/harvest-nov',
      window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T10:00:00.000Z' },
      items: { trips: 0, events: 3 },
      rules: [
        {
          code: 'MDS-EVENT-DUPLICATE',
          id: 'duplicate-events',
          title: 'No event twice',
          severity: 'error',
          basis: 'b',
          mds: [],
          doc: 'data-quality.md',
          count: findings.length,
          findings,
        },
        {
          code: 'MDS-VEHICLE-TELEPORT',
          id: 'teleport',
          title: 'No jump',
          severity: 'warning',
          basis: 'b',
          mds: [],
          doc: 'data-quality.md',
          count: 0,
          findings: [],
        },
      ],
      skipped: [{ code: 'MDS-REGISTRY-DEVICE', id: 'registry', why: 'needs a snapshot' }],
    };
    const view = analysisResultView({ id: 'r1', report, inUse: ['/data/harvest-nov/events'], now: 1 });
    assert.equal(view.kind, 'analysis');
    assert.equal(view.title, 'Data quality: harvest-nov');
    assert.equal(view.summary.line, '2 rules run: 1 with errors, 0 with warnings; 1 not run');
    assert.equal(view.rules[0].count, ANALYSIS_FINDINGS_SHOWN + 5);
    assert.equal(view.rules[0].findings.length, ANALYSIS_FINDINGS_SHOWN);
    assert.equal(
      view.rules[0].findings[0].device_id,
      '<img src=x onerror=alert(0)>',
      'data stays data: the webview sets it as text',
    );
    assert.deepEqual(view.inUse, ['/data/harvest-nov/events']);
    assert.equal(view.skipped.length, 1);
    assert.equal(view.skipped[0].id, 'registry');
    assert.match(
      view.skipped[0].why,
      /run Fetch Hours into this folder again with the box "Snapshot of \/vehicles and \/vehicles\/status" ticked/,
    );
  });

  it("says why a rule did not run in VS Code's words (Fetch Hours and its snapshot box), never a CLI flag", () => {
    const report: CheckReport = {
      report_version: '1.0',
      mode: 'micromobility',
      thresholds: DEFAULT_THRESHOLDS,
      folder: '/data/h',
      window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T10:00:00.000Z' },
      items: { trips: 4, events: 0, telemetry: 0, vehicles: 0, vehicles_status: 0 },
      rules: [],
      skipped: [
        {
          code: 'MDS-STATUS-EVENTS',
          id: 'status-vs-events',
          why: 'no snapshot of /vehicles and /vehicles/status in this harvest: harvest with --snapshot (it fetches them at the end of the run, into <folder>/snapshot/)',
        },
        {
          code: 'MDS-REGISTRY-DEVICE',
          id: 'registry',
          why: 'no snapshot of /vehicles and /vehicles/status in this harvest: harvest with --snapshot (it fetches them at the end of the run, into <folder>/snapshot/)',
        },
        {
          code: 'MDS-TRIP-TELEMETRY-GAPS',
          id: 'telemetry-gaps',
          why: 'needs telemetry in the harvest; harvest telemetry into a folder beside the others',
        },
      ],
    };
    const view = analysisResultView({ id: 'r2', report, inUse: [], now: 1 });
    for (const s of view.skipped) assert.doesNotMatch(s.why, /--[a-z]/, `${s.id}: ${s.why}`);
    assert.match(view.skipped[0].why, /Fetch Hours .*"Snapshot of \/vehicles and \/vehicles\/status" ticked/);
    assert.equal(view.skipped[1].why, view.skipped[0].why);
    assert.equal(
      view.skipped[2].why,
      'needs telemetry in the harvest: run Fetch Hours on Telemetry into a folder beside the others',
    );
  });

  it('takes "Analyze Harvest…" from the harvest view as a message with a result id only', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'analyzeHarvest', resultId: 'r1', folder: '/etc' }), {
      type: 'analyzeHarvest',
      resultId: 'r1',
    });
    assert.equal(parseWebviewMessage({ type: 'analyzeHarvest' }), undefined);
  });
});
