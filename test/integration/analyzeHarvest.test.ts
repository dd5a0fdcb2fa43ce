// Analyze Harvest… and the harvest notebook inside a real VS Code (issue 31): a small harvest of the extension's own
// sandbox (Fetch Hours…, the CLI's harvest engine), its data-quality report through the analysis worker (DuckDB in a
// child process) to the panel, and a notebook SQL cell that gets its outputs (our renderer's form first), and the
// clear error of a notebook whose harvest folder has moved.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { HOUR_MS, floorToUtcHour, formatUtcHour } from '../../src/core/mds/utcHour';
import { parseSqlAnswer, SQL_ANSWER_MIME } from '../../src/shared/sqlAnswer';
import { waitFor, waitUntil } from '../unit/support/waitUntil';
import { answerUntilReturned, run } from './extensionApi';
import type { Outcome } from './extensionApi';

type AnalyzeOutcome = Outcome & {
  folder?: string;
  resultId?: string;
  items?: Record<string, number>;
  rules?: { id: string; count: number }[];
  skipped?: { id: string; why: string }[];
  inUse?: string[];
};

describe('Analyze Harvest… and the harvest notebook', function () {
  this.timeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-analyze-'));
  const harvest = path.join(dir, 'harvest');

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const current = floorToUtcHour(Date.now());
    const from = formatUtcHour(current - 3 * HOUR_MS);
    const to = formatUtcHour(current - 2 * HOUR_MS);
    for (const endpointId of ['trips', 'events_historical', 'telemetry']) {
      const r = await run('mobilityApi.fetchHours', {
        environmentId: 'sandbox-mds-staging',
        endpointId,
        from,
        to,
        outDir: path.join(harvest, endpointId),
      });
      assert.equal(r.ok, true, r.message);
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('dismissing the folder dialog ends Analyze Harvest… quietly: the one code of cancellation, no "Something went wrong" (issue 38)', async () => {
    // The dialog and the command run in different bundles: a cancellation must be recognised across them by its code.
    const outcome = await answerUntilReturned(
      vscode.commands.executeCommand<Outcome>('mobilityApi.analyzeHarvest'),
      ['workbench.action.closeQuickOpen'],
      'Analyze Harvest… with its folder dialog dismissed',
    );
    assert.equal(outcome.ok, false);
    assert.equal(outcome.code, 'CANCELLED', outcome.message);
  });

  it("runs the data-quality rules in the engine's own process and shows the report: the sandbox's clean world has no error finding", async () => {
    const r = await run<AnalyzeOutcome>('mobilityApi.analyzeHarvest', { folder: harvest });
    assert.equal(r.ok, true, r.message);
    assert.equal(r.folder, harvest);
    assert.ok(
      (r.items?.trips ?? 0) > 0 && (r.items?.events ?? 0) > 0,
      `the report counts the harvest's items: ${JSON.stringify(r.items)}`,
    );
    const ids = r.rules?.map((rule) => rule.id) ?? [];
    for (const id of ['trip-events', 'duplicate-events', 'telemetry-gaps', 'units'])
      assert.ok(ids.includes(id), `${id} ran`);
    assert.deepEqual(
      r.rules?.filter(
        (rule) => ['trip-events', 'duplicate-events', 'telemetry-gaps'].includes(rule.id) && rule.count > 0,
      ),
      [],
      'no error finding in a clean world',
    );
    assert.ok(
      r.skipped?.some((s) => s.id === 'registry' && s.why.length > 0),
      'a rule that cannot run says why',
    );
    assert.deepEqual(r.inUse, []);
    assert.ok(r.resultId, 'the report was shown in a results panel');
    await waitUntil(
      'the Data Quality panel',
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label),
      (labels) => labels.some((l) => l.startsWith('Data quality: harvest')),
    );
  });

  it('opens the harvest as a notebook whose metrics cell gives our table with a chart, Vega-Lite, CSV and text; a moved folder gets a clear error', async () => {
    const file = path.join(dir, 'harvest.mdsnb');
    const opened = await run<Outcome & { file?: string; cells?: number }>('mobilityApi.openHarvestNotebook', {
      folder: harvest,
      file,
    });
    assert.equal(opened.ok, true, opened.message);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      metadata: { harvest: string };
      cells: { kind: string; source: string }[];
    };
    assert.equal(saved.metadata.harvest, 'harvest', 'the folder relative to the notebook');
    assert.ok(
      saved.cells.some((c) => c.kind === 'sql' && /FROM events GROUP BY device_id, timestamp/.test(c.source)),
      "a rule's own SQL",
    );
    const notebook = await waitUntil(
      'the notebook open',
      () => vscode.workspace.notebookDocuments.find((d) => d.uri.fsPath === file),
      (d) => !!d,
    );
    if (!notebook) return;
    const first = notebook.getCells().findIndex((c) => c.kind === vscode.NotebookCellKind.Code);
    // SQL cells are SQL (DuckDB), the extension's language, not VS Code's `sql` (which VS Code labels "MS SQL").
    assert.deepEqual(
      [
        ...new Set(
          notebook
            .getCells()
            .filter((c) => c.kind === vscode.NotebookCellKind.Code)
            .map((c) => c.document.languageId),
        ),
      ],
      ['duckdb-sql'],
    );
    assert.ok((await vscode.languages.getLanguages()).includes('duckdb-sql'), 'the language is contributed');
    await vscode.commands.executeCommand('notebook.selectKernel', {
      id: 'mobilityApi.harvestSql',
      extension: 'mobility-api-explorer.mobility-api-explorer',
    });
    await vscode.commands.executeCommand('notebook.cell.execute', {
      ranges: [{ start: first, end: first + 1 }],
      document: notebook.uri,
    });
    const cell = await waitUntil(
      "the cell's outputs",
      () => notebook.cellAt(first),
      (c) => c.outputs.length > 0 && c.executionSummary?.success !== undefined,
    );
    assert.equal(cell.executionSummary?.success, true, new TextDecoder().decode(cell.outputs[0]?.items[0]?.data));
    // One output, ours first (the renderer's table and chart), then the forms other renderers show.
    assert.equal(cell.outputs.length, 1);
    assert.deepEqual(
      cell.outputs[0].items.map((i) => i.mime),
      [SQL_ANSWER_MIME, 'application/vnd.vegalite.v5+json', 'text/csv', 'text/plain'],
    );
    const answer = parseSqlAnswer(JSON.parse(new TextDecoder().decode(cell.outputs[0].items[0].data)));
    assert.ok(answer, 'the renderer can read our form');
    // The first SQL cell is `mobility-api metrics`' hourly query: its columns, and an hour per row of the harvest.
    assert.deepEqual(
      answer.columns.slice(0, 2).map((c) => c.name),
      ['hour', 'prow_at_hour_end'],
    );
    assert.ok(
      answer.rows.length >= 2 && answer.rows.every((r) => /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(String(r[0]))),
      JSON.stringify(answer.rows.slice(0, 3)),
    );
    const csv = new TextDecoder().decode(cell.outputs[0].items.find((i) => i.mime === 'text/csv')?.data);
    assert.match(csv, /^hour,prow_at_hour_end,/);
    const renderer = (
      vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer')?.packageJSON as {
        contributes: { notebookRenderer: { id: string; mimeTypes: string[]; entrypoint: string }[] };
      }
    ).contributes.notebookRenderer;
    assert.deepEqual(
      renderer.map((r) => [r.id, r.mimeTypes]),
      [['mobilityApi.sqlAnswer', [SQL_ANSWER_MIME]]],
    );

    // The harvest folder has moved on disk: the cell says where it looked and what to change; back in place, it runs.
    const away = path.join(dir, 'harvest-moved');
    fs.renameSync(harvest, away);
    try {
      await vscode.commands.executeCommand('notebook.cell.execute', {
        ranges: [{ start: first, end: first + 1 }],
        document: notebook.uri,
      });
      const moved = await waitUntil(
        "the cell's error for the moved folder",
        () => notebook.cellAt(first),
        (c) => c.executionSummary?.success === false,
      );
      const text = (JSON.parse(new TextDecoder().decode(moved.outputs[0]?.items[0]?.data)) as { message: string })
        .message;
      assert.match(text, /The harvest folder of harvest\.mdsnb is not there: "harvest" \(relative to the notebook\)/);
      assert.ok(text.includes(harvest), `it names where it looked: ${text}`);
      assert.match(text, /If the folder has moved, set "harvest" in the notebook's metadata to its new place/);
      assert.ok(!/\n\s+at /.test(text), 'no stack trace');
    } finally {
      fs.renameSync(away, harvest);
    }
    await vscode.commands.executeCommand('notebook.cell.execute', {
      ranges: [{ start: first, end: first + 1 }],
      document: notebook.uri,
    });
    await waitUntil(
      'the cell to run again once the folder is back',
      () => notebook.cellAt(first),
      (c) => c.executionSummary?.success === true,
    );

    // The folder has moved (the notebook names another place): the cell says where it looked and what to change.
    const edit = new vscode.WorkspaceEdit();
    edit.set(notebook.uri, [
      vscode.NotebookEdit.updateNotebookMetadata({ ...notebook.metadata, harvest: 'moved-away' }),
    ]);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await vscode.commands.executeCommand('notebook.cell.execute', {
      ranges: [{ start: first, end: first + 1 }],
      document: notebook.uri,
    });
    const failed = await waitUntil(
      "the cell's error",
      () => notebook.cellAt(first),
      (c) => c.executionSummary?.success === false,
    );
    const error = (JSON.parse(new TextDecoder().decode(failed.outputs[0]?.items[0]?.data)) as { message: string })
      .message;
    assert.match(error, /"moved-away" \(relative to the notebook\)/);
    assert.match(error, /set "harvest" in the notebook's metadata/);
  });

  it('while Fetch Hours still takes the snapshot it was asked for, the folder is "still written" (the hours are done, the snapshot is not)', async () => {
    const hour = formatUtcHour(floorToUtcHour(Date.now()) - 3 * HOUR_MS);
    const folder = path.join(dir, 'with-snapshot');
    const fetching = Promise.resolve(
      run<Outcome & { snapshot?: { folder: string } }>('mobilityApi.fetchHours', {
        environmentId: 'sandbox-mds-staging',
        endpointId: 'trips',
        snapshot: true,
        from: hour,
        to: hour,
        outDir: folder,
      }),
    );
    let fetched = false;
    void fetching.then(() => (fetched = true));
    // The hour is recorded, the snapshot not written yet: what "Finished" came before (issue 37).
    await waitFor(
      'the hour recorded before the snapshot',
      () => {
        assert.ok(!fetched, 'Fetch Hours ended before the hour could be seen recorded without its snapshot');
        const manifest = fs.existsSync(path.join(folder, 'manifest.json'))
          ? (JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as {
              hours: Record<string, unknown>;
            })
          : undefined;
        return !!manifest?.hours[hour] && !fs.existsSync(path.join(folder, 'snapshot'));
      },
      { intervalMs: 10 },
    );
    const r = await run<AnalyzeOutcome>('mobilityApi.analyzeHarvest', { folder });
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(r.inUse, [folder], 'the report says a harvest is still writing the folder');
    const done = await fetching;
    assert.equal(done.ok, true, done.message);
    assert.ok(fs.existsSync(path.join(folder, 'snapshot', 'snapshot.json')));
    const after = await run<AnalyzeOutcome>('mobilityApi.analyzeHarvest', { folder });
    assert.deepEqual(after.inUse, [], 'once Fetch Hours has ended, nothing is said to be written');
    assert.ok(!after.skipped?.some((s) => s.id === 'registry'), 'registry runs on the snapshot');
  });

  it('Start Sandbox with Data Faults: with the demo credential bound, Fetch Hours and its snapshot, Analyze Harvest finds the faults', async () => {
    const started = await run<Outcome & { dataFaults?: string }>('mobilityApi.startSandboxWithDataFaults');
    assert.equal(started.ok, true, started.message);
    assert.equal(started.dataFaults, 'all', 'the running clean sandbox was started again with the faults');
    try {
      // Two hours: the faulty world keeps some hours 202 for ever (Berlin 10, 14 and 18 h), never two in a row.
      const from = formatUtcHour(floorToUtcHour(Date.now()) - 4 * HOUR_MS);
      const to = formatUtcHour(floorToUtcHour(Date.now()) - 3 * HOUR_MS);
      const folder = path.join(dir, 'faulty');
      const fetched = await run('mobilityApi.fetchHours', {
        environmentId: 'sandbox-mds-staging',
        endpointId: 'trips',
        snapshot: true,
        from,
        to,
        outDir: folder,
      });
      assert.equal(fetched.ok, true, fetched.message);
      const r = await run<AnalyzeOutcome>('mobilityApi.analyzeHarvest', { folder });
      assert.equal(r.ok, true, r.message);
      // The registry faults (a vehicle missing from /vehicles, one listed twice) are there at any hour of the day.
      assert.ok(
        (r.rules?.find((rule) => rule.id === 'registry')?.count ?? 0) >= 1,
        `registry finds the sandbox's faults: ${JSON.stringify(r.rules)}`,
      );
    } finally {
      await run('mobilityApi.stopSandbox');
      await run('mobilityApi.startSandbox');
    }
  });
});
