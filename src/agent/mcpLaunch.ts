// How VS Code starts `mobility-api mcp` itself (package.json `mcpServerDefinitionProviders`): the extension's own CLI
// bundle run by the editor's Node, read-only, with no environment and no credential, so that nothing secret stands in
// its command line or environment (the language-model tools, with the credentials of SecretStorage, send requests).
import fs from 'node:fs';
import path from 'node:path';

/** The provider's id, declared in package.json `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'mobilityApi.mcpServer';

/** A stdio MCP server's launch: what VS Code runs. */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The launch of the extension's `dist/cli.js mcp` under `nodePath` (VS Code's own executable runs as Node with
 * ELECTRON_RUN_AS_NODE; Node ignores it); undefined where the extension carries no CLI (a build without dist/cli.js;
 * the VSIX carries it).
 */
export function mcpLaunchOf(
  extensionPath: string,
  nodePath: string,
  exists: (file: string) => boolean = fs.existsSync,
): McpLaunch | undefined {
  const cli = path.join(extensionPath, 'dist', 'cli.js');
  if (!exists(cli)) return undefined;
  return { command: nodePath, args: [cli, 'mcp'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}
