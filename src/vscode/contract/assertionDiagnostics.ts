import * as vscode from 'vscode';
import { fileAssertions } from '../../core/contract';

/** Malformed assertion lines of open request files as errors, forms not supported here as warnings, while they are edited. */
export function registerAssertionDiagnostics(): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('mobilityApi.assertions');
  const update = (document: vscode.TextDocument) => {
    if (document.languageId !== 'http') return;
    collection.set(
      document.uri,
      fileAssertions(document.getText()).problems.map((p) => {
        const range = new vscode.Range(p.line, p.column, p.line, p.column + p.length);
        const diagnostic = new vscode.Diagnostic(
          range,
          p.message,
          p.unsupported ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
        );
        diagnostic.source = 'Mobility API';
        return diagnostic;
      }),
    );
  };
  vscode.workspace.textDocuments.forEach(update);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(update),
    vscode.workspace.onDidChangeTextDocument((e) => update(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => collection.delete(d.uri)),
  );
}
