// The agent tools in a real VS Code: vscode.lm.tools lists every one, and read-only tools and a send_request run
// through vscode.lm.invokeTool against the sandbox (outside a chat no confirmation is shown: the call is the test's).
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { AGENT_TOOL_NAMES } from '../../src/agent/agentToolNames';
import { run } from './extensionApi';

/** A tool's answer, parsed from its one text part. */
async function invoke(name: string, input: object): Promise<{ text: string; body: Record<string, unknown> }> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const part = result.content[0];
  assert.ok(part instanceof vscode.LanguageModelTextPart, `${name} answers with text`);
  return { text: part.value, body: JSON.parse(part.value) as Record<string, unknown> };
}

describe('agent tools: vscode.lm', function () {
  this.timeout(60_000);

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
  });

  after(async () => {
    await run('mobilityApi.stopSandbox');
  });

  it('lists every tool of the extension, with its schema', () => {
    const ours = vscode.lm.tools.filter((t) => t.tags.includes('mobility-api'));
    assert.deepEqual(ours.map((t) => t.name).sort(), [...AGENT_TOOL_NAMES].sort());
    for (const tool of ours)
      assert.equal((tool.inputSchema as { type?: string } | undefined)?.type, 'object', tool.name);
  });

  it('runs the read-only tools: environments by name and masked kid, a token decoded, the catalogue', async () => {
    const listed = await invoke('list_environments', {});
    const environments = listed.body.environments as { id: string; credential: { kid: string } | null }[] | undefined;
    assert.ok(environments, listed.text);
    const sandbox = environments.find((e) => e.id === 'sandbox-mds-staging');
    assert.ok(sandbox?.credential, listed.text);
    assert.match(sandbox.credential.kid, /…/);
    assert.doesNotMatch(listed.text, /PRIVATE KEY|ey[A-Za-z0-9_-]{8,}\./);
    const decoded = await invoke('decode_token', { token: 'eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.' });
    assert.ok(Array.isArray(decoded.body.findings), decoded.text);
    const endpoints = await invoke('describe_endpoints', { api: 'mds' });
    assert.ok((endpoints.body.endpoints as { id: string }[]).some((e) => e.id === 'trips'));
  });

  it('sends a request to the sandbox with a fresh token, its answer an entry of the results panel history', async () => {
    const sent = await invoke('send_request', { environment: 'sandbox-mds-staging', path: '/vehicles', max_items: 2 });
    assert.equal(sent.body.status, 200, sent.text);
    assert.equal((sent.body.items as unknown[]).length, 2);
    assert.equal(typeof sent.body.resultsPanelEntry, 'string', 'the answer names the results panel entry');
    assert.doesNotMatch(sent.text, /ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\./);
  });

  it("makes a gRPC call to the sandbox environment's gRPC target, its answer an entry of the results panel's history", async () => {
    const sent = await invoke('send_request', {
      environment: 'sandbox-mds-staging',
      grpc_method: 'mobility.sandbox.v1.VehicleService/ListVehicles',
      max_items: 2,
    });
    assert.equal((sent.body.status as { name: string }).name, 'OK', sent.text);
    assert.equal((sent.body.messages as unknown[]).length, 2);
    assert.equal(typeof sent.body.resultsPanelEntry, 'string', 'the answer names the results panel entry');
    assert.doesNotMatch(sent.text, /ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\./);
  });
});
