// Request files open as HTTP, not Plain Text (issue #24): `.http` and `.rest` get the `http` language (ours,
// the id REST Client and httpYac use too), and the "Send with fresh token" lens stands in them by language
// (an unsaved request file) and by file name (a `.http` file another extension gives another language).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { waitUntil } from '../unit/support/waitUntil';
import { closeUnsavedUntitled } from './extensionApi';

const REQUESTS = [
  '# @name vehicles',
  'GET https://nowhere.invalid/vehicles HTTP/1.1',
  'Accept: application/json',
  '',
  '###',
  '',
].join('\n');

/** The lenses of `uri` once there are `want` of them (the provider registers as the extension activates); fails after a while with what was there. */
function lensesOf(uri: vscode.Uri, want: number): Promise<vscode.CodeLens[]> {
  return waitUntil(
    `${want} lens(es) in ${uri.toString()}`,
    async () => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [],
    (lenses) => lenses.length >= want,
  );
}

describe('request files: the http language and the lens (issue #24)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-http-language-'));

  after(async () => {
    await closeUnsavedUntitled();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['requests.http', 'requests.rest']) {
    it(`opens ${name} as HTTP, with the lens above its GET`, async () => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, REQUESTS);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      assert.equal(doc.languageId, 'http');
      const lenses = await lensesOf(doc.uri, 1);
      assert.deepEqual(
        lenses.map((l) => l.range.start.line),
        [1],
        'one lens, above the GET line',
      );
    });
  }

  it('shows the lens in an unsaved request file (by language) and in a .http file given another language (by name)', async () => {
    const untitled = await vscode.workspace.openTextDocument({ language: 'http', content: REQUESTS });
    await vscode.window.showTextDocument(untitled);
    assert.equal(untitled.languageId, 'http');
    assert.deepEqual(
      (await lensesOf(untitled.uri, 1)).map((l) => l.range.start.line),
      [1],
      'the unsaved request file has its lens',
    );
    const file = path.join(dir, 'other.http');
    fs.writeFileSync(file, REQUESTS);
    const other = await vscode.languages.setTextDocumentLanguage(
      await vscode.workspace.openTextDocument(vscode.Uri.file(file)),
      'plaintext',
    );
    assert.equal(other.languageId, 'plaintext');
    assert.deepEqual(
      (await lensesOf(other.uri, 1)).map((l) => l.range.start.line),
      [1],
      'a .http file in another language keeps its lens',
    );
  });

  it('HTTP is a language VS Code knows, with # as its line comment', async () => {
    assert.ok((await vscode.languages.getLanguages()).includes('http'));
    const doc = await vscode.workspace.openTextDocument({
      language: 'http',
      content: 'GET https://nowhere.invalid/a\n',
    });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('editor.action.commentLine');
    assert.match(doc.lineAt(0).text, /^#\s?GET /);
  });

  it('ships the grammar and the language configuration in the VSIX', () => {
    const ignored = fs
      .readFileSync(path.join(__dirname, '..', '..', '..', '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    assert.ok(!ignored.some((p) => /^syntaxes|^\*\*\/\*\.json$/.test(p)), 'syntaxes/ is not left out');
    const ext = vscode.extensions.getExtension('mobility-api-explorer.mobility-api-explorer');
    assert.ok(ext);
    for (const file of ['syntaxes/http.tmLanguage.json', 'syntaxes/http.language-configuration.json']) {
      assert.ok(fs.existsSync(path.join(ext.extensionPath, file)), `${file} is in the installed extension`);
    }
  });
});
