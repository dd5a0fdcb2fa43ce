import * as vscode from 'vscode';
import { formatDuration, maskKeyId } from '../../core/base';
import type { CommandDeps, CommandOutcome, EnvironmentTarget } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { resolveCredential, resolveEnvironment } from '../environments/pickers';
import { registerCommand } from '../platform/registerCommand';
import { inspectToken } from './tokenInspection';

/**
 * Generate Token: a fresh token for an environment, copied to the clipboard and shown decoded
 * (with its expiry countdown) in the results panel. Copy Token does the same without the panel.
 */
export function registerGenerateToken(deps: CommandDeps): vscode.Disposable[] {
  const generate = async (target: EnvironmentTarget | undefined, show: boolean): Promise<CommandOutcome> => {
    const env = await resolveEnvironment(deps, target, vscode.l10n.t('Generate a token for which environment?'));
    const { credential, info } = await resolveCredential(deps, env);
    const issued = await deps.clients.issuer.issue(credential, env);
    await vscode.env.clipboard.writeText(issued.token);
    deps.tokenHistory.record(issued, show ? 'generated' : 'copied');
    deps.log.info(
      'token',
      `issued for ${env.id} with kid ${maskKeyId(credential.kid)}: jti ${issued.claims.jti}, iat ${issued.claims.iat}, exp ${issued.claims.exp}`,
    );
    if (show) {
      const inspected = await inspectToken(deps, issued.token, credential);
      if ('decoded' in inspected) {
        deps.results.showToken({
          environment: env,
          token: issued.token,
          decoded: inspected.decoded,
          findings: inspected.findings,
          signature: inspected.signature,
          source: vscode.l10n.t('Generated for {0} with {1}', env.name, info.label),
        });
      }
    }
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'A fresh token for {0} is on the clipboard. It expires in {1}.',
        env.name,
        formatDuration(issued.claims.exp - issued.claims.iat),
      ),
    );
    return { ok: true, environmentId: env.id, credentialId: info.id, header: issued.header, claims: issued.claims };
  };
  return [
    registerCommand(deps, COMMANDS.generateToken, (target?: EnvironmentTarget) => generate(target, true)),
    registerCommand(deps, COMMANDS.copyToken, (target?: EnvironmentTarget) => generate(target, false)),
  ];
}
