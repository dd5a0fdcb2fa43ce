// The gRPC side of an environment in the Environments tree: a "gRPC" row (the target, and where the services came
// from once loaded), its services and their methods. The services load only when the row is expanded (the gRPC
// bundle loads then, never at activation or for a collapsed row); a failure is one row saying why, with retry and
// settings actions, never a popup.
import * as vscode from 'vscode';
import type { Environment, GrpcEndpoint } from '../../core/environment';
import type { GrpcServiceListing } from '../../core/grpc';
import { errorMessage, redactSecrets } from '../../core/base';
import { grpcNodeRow, methodRow, serviceRow } from '../../results/grpc/grpcListing';
import type { GrpcRow } from '../../results/grpc/grpcListing';
import type { CredentialStore } from '../environments/credentialStore';
import type { EnvironmentRegistry } from '../environments/environmentRegistry';
import type { GrpcService } from './grpcService';
import { quietCredential } from './grpcService';
import { Disposable } from '../platform/lifecycle';
import type { Logger } from '../platform/logger';
import { COMMANDS } from '../platform/commandIds';

export type GrpcTreeElement =
  | { kind: 'grpc'; environmentId: string }
  | { kind: 'grpcService'; environmentId: string; service: string }
  /** `method` is the full name, `/package.Service/Method`. */
  | { kind: 'grpcMethod'; environmentId: string; service: string; method: string }
  | { kind: 'grpcProblem'; environmentId: string; message: string };

/** What the tree knows of one environment's services, for the endpoint it was loaded from. */
interface Loaded {
  key: string;
  state:
    | { kind: 'loading'; done: Promise<void> }
    | { kind: 'loaded'; listing: GrpcServiceListing }
    | { kind: 'failed'; message: string };
}

function keyOf(endpoint: GrpcEndpoint): string {
  return JSON.stringify(endpoint);
}

/** The gRPC rows of the Environments tree, and their loading. */
export class GrpcNodes extends Disposable {
  private readonly loaded = new Map<string, Loaded>();

  constructor(
    private readonly environments: EnvironmentRegistry,
    private readonly credentials: CredentialStore,
    private readonly grpc: GrpcService | undefined,
    private readonly changed: () => void,
    private readonly log?: Logger,
  ) {
    super();
    // A changed target (settings, a restarted sandbox) or a removed environment: forget what was loaded for it.
    this.register(environments.onDidChange(() => this.prune()));
  }

  /** The "gRPC" row of `env`, when it has a target (none when the window has no gRPC service). */
  rowsOf(env: Environment): GrpcTreeElement[] {
    return env.grpc && this.grpc ? [{ kind: 'grpc', environmentId: env.id }] : [];
  }

  /** Loads the services again (Refresh): the next expansion reflects anew. */
  reload(environmentId: string): void {
    this.loaded.delete(environmentId);
    this.grpc?.forget(environmentId);
    this.changed();
  }

  /** The listing loaded for `environmentId`, if any (for the tests and the method picker). */
  listing(environmentId: string): GrpcServiceListing | undefined {
    const entry = this.loaded.get(environmentId);
    return entry?.state.kind === 'loaded' ? entry.state.listing : undefined;
  }

  async children(element: GrpcTreeElement): Promise<GrpcTreeElement[]> {
    const env = this.environments.get(element.environmentId);
    if (!env?.grpc || !this.grpc) return [];
    const id = env.id;
    if (element.kind === 'grpc') {
      const entry = await this.load(env, env.grpc);
      if (entry.state.kind === 'failed')
        return [{ kind: 'grpcProblem', environmentId: id, message: entry.state.message }];
      if (entry.state.kind !== 'loaded') return [];
      return entry.state.listing.services.map((s) => ({ kind: 'grpcService', environmentId: id, service: s.name }));
    }
    if (element.kind === 'grpcService') {
      const service = this.listing(id)?.services.find((s) => s.name === element.service);
      return (service?.methods ?? []).map((m) => ({
        kind: 'grpcMethod',
        environmentId: id,
        service: service!.name,
        method: m.fullName,
      }));
    }
    return [];
  }

  /** The entry for the endpoint as set now, loading it when there is none; resolves once it is loaded or failed. */
  private async load(env: Environment, endpoint: GrpcEndpoint): Promise<Loaded> {
    const key = keyOf(endpoint);
    let entry = this.loaded.get(env.id);
    if (entry && entry.key !== key) {
      this.grpc!.forget(env.id);
      entry = undefined;
    }
    if (!entry) {
      const created: Loaded = { key, state: { kind: 'failed', message: '' } };
      const done = this.grpc!.servicesWithAuth(env, () => quietCredential(this.credentials, env)).then(
        ({ source, services }): void => {
          created.state = { kind: 'loaded', listing: { source, services } };
        },
        (err: unknown): void => {
          const message = redactSecrets(errorMessage(err));
          this.log?.warn('grpc', `${env.id}: the services did not load: ${message}`);
          created.state = { kind: 'failed', message };
        },
      );
      // Set before the answer can come: the callbacks above replace it.
      created.state = { kind: 'loading', done };
      this.loaded.set(env.id, created);
      entry = created;
      // The "gRPC" row's description says where the services came from, once they did.
      void done.then(() => {
        if (this.loaded.get(env.id) === created) this.changed();
      });
    }
    if (entry.state.kind === 'loading') await entry.state.done;
    return entry;
  }

  private prune(): void {
    for (const [id, entry] of this.loaded) {
      const endpoint = this.environments.get(id)?.grpc;
      if (endpoint && keyOf(endpoint) === entry.key) continue;
      this.loaded.delete(id);
      this.grpc?.forget(id);
    }
  }

  item(element: GrpcTreeElement): vscode.TreeItem {
    const env = this.environments.get(element.environmentId);
    const args = { environmentId: element.environmentId };
    switch (element.kind) {
      case 'grpc': {
        const entry = this.loaded.get(element.environmentId);
        const row = grpcNodeRow(
          env?.grpc?.target ?? '',
          entry?.state.kind === 'loaded' ? entry.state.listing.source : undefined,
        );
        const item = rowItem(row, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `grpc:${element.environmentId}`;
        item.iconPath = new vscode.ThemeIcon('broadcast');
        item.contextValue = 'grpc';
        return item;
      }
      case 'grpcService': {
        const service = this.listing(element.environmentId)?.services.find((s) => s.name === element.service);
        const item = rowItem(
          service ? serviceRow(service) : { label: element.service, description: '', tooltip: [] },
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = `grpcService:${element.environmentId}:${element.service}`;
        item.iconPath = new vscode.ThemeIcon('symbol-class');
        item.contextValue = 'grpcService';
        return item;
      }
      case 'grpcMethod': {
        const method = this.listing(element.environmentId)
          ?.services.find((s) => s.name === element.service)
          ?.methods.find((m) => m.fullName === element.method);
        const row = method ? methodRow(method) : { label: element.method, description: '', tooltip: [] };
        const item = rowItem(row, vscode.TreeItemCollapsibleState.None);
        item.id = `grpcMethod:${element.environmentId}:${element.method}`;
        item.iconPath = new vscode.ThemeIcon(
          method?.serverStreaming || method?.clientStreaming ? 'symbol-event' : 'symbol-method',
        );
        item.contextValue = 'grpcMethod';
        item.command = {
          command: COMMANDS.sendGrpcRequest,
          title: vscode.l10n.t('Call gRPC Method…'),
          arguments: [{ ...args, method: element.method }],
        };
        item.accessibilityInformation = { label: row.spoken ?? `${row.label}, ${row.description}` };
        return item;
      }
      case 'grpcProblem': {
        const item = new vscode.TreeItem(element.message);
        item.id = `grpcProblem:${element.environmentId}`;
        item.iconPath = new vscode.ThemeIcon('error');
        item.contextValue = 'grpcProblem';
        item.tooltip = [element.message, vscode.l10n.t('Click to try again. The gear opens the gRPC settings.')].join(
          '\n',
        );
        item.command = {
          command: COMMANDS.refreshGrpc,
          title: vscode.l10n.t('Refresh gRPC Services'),
          arguments: [args],
        };
        return item;
      }
    }
  }
}

function rowItem(row: GrpcRow, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, state);
  item.description = row.description;
  // Plain text: names come from the server.
  item.tooltip = row.tooltip.join('\n');
  return item;
}
