import * as vscode from 'vscode';
import type { Credential } from '../../core/auth';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES } from '../../core/auth';
import type { Environment } from '../../core/environment';
import { API_LABELS, normaliseBaseUrl } from '../../core/environment';
import { maskKeyId, MobilityError, withArticle } from '../../core/base';
import type { StoredCredentialInfo } from './credentialStore';
import type { CommandDeps, EnvironmentTarget } from '../platform/commandDeps';
import { endpointsOnEnter } from '../harvest/harvestFolder';
import { Cancelled } from '../platform/registerCommand';

/** The environment a command acts on: the tree item's, else one the user picks (the active one first). */
export async function resolveEnvironment(
  deps: CommandDeps,
  target: EnvironmentTarget | undefined,
  placeHolder: string,
  filter?: (e: Environment) => boolean,
): Promise<Environment> {
  const env = await pickEnvironment(deps, target, placeHolder, filter);
  // Checked before anything else is asked, so the user fixes the setting first.
  normaliseBaseUrl(env.baseUrl, env.name);
  return env;
}

/** Like resolveEnvironment, but an environment without a base URL is fine (e.g. to make it active). */
export async function pickEnvironment(
  deps: CommandDeps,
  target: EnvironmentTarget | undefined,
  placeHolder: string,
  filter?: (e: Environment) => boolean,
): Promise<Environment> {
  if (target?.environmentId) {
    const env = deps.environments.get(target.environmentId);
    if (!env)
      throw new MobilityError(
        'USAGE',
        vscode.l10n.t('The environment "{0}" does not exist (any more). Pick another one.', target.environmentId),
      );
    return env;
  }
  const all = deps.environments.all().filter((e) => !filter || filter(e));
  if (all.length === 0)
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t('No environment fits. Start the local sandbox or set a base URL in the settings.'),
    );
  const activeId = deps.environments.activeId;
  const items = all
    .sort((a, b) => Number(b.id === activeId) - Number(a.id === activeId))
    .map((e) => ({
      label: e.name,
      description: e.baseUrl || vscode.l10n.t('no base URL set'),
      detail: `${API_LABELS[e.api]} · ${e.stage}${e.id === activeId ? ` · ${vscode.l10n.t('active')}` : ''}`,
      environment: e,
    }));
  const picked = await vscode.window.showQuickPick(items, {
    placeHolder,
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  if (!picked) throw new Cancelled();
  return picked.environment;
}

/**
 * The credential for an environment: the bound one, else one the user picks among those the API
 * accepts. Warns once per session for deprecated types.
 */
export async function resolveCredential(
  deps: CommandDeps,
  env: Environment,
): Promise<{ credential: Credential; info: StoredCredentialInfo }> {
  let info = await deps.credentials.boundTo(env.id);
  if (!info) {
    const usable = (await deps.credentials.list()).filter((c) => env.api === 'mds' || !DEPRECATED_TYPES.has(c.type));
    if (usable.length === 0) {
      throw new MobilityError(
        'NO_CREDENTIAL',
        vscode.l10n.t(
          'No credential can be used for {0}. Add a credential, or start the local sandbox to use its demo credential.',
          env.name,
        ),
      );
    }
    // Left without a credential on purpose (Remove Credential): the only stored one is asked for, never taken silently.
    const leftUnbound = await deps.credentials.isLeftUnbound(env.id);
    if (usable.length === 1 && !leftUnbound) {
      info = usable[0];
    } else {
      const picked = await vscode.window.showQuickPick(
        usable.map((c) => ({
          label: c.label,
          description: `${CREDENTIAL_TYPE_LABELS[c.type]} · kid ${maskKeyId(c.kid)}`,
          info: c,
        })),
        {
          placeHolder: leftUnbound
            ? vscode.l10n.t(
                '{0} was left without a credential. Which credential signs this time? (Bind one to skip this question.)',
                env.name,
              )
            : vscode.l10n.t('Which credential signs for {0}? (Bind one to skip this question.)', env.name),
          ignoreFocusOut: true,
        },
      );
      if (!picked) throw new Cancelled();
      info = picked.info;
    }
  }
  const credential = await deps.credentials.credential(info.id);
  if (DEPRECATED_TYPES.has(credential.type) && !deps.session.warnedDeprecated.has(info.id)) {
    deps.session.warnedDeprecated.add(info.id);
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        '"{0}" is {1} credential: deprecated, not issued to new consumers, and accepted by the MDS Provider API only. Move to an External Organization credential when you can.',
        info.label,
        withArticle(CREDENTIAL_TYPE_LABELS[credential.type]),
      ),
    );
  }
  return { credential, info };
}

/**
 * A multi-pick where Enter without a ticked endpoint takes the highlighted one, or those the filter's text names (typing
 * "Trips" and pressing Enter fetches the trips, as in a single pick: endpointsOnEnter), and otherwise stays open saying
 * what to tick, rather than ending the command.
 */
export function pickMany<T extends vscode.QuickPickItem & { id: string }>(
  items: T[],
  title: string,
  placeholder: string,
  tickOne: string,
): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    const pick = vscode.window.createQuickPick<T>();
    pick.title = title;
    pick.placeholder = placeholder;
    pick.canSelectMany = true;
    pick.ignoreFocusOut = true;
    pick.items = items;
    let done = false;
    const isEndpoint = (item: T) => item.id !== '' && item.id !== 'snapshot';
    pick.onDidAccept(() => {
      const chosen = endpointsOnEnter({
        ticked: pick.selectedItems,
        highlighted: pick.activeItems,
        filter: pick.value,
        items,
        isEndpoint,
      });
      if (!chosen) {
        // The title too: a placeholder is hidden while the filter holds text.
        pick.title = `${title} · ${tickOne}`;
        pick.placeholder = tickOne;
        return;
      }
      done = true;
      resolve(chosen);
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      if (!done) reject(new Cancelled());
    });
    pick.show();
  });
}
