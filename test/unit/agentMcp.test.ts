// `mobility-api mcp` driven by the MCP SDK's own Client over stdio, against the built CLI and a real sandbox, with no
// model: a scripted session that goes from a refused token to the rule it broke and its fix, then (the key trusted)
// from a harvest to its findings and one metric. Every message the server printed is scanned for secrets.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { maskKeyId } from '../../src/core/base';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { cityHourOf } from '../../src/sandbox/world/worldGeography';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The day before yesterday (UTC): every hour of it is served, whatever the time of day. */
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13);
/** The UTC hour of that day whose Berlin hour is `local` (12 and 13 h are busy, served, and hold every data fault). */
const localHour = (local: number) => {
  for (let h = 0; h < 24; h++) if (cityHourOf(DAY_START + h * HOUR) === local) return DAY_START + h * HOUR;
  throw new Error(`no UTC hour is ${local} h in Berlin`);
};
/** A key id of 32 characters: its whole text must never reach the client, nor its first or last 5 characters. */
const KID = 'agentTestKid-7Qx2Lm9Pz4Rt8Vw3Ny6';

/** The text of a tool's answer, parsed. */
function answerOf(result: Awaited<ReturnType<Client['callTool']>>): {
  isError: boolean;
  body: Record<string, unknown>;
} {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content[0]?.type, 'text');
  return { isError: result.isError === true, body: JSON.parse(content[0].text) as Record<string, unknown> };
}

describe('mobility-api mcp: the SDK client over stdio against the sandbox', function () {
  this.timeout(180_000);
  let dir: string;
  let sandbox: RunningSandbox;
  let client: Client;
  let transport: StdioClientTransport;
  const printed: string[] = [];
  let stderr = '';
  let keyPem: string;
  let publicKey: ReturnType<typeof generateKeyPairSync>['publicKey'];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-mcp-'));
    sandbox = await startSandbox({
      fleetSize: 120,
      seed: 7,
      demoDir: path.join(dir, 'demo'),
      grpc: false,
      dataFaults: 'all',
    });
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    publicKey = pair.publicKey;
    keyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    fs.writeFileSync(path.join(dir, 'agent-key.pem'), keyPem, { mode: 0o600 });
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        path.resolve('dist/cli.js'),
        'mcp',
        '--base-url',
        mds,
        '--api',
        'mds',
        '--stage',
        'staging',
        '--allow-network',
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
      ],
      // The credential as CI gives it to `test`: by the MOBILITY_API_* variables, never on the command line.
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
    client = new Client({ name: 'scripted-session', version: '1.0.0' });
    await client.connect(transport);
    // Everything the server writes on stdout, as the client receives it.
    const receive = transport.onmessage;
    transport.onmessage = (message) => {
      printed.push(JSON.stringify(message));
      receive?.(message);
    };
  });

  after(async () => {
    await client?.close();
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists every tool with its schema and honest hints; the environment by its credential name and masked kid', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      'list_environments',
      'describe_endpoints',
      'decode_token',
      'preview_token',
      'explain_refusal',
      'describe_harvest',
      'run_check',
      'compute_metrics',
      'query_harvest',
      'generate_client_code',
      'send_request',
      'run_contract_tests',
      'harvest_hours',
    ])
      assert.ok(names.includes(name), name);
    for (const tool of tools) {
      const network = ['send_request', 'run_contract_tests', 'harvest_hours'].includes(tool.name);
      assert.equal(tool.annotations?.readOnlyHint, !network, tool.name);
      assert.equal(tool.annotations?.openWorldHint, network, tool.name);
      assert.equal(tool.inputSchema.type, 'object');
    }
    const { body } = answerOf(await client.callTool({ name: 'list_environments', arguments: {} }));
    const [env] = body.environments as { id: string; credential: { name: string; kid: string } }[];
    assert.equal(env.id, 'mds');
    assert.equal(env.credential.name, 'MOBILITY_API_KEY_FILE');
    assert.equal(env.credential.kid, maskKeyId(KID));
  });

  it('decodes a hostile token: its claims reach the client scrubbed (no nested token, key, password or kid)', async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const nested = `${part({ alg: 'ES256', kid: KID })}.${part({ iss: 'x@example.org' })}.${'s'.repeat(43)}`;
    const claims = {
      iss: 'x@example.org',
      note: `Bearer ${nested}`,
      aud: 'https://user:hunter2pass@mds.example.org',
      echo: `kid ${KID}`,
      key: keyPem,
      jwk: { kty: 'EC', d: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' },
    };
    const decoded = answerOf(
      await client.callTool({
        name: 'decode_token',
        arguments: { token: `${part({ alg: 'ES256', kid: KID })}.${part(claims)}.${'s'.repeat(43)}` },
      }),
    );
    assert.equal(decoded.isError, false, JSON.stringify(decoded.body));
    assert.equal((decoded.body.claims as { iss: string }).iss, 'x@example.org');
  });

  it('goes from a refused token to the rule it broke and its fix', async () => {
    const sent = answerOf(await client.callTool({ name: 'send_request', arguments: { path: '/vehicles' } }));
    assert.equal(sent.isError, false);
    assert.equal(sent.body.status, 401);
    assert.match(String(sent.body.next), /explain_refusal/);
    const explained = answerOf(
      await client.callTool({ name: 'explain_refusal', arguments: { result_id: sent.body.result_id } }),
    );
    assert.equal(explained.body.refused, true);
    assert.deepEqual((explained.body.rule as { id: string }).id, 'unknown_kid');
    assert.ok(
      (explained.body.fix as string[]).some((f) => /does not know this kid/.test(f)),
      JSON.stringify(explained.body.fix),
    );
  });

  it('after the fix (the key trusted), harvests, and goes from the harvest to its findings and one metric, with progress', async () => {
    sandbox.trust({ kid: KID, iss: sandbox.demo.issuer, type: 'external-org', publicKey });
    const from = hourText(localHour(12));
    const to = hourText(localHour(13));
    const progress: number[] = [];
    for (const endpoint of ['trips', 'events']) {
      const harvested = answerOf(
        await client.callTool(
          { name: 'harvest_hours', arguments: { endpoint, from, to, out: `harvest/${endpoint}` } },
          undefined,
          { onprogress: (p) => progress.push(p.progress) },
        ),
      );
      assert.equal(harvested.isError, false, JSON.stringify(harvested.body));
      assert.equal(harvested.body.complete, true, JSON.stringify(harvested.body));
    }
    assert.ok(progress.includes(2), `progress per hour: ${progress.join(', ')}`);
    const described = answerOf(await client.callTool({ name: 'describe_harvest', arguments: { folder: 'harvest' } }));
    assert.deepEqual((described.body.parts as { table: string }[]).map((p) => p.table).sort(), ['events', 'trips']);
    const checked = answerOf(
      await client.callTool({ name: 'run_check', arguments: { folder: 'harvest', findings_per_rule: 2 } }),
    );
    assert.equal(checked.isError, false, JSON.stringify(checked.body));
    const rules = checked.body.rules as { id: string; count: number; findings: unknown[] }[];
    const found = rules.filter((r) => r.count > 0);
    assert.ok(found.length > 0, 'the faulty world gives findings');
    assert.ok(
      found.every((r) => r.findings.length <= 2),
      'findings capped per rule',
    );
    const metrics = answerOf(await client.callTool({ name: 'compute_metrics', arguments: { folder: 'harvest' } }));
    const hours = metrics.body.hours as Record<string, unknown>[];
    assert.ok(hours.length >= 2, JSON.stringify(metrics.body).slice(0, 400));
    assert.ok(
      hours.some((h) => Number(h.trips_ended) > 0),
      JSON.stringify(hours[0]),
    );
    const rows = answerOf(
      await client.callTool({
        name: 'query_harvest',
        arguments: { folder: 'harvest', sql: 'SELECT * FROM telemetry_or_trips_missing', max_rows: 3 },
      }),
    );
    assert.equal(rows.isError, true, 'an unknown view is an error answer, not a crash');
    const raw = answerOf(
      await client.callTool({
        name: 'query_harvest',
        arguments: { folder: 'harvest', sql: 'SELECT start_location FROM trips', max_rows: 3 },
      }),
    );
    assert.equal((raw.body.rows as unknown[]).length, 3);
    for (const row of raw.body.rows as { start_location: { lat: number; lng: number } }[]) {
      assert.equal(row.start_location.lat, Math.round(row.start_location.lat * 1000) / 1000, 'coordinates rounded');
    }
  });

  it('printed no token, key, kid or password, in any answer or on stderr', () => {
    const all = printed.join('\n') + stderr;
    assert.ok(printed.length >= 10, `messages seen: ${printed.length}`);
    assert.doesNotMatch(all, /ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+/, 'a compact JWT');
    assert.doesNotMatch(all, /PRIVATE KEY/);
    assert.ok(!all.toLowerCase().includes(KID.toLowerCase()), 'the kid whole');
    assert.ok(!all.includes(KID.slice(0, 6)) && !all.includes(KID.slice(-6)), 'more of the kid than its mask shows');
    assert.ok(!all.includes(keyPem.split('\n')[1]), 'a line of the key');
    assert.doesNotMatch(all, /"d"\s*:\s*"[A-Za-z0-9_-]{20,}"/, 'a JWK private member');
    assert.doesNotMatch(all, /:\/\/[^\s/@"]+:[^\s/@"<]+@/, 'a password in a URL');
  });
});
