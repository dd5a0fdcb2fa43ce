import * as vscode from 'vscode';

/** Wiring only: the extension shell is built in later increments. */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Mobility API', { log: true });
  context.subscriptions.push(log);
  context.subscriptions.push(vscode.commands.registerCommand('mobilityApi.showLog', () => log.show()));
}

export function deactivate(): void {}
