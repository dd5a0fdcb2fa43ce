// An agent tool through `mobility-api mcp` (the SDK's Client over stdio against the built CLI) against the same tool
// run in-process plus one stdio round trip of a bare SDK server with a tool that does nothing (issue 41: goal
// <= 1.2 x: the MCP surface adds no more than the protocol itself costs).
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgentHistory } from '../src/agent/agentHistory';
import { runAgentTool } from '../src/agent/agentTools';
import { TokenIssuer } from '../src/core/auth';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { alternate, median, nowMs } from './stats';

const CALLS = 50;
const ROUNDS = 6;
const TOKEN =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImJlbmNoLWtpZC0wMTIzNDU2Nzg5YWIifQ.eyJpc3MiOiJiZW5jaEBleGFtcGxlLm9yZyIsImF1ZCI6Imh0dHBzOi8vbWRzLmV4YW1wbGUub3JnIiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDAzMDAsImp0aSI6IjNmMjUwNGUwLTRmODktNDFkMy05YTBjLTAzMDVlODJjMzMwMSJ9.c2lnbmF0dXJl';

/** A bare SDK server over stdio with one tool that answers `{}`: the protocol's own cost of one call. */
const BARE_SERVER = `
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'noop', inputSchema: { type: 'object' } }] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: '{}' }] }));
server.connect(new StdioServerTransport());
`;

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, cwd: process.cwd(), stderr: 'ignore' }));
  return client;
}

export async function agentFigures(): Promise<ReportedFigure> {
  const ours = await connect(process.execPath, [path.resolve('dist/cli.js'), 'mcp']);
  const bare = await connect(process.execPath, ['-e', BARE_SERVER]);
  const context = {
    environments: () => Promise.resolve([]),
    credential: () => Promise.resolve(undefined),
    signing: () => ({ issuer: new TokenIssuer() }),
    history: new AgentHistory(),
    allowNetwork: false,
    allowProduction: false,
    root: process.cwd(),
  };
  try {
    const throughMcp = async () => {
      const t0 = nowMs();
      for (let i = 0; i < CALLS; i++) await ours.callTool({ name: 'decode_token', arguments: { token: TOKEN } });
      return (nowMs() - t0) / CALLS;
    };
    const inProcessPlusRoundTrip = async () => {
      const t0 = nowMs();
      for (let i = 0; i < CALLS; i++) {
        await runAgentTool('decode_token', { token: TOKEN }, context);
        await bare.callTool({ name: 'noop', arguments: {} });
      }
      return (nowMs() - t0) / CALLS;
    };
    const { a, b } = await alternate(ROUNDS, 1, throughMcp, inProcessPlusRoundTrip);
    const ratio = median(a) / median(b);
    return {
      name: 'decode_token through mobility-api mcp (the SDK client over stdio) / the same tool in-process plus one stdio round trip of a bare SDK server',
      value: ratio,
      unit: 'x',
      target: '<= 1.2 x',
      met: ratio <= 1.2,
      raw: `per call: through MCP ${round3(median(a))} ms, in-process + bare round trip ${round3(median(b))} ms; ${ROUNDS} rounds of ${CALLS} per side`,
    };
  } finally {
    await ours.close();
    await bare.close();
  }
}
