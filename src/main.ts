import * as vscode from 'vscode';
import { registerAddCredential } from './commands/addCredential';
import { registerAnalysis } from './analysis/registerAnalysis';
import { registerAssertionDiagnostics } from './commands/assertionDiagnostics';
import type { ContractTestsHandle } from './testing/contractTests';
import { registerContractTests } from './testing/contractTests';
import { registerCompareTokens } from './commands/compareTokens';
import { registerShowClientReport } from './commands/showClientReport';
import { registerTokenHistoryCommands } from './commands/openDecodedToken';
import { registerDecodeDebugVariable } from './debug/decodeDebugVariable';
import { registerJwtHover } from './debug/jwtHover';
import { TokenHandles } from './services/tokenHandles';
import { TokenHistory } from './services/tokenHistory';
import type { TokenHistoryEntry } from './services/tokenHistory';
import { COMMANDS } from './commands/commandIds';
import type { CommandDeps } from './commands/commandDeps';
import { registerDecodeJwt } from './commands/decodeJwtCommand';
import { registerEnvironmentCommands } from './commands/environmentCommands';
import { registerFetchHours } from './commands/fetchHours';
import { registerGenerateToken } from './commands/generateToken';
import { registerGrpcCommands } from './commands/grpcCommands';
import { registerListVehicles } from './commands/listVehicles';
import { registerManageCredentials } from './commands/manageCredentials';
import { registerCopyAsCode } from './commands/copyAsCode';
import { registerRequestFiles } from './commands/requestFiles';
import { RequestFileLensProvider } from './commands/requestFileLens';
import { RequestRunner } from './commands/requestRunner';
import { registerSendGrpcRequest } from './commands/sendGrpcRequest';
import { registerSendRequest } from './commands/sendRequest';
import { ClientFactory } from './services/clientFactory';
import { GrpcService } from './services/grpcService';
import { CredentialStore } from './services/credentialStore';
import type { StoredCredentialInfo } from './services/credentialStore';
import { EnvironmentRegistry } from './services/environmentRegistry';
import { Logger } from './services/logger';
import { SandboxService } from './services/sandboxService';
import { Settings } from './services/settings';
import { CredentialsTreeProvider } from './tree/credentialsTree';
import { EnvironmentsTreeProvider } from './tree/environmentsTree';
import type { EnvironmentsTreeElement } from './tree/environmentsTree';
import { createEnvironmentStatusBar } from './statusBar/environmentStatusBar';
import { registerResultsPanel } from './webview/resultsController';
import { registerAgentTools } from './vscode/agent/registerAgentTools';
import { configureHostL10n } from './webview/l10nBundle';

/** What other extensions (and the integration tests) may read: never key material or tokens. */
export interface MobilityApiExports {
  listCredentials(): Promise<StoredCredentialInfo[]>;
  environmentIds(): string[];
  /** The tokens issued this session, described (jti, times, use), never their text. */
  tokenHistory(): TokenHistoryEntry[];
  globalStoragePath: string;
  /** The Environments view's rows under `element` (the top when none) as shown: for tests, never a secret. */
  environmentsTreeRows(element?: unknown): Promise<Array<{ element: unknown; label: string; description: string; tooltip: string; contextValue?: string }>>;
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
  const deps: CommandDeps = { context, log, settings, credentials, environments, sandbox, clients, clockStore: clients, results, grpc, tokenHistory, session: { warnedDeprecated: new Set(), harvesting: new Set() } };

  const runner = new RequestRunner(deps);

  const environmentsTree = new EnvironmentsTreeProvider(environments, credentials, sandbox, tokenHistory, { service: grpc, log });
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
    vscode.window.createTreeView('mobilityApi.environments', { treeDataProvider: environmentsTree, showCollapseAll: true, canSelectMany: true }),
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
    ...registerEnvironmentCommands(deps, () => channel.show(true), () => environmentsTree.refresh()),
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
  const timing = startup ? `loading the code ${Math.round(startup.loadMs)} ms, wiring ${Math.round(wiringMs)} ms` : `wiring ${Math.round(wiringMs)} ms`;
  log.info('extension', `activated (VS Code ${vscode.version}; ${timing})`);
  return { listCredentials: () => credentials.list(), environmentIds: () => environments.all().map((e) => e.id), tokenHistory: () => tokenHistory.all(), globalStoragePath: context.globalStorageUri.fsPath, environmentsTreeRows: (element) => environmentsTree.rows(element as EnvironmentsTreeElement | undefined), requestFileLensRefreshes: () => requestFileLenses.refreshes, contractTests };
}

/** Waits for the sandbox to close (VS Code waits for the promise), so a reload never finds its port still taken. */
export function deactivate(): Promise<unknown> | undefined {
  return running?.shutdown();
}
