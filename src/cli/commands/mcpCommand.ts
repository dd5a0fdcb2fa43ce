// `mobility-api mcp`: the agent tools of src/agent as an MCP server over stdio, for any agent that speaks MCP. Stdout is
// the protocol's channel: nothing else is written there; warnings go to stderr. Read-only unless --allow-network.
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Credential } from '../../core/auth';
import { MobilityError } from '../../core/base';
import type { Environment, GrpcEndpoint } from '../../core/environment';
import { parseGrpcEndpoint } from '../../core/environment';
import { GrpcSessions } from '../../core/grpc';
import { AgentHistory } from '../../agent/agentHistory';
import type { AgentContext, AgentEnvironment } from '../../agent/agentTool';
import { AGENT_TOOLS, runAgentTool } from '../../agent/agentTools';
import type { CliIo } from '../support/cliIo';
import { apiFrom, CREDENTIAL_OPTIONS, environmentFrom, issuerFrom, loadCredential, parse } from '../support/options';
import { CREDENTIAL_VARIABLES, credentialValues } from '../support/credentialVariables';
import { printUsage } from '../support/usage';

const MCP_OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  'base-url': { type: 'string' },
  api: { type: 'string' },
  stage: { type: 'string' },
  'allow-network': { type: 'boolean' },
  'allow-production': { type: 'boolean' },
  'precise-locations': { type: 'boolean' },
  // The environment's gRPC side, as `grpc call` takes it: send_request with grpc_method calls it.
  'grpc-target': { type: 'string' },
  plaintext: { type: 'boolean' },
  'ca-file': { type: 'string' },
  proto: { type: 'string', multiple: true },
  'import-path': { type: 'string', multiple: true },
  protoset: { type: 'string' },
} as const;

type McpValues = ReturnType<typeof parse<typeof MCP_OPTIONS>>['values'];

/** The gRPC endpoint of --grpc-target and its schema flags (relative files from the working directory); none without it. */
function grpcEndpointFrom(values: McpValues): GrpcEndpoint | undefined {
  const flags = (['plaintext', 'ca-file', 'proto', 'import-path', 'protoset'] as const).filter(
    (f) => values[f] !== undefined,
  );
  if (values['grpc-target'] === undefined) {
    if (flags.length)
      throw new MobilityError(
        'USAGE',
        `${flags.map((f) => `--${f}`).join(', ')} describe a gRPC target: give --grpc-target <host:port> too.`,
      );
    return undefined;
  }
  if (values.proto?.length && values.protoset !== undefined)
    throw new MobilityError('USAGE', 'Give the gRPC schema as --proto files or as one --protoset, not both.');
  if (values.plaintext && values['ca-file'] !== undefined)
    throw new MobilityError('USAGE', '--ca-file is for TLS: give --plaintext or --ca-file, not both.');
  if (values['import-path']?.length && !values.proto?.length)
    throw new MobilityError(
      'USAGE',
      '--import-path is where the imports of --proto files are found: give the --proto files too.',
    );
  const read = parseGrpcEndpoint(
    {
      target: values['grpc-target'],
      plaintext: values.plaintext,
      caFile: values['ca-file'],
      protoFiles: values.proto,
      importPaths: values['import-path'],
      protoset: values.protoset,
    },
    '--grpc-target',
    (p) => path.resolve(p),
  );
  if (read.problems.length || !read.endpoint) throw new MobilityError('USAGE', read.problems.join(' '));
  return read.endpoint;
}

/** The name a credential given on the command line is told by: its file's name, or the variable that named it. */
function credentialName(
  values: { 'private-key'?: string; 'key-file'?: string; credential?: string },
  fromEnv: boolean,
): string {
  if (fromEnv) return CREDENTIAL_VARIABLES.keyFile;
  const file = values['key-file'] ?? values.credential ?? values['private-key'] ?? '';
  return path.basename(file);
}

/**
 * The server's context: the one environment of --base-url (none without it: the local tools still work), its
 * credential from the flags or the MOBILITY_API_* variables, read once at start, and the shared per-key clock.
 */
function contextOf(values: McpValues, io: CliIo, sessions: GrpcSessions): AgentContext {
  const given =
    values['private-key'] !== undefined || values['key-file'] !== undefined || values.credential !== undefined;
  const fromEnv = !given && Boolean(io.env[CREDENTIAL_VARIABLES.keyFile]);
  const environments: AgentEnvironment[] = [];
  let credential: Credential | undefined;
  if (values['base-url'] !== undefined) {
    const api = apiFrom(values, false);
    const base: Environment = environmentFrom(
      values['base-url'],
      '--base-url',
      api,
      values,
      api === 'mds' ? { Accept: 'application/vnd.mds+json;version=2.0' } : {},
    );
    const stage = values.stage ?? 'custom';
    const grpc = grpcEndpointFrom(values);
    const environment: Environment = { ...base, id: api, name: `${api} ${stage}`, stage, ...(grpc ? { grpc } : {}) };
    if (given || fromEnv) credential = loadCredential(credentialValues(values, io.env), io, api);
    environments.push({ environment, ...(credential ? { credentialName: credentialName(values, fromEnv) } : {}) });
  } else if (given || values['grpc-target'] !== undefined) {
    io.err(
      'mobility-api: warning: a credential or --grpc-target without --base-url is not used: give the environment with --base-url <url> --api mds|maas (the audience of REST and gRPC tokens alike).',
    );
  }
  const signing = issuerFrom(values, io);
  return {
    environments: () => Promise.resolve(environments),
    credential: (id) => Promise.resolve(environments.some((e) => e.environment.id === id) ? credential : undefined),
    signing: () => signing,
    history: new AgentHistory(),
    // One channel and schema per environment (reflected once), a fresh token per call on the shared per-key clock.
    grpc: {
      call: (environment, credential, request) => {
        if (!environment.grpc)
          throw new MobilityError(
            'GRPC_TARGET_INVALID',
            `${environment.name} has no gRPC target: give --grpc-target <host:port>.`,
          );
        return sessions.call(
          environment.id,
          environment.grpc,
          { environment, credential, issuer: signing.issuer, queue: signing.queue },
          request,
        );
      },
    },
    allowNetwork: values['allow-network'] === true,
    allowProduction: values['allow-production'] === true,
    preciseLocations: values['precise-locations'] === true,
    root: process.cwd(),
  };
}

/** The package's version for the server's `initialize` answer. */
function serverVersion(): string {
  return process.env.npm_package_version ?? '0';
}

/**
 * `mobility-api mcp [--base-url <url> --api mds|maas [--stage <name>]] [credential] [--allow-network]
 * [--allow-production] [--precise-locations]`: serves until its client closes stdin.
 */
export async function mcpCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, MCP_OPTIONS);
  if (values.help) return printUsage(io, 'mcp');
  const sessions = new GrpcSessions();
  const context = contextOf(values, io, sessions);
  const server = new Server({ name: 'mobility-api', version: serverVersion() }, { capabilities: { tools: {} } });
  // Without --allow-network the network tools are not listed at all, and a call of one is refused with the reason.
  const listed = AGENT_TOOLS.filter((t) => context.allowNetwork || !t.network);
  server.setRequestHandler(ListToolsRequestSchema, () =>
    Promise.resolve({
      tools: listed.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { title: t.title, ...t.annotations, idempotentHint: !t.network },
      })),
    }),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (done: number, total: number | undefined, message: string) => {
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message },
              })
              .catch(() => undefined);
          };
    const answer = await runAgentTool(request.params.name, request.params.arguments ?? {}, context, {
      signal: extra.signal,
      ...(progress ? { progress } : {}),
    });
    return { content: [{ type: 'text' as const, text: answer.text }], isError: answer.isError };
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  io.err(
    `mobility-api: MCP server on stdio: ${listed.length} tools${context.allowNetwork ? '' : ' (read-only: --allow-network adds send_request, run_contract_tests, harvest_hours)'}.`,
  );
  await closed;
  await server.close().catch(() => undefined);
  sessions.forget();
  return 0;
}
