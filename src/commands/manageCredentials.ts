import * as vscode from 'vscode';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES } from '../core/credential';
import type { StoredCredentialInfo } from '../services/credentialStore';
import type { CommandDeps, CommandOutcome, CredentialTarget, EnvironmentTarget } from './commandDeps';
import { COMMANDS } from './commandIds';
import { Cancelled, registerCommand } from './registerCommand';

/** Remove, Rename and Bind Credential. */
export function registerManageCredentials(deps: CommandDeps): vscode.Disposable[] {
  return [
    registerCommand(deps, COMMANDS.removeCredential, async (target?: CredentialTarget & { confirmed?: boolean }): Promise<CommandOutcome> => {
      const info = await pickCredential(deps, target, vscode.l10n.t('Remove which credential?'));
      if (!target?.confirmed) {
        const remove = vscode.l10n.t('Remove');
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t('Remove "{0}" (kid {1})? Its key is deleted from VS Code\'s secret storage.', info.label, info.kid),
          { modal: true },
          remove,
        );
        if (answer !== remove) throw new Cancelled();
      }
      await deps.credentials.remove(info.id);
      // Its issue-clock mark goes too, unless another stored credential uses the same key id.
      if (!(await deps.credentials.list()).some((c) => c.kid === info.kid)) await deps.clockStore.forget(info.kid);
      deps.log.info('credentials', `removed "${info.label}" (kid ${info.kid})`);
      return { ok: true, credentialId: info.id };
    }),
    registerCommand(deps, COMMANDS.renameCredential, async (target?: CredentialTarget & { label?: string }): Promise<CommandOutcome> => {
      const info = await pickCredential(deps, target, vscode.l10n.t('Rename which credential?'));
      const label = target?.label ?? (await vscode.window.showInputBox({ prompt: vscode.l10n.t('New name for "{0}"', info.label), value: info.label, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The name cannot be empty.')) }));
      if (!label) throw new Cancelled();
      await deps.credentials.rename(info.id, label);
      return { ok: true, credentialId: info.id, label: label.trim() };
    }),
    registerCommand(deps, COMMANDS.bindCredential, async (target?: Partial<CredentialTarget & EnvironmentTarget> & { environmentIds?: string[] }): Promise<CommandOutcome> => {
      // From an environment item: pick the credential for it. From a credential item: pick its environments.
      if (target?.environmentId && !target.credentialId) {
        const env = deps.environments.get(target.environmentId);
        const usable = (await deps.credentials.list()).filter((c) => env?.api !== 'maas' || !DEPRECATED_TYPES.has(c.type));
        const picked = await vscode.window.showQuickPick(
          usable.map((c) => ({ label: c.label, description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${c.kid}`, id: c.id, environments: c.environments })),
          { placeHolder: vscode.l10n.t('Which credential signs for {0}?', env?.name ?? target.environmentId) },
        );
        if (!picked) throw new Cancelled();
        await deps.credentials.bind(picked.id, [...picked.environments, target.environmentId]);
        return { ok: true, credentialId: picked.id, environmentIds: [target.environmentId] };
      }
      const info = await pickCredential(deps, target?.credentialId ? { credentialId: target.credentialId } : undefined, vscode.l10n.t('Bind which credential?'));
      let ids = target?.environmentIds;
      if (!ids) {
        const candidates = deps.environments.all().filter((e) => e.api === 'mds' || !DEPRECATED_TYPES.has(info.type));
        const picks = await vscode.window.showQuickPick(
          candidates.map((e) => ({ label: e.name, description: e.baseUrl || vscode.l10n.t('no base URL set'), picked: info.environments.includes(e.id), id: e.id })),
          { canPickMany: true, placeHolder: vscode.l10n.t('Environments that "{0}" signs for', info.label) },
        );
        if (!picks) throw new Cancelled();
        ids = picks.map((p) => p.id);
      }
      const refused = ids.filter((id) => deps.environments.get(id)?.api === 'maas' && DEPRECATED_TYPES.has(info.type));
      if (refused.length) {
        return { ok: false, code: 'CREDENTIAL_NOT_FOR_API', message: vscode.l10n.t('{0} credentials work with the MDS Provider API only; not bound to {1}.', CREDENTIAL_TYPE_LABELS[info.type], refused.join(', ')) };
      }
      await deps.credentials.bind(info.id, ids);
      return { ok: true, credentialId: info.id, environmentIds: ids };
    }),
  ];
}

async function pickCredential(deps: CommandDeps, target: CredentialTarget | undefined, placeHolder: string): Promise<StoredCredentialInfo> {
  const list = await deps.credentials.list();
  if (target?.credentialId) {
    const found = list.find((c) => c.id === target.credentialId);
    if (found) return found;
  }
  if (list.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No credentials are stored yet.'));
    throw new Cancelled();
  }
  const picked = await vscode.window.showQuickPick(
    list.map((c) => ({ label: c.label, description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${c.kid}`, info: c })),
    { placeHolder },
  );
  if (!picked) throw new Cancelled();
  return picked.info;
}
