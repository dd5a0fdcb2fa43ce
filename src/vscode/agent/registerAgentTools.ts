// VS Code's language-model tools (package.json `languageModelTools`): each tool of src/agent registered by name at
// activation, its code (the agent tools, the core they run) loaded from dist/agentTools.js on the first call.
import path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_TOOL_NAMES } from '../../agent/agentToolNames';
import { MCP_PROVIDER_ID, mcpLaunchOf } from '../../agent/mcpLaunch';
import type { CommandDeps } from '../platform/commandDeps';

/** What dist/agentTools.js exports (a type only: importing it would put the tools into the activation bundle). */
export type AgentToolsModule = typeof import('./agentTools.bundle');

function loadAgentToolsModule(): AgentToolsModule {
  // A computed path, so that esbuild leaves this require to run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'agentTools.js')) as AgentToolsModule;
}

/**
 * The extension's `mobility-api mcp` (read-only, no credential) for VS Code to start itself, where it carries the CLI
 * (package.json `mcpServerDefinitionProviders`), when the setting `mobilityApi.agents.offerMcpServer` is on: its
 * read-only tools are the language-model tools' too, so offered by default VS Code would list each of them twice.
 * Nothing where this VS Code has no MCP API.
 */
function registerMcpServer(extensionPath: string): vscode.Disposable[] {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return [];
  const changed = new vscode.EventEmitter<void>();
  const offered = () => vscode.workspace.getConfiguration('mobilityApi').get<boolean>('agents.offerMcpServer', false);
  return [
    changed,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('mobilityApi.agents.offerMcpServer')) changed.fire();
    }),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const launch = offered() ? mcpLaunchOf(extensionPath, process.execPath) : undefined;
        return launch
          ? [
              new vscode.McpStdioServerDefinition(
                vscode.l10n.t('Mobility API (read-only)'),
                launch.command,
                launch.args,
                launch.env,
              ),
            ]
          : [];
      },
    }),
  ];
}

/** Registers every agent tool (none where this VS Code has no language-model API) and the MCP server's definition. */
export function registerAgentTools(deps: CommandDeps): vscode.Disposable[] {
  const mcp = registerMcpServer(deps.context.extensionPath);
  if (typeof vscode.lm?.registerTool !== 'function') return mcp;
  let feature: ReturnType<AgentToolsModule['createAgentToolsFeature']> | undefined;
  const load = () => (feature ??= loadAgentToolsModule().createAgentToolsFeature(deps));
  return [
    ...mcp,
    ...AGENT_TOOL_NAMES.map((name) =>
      vscode.lm.registerTool<Record<string, unknown>>(name, {
        prepareInvocation: (options, token) => load().prepare(name, options.input, token),
        invoke: (options, token) => load().invoke(name, options.input, token),
      }),
    ),
  ];
}
