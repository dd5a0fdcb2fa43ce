import * as vscode from 'vscode';
import { SETTINGS_SECTION } from '../platform/settings';
import type { CommandDeps, CommandOutcome, EnvironmentTarget } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { pickEnvironment } from './pickers';
import { registerCommand } from '../platform/registerCommand';

/** Select Environment, Open Settings, Start/Stop Local Sandbox, Show Log, Clear Token History, Refresh. */
export function registerEnvironmentCommands(
  deps: CommandDeps,
  showLog: () => void,
  refresh: () => void,
): vscode.Disposable[] {
  return [
    registerCommand(deps, COMMANDS.selectEnvironment, async (target?: EnvironmentTarget): Promise<CommandOutcome> => {
      const env = await pickEnvironment(deps, target, vscode.l10n.t('Make which environment active?'));
      await deps.environments.setActive(env.id);
      return { ok: true, environmentId: env.id };
    }),
    registerCommand(deps, COMMANDS.openSettings, async (target?: EnvironmentTarget): Promise<CommandOutcome> => {
      const query =
        target?.environmentId && !deps.environments.get(target.environmentId)?.id.startsWith('sandbox-')
          ? deps.settings.settingFor(target.environmentId)
          : SETTINGS_SECTION;
      await vscode.commands.executeCommand('workbench.action.openSettings', query);
      return { ok: true, query };
    }),
    registerCommand(deps, COMMANDS.startSandbox, async (): Promise<CommandOutcome> => {
      const sandbox = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting the local sandbox…') },
        () => deps.sandbox.start(),
      );
      const first = deps.environments.sandbox()[0];
      if (first && !deps.environments.active()) await deps.environments.setActive(first.id);
      const list = vscode.l10n.t('List Vehicles');
      void vscode.window
        .showInformationMessage(
          vscode.l10n.t(
            'Local sandbox running on {0}, with its demo credential bound to its three environments.',
            sandbox.url,
          ),
          list,
        )
        .then((picked) => {
          if (picked === list)
            void vscode.commands.executeCommand(COMMANDS.listVehicles, first ? { environmentId: first.id } : undefined);
        });
      return { ok: true, url: sandbox.url, environmentIds: deps.environments.sandbox().map((e) => e.id) };
    }),
    registerCommand(deps, COMMANDS.startSandboxWithDataFaults, async (): Promise<CommandOutcome> => {
      // The CLI's `sandbox --data-faults all`: faults of every rule of Analyze Harvest in the world, the demo credential bound as on any start.
      const sandbox = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Starting the local sandbox with data faults…'),
        },
        () => deps.sandbox.start({ dataFaults: 'all' }),
      );
      const first = deps.environments.sandbox()[0];
      if (first && !deps.environments.active()) await deps.environments.setActive(first.id);
      const fetch = vscode.l10n.t('Fetch Hours…');
      void vscode.window
        .showInformationMessage(
          vscode.l10n.t(
            'Local sandbox running on {0} with data faults of every rule of Analyze Harvest in its world, its demo credential bound to its three environments. Fetch Hours (tick the snapshot box), then Analyze Harvest finds them.',
            sandbox.url,
          ),
          fetch,
        )
        .then((picked) => {
          if (picked === fetch)
            void vscode.commands.executeCommand(COMMANDS.fetchHours, first ? { environmentId: first.id } : undefined);
        });
      return {
        ok: true,
        url: sandbox.url,
        dataFaults: deps.sandbox.dataFaults,
        environmentIds: deps.environments.sandbox().map((e) => e.id),
      };
    }),
    registerCommand(deps, COMMANDS.stopSandbox, async (): Promise<CommandOutcome> => {
      const stopped = await deps.sandbox.stop();
      if (stopped) void vscode.window.showInformationMessage(vscode.l10n.t('Local sandbox stopped.'));
      return { ok: true, stopped };
    }),
    registerCommand(deps, COMMANDS.showLog, () => {
      showLog();
      return Promise.resolve({ ok: true });
    }),
    registerCommand(deps, COMMANDS.clearTokenHistory, () => {
      deps.tokenHistory.clear();
      return Promise.resolve({ ok: true });
    }),
    registerCommand(deps, COMMANDS.refreshEnvironments, () => {
      refresh();
      return Promise.resolve({ ok: true });
    }),
  ];
}
