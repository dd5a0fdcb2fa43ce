// Assertion lines of a request file are checked while it is edited (issue 32): a malformed line is an error at the
// part at fault, a form not supported here (`?? js …`) a warning, and fixing the line clears its mark.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitUntil } from '../unit/support/waitUntil';
import { closeUnsavedUntitled } from './extensionApi';

const TEXT = [
  'GET https://nowhere.invalid/vehicles',
  '',
  '?? status == 200',
  '?? status =! 200',
  '?? js response.ok == true',
  '',
].join('\n');

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Mobility API');
}

describe('request files: assertion lines checked while edited (issue 32)', () => {
  after(closeUnsavedUntitled);

  it('marks a malformed assertion as an error at its condition and ?? js as not supported here; a fix clears the mark', async () => {
    const doc = await vscode.workspace.openTextDocument({ language: 'http', content: TEXT });
    await vscode.window.showTextDocument(doc);
    const marks = await waitUntil(
      'two assertion diagnostics',
      () => ours(doc.uri),
      (d) => d.length === 2,
    );
    const [malformed, unsupported] = marks.sort((a, b) => a.range.start.line - b.range.start.line);
    assert.equal(malformed.severity, vscode.DiagnosticSeverity.Error);
    assert.deepEqual(
      [malformed.range.start.line, malformed.range.start.character, malformed.range.end.character],
      [3, 10, 12],
    );
    assert.match(malformed.message, /"=!" is not a condition/);
    assert.equal(unsupported.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(unsupported.message, /"\?\? js" is not supported here/);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(3, 10, 3, 12), '!=');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitUntil(
      'one assertion diagnostic left',
      () => ours(doc.uri),
      (d) => d.length === 1,
    );
  });
});
