import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { exportsOf, run } from './extensionApi';
import type { Outcome } from './extensionApi';

type CopyOutcome = Outcome & { language?: string; environmentId?: string; title?: string };

describe('Copy as Code', function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-copy-code-'));

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The key ids of every stored credential: none may appear in a program (spec 5.7). */
  async function kids(): Promise<string[]> {
    return (await exportsOf().listCredentials()).map((c) => c.kid);
  }

  it('copies an endpoint of the tree as a program for its environment, with no secret in it', async () => {
    const r = await run<CopyOutcome>('mobilityApi.copyAsCode', {
      environmentId: 'sandbox-mds-staging',
      endpointId: 'vehicles',
      language: 'python',
    });
    assert.equal(r.ok, true, r.message);
    const code = await vscode.env.clipboard.readText();
    assert.match(code, /^"""GET \/vehicles on the MDS Provider API at http:\/\/127\.0\.0\.1:\d+\/mds-staging,/);
    assert.match(code, /os\.environ\.get\("MOBILITY_API_KEY_FILE"\)/);
    assert.match(code, /os\.environ\.get\("MOBILITY_API_KEY_ID"\)/);
    assert.doesNotMatch(code, /PRIVATE KEY-----/);
    for (const kid of await kids()) assert.ok(!code.includes(kid), 'no key id in the program');
  });

  it('stands a "Copy as Code" lens beside "Send with fresh token", which copies that request of the file', async () => {
    const file = path.join(dir, 'requests.http');
    fs.writeFileSync(file, ['# @name status', 'GET {{baseUrl}}/vehicles/status', 'X-Trace: 7', ''].join('\n'));
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    const lenses =
      (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
    const lens = lenses.find((l) => l.command?.command === 'mobilityApi.copyAsCode');
    assert.equal(lens?.command?.title, '$(code) Copy as Code');
    const [args] = (lens.command.arguments ?? []) as [Record<string, unknown>];
    const r = await run<CopyOutcome>('mobilityApi.copyAsCode', { ...args, language: 'go' });
    assert.equal(r.ok, true, r.message);
    const code = await vscode.env.clipboard.readText();
    assert.match(code, /path +?= "\/vehicles\/status"/);
    assert.match(code, /"X-Trace": +"7"/);
    assert.match(code, /jwt\.SigningMethodES256/);
  });

  it('refuses a language it does not write, saying which it does', async () => {
    const r = await run<CopyOutcome>('mobilityApi.copyAsCode', {
      environmentId: 'sandbox-mds-staging',
      endpointId: 'vehicles',
      language: 'cobol',
    });
    assert.equal(r.ok, false);
    assert.match(r.message ?? '', /python, typescript, go, java, shell/);
  });

  it("copies the request under the cursor when run from the palette with a request file in front, and the picker's endpoint without one", async () => {
    const document = await vscode.workspace.openTextDocument({
      language: 'http',
      content: [
        'GET {{baseUrl}}/vehicles',
        '',
        '###',
        '# @name status',
        'GET {{baseUrl}}/vehicles/status',
        'X-Cursor: here',
        '',
      ].join('\n'),
    });
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    editor.selection = new vscode.Selection(5, 3, 5, 3);
    await vscode.env.clipboard.writeText('');
    const r = await run<CopyOutcome>('mobilityApi.copyAsCode', { language: 'python' });
    assert.equal(r.ok, true, r.message);
    const code = await vscode.env.clipboard.readText();
    assert.match(code, /\/vehicles\/status/);
    assert.match(code, /X-Cursor/);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
