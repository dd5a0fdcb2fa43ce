// The pure parts of Analyze Harvest and the harvest notebook (issue 31, VS Code): the `.mdsnb` format (round trip,
// bad files refused with what to fix), the harvest folder relative to the notebook and the error when it has moved,
// the starter notebook (metrics, one cell per rule with the rule's own SQL), a SQL answer's outputs (CSV, a
// Vega-Lite chart only with a time column and numeric columns, the text table), the panel's view of a report, and the
// panel's "Analyze Harvest…" message.
import assert from 'node:assert/strict';
import path from 'node:path';
import { answerCsv, answerTextTable, harvestFolderOf, harvestMovedError, METRIC_QUERIES, notebookText, parseNotebook, relativeHarvestPath, starterNotebook, vegaLiteSpec } from '../../src/analysis/harvestNotebook';
import type { RulesResult, SqlResult } from '../../src/analysis/workerProtocol';
import type { CheckReport } from '../../src/core/analysis';
import { analysisResultView } from '../../src/results/analysisView';
import { ANALYSIS_FINDINGS_SHOWN } from '../../src/shared/analysisViews';
import { parseWebviewMessage } from '../../src/shared/protocol';

describe('harvest notebook and the analysis view (issue 31)', () => {
  it('writes and reads a notebook: cells and the harvest path come back as they were', () => {
    const data = { harvest: '../harvests/nov', cells: [{ kind: 'markdown' as const, source: '# Trips\n' }, { kind: 'sql' as const, source: 'SELECT count(*)\nFROM trips' }] };
    const text = notebookText(data);
    assert.deepEqual(parseNotebook(text, 'a.mdsnb'), data);
    assert.equal(notebookText(parseNotebook(text, 'a.mdsnb')), text, 'stable text: saving twice changes nothing');
    assert.deepEqual(parseNotebook('', 'new.mdsnb'), { harvest: '', cells: [] }, 'a new, empty file is an empty notebook');
  });

  it('refuses a file that is not a harvest notebook, saying what to fix', () => {
    assert.throws(() => parseNotebook('{"cells": [', 'x.mdsnb'), /x\.mdsnb is not a harvest notebook: it is not JSON/);
    assert.throws(() => parseNotebook('{"cells": []}', 'x.mdsnb'), /needs "format": "mobility-api-notebook"/);
    assert.throws(() => parseNotebook(JSON.stringify({ format: 'mobility-api-notebook', cells: [{ kind: 'python', source: 'x' }] }), 'x.mdsnb'), /cell 1 needs "kind" \("markdown" or "sql"\)/);
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

  it('starts a notebook with the metrics queries and one cell per rule holding that rule\'s own SQL', () => {
    const rules: RulesResult = {
      folder: '/h',
      window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T09:59:59Z' },
      rules: [
        { id: 'duplicate-events', title: 'No event twice', severity: 'error', basis: 'MDS #667', sql: 'SELECT device_id FROM events' },
        { id: 'hour-coverage', title: 'Every hour', severity: 'warning', basis: 'manifest' },
      ],
    };
    const nb = starterNotebook(rules, 'h');
    assert.equal(nb.harvest, 'h');
    const sql = nb.cells.filter((c) => c.kind === 'sql').map((c) => c.source);
    assert.deepEqual(sql, [...METRIC_QUERIES.map((m) => m.sql), 'SELECT device_id FROM events']);
    assert.ok(nb.cells.some((c) => c.kind === 'markdown' && /duplicate-events \(error\): No event twice/.test(c.source) && /MDS #667/.test(c.source)));
    assert.ok(nb.cells.some((c) => c.kind === 'markdown' && /hour-coverage/.test(c.source) && /--rule hour-coverage/.test(c.source)), 'a rule without SQL says how to run it');
  });

  const answer = (columns: [string, string][], rows: unknown[][]): SqlResult => ({ columns: columns.map(([name, type]) => ({ name, type })), rows: rows.map((r) => Object.fromEntries(columns.map(([name], i) => [name, r[i]]))), total: rows.length });

  it('charts an answer with a time column and numeric columns, and nothing else', () => {
    const hourly = answer([['hour', 'TIMESTAMP'], ['trips', 'BIGINT'], ['p90', 'DOUBLE']], [['2026-11-20T08:00:00.000Z', 3, 600.5], ['2026-11-20T09:00:00.000Z', 5, 700]]);
    const spec = vegaLiteSpec(hourly) as { $schema: string; data: { values: unknown[] }; encoding: { x: { field: string; type: string } }; transform: { fold: string[] }[] };
    assert.match(spec.$schema, /vega-lite\/v5/);
    assert.deepEqual(spec.encoding.x, { field: 'hour', type: 'temporal', title: 'hour' });
    assert.deepEqual(spec.transform[0].fold, ['trips', 'p90']);
    assert.equal(spec.data.values.length, 2);
    // MDS times are BIGINT milliseconds: a numeric column named as a time is the time axis.
    const ms = vegaLiteSpec(answer([['start_time', 'BIGINT'], ['vehicle_state', 'VARCHAR'], ['n', 'BIGINT']], [[1, 'available', 2]])) as { encoding: { x: { field: string }; color: { field: string } } };
    assert.equal(ms.encoding.x.field, 'start_time');
    assert.equal(ms.encoding.color.field, 'vehicle_state', 'one line per state');
    assert.equal(vegaLiteSpec(answer([['device_id', 'VARCHAR'], ['n', 'BIGINT']], [['d', 1]])), undefined, 'no time column: no chart');
    assert.equal(vegaLiteSpec(answer([['hour', 'TIMESTAMP'], ['state', 'VARCHAR']], [['2026-11-20T08:00:00.000Z', 'x']])), undefined, 'no numeric column: no chart');
  });

  it('writes an answer as CSV, with formulas kept as text, and as a text table', () => {
    const a = answer([['device_id', 'VARCHAR'], ['n', 'BIGINT'], ['loc', 'STRUCT(lat DOUBLE, lng DOUBLE)']], [['=HYPERLINK("x")', -1, { lat: 1, lng: 2 }], ['a,b', null, null]]);
    assert.equal(answerCsv(a), 'device_id,n,loc\r\n"\'=HYPERLINK(""x"")",-1,"{""lat"":1,""lng"":2}"\r\n"a,b",,\r\n');
    const table = answerTextTable({ ...a, total: 7 }).split('\n');
    assert.match(table[0], /^device_id\s+n\s+loc$/);
    assert.match(table[table.length - 1], /2 of 7 rows/);
  });

  it('the panel\'s view of a report: a summary line, at most the first findings of a rule, the folders still written', () => {
    const findings = Array.from({ length: ANALYSIS_FINDINGS_SHOWN + 5 }, (_, i) => ({ device_id: `<img src=x onerror=alert(${i})>`, trip_id: null, time: '2026-11-20T08:00:00.000Z', detail: 'twice' }));
    const report: CheckReport = {
      folder: '/data/harvest-nov',
      window: { start: '2026-11-20T08:00:00Z', end: '2026-11-20T10:00:00.000Z' },
      items: { trips: 0, events: 3 },
      rules: [
        { id: 'duplicate-events', title: 'No event twice', severity: 'error', basis: 'b', count: findings.length, findings },
        { id: 'teleport', title: 'No jump', severity: 'warning', basis: 'b', count: 0, findings: [] },
      ],
      skipped: [{ id: 'registry', why: 'needs a snapshot' }],
    };
    const view = analysisResultView({ id: 'r1', report, inUse: ['/data/harvest-nov/events'], now: 1 });
    assert.equal(view.kind, 'analysis');
    assert.equal(view.title, 'Data quality: harvest-nov');
    assert.equal(view.summary.line, '2 rules run: 1 with errors, 0 with warnings; 1 not run');
    assert.equal(view.rules[0].count, ANALYSIS_FINDINGS_SHOWN + 5);
    assert.equal(view.rules[0].findings.length, ANALYSIS_FINDINGS_SHOWN);
    assert.equal(view.rules[0].findings[0].device_id, '<img src=x onerror=alert(0)>', 'data stays data: the webview sets it as text');
    assert.deepEqual(view.inUse, ['/data/harvest-nov/events']);
    assert.deepEqual(view.skipped, [{ id: 'registry', why: 'needs a snapshot' }]);
  });

  it('takes "Analyze Harvest…" from the harvest view as a message with a result id only', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'analyzeHarvest', resultId: 'r1', folder: '/etc' }), { type: 'analyzeHarvest', resultId: 'r1' });
    assert.equal(parseWebviewMessage({ type: 'analyzeHarvest' }), undefined);
  });
});
