// The gRPC settings side of the Environments view: Refresh gRPC Services (load the schema again), Open gRPC
// Settings, and Set gRPC Target… (writes `mobilityApi.grpc.environments[<id>].target`; nothing secret).
import * as vscode from 'vscode';
import { MobilityError } from '../../core/base';
import { parseGrpcEndpoint } from '../../core/environment';
import { BUILT_IN_ENVIRONMENTS, SETTINGS_SECTION } from '../platform/settings';
import type { CommandDeps, CommandOutcome, EnvironmentTarget } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { pickEnvironment } from '../environments/pickers';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import { grpcEnvironment } from './sendGrpcRequest';

const GRPC_SETTING = 'grpc.environments';

export function registerGrpcCommands(deps: CommandDeps, reload: (environmentId: string) => void): vscode.Disposable[] {
  return [
    registerCommand(deps, COMMANDS.refreshGrpc, async (target?: EnvironmentTarget): Promise<CommandOutcome> => {
      const env = await grpcEnvironment(
        deps,
        target?.environmentId,
        vscode.l10n.t('Load the gRPC services of which environment again?'),
      );
      reload(env.id);
      return { ok: true, environmentId: env.id };
    }),
    registerCommand(deps, COMMANDS.openGrpcSettings, async (target?: EnvironmentTarget): Promise<CommandOutcome> => {
      const env = target?.environmentId ? deps.environments.get(target.environmentId) : undefined;
      const custom = env && !env.id.startsWith('sandbox-') && !BUILT_IN_ENVIRONMENTS.some((b) => b.id === env.id);
      // A custom environment's gRPC endpoint is its "grpc" in customEnvironments; the sandbox's come from the sandbox.
      const query = custom
        ? deps.settings.settingFor(env.id)
        : env?.id.startsWith('sandbox-')
          ? `${SETTINGS_SECTION}.sandbox`
          : `${SETTINGS_SECTION}.${GRPC_SETTING}`;
      await vscode.commands.executeCommand('workbench.action.openSettings', query);
      return { ok: true, query };
    }),
    registerCommand(deps, COMMANDS.setGrpcTarget, async (target?: EnvironmentTarget): Promise<CommandOutcome> => {
      const env = await pickEnvironment(deps, target, vscode.l10n.t('Set the gRPC target of which environment?'), (e) =>
        BUILT_IN_ENVIRONMENTS.some((b) => b.id === e.id),
      );
      if (!BUILT_IN_ENVIRONMENTS.some((b) => b.id === env.id)) {
        const setting = env.id.startsWith('sandbox-')
          ? vscode.l10n.t('The local sandbox gives its environments their gRPC targets.')
          : vscode.l10n.t(
              'A custom environment\'s gRPC target is its "grpc" in mobilityApi.customEnvironments, e.g. "grpc": {"target": "grpc.example.com:443"}.',
            );
        if (!env.id.startsWith('sandbox-'))
          await vscode.commands.executeCommand(COMMANDS.openGrpcSettings, { environmentId: env.id });
        throw new MobilityError('USAGE', setting);
      }
      const where = `${SETTINGS_SECTION}.${GRPC_SETTING}["${env.id}"]`;
      const value = await vscode.window.showInputBox({
        title: vscode.l10n.t('gRPC target of {0}', env.name),
        prompt: vscode.l10n.t(
          'host:port of the gRPC server (a host alone means port 443). Calls carry a fresh token for {0}.',
          env.baseUrl || env.name,
        ),
        placeHolder: 'grpc.example.com:443',
        value: env.grpc?.target ?? '',
        ignoreFocusOut: true,
        validateInput: (text) => parseGrpcEndpoint({ target: text }, where).problems[0],
      });
      if (value === undefined) throw new Cancelled();
      const checked = parseGrpcEndpoint({ target: value }, where);
      if (checked.problems.length || !checked.endpoint)
        throw new MobilityError('GRPC_TARGET_INVALID', checked.problems[0] ?? where);
      const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
      const inspected = config.inspect<Record<string, unknown>>(GRPC_SETTING);
      // Where the setting is already set (the workspace's wins), else the user's settings.
      const scope =
        inspected?.workspaceValue !== undefined
          ? vscode.ConfigurationTarget.Workspace
          : vscode.ConfigurationTarget.Global;
      const current =
        (scope === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue) ?? {};
      const entry = current[env.id];
      const kept = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? entry : {};
      await config.update(GRPC_SETTING, { ...current, [env.id]: { ...kept, target: checked.endpoint.target } }, scope);
      return { ok: true, environmentId: env.id, target: checked.endpoint.target };
    }),
  ];
}
