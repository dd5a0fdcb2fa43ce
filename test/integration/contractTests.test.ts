// The Testing view's contract tests in a real VS Code (issue 32): the requests with assertions of a request file are
// found when it opens, grouped under it, and run against the sandbox through core/contract's runner (REST and gRPC);
// a failing assertion is reported at its line with the expected and actual value. Every answer joins the environment's
// results panel history, and Open Result (the failure's link, the menus) shows it again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { exportsOf, run } from './extensionApi';
import { waitUntil } from '../unit/support/waitUntil';

const FILE = [
  '# @name vehicles',
  'GET {{baseUrl}}/vehicles?page_size=5',
  '',
  '?? status == 200',
  '?? body vehicles.length == 5',
  '?? token accepted',
  '',
  '###',
  '# @name wrong-status',
  'GET {{baseUrl}}/stops',
  '',
  '?? status == 201',
  '?? header content-type includes xml',
  '',
  '###',
  '# @name stream',
  'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles',
  '',
  '{}',
  '',
  '?? status == OK',
  '?? messages > 0',
  '?? body device_id isString',
  '',
  '###',
  '# @name unasserted',
  'GET {{baseUrl}}/vehicles/status',
  '',
].join('\n');

describe('Testing view: requests with assertions as tests (issue 32)', function () {
  this.timeout(90_000);
  let dir: string;

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const selected = await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    assert.equal(selected.ok, true, selected.message);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-tests-'));
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("finds a file's tests when it opens and runs them against the sandbox; a failure is reported at its assertion's line", async () => {
    // No results panel yet: the run's answers must not open one in front, beside the file.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const file = path.join(dir, 'provider.http');
    fs.writeFileSync(file, FILE);
    const uri = vscode.Uri.file(file);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    const tests = exportsOf().contractTests;
    const found = await waitUntil(
      "the file's tests",
      () => tests.items().find((f) => f.id === uri.toString()),
      (f) => f !== undefined,
    );
    assert.deepEqual(
      found!.children.map((t) => [t.label, t.line]),
      [
        ['vehicles', 1],
        ['wrong-status', 9],
        ['stream', 16],
      ],
    );

    const lenses =
      (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
    assert.deepEqual(
      lenses.filter((l) => l.command?.title.includes('assertion')).map((l) => [l.range.start.line, l.command?.title]),
      [
        [1, '$(beaker) 3 assertions'],
        [9, '$(beaker) 2 assertions'],
        [16, '$(beaker) 3 assertions'],
      ],
    );

    await tests.runFile(uri, 'sandbox-mds-staging');
    // As the docs say: the answers join the panel's history without bringing the panel to the front.
    const inFront = () =>
      vscode.window.tabGroups.all.map((g) =>
        g.activeTab?.input instanceof vscode.TabInputWebview
          ? `panel "${g.activeTab.label}"`
          : (g.activeTab?.label ?? ''),
      );
    await waitUntil(
      'the request file in front again, alone',
      inFront,
      (labels) => labels.length === 1 && labels[0] === 'provider.http',
    );
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
    const outcome = (line: number) => tests.outcomes().get(`${uri.toString()}#${line}`);
    assert.equal(outcome(1)?.state, 'passed', JSON.stringify(outcome(1)));
    assert.equal(outcome(16)?.state, 'passed', JSON.stringify(outcome(16)));
    const failed = outcome(9);
    assert.equal(failed?.state, 'failed', JSON.stringify(failed));
    // The diff VS Code shows holds the values alone ("200 != 201"), the message the assertion's words.
    assert.deepEqual(
      failed?.messages.map((m) => [m.line, m.expected, m.actual]),
      [
        [11, '201', '200'],
        [12, undefined, undefined],
      ],
    );
    assert.equal(failed?.messages[0].message, '?? status == 201: expected == 201, actual 200');

    // Each answer (REST and gRPC) joins the environment's results panel history, as a send from the CodeLens does.
    const history = tests.panelHistory('sandbox-mds-staging');
    for (const line of [1, 9, 16]) {
      const result = outcome(line)?.result;
      assert.equal(result?.environmentId, 'sandbox-mds-staging', `line ${line}: ${JSON.stringify(outcome(line))}`);
      assert.ok(
        history.some((e) => e.id === result?.resultId),
        `the answer of line ${line + 1} is in the panel's history: ${JSON.stringify(history)}`,
      );
    }
    // A failure links to it: the menus (contextValue) on every message, a command link trusted for that one command in a message that is no diff.
    const [diff, words] = failed.messages;
    assert.equal(
      diff.contextValue,
      'mobilityApi.resultDiff',
      'a diff: Open Result in its context menu, no button over its Actual column',
    );
    const menus = (
      vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer')?.packageJSON as {
        contributes: { menus: Record<string, { command: string; when: string }[]> };
      }
    ).contributes.menus;
    assert.deepEqual(
      menus['testing/message/content'].map((m) => m.when),
      ['testMessage == mobilityApi.result'],
      'the button over the peek is for messages that are no diff',
    );
    assert.match(menus['testing/message/context'][0].when, /mobilityApi\.resultDiff/);
    assert.equal(words.contextValue, 'mobilityApi.result');
    assert.equal(words.link?.command, 'mobilityApi.openTestResult');
    assert.deepEqual(words.link?.trusted, ['mobilityApi.openTestResult']);
    assert.doesNotMatch(
      JSON.stringify([...tests.outcomes().values()]),
      /eyJ[\w-]+\.eyJ/,
      'no token in any outcome or link',
    );
    // The link's command, run as a click runs it, shows that answer in front; so does the test's context menu.
    const opened = await run('mobilityApi.openTestResult', ...(words.link.args as unknown[]));
    assert.equal(opened.ok, true, opened.message);
    assert.equal(opened.resultId, failed.result!.resultId);
    const tabLabels = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputWebview)
        .map((t) => t.label);
    await waitUntil("the failed test's answer in its panel", tabLabels, (labels) => labels.includes('wrong-status'));
    const fromMenu = await run('mobilityApi.openTestResult', { test: { id: `${uri.toString()}#1` }, message: {} });
    assert.equal(fromMenu.ok, true, fromMenu.message);
    assert.equal(fromMenu.resultId, outcome(1)!.result!.resultId);
    await waitUntil("the passed test's answer in its panel", tabLabels, (labels) => labels.includes('vehicles'));
    const none = await run('mobilityApi.openTestResult', { test: { id: 'no-such-test' } });
    assert.equal(none.ok, false);
    assert.match(String(none.message), /run it, then open its result/);

    // An edit is seen: the unasserted request gets an assertion, and is a test.
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(document.lineCount, 0), '?? status == 200\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitUntil(
      'four tests',
      () => tests.items().find((f) => f.id === uri.toString())?.children.length,
      (n) => n === 4,
    );
    // Saved while its folder is there: a file closed with unsaved changes was written back after `after` removed the folder.
    assert.ok(await document.save(), 'the edited file is saved');
  });
});
