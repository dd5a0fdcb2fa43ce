import * as vscode from 'vscode';
import { ApiClient } from '../core/apiClient';
import { IssueClock } from '../core/issueClock';
import { TokenIssuer } from '../core/tokenIssuer';
import type { ClockStore } from '../core/issueClock';
import { Disposable } from './lifecycle';
import type { Settings } from './settings';

/**
 * One API client (and so one per-key request queue and issue clock) for the window, rebuilt only
 * when the token or request settings change.
 */
export class ClientFactory extends Disposable {
  private client: ApiClient | undefined;
  constructor(private readonly settings: Settings, private readonly clockStore: ClockStore) {
    super();
    this.register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('mobilityApi.token') || e.affectsConfiguration('mobilityApi.request')) this.client = undefined;
    }));
  }

  get(): ApiClient {
    this.client ??= new ApiClient({
      issuer: new TokenIssuer({
        clock: new IssueClock({ store: this.clockStore, precision: this.settings.clockPrecision }),
        lifetimeSeconds: this.settings.lifetimeSeconds,
      }),
      timeoutMs: this.settings.timeoutMs,
      maxBytes: this.settings.maxBytes,
      userAgent: 'mobility-api-explorer (VS Code)',
    });
    return this.client;
  }

  get issuer(): TokenIssuer {
    return this.get().issuer;
  }

}
