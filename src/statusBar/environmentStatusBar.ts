import * as vscode from 'vscode';
import type { EnvironmentRegistry } from '../services/environmentRegistry';
import { COMMANDS } from '../commands/commandIds';

/** Shows the active environment; clicking it switches. */
export function createEnvironmentStatusBar(environments: EnvironmentRegistry): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('mobilityApi.activeEnvironment', vscode.StatusBarAlignment.Left, 50);
  item.name = vscode.l10n.t('Mobility API environment');
  item.command = COMMANDS.selectEnvironment;
  const update = () => {
    const env = environments.active();
    item.text = `$(plug) ${env ? env.name : vscode.l10n.t('No environment')}`;
    item.tooltip = env ? vscode.l10n.t('Mobility API: {0} ({1}). Click to switch.', env.name, env.baseUrl || vscode.l10n.t('no base URL')) : vscode.l10n.t('Mobility API: pick an environment');
    item.show();
  };
  update();
  const subscription = environments.onDidChange(update);
  return vscode.Disposable.from(item, subscription);
}
