import * as vscode from 'vscode';
import { MobilityError } from '../../core/base';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { registerCommand } from '../platform/registerCommand';

const SCHEME = 'mobility-api-report';

/**
 * Sandbox: Client Report. The in-editor sandbox grades every request it gets against the rules of
 * spec 5; this shows its report card as a read-only plain-text document (a content provider's
 * documents cannot be edited, and plain text renders nothing the client sent as markup). Running the
 * command again shows the card as it is then.
 */
export function registerShowClientReport(deps: CommandDeps): vscode.Disposable[] {
  let text = '';
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = {
    onDidChange: changed.event,
    provideTextDocumentContent: () => text,
  };
  const uri = vscode.Uri.from({ scheme: SCHEME, path: '/Sandbox Client Report' });
  return [
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    registerCommand(deps, COMMANDS.showClientReport, async (): Promise<CommandOutcome> => {
      const card = deps.sandbox.clientReport();
      if (!card)
        throw new MobilityError(
          'SANDBOX_NOT_RUNNING',
          vscode.l10n.t(
            'The local sandbox is not running. Start it, point your client at it, then run Sandbox: Client Report to see how the client did.',
          ),
        );
      text = card.text;
      changed.fire(uri);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
      return { ok: true, uri: uri.toString(), report: card.report };
    }),
  ];
}
