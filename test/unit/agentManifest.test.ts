// The agent tools as VS Code sees them: every tool registered at activation (AGENT_TOOL_NAMES) is declared in
// package.json's languageModelTools with the same schema and model description, and the other way round; and every
// prepareInvocation's words (a network tool's confirmation names method, URL, environment and stage).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import { AgentHistory } from '../../src/agent/agentHistory';
import type { AgentContext } from '../../src/agent/agentTool';
import { AGENT_TOOL_NAMES } from '../../src/agent/agentToolNames';
import { AGENT_TOOLS } from '../../src/agent/agentTools';
import { invocationMessages } from '../../src/agent/invocationMessages';
import { parseCredential, TokenIssuer } from '../../src/core/auth';
import type { Environment } from '../../src/core/environment';

interface ManifestTool {
  name: string;
  displayName: string;
  userDescription: string;
  modelDescription: string;
  toolReferenceName: string;
  tags: string[];
  inputSchema: unknown;
}
const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  contributes: { languageModelTools: ManifestTool[] };
};
const nls = JSON.parse(fs.readFileSync('package.nls.json', 'utf8')) as Record<string, string>;
const declared = manifest.contributes.languageModelTools;

describe('agent tools in VS Code: registered = declared', () => {
  it('registers every tool of src/agent, and only those', () => {
    assert.deepEqual(
      [...AGENT_TOOL_NAMES],
      AGENT_TOOLS.map((t) => t.name),
    );
  });

  it('declares in package.json every registered tool, and no other', () => {
    assert.deepEqual(declared.map((t) => t.name).sort(), [...AGENT_TOOL_NAMES].sort());
  });

  it("declares each with the tool's own schema, model description and hints, its titles in package.nls.json", () => {
    for (const tool of AGENT_TOOLS) {
      const entry = declared.find((t) => t.name === tool.name);
      assert.ok(entry, tool.name);
      assert.deepEqual(
        entry.inputSchema,
        tool.inputSchema,
        `${tool.name}: the manifest's inputSchema is the tool's (regenerate it)`,
      );
      assert.equal(entry.modelDescription, tool.description, tool.name);
      assert.equal(entry.toolReferenceName, tool.name);
      assert.ok(entry.tags.includes(tool.network ? 'network' : 'read-only'), tool.name);
      for (const key of [entry.displayName, entry.userDescription])
        assert.ok(nls[key.replace(/^%|%$/g, '')], `${key} in package.nls.json`);
    }
  });
});

describe('agent tools: prepareInvocation says what each call will do', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credential = parseCredential({
    kind: 'ec',
    type: 'external-org',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    kid: 'manifest-kid-0123456789',
    issuer: 'a@example.org',
  }).credential;
  const staging: Environment = {
    id: 'mds-staging',
    name: 'MDS Staging',
    api: 'mds',
    stage: 'staging',
    baseUrl: 'https://mds.example.org/v2',
  };
  const production: Environment = {
    id: 'mds-production',
    name: 'MDS Production',
    api: 'mds',
    stage: 'production',
    baseUrl: 'https://mds.example.org/prod',
  };
  const context: AgentContext = {
    environments: () => Promise.resolve([{ environment: staging }, { environment: production }]),
    credential: () => Promise.resolve(credential),
    signing: () => ({ issuer: new TokenIssuer() }),
    history: new AgentHistory(),
    allowNetwork: true,
    allowProduction: false,
    root: '/work/space',
  };
  const inputs: Record<string, Record<string, unknown>> = {
    send_request: { environment: 'mds-staging', path: '/vehicles', query: { page_size: '5' } },
    run_contract_tests: { environment: 'mds-staging', files: ['requests/'] },
    harvest_hours: {
      environment: 'mds-staging',
      endpoint: 'trips',
      from: '2024-11-05T10',
      to: '2024-11-05T12',
      out: 'harvest',
    },
    decode_token: { token: 'x' },
    run_check: { folder: 'harvest' },
  };

  it('gives every tool a message; only the network tools ask for a confirmation', async () => {
    for (const tool of AGENT_TOOLS) {
      const words = await invocationMessages(tool.name, inputs[tool.name] ?? {}, context);
      assert.ok(words.invocation.length > 10, tool.name);
      assert.equal(words.confirmation !== undefined, tool.network, tool.name);
    }
  });

  it('names method, URL, environment and stage of a request; what a harvest writes where', async () => {
    const sent = await invocationMessages('send_request', inputs.send_request, context);
    assert.match(
      sent.confirmation?.message ?? '',
      /^GET https:\/\/mds\.example\.org\/v2\/vehicles\?page_size=5 on MDS Staging \(stage staging\)\. Each request signs a fresh token/,
    );
    const harvest = await invocationMessages('harvest_hours', inputs.harvest_hours, context);
    assert.match(
      harvest.confirmation?.message ?? '',
      /trips hour by hour from 2024-11-05T10 to 2024-11-05T12 \(UTC\), from MDS Staging \(stage staging, https:\/\/mds\.example\.org\/v2\), written into \/work\/space\/harvest\./,
    );
  });

  it('names the gRPC method, target, environment, stage and audience of a gRPC call', async () => {
    const grpcContext: AgentContext = {
      ...context,
      environments: () => Promise.resolve([{ environment: { ...staging, grpc: { target: 'grpc.example.org:443' } } }]),
    };
    const words = await invocationMessages(
      'send_request',
      { grpc_method: 'mobility.sandbox.v1.VehicleService/GetVehicle', message: { device_id: 'x' } },
      grpcContext,
    );
    assert.equal(words.confirmation?.title, 'Make a gRPC call?');
    assert.match(
      words.confirmation?.message ?? '',
      /^gRPC mobility\.sandbox\.v1\.VehicleService\/GetVehicle on grpc\.example\.org:443 of MDS Staging \(stage staging, audience https:\/\/mds\.example\.org\/v2\)\. Each request signs a fresh token/,
    );
    const none = await invocationMessages(
      'send_request',
      { environment: 'mds-staging', grpc_method: 'mobility.sandbox.v1.VehicleService/GetVehicle' },
      context,
    );
    assert.match(none.confirmation?.message ?? '', /not sent: "MDS Staging" has no gRPC target/);
  });

  it('says a production environment will be refused unless the setting allows it', async () => {
    const input = { ...inputs.send_request, environment: 'mds-production' };
    assert.match(
      (await invocationMessages('send_request', input, context)).confirmation?.message ?? '',
      /production environment.*refused.*mobilityApi\.agents\.allowProduction/,
    );
    assert.doesNotMatch(
      (await invocationMessages('send_request', input, { ...context, allowProduction: true })).confirmation?.message ??
        '',
      /refused/,
    );
  });
});
