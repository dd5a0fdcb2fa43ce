// The agent tools of src/agent, in-process: names, schemas (ajv, strict), honest hints, the scrubber on every answer,
// and the rules a surface cannot forget: the network off unless allowed, production refused unless allowed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import Ajv from 'ajv';
import { AgentHistory } from '../../src/agent/agentHistory';
import type { AgentContext } from '../../src/agent/agentTool';
import { AGENT_TOOLS, inputValidator, runAgentTool } from '../../src/agent/agentTools';
import { answerText } from '../../src/agent/scrubAnswer';
import { parseCredential, TokenIssuer } from '../../src/core/auth';
import { IssueClock } from '../../src/core/clock';
import type { Environment } from '../../src/core/environment';

const KID = 'unitKid-4Fh8Qz2Lw6Xp9Rt3Vb7Ny5';
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const credential = parseCredential({
  kind: 'ec',
  type: 'external-org',
  privateKey: PEM,
  kid: KID,
  issuer: 'agent@example.org',
}).credential;
const JWT = 'eyJhbGciOiJFUzI1NiIsImtpZCI6InVuaXRLaWQifQ.eyJpc3MiOiJhQGIuYyJ9.c2lnbmF0dXJlc2lnbmF0dXJl';

function contextWith(environments: Environment[], options: Partial<AgentContext> = {}): AgentContext {
  const issuer = new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
  return {
    environments: () =>
      Promise.resolve(environments.map((environment) => ({ environment, credentialName: 'unit key' }))),
    credential: () => Promise.resolve(credential),
    signing: () => ({ issuer }),
    history: new AgentHistory(),
    allowNetwork: false,
    allowProduction: false,
    root: process.cwd(),
    ...options,
  };
}

const staging: Environment = {
  id: 'staging',
  name: 'Staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'http://127.0.0.1:9/mds',
};
const production: Environment = {
  id: 'prod',
  name: 'Production',
  api: 'mds',
  stage: 'production',
  baseUrl: 'http://127.0.0.1:9/mds-prod',
};

describe('agent tools: one set of tools for VS Code and MCP', () => {
  it('names every tool {verb}_{noun}, once, with a description for a model and honest hints', () => {
    const names = AGENT_TOOLS.map((t) => t.name);
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.length >= 13, names.join(', '));
    for (const tool of AGENT_TOOLS) {
      assert.match(tool.name, /^[a-z]+_[a-z_]+$/, tool.name);
      assert.ok(tool.description.length > 60 && tool.description.length < 600, tool.name);
      assert.equal(tool.annotations.readOnlyHint, !tool.network, tool.name);
      assert.equal(tool.annotations.openWorldHint, tool.network, tool.name);
      assert.equal(tool.annotations.destructiveHint, false, tool.name);
    }
    assert.deepEqual(
      AGENT_TOOLS.filter((t) => t.network).map((t) => t.name),
      ['send_request', 'run_contract_tests', 'harvest_hours'],
    );
  });

  it('gives every tool an input schema that strict ajv compiles: an object that refuses unknown fields', () => {
    const strict = new Ajv({ strict: true, allErrors: true });
    for (const tool of AGENT_TOOLS) {
      assert.doesNotThrow(() => strict.compile(tool.inputSchema), tool.name);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(inputValidator(tool)({ surely_not_a_field: 1 }), false, `${tool.name} refuses an unknown field`);
    }
    assert.equal(
      inputValidator(AGENT_TOOLS.find((t) => t.name === 'send_request')!)({ path: '/vehicles' }),
      true,
      '{"path": "/vehicles"} is a request',
    );
  });

  it('refuses input that does not fit, naming the field', async () => {
    const answer = await runAgentTool('decode_token', { tokn: 'x' }, contextWith([staging]));
    assert.equal(answer.isError, true);
    assert.match(answer.text, /AGENT_INPUT_INVALID/);
    assert.match(answer.text, /tokn/);
  });

  it('refuses the network tools unless allowed, and a production environment even then unless allowed', async () => {
    const off = await runAgentTool('send_request', { path: '/vehicles' }, contextWith([staging]));
    assert.equal(off.isError, true);
    assert.match(off.text, /AGENT_NETWORK_OFF/);
    const prod = await runAgentTool(
      'send_request',
      { environment: 'prod', path: '/vehicles' },
      contextWith([staging, production], { allowNetwork: true }),
    );
    assert.equal(prod.isError, true);
    assert.match(prod.text, /AGENT_PRODUCTION_REFUSED/);
    assert.match(prod.text, /--allow-production/);
  });

  it("refuses a gRPC call to production as a REST one, and a gRPC call mixed with a REST request's fields before anything is sent", async () => {
    const prod = await runAgentTool(
      'send_request',
      { environment: 'prod', grpc_method: 'mobility.sandbox.v1.VehicleService/ListVehicles' },
      contextWith([staging, { ...production, grpc: { target: '127.0.0.1:9', plaintext: true } }], {
        allowNetwork: true,
      }),
    );
    assert.match(prod.text, /AGENT_PRODUCTION_REFUSED/);
    const mixed = await runAgentTool(
      'send_request',
      { path: '/vehicles', grpc_method: 'mobility.sandbox.v1.VehicleService/ListVehicles' },
      contextWith([staging], { allowNetwork: true }),
    );
    assert.match(mixed.text, /AGENT_INPUT_INVALID[\s\S]*takes no path/);
    const orphan = await runAgentTool(
      'send_request',
      { message: { device_id: 'x' } },
      contextWith([staging], { allowNetwork: true }),
    );
    assert.match(orphan.text, /AGENT_INPUT_INVALID[\s\S]*give grpc_method too/);
    const noTarget = await runAgentTool(
      'send_request',
      { grpc_method: 'mobility.sandbox.v1.VehicleService/ListVehicles' },
      contextWith([staging], { allowNetwork: true }),
    );
    assert.match(noTarget.text, /GRPC_TARGET_INVALID[\s\S]*--grpc-target/);
  });

  it('decodes a token without repeating it, its kid masked, each finding with its rule and fix', async () => {
    const answer = await runAgentTool('decode_token', { token: JWT }, contextWith([staging]));
    assert.equal(answer.isError, false, answer.text);
    assert.ok(!answer.text.includes(JWT) && !answer.text.includes('unitKid'), answer.text);
    const body = JSON.parse(answer.text) as { findings: { rule?: string; fix?: string }[] };
    assert.ok(
      body.findings.some((f) => f.rule === 'jti_missing' && /UUID/.test(f.fix ?? '')),
      answer.text,
    );
  });

  it('lists environments and previews a token by name and masked kid only; nothing is signed', async () => {
    const context = contextWith([staging, production]);
    const listed = await runAgentTool('list_environments', {}, context);
    const preview = await runAgentTool('preview_token', { environment: 'staging' }, context);
    for (const text of [listed.text, preview.text]) {
      assert.ok(!text.includes(KID) && !text.includes(KID.slice(0, 6)), text);
      assert.doesNotMatch(text, /PRIVATE KEY|ey[A-Za-z0-9_-]{8,}\./);
    }
    const environments = (
      JSON.parse(listed.text) as { environments: { production: boolean; credential: { name: string } }[] }
    ).environments;
    assert.deepEqual(
      environments.map((e) => e.production),
      [false, true],
    );
    assert.equal(environments[0].credential.name, 'unit key');
    assert.equal((JSON.parse(preview.text) as { claims: { aud: string } }).claims.aud, 'http://127.0.0.1:9/mds');
  });

  it('lists an environment whose base URL is not set yet, saying so, instead of failing the whole list', async () => {
    const unset: Environment = { id: 'mds-staging', name: 'MDS Staging', api: 'mds', stage: 'staging', baseUrl: '' };
    const answer = await runAgentTool('list_environments', {}, contextWith([unset, staging]));
    assert.equal(answer.isError, false, answer.text);
    const [first] = (JSON.parse(answer.text) as { environments: { baseUrl: string | null; problem?: string }[] })
      .environments;
    assert.equal(first.baseUrl, null);
    assert.match(first.problem ?? '', /no base URL/);
  });

  it('writes client code that holds no secret', async () => {
    const answer = await runAgentTool(
      'generate_client_code',
      { language: 'python', endpoint: 'vehicles' },
      contextWith([staging]),
    );
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /MOBILITY_API_KEY_FILE/);
    assert.ok(!answer.text.includes(KID));
  });

  it('says which result ids exist when explain_refusal names an unknown one', async () => {
    const answer = await runAgentTool('explain_refusal', { result_id: 'r7' }, contextWith([staging]));
    assert.equal(answer.isError, true);
    assert.match(answer.text, /AGENT_RESULT_UNKNOWN/);
  });
});

describe('agent scrubber: one on every answer', () => {
  it('removes compact JWTs, PEM keys, JWK private members, passwords in URLs and every known kid', () => {
    const text = answerText(
      {
        said: `Bearer ${JWT}`,
        key: PEM,
        jwk: { kty: 'EC', d: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', x: 'abc' },
        link: 'https://user:hunter2@example.org/x',
        echo: `unknown kid ${KID.toUpperCase()}`,
        header: { kid: KID },
      },
      { kids: [KID] },
    );
    assert.ok(!text.includes(JWT), text);
    assert.doesNotMatch(text, /PRIVATE KEY/);
    assert.ok(!text.includes('c2VjcmV0c2VjcmV0'), text);
    assert.ok(!text.includes('hunter2'), text);
    assert.ok(!text.toLowerCase().includes(KID.toLowerCase()), text);
    assert.match(text, /user:<redacted>@example\.org/);
  });

  it('cuts long text, caps long lists and rounds coordinates unless asked not to', () => {
    const value = {
      detail: 'x'.repeat(5000),
      rows: Array.from({ length: 300 }, (_, i) => i),
      location: { lat: 52.520008, lng: 13.404954 },
      geometry: { coordinates: [[13.404954, 52.520008]] },
    };
    const scrubbed = JSON.parse(answerText(value)) as {
      detail: string;
      rows: unknown[];
      location: { lat: number; lng: number };
      geometry: { coordinates: number[][] };
    };
    assert.ok(scrubbed.detail.length < 2100);
    assert.equal(scrubbed.rows.length, 201);
    assert.deepEqual(scrubbed.location, { lat: 52.52, lng: 13.405 });
    assert.deepEqual(scrubbed.geometry.coordinates, [[13.405, 52.52]]);
    const precise = JSON.parse(answerText(value, { preciseLocations: true })) as typeof scrubbed;
    assert.deepEqual(precise.location, { lat: 52.520008, lng: 13.404954 });
  });
});
