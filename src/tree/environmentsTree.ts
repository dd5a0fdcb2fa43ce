import * as vscode from 'vscode';
import { CREDENTIAL_TYPE_LABELS } from '../core/credential';
import type { Environment } from '../core/environment';
import { API_LABELS, audienceOf } from '../core/environment';
import type { CredentialStore, StoredCredentialInfo } from '../services/credentialStore';
import type { EnvironmentRegistry } from '../services/environmentRegistry';
import type { SandboxService } from '../services/sandboxService';
import { COMMANDS } from '../commands/commandIds';

/** Tree elements are plain data; `getTreeItem` turns them into items. */
export type EnvironmentsTreeElement =
  | { kind: 'environment'; environmentId: string }
  | { kind: 'sandbox' }
  | { kind: 'detail'; environmentId: string; detail: 'audience' | 'credential' | 'lastResult' | 'baseUrlMissing' }
  | { kind: 'problem'; message: string };

/**
 * The Environments view: the three environments of the spec, the custom ones, and the local
 * sandbox with its environments while it runs. Each environment shows its audience, bound
 * credential and last result. Never prompts.
 */
export class EnvironmentsTreeProvider implements vscode.TreeDataProvider<EnvironmentsTreeElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  private bindings = new Map<string, StoredCredentialInfo>();

  constructor(private readonly environments: EnvironmentRegistry, private readonly credentials: CredentialStore, private readonly sandbox: SandboxService) {
    this.subscriptions = [environments.onDidChange(() => this.refresh()), credentials.onDidChange(() => this.refresh()), sandbox.onDidChange(() => this.refresh())];
    this.refresh();
  }

  refresh(): void {
    void this.credentials.list().then(
      (list) => {
        this.bindings = new Map(list.flatMap((c) => c.environments.map((e) => [e, c] as const)));
        this.changed.fire();
      },
      () => this.changed.fire(),
    );
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }

  getChildren(element?: EnvironmentsTreeElement): EnvironmentsTreeElement[] {
    if (!element) {
      return [
        ...this.environments.configured().map((e): EnvironmentsTreeElement => ({ kind: 'environment', environmentId: e.id })),
        { kind: 'sandbox' },
        ...this.environments.problems().map((message): EnvironmentsTreeElement => ({ kind: 'problem', message })),
      ];
    }
    if (element.kind === 'sandbox') return this.environments.sandbox().map((e) => ({ kind: 'environment', environmentId: e.id }));
    if (element.kind === 'environment') {
      const env = this.environments.get(element.environmentId);
      if (!env) return [];
      const id = env.id;
      if (!env.baseUrl) return [{ kind: 'detail', environmentId: id, detail: 'baseUrlMissing' }, { kind: 'detail', environmentId: id, detail: 'credential' }];
      const details: EnvironmentsTreeElement[] = [{ kind: 'detail', environmentId: id, detail: 'audience' }, { kind: 'detail', environmentId: id, detail: 'credential' }];
      if (this.environments.lastResult(id)) details.push({ kind: 'detail', environmentId: id, detail: 'lastResult' });
      return details;
    }
    return [];
  }

  getTreeItem(element: EnvironmentsTreeElement): vscode.TreeItem {
    switch (element.kind) {
      case 'sandbox': {
        const item = new vscode.TreeItem(vscode.l10n.t('Local Sandbox'), this.sandbox.isRunning ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        item.description = this.sandbox.isRunning ? this.sandbox.url : vscode.l10n.t('stopped');
        item.iconPath = new vscode.ThemeIcon(this.sandbox.isRunning ? 'vm-running' : 'vm-outline');
        item.contextValue = this.sandbox.isRunning ? 'sandbox.running' : 'sandbox.stopped';
        // A new id per state, so that VS Code takes the new collapsible state instead of the remembered one.
        item.id = `sandbox:${this.sandbox.isRunning ? 'running' : 'stopped'}`;
        item.tooltip = vscode.l10n.t('A local provider that enforces the same authentication rules and serves a synthetic fleet.');
        if (!this.sandbox.isRunning) item.command = { command: COMMANDS.startSandbox, title: vscode.l10n.t('Start Local Sandbox') };
        return item;
      }
      case 'problem': {
        const item = new vscode.TreeItem(element.message);
        item.iconPath = new vscode.ThemeIcon('warning');
        item.command = { command: COMMANDS.openSettings, title: vscode.l10n.t('Open Settings') };
        return item;
      }
      case 'environment':
        return this.environmentItem(element.environmentId);
      case 'detail':
        return this.detailItem(element.environmentId, element.detail);
    }
  }

  private environmentItem(id: string): vscode.TreeItem {
    const env = this.environments.get(id);
    if (!env) return new vscode.TreeItem(id);
    const item = new vscode.TreeItem(env.name, vscode.TreeItemCollapsibleState.Collapsed);
    const last = this.environments.lastResult(id);
    item.id = `environment:${id}`;
    item.description = env.baseUrl ? (last ? `${last.summary}` : env.baseUrl) : vscode.l10n.t('no base URL');
    item.iconPath = new vscode.ThemeIcon(!env.baseUrl ? 'circle-slash' : last ? (last.ok ? 'pass' : 'error') : env.api === 'maas' ? 'globe' : 'server-environment');
    const active = this.environments.activeId === id;
    item.tooltip = new vscode.MarkdownString(`**${env.name}**${active ? ` · ${vscode.l10n.t('active')}` : ''}\n\n${API_LABELS[env.api]} · ${env.stage}\n\n${env.baseUrl || vscode.l10n.t('No base URL yet: set it in the settings.')}`);
    item.contextValue = ['environment', env.api, env.baseUrl ? 'ready' : 'noBaseUrl', this.bindings.has(id) ? 'bound' : 'unbound'].join('.');
    return item;
  }

  private detailItem(id: string, detail: 'audience' | 'credential' | 'lastResult' | 'baseUrlMissing'): vscode.TreeItem {
    const env = this.environments.get(id);
    const item = new vscode.TreeItem('');
    item.contextValue = `detail.${detail}`;
    if (!env) return item;
    switch (detail) {
      case 'baseUrlMissing':
        item.label = vscode.l10n.t('Set the base URL…');
        item.description = vscode.l10n.t('required');
        item.iconPath = new vscode.ThemeIcon('gear');
        item.command = { command: COMMANDS.openSettings, title: vscode.l10n.t('Open Settings'), arguments: [{ environmentId: id }] };
        break;
      case 'audience':
        item.label = vscode.l10n.t('Audience');
        item.description = describeAudience(env);
        item.iconPath = new vscode.ThemeIcon('target');
        break;
      case 'credential': {
        const info = this.bindings.get(id);
        item.label = vscode.l10n.t('Credential');
        item.description = info ? `${info.label} · ${CREDENTIAL_TYPE_LABELS[info.type]} · kid ${info.kid}` : vscode.l10n.t('none bound');
        item.iconPath = new vscode.ThemeIcon(info ? 'key' : 'circle-large-outline');
        item.command = { command: COMMANDS.bindCredential, title: vscode.l10n.t('Bind Credential'), arguments: [{ environmentId: id }] };
        break;
      }
      case 'lastResult': {
        const last = this.environments.lastResult(id)!;
        item.label = vscode.l10n.t('Last result');
        item.description = `${last.summary} · ${new Date(last.at).toLocaleTimeString()}`;
        item.iconPath = new vscode.ThemeIcon(last.ok ? 'pass' : 'error');
        break;
      }
    }
    return item;
  }
}

function describeAudience(env: Environment): string {
  try {
    const aud = audienceOf(env);
    return Array.isArray(aud) ? `[${aud.join(', ')}]` : aud;
  } catch (err) {
    return (err as Error).message;
  }
}
