import * as vscode from 'vscode';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES } from '../../core/auth';
import type { CredentialStore, StoredCredentialInfo } from './credentialStore';
import type { EnvironmentRegistry } from './environmentRegistry';
import { Disposable } from '../platform/lifecycle';
import { maskKeyId } from '../../core/base';

export interface CredentialsTreeElement {
  kind: 'credential';
  credentialId: string;
}

/** The Credentials view: label, type and key id of each stored credential, never key material. */
export class CredentialsTreeProvider extends Disposable implements vscode.TreeDataProvider<CredentialsTreeElement> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private infos = new Map<string, StoredCredentialInfo>();

  constructor(
    private readonly credentials: CredentialStore,
    private readonly environments: EnvironmentRegistry,
  ) {
    super();
    this.register(credentials.onDidChange(() => this.changed.fire()));
    this.register(environments.onDidChange(() => this.changed.fire()));
  }

  async getChildren(element?: CredentialsTreeElement): Promise<CredentialsTreeElement[]> {
    if (element) return [];
    const list = await this.credentials.list().catch(() => []);
    this.infos = new Map(list.map((c) => [c.id, c]));
    return list.map((c) => ({ kind: 'credential', credentialId: c.id }));
  }

  getTreeItem(element: CredentialsTreeElement): vscode.TreeItem {
    const info = this.infos.get(element.credentialId);
    const item = new vscode.TreeItem(info?.label ?? element.credentialId);
    if (!info) return item;
    item.id = `credential:${info.id}`;
    item.description = vscode.l10n.t('{0} · kid {1}', CREDENTIAL_TYPE_LABELS[info.type], maskKeyId(info.kid));
    item.iconPath = new vscode.ThemeIcon(DEPRECATED_TYPES.has(info.type) ? 'warning' : 'key');
    const bound = info.environments.map((id) => this.environments.get(id)?.name ?? id);
    // Plain text: labels and issuers are the user's (or a key file's) words, not markup.
    item.tooltip = [
      info.label,
      `${CREDENTIAL_TYPE_LABELS[info.type]} · kid ${maskKeyId(info.kid)}`,
      `iss ${info.issuer}`,
      bound.length ? vscode.l10n.t('Bound to: {0}', bound.join(', ')) : vscode.l10n.t('Not bound to an environment'),
    ].join('\n');
    item.contextValue = info.demo ? 'credential.demo' : 'credential';
    return item;
  }
}
