import * as vscode from 'vscode';
import { registerAddCredential } from './vscode/environments/addCredential';
import { registerAnalysis } from './vscode/analysis/registerAnalysis';
import { registerAssertionDiagnostics } from './vscode/contract/assertionDiagnostics';
import type { ContractTestsHandle } from './vscode/contract/contractTests';
import { registerContractTests } from './vscode/contract/contractTests';
import { registerCompareTokens } from './vscode/tokens/compareTokens';
import { registerShowClientReport } from './vscode/sandbox/showClientReport';
import { registerTokenHistoryCommands } from './vscode/tokens/openDecodedToken';
import { registerDecodeDebugVariable } from './vscode/tokens/decodeDebugVariable';
import { registerJwtHover } from './vscode/tokens/jwtHover';
import { TokenHandles } from './vscode/tokens/tokenHandles';
import { TokenHistory } from './vscode/tokens/tokenHistory';
import type { TokenHistoryEntry } from './vscode/tokens/tokenHistory';
import { COMMANDS } from './vscode/platform/commandIds';
import type { CommandDeps } from './vscode/platform/commandDeps';
import { registerDecodeJwt } from './vscode/tokens/decodeJwtCommand';
import { registerEnvironmentCommands } from './vscode/environments/environmentCommands';
import { registerFetchHours } from './vscode/harvest/fetchHours';
import { registerGenerateToken } from './vscode/tokens/generateToken';
import { registerGrpcCommands } from './vscode/grpc/grpcCommands';
import { registerListVehicles } from './vscode/requests/listVehicles';
import { registerManageCredentials } from './vscode/environments/manageCredentials';
import { registerCopyAsCode } from './vscode/codegen/copyAsCode';
import { registerRequestFiles } from './vscode/requests/requestFiles';
import { RequestFileLensProvider } from './vscode/requests/requestFileLens';
import { RequestRunner } from './vscode/requests/requestRunner';
import { registerSendGrpcRequest } from './vscode/grpc/sendGrpcRequest';
import { registerSendRequest } from './vscode/requests/sendRequest';
import { ClientFactory } from './vscode/platform/clientFactory';
import { GrpcService } from './vscode/grpc/grpcService';
import { CredentialStore } from './vscode/environments/credentialStore';
import type { StoredCredentialInfo } from './vscode/environments/credentialStore';
import { EnvironmentRegistry } from './vscode/environments/environmentRegistry';
import { Logger } from './vscode/platform/logger';
import { SandboxService } from './vscode/sandbox/sandboxService';
import { Settings } from './vscode/platform/settings';
import { CredentialsTreeProvider } from './vscode/environments/credentialsTree';
import { EnvironmentsTreeProvider } from './vscode/environments/environmentsTree';
import type { EnvironmentsTreeElement } from './vscode/environments/environmentsTree';
import { createEnvironmentStatusBar } from './vscode/environments/environmentStatusBar';
import { registerResultsPanel } from './vscode/panel/resultsController';
import { configureHostL10n } from './vscode/panel/l10nBundle';
import { registerAgentTools } from './vscode/agent/registerAgentTools';

/** What other extensions (and the integration tests) may read: never key material or tokens. */
export interface MobilityApiExports {
  listCredentials(): Promise<StoredCredentialInfo[]>;
  environmentIds(): string[];
  /** The tokens issued this session, described (jti, times, use), never their text. */
  tokenHistory(): TokenHistoryEntry[];
  globalStoragePath: string;
  /** The Environments view's rows under `element` (the top when none) as shown: for tests, never a secret. */
  environmentsTreeRows(
    element?: unknown,
  ): Promise<Array<{ element: unknown; label: string; description: string; tooltip: string; contextValue?: string }>>;
  /** How many times the request files' CodeLens told VS Code to ask for its lenses again: for tests. */
  requestFileLensRefreshes(): number;
  /** The Testing view's contract tests: those found, a run of a file's tests, the last outcomes (for tests). */
  contractTests: Omit<ContractTestsHandle, 'disposable'>;
}

/** The window's sandbox, stopped by `deactivate()`. */
let running: SandboxService | undefined;

/** The extension's wiring, loaded by src/extension.ts (dist/main.js). Wiring only: build the services, register every command, view and panel, and let VS Code dispose them. */
/** How src/extension.ts loaded this bundle, for the log. */
export interface StartupInfo {
  /** How long loading dist/main.js (this bundle) took, in ms. */
  loadMs: number;
}

export function activate(context: vscode.ExtensionContext, startup?: StartupInfo): MobilityApiExports {
  const started = performance.now();
  configureHostL10n();
  const channel = vscode.window.createOutputChannel('Mobility API', { log: true });
  const log = new Logger(channel);
  const settings = new Settings();
  const credentials = new CredentialStore(context.secrets, () => settings.issuerDomains);
  const environments = new EnvironmentRegistry(settings, context.globalState);
  const sandbox = new SandboxService(context.secrets, credentials, environments, settings, log);
  running = sandbox;
  const clients = new ClientFactory(settings, context.globalState, log);
  const results = registerResultsPanel(context, channel);
  // Loads the gRPC bundle the first time a gRPC feature is used, not now.
  const grpc = new GrpcService(clients, settings);
  // In memory only, so a reload clears both: the session's issued tokens and the hover links' token ids.
  const tokenHistory = new TokenHistory();
  const tokenHandles = new TokenHandles();
  const deps: CommandDeps = {
    context,
    log,
    settings,
    credentials,
    environments,
    sandbox,
    clients,
    clockStore: clients,
    results,
    grpc,
    tokenHistory,
    session: { warnedDeprecated: new Set(), harvesting: new Set() },
  };

  const runner = new RequestRunner(deps);

  const environmentsTree = new EnvironmentsTreeProvider(environments, credentials, sandbox, tokenHistory, {
    service: grpc,
    log,
  });
  const requestFileLenses = new RequestFileLensProvider(environments);
  const credentialsTree = new CredentialsTreeProvider(credentials, environments);
  const contractTests = registerContractTests(deps);
  context.subscriptions.push(
    channel,
    credentials,
    environments,
    sandbox,
    clients,
    grpc,
    results,
    environmentsTree,
    credentialsTree,
    vscode.window.createTreeView('mobilityApi.environments', {
      treeDataProvider: environmentsTree,
      showCollapseAll: true,
      canSelectMany: true,
    }),
    vscode.window.createTreeView('mobilityApi.credentials', { treeDataProvider: credentialsTree }),
    createEnvironmentStatusBar(environments),
    registerAddCredential(deps),
    ...registerManageCredentials(deps),
    ...registerGenerateToken(deps),
    registerDecodeJwt(deps),
    ...registerListVehicles(deps),
    ...registerSendRequest(deps, runner),
    requestFileLenses,
    ...registerRequestFiles(deps, runner, requestFileLenses),
    registerCopyAsCode(deps),
    registerFetchHours(deps),
    ...registerAnalysis(deps),
    registerSendGrpcRequest(deps),
    ...registerGrpcCommands(deps, (id) => environmentsTree.grpc.reload(id)),
    ...registerEnvironmentCommands(
      deps,
      () => channel.show(true),
      () => environmentsTree.refresh(),
    ),
    registerJwtHover(deps, tokenHandles),
    registerDecodeDebugVariable(deps),
    registerAssertionDiagnostics(),
    registerCompareTokens(deps, tokenHandles),
    ...registerShowClientReport(deps),
    ...registerTokenHistoryCommands(deps, tokenHandles),
    tokenHistory,
    tokenHandles,
    contractTests.disposable,
    ...registerAgentTools(deps),
  );
  void vscode.commands.executeCommand('setContext', 'mobilityApi.sandboxRunning', false);
  if (settings.sandboxAutoStart) void vscode.commands.executeCommand(COMMANDS.startSandbox);
  const wiringMs = performance.now() - started;
  const timing = startup
    ? `loading the code ${Math.round(startup.loadMs)} ms, wiring ${Math.round(wiringMs)} ms`
    : `wiring ${Math.round(wiringMs)} ms`;
  log.info('extension', `activated (VS Code ${vscode.version}; ${timing})`);
  return {
    listCredentials: () => credentials.list(),
    environmentIds: () => environments.all().map((e) => e.id),
    tokenHistory: () => tokenHistory.all(),
    globalStoragePath: context.globalStorageUri.fsPath,
    environmentsTreeRows: (element) => environmentsTree.rows(element as EnvironmentsTreeElement | undefined),
    requestFileLensRefreshes: () => requestFileLenses.refreshes,
    contractTests,
  };
}

/** Waits for the sandbox to close (VS Code waits for the promise), so a reload never finds its port still taken. */
export function deactivate(): Promise<unknown> | undefined {
  return running?.shutdown();
}
