// send_request over gRPC, through `mobility-api mcp` driven by the MCP SDK's own Client over stdio, against the
// sandbox's gRPC server: a refused token's status explained by the rule it broke, then (the key trusted) good calls by
// server reflection and by the given .proto files. Every message the servers printed is scanned for secrets.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';

/** A key id of 32 characters: its whole text must never reach the client, nor its first or last 6 characters. */
const KID = 'grpcAgentKid-4Hs8Kd2Lq7Wz1Xc5Vb9';
const LIST = 'mobility.sandbox.v1.VehicleService/ListVehicles';
const FLEET = 40;

type Answer = { isError: boolean; body: Record<string, unknown> };

function answerOf(result: Awaited<ReturnType<Client['callTool']>>): Answer {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content[0]?.type, 'text');
  return { isError: result.isError === true, body: JSON.parse(content[0].text) as Record<string, unknown> };
}

describe('mobility-api mcp: send_request over gRPC against the sandbox', function () {
  this.timeout(120_000);
  let dir: string;
  let sandbox: RunningSandbox;
  let keyPem: string;
  let publicKey: ReturnType<typeof generateKeyPairSync>['publicKey'];
  const clients: Client[] = [];
  const printed: string[] = [];
  let stderr = '';

  /** An MCP server for the sandbox's mds-staging, its gRPC target given with `grpcFlags`, the credential by variables. */
  async function connect(grpcFlags: string[]): Promise<Client> {
    const env = sandbox.environments.find((e) => e.id === 'mds-staging')!;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        path.resolve('dist/cli.js'),
        'mcp',
        '--base-url',
        env.baseUrl,
        '--api',
        'mds',
        '--stage',
        'staging',
        '--grpc-target',
        env.grpcTarget!,
        '--plaintext',
        ...grpcFlags,
        '--allow-network',
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
      ],
      env: {
        PATH: process.env.PATH ?? '',
        MOBILITY_API_KEY_FILE: path.join(dir, 'agent-key.pem'),
        MOBILITY_API_KEY_ID: KID,
        MOBILITY_API_ISSUER: sandbox.demo.issuer,
        MOBILITY_API_CREDENTIAL_TYPE: 'external-org',
      },
      cwd: dir,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'scripted-grpc-session', version: '1.0.0' });
    await client.connect(transport);
    const receive = transport.onmessage;
    transport.onmessage = (message) => {
      printed.push(JSON.stringify(message));
      receive?.(message);
    };
    clients.push(client);
    return client;
  }

  const call = async (client: Client, args: Record<string, unknown>): Promise<Answer> =>
    answerOf(await client.callTool({ name: 'send_request', arguments: args }));

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-mcp-grpc-'));
    sandbox = await startSandbox({ fleetSize: FLEET, seed: 11, demoDir: path.join(dir, 'demo') });
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    publicKey = pair.publicKey;
    keyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    fs.writeFileSync(path.join(dir, 'agent-key.pem'), keyPem, { mode: 0o600 });
  });

  after(async () => {
    for (const client of clients) await client.close();
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers a refused token with its status, the rule it broke and the fix; explain_refusal says the same', async () => {
    const client = await connect([]);
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'send_request')?.inputSchema.properties ?? {};
    assert.ok('grpc_method' in schema && 'message' in schema, 'send_request takes a gRPC method and message');
    const listed = answerOf(await client.callTool({ name: 'list_environments', arguments: {} }));
    assert.equal(
      (listed.body.environments as { grpcTarget: string }[])[0].grpcTarget,
      sandbox.environments.find((e) => e.id === 'mds-staging')!.grpcTarget,
    );
    const refused = await call(client, { grpc_method: LIST });
    assert.equal(refused.isError, false, JSON.stringify(refused.body));
    assert.deepEqual((refused.body.status as { name: string }).name, 'UNAUTHENTICATED');
    assert.match((refused.body.status as { message: string }).message, /^unknown_kid: /);
    const details = (refused.body.status as { details: { reason?: string }[] }).details;
    assert.equal(details[0]?.reason, 'UNKNOWN_KID', 'the ErrorInfo detail, decoded');
    assert.equal((refused.body.error as { rule: { id: string } }).rule.id, 'unknown_kid');
    assert.match(String(refused.body.next), /explain_refusal/);
    const explained = answerOf(
      await client.callTool({ name: 'explain_refusal', arguments: { result_id: refused.body.result_id } }),
    );
    assert.equal(explained.body.refused, true, JSON.stringify(explained.body));
    assert.equal((explained.body.rule as { id: string }).id, 'unknown_kid');
    assert.ok(
      (explained.body.fix as string[]).some((f) => /does not know this kid/.test(f)),
      JSON.stringify(explained.body.fix),
    );
  });

  it('after the fix, calls a stream and a unary method by reflection: messages capped, the count whole, the trailers', async () => {
    sandbox.trust({ kid: KID, iss: sandbox.demo.issuer, type: 'external-org', publicKey });
    const client = clients[0];
    const listed = await call(client, { grpc_method: LIST, max_items: 3 });
    assert.equal(listed.isError, false, JSON.stringify(listed.body));
    assert.equal((listed.body.status as { name: string }).name, 'OK');
    assert.equal(listed.body.messageCount, FLEET);
    const vehicles = listed.body.messages as { device_id: string }[];
    assert.equal(vehicles.length, 3);
    assert.equal(typeof listed.body.trailers, 'object');
    const one = await call(client, {
      grpc_service: 'mobility.sandbox.v1.VehicleService',
      grpc_method: 'GetVehicle',
      message: { device_id: vehicles[1].device_id },
    });
    assert.equal((one.body.status as { name: string }).name, 'OK', JSON.stringify(one.body));
    assert.equal((one.body.messages as { device_id: string }[])[0].device_id, vehicles[1].device_id);
    const notRefused = answerOf(await client.callTool({ name: 'explain_refusal', arguments: {} }));
    assert.equal(notRefused.body.refused, false);
  });

  it('names the methods the schema has for an unknown one, and a field that does not fit the message', async () => {
    const client = clients[0];
    const unknown = await call(client, { grpc_method: 'mobility.sandbox.v1.VehicleService/ListBicycles' });
    assert.equal(unknown.isError, true);
    assert.match(JSON.stringify(unknown.body), /GRPC_METHOD_UNKNOWN.*VehicleService\/GetVehicle/);
    const wrong = await call(client, {
      grpc_method: 'mobility.sandbox.v1.VehicleService/GetVehicle',
      message: { vehicle: 'x' },
    });
    assert.equal(wrong.isError, true);
    assert.match(JSON.stringify(wrong.body), /GRPC_MESSAGE_INVALID.*vehicle/);
  });

  it("calls by the given .proto files (--proto, --import-path) as the CLI's grpc command does", async () => {
    const protos = sandbox.environments.find((e) => e.id === 'mds-staging')!.grpcProtos!;
    const client = await connect([
      ...protos.protoFiles.flatMap((f) => ['--proto', f]),
      ...protos.importPaths.flatMap((p) => ['--import-path', p]),
    ]);
    const listed = await call(client, { grpc_method: LIST, max_items: 0 });
    assert.equal((listed.body.status as { name: string }).name, 'OK', JSON.stringify(listed.body));
    assert.equal(listed.body.messageCount, FLEET);
  });

  it('printed no token, key, kid or password, in any answer or on stderr', () => {
    const all = printed.join('\n') + stderr;
    assert.ok(printed.length >= 8, `messages seen: ${printed.length}`);
    assert.doesNotMatch(all, /ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+/, 'a compact JWT');
    assert.doesNotMatch(all, /PRIVATE KEY/);
    assert.ok(!all.toLowerCase().includes(KID.toLowerCase()), 'the kid whole');
    assert.ok(!all.includes(KID.slice(0, 6)) && !all.includes(KID.slice(-6)), 'more of the kid than its mask shows');
    assert.ok(!all.includes(keyPem.split('\n')[1]), 'a line of the key');
    assert.doesNotMatch(all, /:\/\/[^\s/@"]+:[^\s/@"<]+@/, 'a password in a URL');
  });
});
