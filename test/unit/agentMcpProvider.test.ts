// VS Code starts `mobility-api mcp` itself (package.json `mcpServerDefinitionProviders`): the provider is declared with
// the id the extension registers, its launch resolves to the extension's own CLI with no secret in its command line or
// environment, and what it starts is a read-only MCP server (driven here by the MCP SDK's Client, as VS Code would).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_PROVIDER_ID, mcpLaunchOf } from '../../src/agent/mcpLaunch';

interface Manifest {
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  contributes: {
    mcpServerDefinitionProviders?: { id: string; label: string }[];
    configuration: { properties: Record<string, { type: string; default: unknown }> };
  };
}

const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as Manifest;
const nls = JSON.parse(fs.readFileSync('package.nls.json', 'utf8')) as Record<string, string>;

describe('the MCP server VS Code starts itself (mcpServerDefinitionProviders)', function () {
  this.timeout(60_000);

  it('is declared with the id the extension registers, a label in package.nls.json, on a VS Code that has the API', () => {
    const declared = manifest.contributes.mcpServerDefinitionProviders ?? [];
    assert.deepEqual(
      declared.map((p) => p.id),
      [MCP_PROVIDER_ID],
    );
    assert.ok(nls[declared[0].label.replace(/^%|%$/g, '')], 'the label is translated');
    // vscode.lm.registerMcpServerDefinitionProvider came with VS Code 1.101: the engine and the types say so together.
    const minor = (range: string) => Number(/1\.(\d+)/.exec(range)?.[1]);
    assert.ok(minor(manifest.engines.vscode) >= 101, manifest.engines.vscode);
    assert.equal(minor(manifest.devDependencies['@types/vscode']), minor(manifest.engines.vscode));
  });

  it('is offered only when the setting asks: off by default, so that the chat does not list the read-only tools twice', () => {
    const setting = manifest.contributes.configuration.properties['mobilityApi.agents.offerMcpServer'];
    assert.deepEqual({ type: setting?.type, default: setting?.default }, { type: 'boolean', default: false });
  });

  it("resolves to the extension's own dist/cli.js mcp, with no secret in its arguments or environment; none without the CLI", () => {
    const launch = mcpLaunchOf(path.resolve('.'), process.execPath);
    assert.ok(launch, 'a launch where dist/cli.js is built');
    assert.equal(launch.command, process.execPath);
    assert.deepEqual(launch.args, [path.resolve('dist/cli.js'), 'mcp']);
    assert.ok(fs.existsSync(launch.args[0]));
    assert.deepEqual(Object.keys(launch.env), ['ELECTRON_RUN_AS_NODE']);
    const text = JSON.stringify(launch);
    assert.doesNotMatch(text, /--(private-key|key-file|credential|kid|iss|base-url|allow-network|allow-production)\b/);
    assert.doesNotMatch(text, /MOBILITY_API_|PRIVATE KEY|ey[A-Za-z0-9_-]{8,}\./);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-provider-'));
    try {
      assert.equal(
        mcpLaunchOf(empty, process.execPath),
        undefined,
        'an extension without dist/cli.js (a build that made none) offers none',
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('starts a read-only server: the local tools, none of the network tools', async () => {
    const launch = mcpLaunchOf(path.resolve('.'), process.execPath)!;
    const client = new Client({ name: 'as-vscode', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        env: { PATH: process.env.PATH ?? '', ...launch.env },
        stderr: 'ignore',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('decode_token') && names.includes('describe_endpoints'), names.join(', '));
      for (const network of ['send_request', 'run_contract_tests', 'harvest_hours'])
        assert.ok(!names.includes(network), network);
    } finally {
      await client.close();
    }
  });
});
