import * as vscode from 'vscode';
import type { EnvironmentRegistry } from './environmentRegistry';
import { COMMANDS } from '../platform/commandIds';

/** Shows the active environment; clicking it switches. */
export function createEnvironmentStatusBar(environments: EnvironmentRegistry): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('mobilityApi.activeEnvironment', vscode.StatusBarAlignment.Left, 50);
  item.name = vscode.l10n.t('Mobility API environment');
  item.command = COMMANDS.selectEnvironment;
  const update = () => {
    const env = environments.active();
    item.text = `$(plug) ${env ? env.name : vscode.l10n.t('No environment')}`;
    // Plain text for the name and URL (they come from settings), then the actions as command links.
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.isTrusted = {
      enabledCommands: [COMMANDS.selectEnvironment, COMMANDS.sendRequest, COMMANDS.newRequestFile],
    };
    tooltip.appendText(
      env
        ? vscode.l10n.t(
            'Mobility API: {0} ({1}). Click to switch.',
            env.name,
            env.baseUrl || vscode.l10n.t('no base URL'),
          )
        : vscode.l10n.t('Mobility API: pick an environment'),
    );
    tooltip.appendMarkdown('\n\n');
    tooltip.appendMarkdown(
      `[$(plug) ${escapeLink(vscode.l10n.t('Switch Environment…'))}](command:${COMMANDS.selectEnvironment})`,
    );
    tooltip.appendMarkdown(
      ` · [$(send) ${escapeLink(vscode.l10n.t('Send Request…'))}](command:${COMMANDS.sendRequest})`,
    );
    tooltip.appendMarkdown(
      ` · [$(new-file) ${escapeLink(vscode.l10n.t('New Request File'))}](command:${COMMANDS.newRequestFile})`,
    );
    item.tooltip = tooltip;
    item.show();
  };
  update();
  const subscription = environments.onDidChange(update);
  return vscode.Disposable.from(item, subscription);
}

/** Link text in Markdown: brackets and backslashes escaped (translations may carry them). */
function escapeLink(text: string): string {
  return text.replace(/[\\[\]]/g, '\\$&');
}
