import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { run } from './extensionApi';
import type { Outcome } from './extensionApi';

type ReportOutcome = Outcome & {
  uri?: string;
  report?: {
    requests: { seen: number; accepted: number; refused: number };
    refusals: Array<{ rule: string }>;
    grade: string;
  };
};

describe('Sandbox: Client Report', function () {
  this.timeout(60_000);

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
  });

  it('says the sandbox is not running, then shows the report card of the requests the running sandbox got, read-only', async () => {
    await run('mobilityApi.stopSandbox');
    const stopped = await run<ReportOutcome>('mobilityApi.showClientReport');
    assert.equal(stopped.ok, false);
    assert.equal(stopped.code, 'SANDBOX_NOT_RUNNING');

    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.ok, true, listed.message);
    const refused = await fetch(`${String(started.url)}/mds-staging/vehicles`, {
      headers: { Authorization: 'Bearer not-a-token' },
    });
    assert.equal(refused.status, 401);

    const shown = await run<ReportOutcome>('mobilityApi.showClientReport');
    assert.equal(shown.ok, true, shown.message);
    assert.ok(shown.report && shown.report.requests.accepted >= 1, JSON.stringify(shown.report?.requests));
    assert.deepEqual(
      shown.report.refusals.map((r) => r.rule),
      ['malformed_token'],
    );
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.toString(), shown.uri);
    const text = editor.document.getText();
    assert.match(text, /^Sandbox client report card/);
    assert.match(text, /malformed_token \(spec 5\.1 rule 2\): 1 request/);
    assert.ok(!text.includes('not-a-token'), 'no token in the card');
    await Promise.resolve(editor.edit((b) => b.insert(new vscode.Position(0, 0), 'x'))).catch(() => false);
    assert.equal(editor.document.getText(), text, 'the card cannot be edited');
  });
});
