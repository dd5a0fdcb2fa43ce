import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { sandboxEnvironmentName } from '../../results/requests/environmentNames';
import type { SandboxEnvironment } from '../../sandbox/sandboxServer';
import { Disposable } from '../platform/lifecycle';
import type { Settings } from '../platform/settings';

const ACTIVE_KEY = 'mobilityApi.activeEnvironment';

/** The last answer an environment gave, for the tree (status and time, never a token). */
export interface LastResult {
  at: number;
  ok: boolean;
  /** e.g. "200 OK · 100 vehicles" or "connection refused". */
  summary: string;
}

/** Every environment the user can pick: the built-in and custom ones from settings, and the sandbox's while it runs. */
export class EnvironmentRegistry extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private readonly lastResults = new Map<string, LastResult>();
  private sandboxServed: SandboxEnvironment[] = [];
  constructor(
    private readonly settings: Settings,
    private readonly state: vscode.Memento,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mobilityApi')) this.changed.fire();
      }),
    );
  }

  /** Configured environments first, then the sandbox's. */
  all(): Environment[] {
    return [...this.settings.configuredEnvironments().environments, ...this.sandbox()];
  }

  configured(): Environment[] {
    return this.settings.configuredEnvironments().environments;
  }

  /**
   * The running sandbox's environments, built on each call so that the token and header settings
   * (`token.audienceAsList`, `mds.acceptHeader`) apply to them as to every other environment.
   */
  sandbox(): Environment[] {
    const accept = this.settings.mdsAcceptHeader;
    return this.sandboxServed.map((e): Environment => ({
      id: EnvironmentRegistry.sandboxId(e.id),
      name: sandboxEnvironmentName(e.id),
      api: e.api,
      stage: e.stage,
      baseUrl: e.baseUrl,
      audienceAsList: this.settings.audienceAsList,
      // An empty setting sends no Accept at all (an empty value removes the client's default, see requestHeadersFor).
      headers: e.api === 'mds' ? { Accept: accept } : {},
      // The sandbox's gRPC servers speak plaintext on loopback and serve reflection; Copy as Code's programs take
      // its .proto files, shipped with the extension.
      ...(e.grpcTarget
        ? { grpc: { target: e.grpcTarget, plaintext: true, ...(e.grpcProtos ? { codeProtos: e.grpcProtos } : {}) } }
        : {}),
    }));
  }

  /** Parameter values that name things the environment really serves (the sandbox's first vehicle), for examples. */
  exampleValues(id: string): Record<string, string> {
    const served = this.sandboxServed.find((e) => EnvironmentRegistry.sandboxId(e.id) === id);
    return served?.exampleDeviceId ? { device_id: served.exampleDeviceId } : {};
  }

  /** Problems in `mobilityApi.customEnvironments`, shown in the tree. */
  problems(): string[] {
    return this.settings.configuredEnvironments().problems;
  }

  get(id: string): Environment | undefined {
    return this.all().find((e) => e.id === id);
  }

  /** Environment id → sandbox environment id ("sandbox-mds-staging"). */
  static sandboxId(id: SandboxEnvironment['id']): string {
    return `sandbox-${id}`;
  }

  setSandbox(environments: SandboxEnvironment[] | undefined): void {
    this.sandboxServed = [...(environments ?? [])];
    this.changed.fire();
  }

  get activeId(): string | undefined {
    return this.state.get<string>(ACTIVE_KEY);
  }

  active(): Environment | undefined {
    const id = this.activeId;
    return id ? this.get(id) : undefined;
  }

  async setActive(id: string): Promise<void> {
    await this.state.update(ACTIVE_KEY, id);
    this.changed.fire();
  }

  lastResult(id: string): LastResult | undefined {
    return this.lastResults.get(id);
  }

  recordResult(id: string, result: LastResult): void {
    this.lastResults.set(id, result);
    this.changed.fire();
  }
}
