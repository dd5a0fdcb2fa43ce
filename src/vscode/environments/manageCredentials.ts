import * as vscode from 'vscode';
import type { CredentialType } from '../../core/auth';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES } from '../../core/auth';
import type { ApiKind, Environment } from '../../core/environment';
import type { StoredCredentialInfo } from './credentialStore';
import type { CommandDeps, CommandOutcome, CredentialTarget, EnvironmentTarget } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import { maskKeyId } from '../../core/base';

/** Remove, Rename and Bind Credential. */
export function registerManageCredentials(deps: CommandDeps): vscode.Disposable[] {
  return [
    registerCommand(
      deps,
      COMMANDS.removeCredential,
      async (
        target?: CredentialTarget & { confirmed?: boolean; rebindTo?: string | false },
      ): Promise<CommandOutcome> => {
        const info = await pickCredential(deps, target, vscode.l10n.t('Remove which credential?'));
        if (!target?.confirmed) {
          const remove = vscode.l10n.t('Remove');
          const answer = await vscode.window.showWarningMessage(
            vscode.l10n.t(
              'Remove "{0}" (kid {1})? Its key is deleted from VS Code\'s secret storage.',
              info.label,
              maskKeyId(info.kid),
            ),
            { modal: true },
            remove,
          );
          if (answer !== remove) throw new Cancelled();
        }
        await deps.credentials.remove(info.id);
        // Its issue-clock mark goes too, unless another stored credential uses the same key id.
        const keyIdUnused = async () => !(await deps.credentials.list()).some((c) => c.kid === info.kid);
        if (await keyIdUnused()) await deps.clockStore.forget(info.kid, keyIdUnused);
        deps.log.info('credentials', `removed "${info.label}" (kid ${maskKeyId(info.kid)})`);
        const { rebound, unbound } = await rebindOrphans(deps, info, target?.rebindTo);
        const message = describeRemoval(deps, info, rebound, unbound, await deps.credentials.list());
        void vscode.window.showInformationMessage(message);
        return { ok: true, credentialId: info.id, rebound, unbound, message };
      },
    ),
    registerCommand(
      deps,
      COMMANDS.renameCredential,
      async (target?: CredentialTarget & { label?: string }): Promise<CommandOutcome> => {
        const info = await pickCredential(deps, target, vscode.l10n.t('Rename which credential?'));
        const label =
          target?.label ??
          (await vscode.window.showInputBox({
            prompt: vscode.l10n.t('New name for "{0}"', info.label),
            value: info.label,
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The name cannot be empty.')),
          }));
        if (!label) throw new Cancelled();
        await deps.credentials.rename(info.id, label);
        return { ok: true, credentialId: info.id, label: label.trim() };
      },
    ),
    registerCommand(
      deps,
      COMMANDS.bindCredential,
      async (
        target?: Partial<CredentialTarget & EnvironmentTarget> & { environmentIds?: string[] },
      ): Promise<CommandOutcome> => {
        // From an environment item: pick the credential for it. From a credential item: pick its environments.
        if (target?.environmentId && !target.credentialId) {
          const env = deps.environments.get(target.environmentId);
          const usable = (await deps.credentials.list()).filter(
            (c) => env?.api !== 'maas' || !DEPRECATED_TYPES.has(c.type),
          );
          const picked = await vscode.window.showQuickPick(
            usable.map((c) => ({
              label: c.label,
              description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${maskKeyId(c.kid)}`,
              id: c.id,
              environments: c.environments,
            })),
            {
              placeHolder: vscode.l10n.t('Which credential signs for {0}?', env?.name ?? target.environmentId),
              ignoreFocusOut: true,
            },
          );
          if (!picked) throw new Cancelled();
          await deps.credentials.bind(picked.id, [...picked.environments, target.environmentId]);
          return { ok: true, credentialId: picked.id, environmentIds: [target.environmentId] };
        }
        const info = await pickCredential(
          deps,
          target?.credentialId ? { credentialId: target.credentialId } : undefined,
          vscode.l10n.t('Bind which credential?'),
        );
        let ids = target?.environmentIds;
        if (!ids) {
          const candidates = deps.environments.all().filter((e) => e.api === 'mds' || !DEPRECATED_TYPES.has(info.type));
          const picks = await vscode.window.showQuickPick(
            candidates.map((e) => ({
              label: e.name,
              description: e.baseUrl || vscode.l10n.t('no base URL set'),
              picked: info.environments.includes(e.id),
              id: e.id,
            })),
            {
              canPickMany: true,
              placeHolder: vscode.l10n.t('Environments that "{0}" signs for', info.label),
              ignoreFocusOut: true,
            },
          );
          if (!picks) throw new Cancelled();
          ids = picks.map((p) => p.id);
        }
        const refused = ids.filter(
          (id) => deps.environments.get(id)?.api === 'maas' && DEPRECATED_TYPES.has(info.type),
        );
        if (refused.length) {
          return {
            ok: false,
            code: 'CREDENTIAL_NOT_FOR_API',
            message: vscode.l10n.t(
              '{0} credentials work with the MDS Provider API only; not bound to {1}.',
              CREDENTIAL_TYPE_LABELS[info.type],
              refused.map((id) => deps.environments.get(id)?.name ?? id).join(', '),
            ),
          };
        }
        await deps.credentials.bind(info.id, ids);
        return { ok: true, credentialId: info.id, environmentIds: ids };
      },
    ),
  ];
}

async function pickCredential(
  deps: CommandDeps,
  target: CredentialTarget | undefined,
  placeHolder: string,
): Promise<StoredCredentialInfo> {
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
    list.map((c) => ({
      label: c.label,
      description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${maskKeyId(c.kid)}`,
      info: c,
    })),
    { placeHolder, ignoreFocusOut: true },
  );
  if (!picked) throw new Cancelled();
  return picked.info;
}

/** An environment that lost its credential, and the one that signs for it now. */
interface Rebinding {
  environmentId: string;
  credentialId: string;
}

/**
 * The environments a removed credential signed for: another key never starts signing for them unless the user picks it.
 * Where a stored credential could sign, the user is asked (the first choice, and closing the question, leave the
 * environment without a credential); `rebindTo` answers for a caller (a credential id, or `false` for none).
 * Environments that no longer exist (a stopped sandbox binds its demo credential again on start) are left alone.
 */
async function rebindOrphans(
  deps: CommandDeps,
  removed: StoredCredentialInfo,
  rebindTo: string | false | undefined,
): Promise<{ rebound: Rebinding[]; unbound: string[] }> {
  const remaining = await deps.credentials.list();
  const orphans = removed.environments
    .map((id) => deps.environments.get(id))
    .filter((env): env is Environment => !!env && !remaining.some((c) => c.environments.includes(env.id)));
  // Environments with the same candidates are asked about together (usually one question, or none).
  const groups = new Map<string, { environments: Environment[]; candidates: StoredCredentialInfo[] }>();
  for (const env of orphans) {
    const candidates = remaining.filter((c) => mayUse(c.type, env.api));
    const key = candidates.map((c) => c.id).join(',');
    const group = groups.get(key) ?? { environments: [], candidates };
    group.environments.push(env);
    groups.set(key, group);
  }
  const rebound: Rebinding[] = [];
  const unbound: string[] = [];
  for (const { environments, candidates } of groups.values()) {
    const chosen =
      candidates.length === 0 ? undefined : await chooseReplacement(removed, environments, candidates, rebindTo);
    if (!chosen) {
      unbound.push(...environments.map((e) => e.id));
      // The choice holds: the next request asks which credential signs, even when only one is stored.
      await deps.credentials.leaveUnbound(environments.map((e) => e.id));
      continue;
    }
    const current = (await deps.credentials.list()).find((c) => c.id === chosen.id);
    await deps.credentials.bind(chosen.id, [...(current?.environments ?? []), ...environments.map((e) => e.id)]);
    rebound.push(...environments.map((e) => ({ environmentId: e.id, credentialId: chosen.id })));
  }
  return { rebound, unbound };
}

/** IAM and service-account credentials sign for the MDS Provider API only. */
function mayUse(type: CredentialType, api: ApiKind): boolean {
  return api === 'mds' || !DEPRECATED_TYPES.has(type);
}

async function chooseReplacement(
  removed: StoredCredentialInfo,
  environments: Environment[],
  candidates: StoredCredentialInfo[],
  rebindTo: string | false | undefined,
): Promise<StoredCredentialInfo | undefined> {
  if (rebindTo === false) return undefined;
  if (rebindTo !== undefined) return candidates.find((c) => c.id === rebindTo);
  const names = environments.map((e) => e.name).join(', ');
  // Leaving it without a credential comes first: Enter alone never hands the environments to another key.
  const items: Array<vscode.QuickPickItem & { info?: StoredCredentialInfo }> = [
    {
      label: vscode.l10n.t('Leave without a credential'),
      description: vscode.l10n.t('no credential bound to it (Bind Credential… binds one later)'),
    },
    ...candidates.map((c) => ({
      label: c.label,
      description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${maskKeyId(c.kid)}`,
      detail: vscode.l10n.t('Bind this credential: its key signs for {0} from now on.', names),
      info: c,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Removed "{0}"', removed.label),
    placeHolder: vscode.l10n.t('{0} had no other credential. Bind another one to it, or leave it without?', names),
    ignoreFocusOut: true,
  });
  return picked?.info;
}

/** One message: what was removed, which credential now signs where, and what is left without one. */
function describeRemoval(
  deps: CommandDeps,
  removed: StoredCredentialInfo,
  rebound: Rebinding[],
  unbound: string[],
  stored: StoredCredentialInfo[],
): string {
  const name = (id: string) => deps.environments.get(id)?.name ?? id;
  const parts = [vscode.l10n.t('Removed "{0}".', removed.label)];
  const byCredential = new Map<string, string[]>();
  for (const r of rebound)
    byCredential.set(r.credentialId, [...(byCredential.get(r.credentialId) ?? []), name(r.environmentId)]);
  for (const [credentialId, environments] of byCredential) {
    const label = stored.find((c) => c.id === credentialId)?.label ?? credentialId;
    parts.push(vscode.l10n.t('"{0}" now signs for {1}.', label, environments.join(', ')));
  }
  if (unbound.length) {
    parts.push(
      unbound.length === 1
        ? vscode.l10n.t('{0} has no credential bound now.', name(unbound[0]))
        : vscode.l10n.t('{0} have no credential bound now.', unbound.map(name).join(', ')),
    );
  }
  return parts.join(' ');
}
