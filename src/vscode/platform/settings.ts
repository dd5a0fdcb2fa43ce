import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { IssuerDomains } from '../../core/auth';
import type { ApiKind, BuiltInEnvironment, Environment } from '../../core/environment';
import { readConfiguredEnvironments } from '../../core/environment';
import type { ClockPrecision } from '../../core/clock';
import { specEnvironmentName } from '../../results/requests/environmentNames';

export const SETTINGS_SECTION = 'mobilityApi';

/** The three environments of the spec; their base URLs are settings, empty until the user sets them. */
export const BUILT_IN_ENVIRONMENTS: readonly BuiltInEnvironment[] = [
  {
    id: 'mds-staging',
    api: 'mds',
    stage: 'staging',
    name: specEnvironmentName('mds-staging'),
    setting: 'mds.stagingBaseUrl',
  },
  {
    id: 'mds-production',
    api: 'mds',
    stage: 'production',
    name: specEnvironmentName('mds-production'),
    setting: 'mds.productionBaseUrl',
  },
  {
    id: 'maas-staging',
    api: 'maas',
    stage: 'staging',
    name: specEnvironmentName('maas-staging'),
    setting: 'maas.stagingBaseUrl',
  },
];

/** A path from settings made absolute: `~` is the home folder, a relative path is relative to the first workspace folder. */
function workspacePath(p: string): string {
  if (p === '~' || p.startsWith('~/')) return path.join(os.homedir(), p.slice(1));
  if (path.isAbsolute(p)) return p;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? path.join(folder, p) : path.resolve(p);
}

/** Typed read access to the `mobilityApi.*` settings. Never holds secrets. */
export class Settings {
  private get config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SETTINGS_SECTION);
  }

  get lifetimeSeconds(): number {
    return this.config.get<number>('token.lifetimeSeconds', 300);
  }

  get audienceAsList(): boolean {
    return this.config.get<boolean>('token.audienceAsList', false);
  }

  get clockPrecision(): ClockPrecision {
    return this.config.get<string>('token.clockPrecision', 'seconds') === 'milliseconds' ? 'milliseconds' : 'seconds';
  }

  /** `mobilityApi.stateDirectory` as written (trimmed); empty means the well-known state folder. */
  get stateDirectory(): string {
    return (this.config.get<string>('stateDirectory', '') ?? '').trim();
  }

  get timeoutMs(): number {
    return Math.max(1, this.config.get<number>('request.timeoutSeconds', 30)) * 1000;
  }

  get maxBytes(): number {
    return Math.max(1, this.config.get<number>('request.maxResponseMegabytes', 50)) * 1024 * 1024;
  }

  get maxPages(): number {
    return Math.max(1, Math.floor(this.config.get<number>('request.maxPages', 1000)));
  }

  /** List Vehicles and Vehicle Status follow `links.next` to the last page (at most `maxPages`). */
  get loadAllPages(): boolean {
    return this.config.get<boolean>('request.loadAllPages', true);
  }

  get mdsAcceptHeader(): string {
    return this.config.get<string>('mds.acceptHeader', 'application/vnd.mds+json;version=2.0');
  }

  get sandboxFleetSize(): number {
    return this.config.get<number>('sandbox.fleetSize', 500);
  }

  get sandboxPageSize(): number {
    return this.config.get<number>('sandbox.pageSize', 100);
  }

  get sandboxAutoStart(): boolean {
    return this.config.get<boolean>('sandbox.autoStart', false);
  }

  get sandboxPort(): number {
    return this.config.get<number>('sandbox.port', 0);
  }

  get issuerDomains(): IssuerDomains {
    const raw = this.config.get<Record<string, unknown>>('issuerDomains', {});
    const list = (v: unknown) =>
      Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string' && d.trim() !== '') : [];
    return {
      'external-org': list(raw.externalOrganization),
      iam: list(raw.iam),
      'service-account': list(raw.serviceAccount),
    };
  }

  /** The built-in environments (base URL possibly empty) followed by the valid custom ones, and the problems found. */
  configuredEnvironments(): { environments: Environment[]; problems: string[] } {
    const config = this.config;
    const mdsAccept = this.mdsAcceptHeader;
    return readConfiguredEnvironments(
      {
        section: SETTINGS_SECTION,
        builtInBaseUrls: Object.fromEntries(
          BUILT_IN_ENVIRONMENTS.map((b) => [b.setting, config.get<unknown>(b.setting, '')]),
        ),
        grpcEnvironments: config.get<unknown>('grpc.environments', {}),
        customEnvironments: config.get<unknown>('customEnvironments', []),
        // An empty setting sends no Accept at all (an empty value removes the client's default, see requestHeadersFor).
        headersFor: (api: ApiKind): Record<string, string> => (api === 'mds' ? { Accept: mdsAccept } : {}),
        audienceAsList: this.audienceAsList,
        resolvePath: workspacePath,
      },
      BUILT_IN_ENVIRONMENTS,
    );
  }

  /** The setting that holds an environment's base URL, for "Open Settings". */
  settingFor(environmentId: string): string {
    const builtIn = BUILT_IN_ENVIRONMENTS.find((b) => b.id === environmentId);
    return `${SETTINGS_SECTION}.${builtIn ? builtIn.setting : 'customEnvironments'}`;
  }
}
