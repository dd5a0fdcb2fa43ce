import * as vscode from 'vscode';
import { CREDENTIAL_TYPE_LABELS } from '../../core/auth';
import type { Environment } from '../../core/environment';
import { API_LABELS, audienceOf } from '../../core/environment';
import { catalogueOf } from '../../core/mds';
import type { CredentialStore, StoredCredentialInfo } from './credentialStore';
import type { EnvironmentRegistry } from './environmentRegistry';
import type { GrpcService } from '../grpc/grpcService';
import type { Logger } from '../platform/logger';
import { Disposable } from '../platform/lifecycle';
import type { SandboxService } from '../sandbox/sandboxService';
import type { TokenHistory } from '../tokens/tokenHistory';
import { COMMANDS } from '../platform/commandIds';
import { errorMessage, maskKeyId } from '../../core/base';
import { GrpcNodes } from '../grpc/grpcNodes';
import type { GrpcTreeElement } from '../grpc/grpcNodes';
import { endpointItem, endpointsItem } from './endpointItems';
import { historyTokenItem, tokenHistoryItem } from './tokenHistoryItems';

/** Tree elements are plain data; `getTreeItem` turns them into items. */
export type EnvironmentsTreeElement =
  | { kind: 'environment'; environmentId: string }
  | { kind: 'sandbox' }
  | { kind: 'detail'; environmentId: string; detail: 'audience' | 'credential' | 'lastResult' | 'baseUrlMissing' }
  | { kind: 'problem'; message: string }
  /** "Tokens this session" under an environment, and one token of it (described, never its text). */
  | { kind: 'tokenHistory'; environmentId: string }
  | { kind: 'historyToken'; environmentId: string; entryId: string }
  /** "Endpoints" under an environment, and one endpoint of its catalogue or "Other path…" (`otherPath`). */
  | { kind: 'endpoints'; environmentId: string }
  | { kind: 'endpoint'; environmentId: string; endpointId?: string; otherPath?: boolean }
  /** "gRPC" under an environment with a gRPC target, its services and methods (grpcNodes.ts). */
  | GrpcTreeElement;

/**
 * The Environments view: the three environments of the spec, the custom ones, and the local
 * sandbox with its environments while it runs. Each environment shows its audience, bound
 * credential and last result. Never prompts. The rows of endpoints and of the session's tokens are built by
 * endpointItems.ts and tokenHistoryItems.ts.
 */
export class EnvironmentsTreeProvider extends Disposable implements vscode.TreeDataProvider<EnvironmentsTreeElement> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private bindings = new Map<string, StoredCredentialInfo>();
  /** The gRPC rows; their services load when expanded. */
  readonly grpc: GrpcNodes;

  constructor(
    private readonly environments: EnvironmentRegistry,
    private readonly credentials: CredentialStore,
    private readonly sandbox: SandboxService,
    private readonly history?: TokenHistory,
    grpc?: { service: GrpcService; log?: Logger },
  ) {
    super();
    this.grpc = this.register(
      new GrpcNodes(environments, credentials, grpc?.service, () => this.changed.fire(), grpc?.log),
    );
    this.register(environments.onDidChange(() => this.refresh()));
    this.register(credentials.onDidChange(() => this.refresh()));
    this.register(sandbox.onDidChange(() => this.refresh()));
    if (history) this.register(history.onDidChange(() => this.changed.fire()));
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

  getChildren(element?: EnvironmentsTreeElement): EnvironmentsTreeElement[] | Promise<EnvironmentsTreeElement[]> {
    if (!element) {
      return [
        ...this.environments
          .configured()
          .map((e): EnvironmentsTreeElement => ({ kind: 'environment', environmentId: e.id })),
        { kind: 'sandbox' },
        ...this.environments.problems().map((message): EnvironmentsTreeElement => ({ kind: 'problem', message })),
      ];
    }
    if (element.kind === 'sandbox')
      return this.environments.sandbox().map((e) => ({ kind: 'environment', environmentId: e.id }));
    if (element.kind === 'environment') {
      const env = this.environments.get(element.environmentId);
      if (!env) return [];
      const id = env.id;
      if (!env.baseUrl)
        return [
          { kind: 'detail', environmentId: id, detail: 'baseUrlMissing' },
          { kind: 'detail', environmentId: id, detail: 'credential' },
        ];
      const details: EnvironmentsTreeElement[] = [
        { kind: 'endpoints', environmentId: id },
        ...this.grpc.rowsOf(env),
        { kind: 'detail', environmentId: id, detail: 'audience' },
        { kind: 'detail', environmentId: id, detail: 'credential' },
      ];
      if (this.environments.lastResult(id)) details.push({ kind: 'detail', environmentId: id, detail: 'lastResult' });
      if (this.history?.entries(id).length) details.push({ kind: 'tokenHistory', environmentId: id });
      return details;
    }
    if (element.kind === 'endpoints') {
      const env = this.environments.get(element.environmentId);
      if (!env) return [];
      return [
        ...catalogueOf(env.api).map((e): EnvironmentsTreeElement => ({
          kind: 'endpoint',
          environmentId: env.id,
          endpointId: e.id,
        })),
        { kind: 'endpoint', environmentId: env.id, otherPath: true },
      ];
    }
    if (element.kind === 'grpc' || element.kind === 'grpcService') return this.grpc.children(element);
    if (element.kind === 'tokenHistory') {
      return (this.history?.entries(element.environmentId) ?? []).map((e) => ({
        kind: 'historyToken',
        environmentId: element.environmentId,
        entryId: e.id,
      }));
    }
    return [];
  }

  /** The rows under `element` as shown (label, description, context value), for the extension's test API. */
  async rows(element?: EnvironmentsTreeElement): Promise<
    Array<{
      element: EnvironmentsTreeElement;
      label: string;
      description: string;
      tooltip: string;
      contextValue?: string;
    }>
  > {
    return (await this.getChildren(element)).map((child) => {
      const item = this.getTreeItem(child);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const tooltip = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
      return {
        element: child,
        label,
        description: typeof item.description === 'string' ? item.description : '',
        tooltip,
        contextValue: item.contextValue,
      };
    });
  }

  getTreeItem(element: EnvironmentsTreeElement): vscode.TreeItem {
    switch (element.kind) {
      case 'sandbox': {
        const item = new vscode.TreeItem(
          vscode.l10n.t('Local Sandbox'),
          this.sandbox.isRunning ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
        );
        // The state first: the address is long and the side bar narrow.
        item.description = this.sandbox.isRunning
          ? vscode.l10n.t('running · {0}', hostAndPath(this.sandbox.url ?? ''))
          : vscode.l10n.t('stopped');
        item.iconPath = new vscode.ThemeIcon(this.sandbox.isRunning ? 'vm-running' : 'vm-outline');
        item.contextValue = this.sandbox.isRunning ? 'sandbox.running' : 'sandbox.stopped';
        // A new id per state, so that VS Code takes the new collapsible state instead of the remembered one.
        item.id = `sandbox:${this.sandbox.isRunning ? 'running' : 'stopped'}`;
        item.tooltip = [
          vscode.l10n.t('A local provider that enforces the same authentication rules and serves a synthetic fleet.'),
          this.sandbox.isRunning
            ? vscode.l10n.t('Running on {0}', this.sandbox.url ?? '')
            : vscode.l10n.t('Stopped: click to start it.'),
        ].join('\n');
        if (!this.sandbox.isRunning)
          item.command = { command: COMMANDS.startSandbox, title: vscode.l10n.t('Start Local Sandbox') };
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
      case 'tokenHistory':
        return tokenHistoryItem(element.environmentId, this.history?.entries(element.environmentId).length ?? 0);
      case 'historyToken':
        return historyTokenItem(this.history?.entry(element.entryId));
      case 'endpoints':
        return endpointsItem(element.environmentId, this.environments.get(element.environmentId));
      case 'endpoint':
        return endpointItem(element, this.environments.get(element.environmentId));
      case 'grpc':
      case 'grpcService':
      case 'grpcMethod':
      case 'grpcProblem':
        return this.grpc.item(element);
    }
  }

  /**
   * The environment's one name and its status ("Sandbox · MDS staging", "200 OK · 500 vehicles"); the
   * API, stage, base URL, last result and credential are in the tooltip.
   */
  private environmentItem(id: string): vscode.TreeItem {
    const env = this.environments.get(id);
    if (!env) return new vscode.TreeItem(id);
    // One name everywhere (tree, status bar, pickers): "MDS staging", "Sandbox · MDS staging", a custom one's own.
    const item = new vscode.TreeItem(env.name, vscode.TreeItemCollapsibleState.Collapsed);
    const last = this.environments.lastResult(id);
    item.id = `environment:${id}`;
    item.description = !env.baseUrl ? vscode.l10n.t('no base URL') : last ? last.summary : hostAndPath(env.baseUrl);
    item.iconPath = new vscode.ThemeIcon(
      !env.baseUrl
        ? 'circle-slash'
        : last
          ? last.ok
            ? 'pass'
            : 'error'
          : env.api === 'maas'
            ? 'globe'
            : 'server-environment',
    );
    const active = this.environments.activeId === id;
    const bound = this.bindings.get(id);
    // Plain text: names, stages and URLs come from settings and must not be read as markup.
    item.tooltip = [
      `${env.name}${active ? ` · ${vscode.l10n.t('active')}` : ''}`,
      `${API_LABELS[env.api]} · ${env.stage}`,
      env.baseUrl || vscode.l10n.t('No base URL yet: set it in the settings.'),
      env.grpc ? vscode.l10n.t('gRPC: {0}', env.grpc.target) : undefined,
      last ? vscode.l10n.t('Last result: {0} at {1}', last.summary, new Date(last.at).toLocaleTimeString()) : undefined,
      bound
        ? vscode.l10n.t(
            'Credential: {0} ({1}, kid {2})',
            bound.label,
            CREDENTIAL_TYPE_LABELS[bound.type],
            maskKeyId(bound.kid),
          )
        : vscode.l10n.t('Credential: none bound'),
    ]
      .filter((line): line is string => line !== undefined)
      .join('\n');
    item.accessibilityInformation = { label: `${env.name}, ${String(item.description)}` };
    // The last part says whether "Set gRPC Target…" applies: the sandbox's environments have theirs.
    item.contextValue = [
      'environment',
      env.api,
      env.baseUrl ? 'ready' : 'noBaseUrl',
      this.bindings.has(id) ? 'bound' : 'unbound',
      id.startsWith('sandbox-') ? 'sandbox' : env.grpc ? 'grpc' : 'noGrpc',
    ].join('.');
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
        item.command = {
          command: COMMANDS.openSettings,
          title: vscode.l10n.t('Open Settings'),
          arguments: [{ environmentId: id }],
        };
        break;
      case 'audience':
        item.label = vscode.l10n.t('Audience');
        item.description = describeAudience(env);
        item.iconPath = new vscode.ThemeIcon('target');
        break;
      case 'credential': {
        const info = this.bindings.get(id);
        item.label = vscode.l10n.t('Credential');
        // The name alone fits the side bar ("External O…" was cut); type, key id and issuer are in the tooltip.
        item.description = info ? info.label : vscode.l10n.t('none bound');
        item.tooltip = info
          ? `${info.label}\n${CREDENTIAL_TYPE_LABELS[info.type]} · kid ${maskKeyId(info.kid)}\niss ${info.issuer}`
          : vscode.l10n.t('No credential is bound: click to bind one.');
        item.iconPath = new vscode.ThemeIcon(info ? 'key' : 'circle-large-outline');
        item.command = {
          command: COMMANDS.bindCredential,
          title: vscode.l10n.t('Bind Credential'),
          arguments: [{ environmentId: id }],
        };
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
    return errorMessage(err);
  }
}

/** "127.0.0.1:41234/mds-staging": the base URL without the scheme, which every row would repeat. */
function hostAndPath(url: string): string {
  return url.replace(/^https?:\/\//i, '');
}
