// send_request through `mobility-api mcp` (the SDK's Client over stdio against the built CLI, one server for the whole
// session, as an agent keeps it) against `mobility-api request` for the same REST request, the way an agent without
// MCP would run it: one CLI process per request (issue 41: goal <= 1.2 x). Printed beside it: the same request through
// the CLI's code in this process (its command, no process start: what the MCP surface adds over the CLI's own work), and the
// gRPC pair (send_request with grpc_method against `mobility-api grpc call`). One sandbox, verifying, in its own process.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgentHistory } from '../src/agent/agentHistory';
import type { AgentContext } from '../src/agent/agentTool';
import { runAgentTool } from '../src/agent/agentTools';
import { requestCommand } from '../src/cli/commands/requestCommand';
import { issuerFrom, loadCredential } from '../src/cli/support/options';
import type { CliIo } from '../src/cli/support/cliIo';
import { BENCH_ISSUER, credentialFromPem, ecPem, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { startSandboxProcess } from './sandboxProcess';
import { interleave, median, medianRatio, nowMs } from './stats';

const ROUNDS = 4;
/** Calls per round: the MCP calls take milliseconds, a CLI process a good part of a second. */
const MCP_CALLS = 20;
const CLI_CALLS = 4;
const GRPC_METHOD = 'mobility.sandbox.v1.VehicleService/GetVehicle';

/** `node dist/cli.js <args>`, its exit code checked. */
function spawnCli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.resolve('dist/cli.js'), ...args],
      { env: { ...process.env, MOBILITY_API_DEBUG: '' }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`mobility-api ${args[0]} failed: ${stderr.slice(0, 300)}`));
        else resolve();
      },
    );
  });
}

/**
 * `mobility-api request` in this process (its command, not src/cli/main, which runs the CLI when it is a bundle's
 * main module), its output thrown away.
 */
async function requestInProcess(args: string[]): Promise<void> {
  let err = '';
  const io: CliIo = {
    out: () => undefined,
    write: () => undefined,
    err: (t) => (err += t),
    readStdin: () => Promise.resolve(''),
    env: {},
    untilStopped: () => Promise.resolve(),
  };
  const code = await requestCommand(args.slice(1), io);
  if (code !== 0) throw new Error(`mobility-api ${args[0]} in-process: exit ${code}: ${err.slice(0, 300)}`);
}

/** `calls` runs of `once`, the mean per call in ms. */
function perCall(calls: number, once: () => Promise<unknown>): () => Promise<number> {
  return async () => {
    const t0 = nowMs();
    for (let i = 0; i < calls; i++) await once();
    return (nowMs() - t0) / calls;
  };
}

export async function agentRequestFigures(): Promise<ReportedFigure[]> {
  const pem = ecPem();
  const credential = credentialFromPem('ES256', pem, 'bench-agent-request-kid-0001');
  const sandbox = await startSandboxProcess({
    options: { fleetSize: 500, pageSize: 10, verifyTokens: true },
    trust: [trustEntryOf(credential)],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-agent-requests-'));
  const keyFile = path.join(dir, 'key.pem');
  fs.writeFileSync(keyFile, pem, { mode: 0o600 });
  const grpcTarget = sandbox.mds.grpcTarget ?? '';
  const credentialFlags = [
    '--private-key',
    keyFile,
    '--kid',
    credential.kid,
    '--iss',
    BENCH_ISSUER,
    '--type',
    credential.type,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];
  const restArgs = ['request', '/vehicles', '--base-url', sandbox.mds.baseUrl, '--api', 'mds', ...credentialFlags];
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.resolve('dist/cli.js'),
      'mcp',
      '--base-url',
      sandbox.mds.baseUrl,
      '--api',
      'mds',
      '--stage',
      'staging',
      '--allow-network',
      '--grpc-target',
      grpcTarget,
      '--plaintext',
      ...credentialFlags,
    ],
    cwd: dir,
    stderr: 'pipe',
  });
  let mcpStderr = '';
  transport.stderr?.on('data', (d: Buffer) => (mcpStderr += d.toString()));
  await client.connect(transport).catch((err: unknown) => {
    throw new Error(`mobility-api mcp did not start: ${String(err)} ${mcpStderr.slice(0, 500)}`);
  });
  try {
    const send = async (args: Record<string, unknown>) => {
      const answer = await client.callTool({ name: 'send_request', arguments: args });
      const text = (answer.content as { text: string }[])[0]?.text ?? '';
      if (answer.isError || !/"(status|name)": (200|"OK")/.test(text))
        throw new Error(`send_request did not succeed: ${text.slice(0, 300)}`);
    };
    const device = await client.callTool({
      name: 'send_request',
      arguments: { grpc_method: 'mobility.sandbox.v1.VehicleService/ListVehicles', max_items: 1 },
    });
    const deviceId = (
      JSON.parse((device.content as { text: string }[])[0].text) as { messages: { device_id: string }[] }
    ).messages[0]?.device_id;
    if (!deviceId) throw new Error('ListVehicles over gRPC gave no vehicle');
    const grpcArgs = [
      'grpc',
      'call',
      GRPC_METHOD,
      '--target',
      grpcTarget,
      '--plaintext',
      '--aud',
      sandbox.mds.baseUrl,
      '--data',
      JSON.stringify({ device_id: deviceId }),
      ...credentialFlags,
    ];

    // The same tool in this process, with the context the MCP server makes: the MCP surface's own cost apart.
    const quiet: CliIo = {
      out: () => undefined,
      err: () => undefined,
      readStdin: () => Promise.resolve(''),
      env: {},
      untilStopped: () => Promise.resolve(),
    };
    const values = {
      'private-key': keyFile,
      kid: credential.kid,
      iss: BENCH_ISSUER,
      type: credential.type,
      'state-dir': path.join(dir, 'state'),
      precision: 'milliseconds',
    };
    const signing = issuerFrom(values, quiet);
    const own = loadCredential(values, quiet, 'mds');
    const environment = {
      id: 'mds',
      name: 'mds staging',
      api: 'mds' as const,
      stage: 'staging',
      baseUrl: sandbox.mds.baseUrl,
      headers: { Accept: 'application/vnd.mds+json;version=2.0' },
    };
    const context: AgentContext = {
      environments: () => Promise.resolve([{ environment }]),
      credential: () => Promise.resolve(own),
      signing: () => signing,
      history: new AgentHistory(),
      allowNetwork: true,
      allowProduction: false,
      root: dir,
    };
    const toolInProcess = async () => {
      const answer = await runAgentTool('send_request', { path: '/vehicles' }, context);
      if (answer.isError) throw new Error(`send_request in-process: ${answer.text.slice(0, 300)}`);
    };
    const [mcpRest = [], cliRest = [], inProcessRest = [], toolRest = []] = await interleave(ROUNDS, 1, [
      perCall(MCP_CALLS, () => send({ path: '/vehicles' })),
      perCall(CLI_CALLS, () => spawnCli(restArgs)),
      perCall(MCP_CALLS, () => requestInProcess(restArgs)),
      perCall(MCP_CALLS, toolInProcess),
    ]);
    const [mcpGrpc = [], cliGrpc = []] = await interleave(ROUNDS, 1, [
      perCall(MCP_CALLS, () => send({ grpc_method: GRPC_METHOD, message: { device_id: deviceId } })),
      perCall(CLI_CALLS, () => spawnCli(grpcArgs)),
    ]);
    const restRatio = medianRatio(mcpRest, cliRest);
    const inProcessRatio = medianRatio(mcpRest, inProcessRest);
    const grpcRatio = medianRatio(mcpGrpc, cliGrpc);
    return [
      {
        name: 'send_request (GET /vehicles) through mobility-api mcp / mobility-api request for the same request (a CLI process per request)',
        value: restRatio,
        unit: 'x',
        target: '<= 1.2 x',
        met: restRatio <= 1.2,
        raw: `per request: through MCP ${round3(median(mcpRest))} ms, mobility-api request ${round3(median(cliRest))} ms; the CLI's request in-process (no process start) ${round3(median(inProcessRest))} ms, MCP / in-process ${round3(inProcessRatio)} x; the send_request tool in-process (runAgentTool) ${round3(median(toolRest))} ms; ${ROUNDS} rounds of ${MCP_CALLS} MCP and ${CLI_CALLS} CLI requests`,
      },
      {
        name: 'send_request over gRPC (GetVehicle) through mobility-api mcp / mobility-api grpc call (a CLI process per call)',
        value: grpcRatio,
        unit: 'x',
        target: '<= 1.2 x',
        met: grpcRatio <= 1.2,
        raw: `per call: through MCP ${round3(median(mcpGrpc))} ms, mobility-api grpc call ${round3(median(cliGrpc))} ms; ${ROUNDS} rounds of ${MCP_CALLS} MCP and ${CLI_CALLS} CLI calls`,
      },
    ];
  } finally {
    await client.close();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
