// Analyze Harvest… and the harvest notebook inside a real VS Code (issue 31): a small harvest of the extension's own
// sandbox (Fetch Hours…, the CLI's harvest engine), its data-quality report through the analysis worker (DuckDB in a
// child process) to the panel, and a notebook SQL cell that gets its outputs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { HOUR_MS, floorToUtcHour, formatUtcHour } from '../../src/core/mds/utcHour';
import { waitUntil } from '../unit/support/waitUntil';
import { run } from './extensionApi';
import type { Outcome } from './extensionApi';

type AnalyzeOutcome = Outcome & { folder?: string; resultId?: string; items?: Record<string, number>; rules?: { id: string; count: number }[]; skipped?: { id: string; why: string }[]; inUse?: string[] };

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
      const r = await run('mobilityApi.fetchHours', { environmentId: 'sandbox-mds-staging', endpointId, from, to, outDir: path.join(harvest, endpointId) });
      assert.equal(r.ok, true, r.message);
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the data-quality rules in the engine\'s own process and shows the report: the sandbox\'s clean world has no error finding', async () => {
    const r = await run<AnalyzeOutcome>('mobilityApi.analyzeHarvest', { folder: harvest });
    assert.equal(r.ok, true, r.message);
    assert.equal(r.folder, harvest);
    assert.ok((r.items?.trips ?? 0) > 0 && (r.items?.events ?? 0) > 0, `the report counts the harvest's items: ${JSON.stringify(r.items)}`);
    const ids = r.rules?.map((rule) => rule.id) ?? [];
    for (const id of ['trip-events', 'duplicate-events', 'telemetry-gaps', 'units']) assert.ok(ids.includes(id), `${id} ran`);
    assert.deepEqual(r.rules?.filter((rule) => ['trip-events', 'duplicate-events', 'telemetry-gaps'].includes(rule.id) && rule.count > 0), [], 'no error finding in a clean world');
    assert.ok(r.skipped?.some((s) => s.id === 'registry' && s.why.length > 0), 'a rule that cannot run says why');
    assert.deepEqual(r.inUse, []);
    assert.ok(r.resultId, 'the report was shown in a results panel');
    await waitUntil('the Data Quality panel', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label), (labels) => labels.some((l) => l.startsWith('Data quality: harvest')));
  });

  it('opens the harvest as a notebook whose SQL cell gives a table, CSV and a chart', async () => {
    const file = path.join(dir, 'harvest.mdsnb');
    const opened = await run<Outcome & { file?: string; cells?: number }>('mobilityApi.openHarvestNotebook', { folder: harvest, file });
    assert.equal(opened.ok, true, opened.message);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { metadata: { harvest: string }; cells: { kind: string; source: string }[] };
    assert.equal(saved.metadata.harvest, 'harvest', 'the folder relative to the notebook');
    assert.ok(saved.cells.some((c) => c.kind === 'sql' && /FROM events GROUP BY device_id, timestamp/.test(c.source)), 'a rule\'s own SQL');
    const notebook = await waitUntil('the notebook open', () => vscode.workspace.notebookDocuments.find((d) => d.uri.fsPath === file), (d) => !!d);
    if (!notebook) return;
    const first = notebook.getCells().findIndex((c) => c.kind === vscode.NotebookCellKind.Code);
    await vscode.commands.executeCommand('notebook.selectKernel', { id: 'mobilityApi.harvestSql', extension: 'mobility-api-explorer.mobility-api-explorer' });
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: first, end: first + 1 }], document: notebook.uri });
    const cell = await waitUntil('the cell\'s outputs', () => notebook.cellAt(first), (c) => c.outputs.length > 0 && c.executionSummary?.success !== undefined);
    assert.equal(cell.executionSummary?.success, true, new TextDecoder().decode(cell.outputs[0]?.items[0]?.data));
    const mimes = cell.outputs.flatMap((o) => o.items.map((i) => i.mime));
    for (const mime of ['text/plain', 'text/csv', 'application/vnd.vegalite.v5+json', 'application/json']) assert.ok(mimes.includes(mime), `${mime} in ${mimes.join(', ')}`);
    const csv = new TextDecoder().decode(cell.outputs[0].items.find((i) => i.mime === 'text/csv')?.data);
    assert.match(csv, /^hour,trips_started,/);

    // The folder has moved (the notebook names another place): the cell says where it looked and what to change.
    const edit = new vscode.WorkspaceEdit();
    edit.set(notebook.uri, [vscode.NotebookEdit.updateNotebookMetadata({ ...notebook.metadata, harvest: 'moved-away' })]);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: first, end: first + 1 }], document: notebook.uri });
    const failed = await waitUntil('the cell\'s error', () => notebook.cellAt(first), (c) => c.executionSummary?.success === false);
    const error = (JSON.parse(new TextDecoder().decode(failed.outputs[0]?.items[0]?.data)) as { message: string }).message;
    assert.match(error, /"moved-away" \(relative to the notebook\)/);
    assert.match(error, /set "harvest" in the notebook's metadata/);
  });
});
