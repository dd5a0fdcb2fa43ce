// VS Code's language-model tools (package.json `languageModelTools`): each tool of src/agent registered by name at
// activation, its code (the agent tools, the core they run) loaded from dist/agentTools.js on the first call.
import path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_TOOL_NAMES } from '../../agent/agentToolNames';
import type { CommandDeps } from '../platform/commandDeps';

/** What dist/agentTools.js exports (a type only: importing it would put the tools into the activation bundle). */
export type AgentToolsModule = typeof import('./agentTools.bundle');

function loadAgentToolsModule(): AgentToolsModule {
  // A computed path, so that esbuild leaves this require to run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'agentTools.js')) as AgentToolsModule;
}

/** Registers every agent tool; none where this VS Code has no language-model API. */
export function registerAgentTools(deps: CommandDeps): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== 'function') return [];
  let feature: ReturnType<AgentToolsModule['createAgentToolsFeature']> | undefined;
  const load = () => (feature ??= loadAgentToolsModule().createAgentToolsFeature(deps));
  return AGENT_TOOL_NAMES.map((name) =>
    vscode.lm.registerTool<Record<string, unknown>>(name, {
      prepareInvocation: (options, token) => load().prepare(name, options.input, token),
      invoke: (options, token) => load().invoke(name, options.input, token),
    }),
  );
}
