// `mobility-api`: the command-line front end over the same core as the extension. One file per
// subcommand; options in options.ts, everything printed in output.ts.
import fs from 'node:fs';
import path from 'node:path';
import { isMobilityError, MobilityError } from '../core/base';
import type { CliIo } from './support/cliIo';
import { processIo } from './support/cliIo';
import { checkCommand } from './commands/checkCommand';
import { codeCommand } from './commands/codeCommand';
import { decodeCommand } from './commands/decodeCommand';
import { demoCommand } from './commands/demoCommand';
import { endpointsCommand } from './commands/endpointsCommand';
import { grpcCommand } from './grpc/grpcCommand';
import { harvestCommand } from './commands/harvestCommand';
import { metricsCommand } from './commands/metricsCommand';
import { parquetCommand } from './commands/parquetCommand';
import { escapeForTerminal } from './support/output';
import { requestCommand } from './commands/requestCommand';
import { sandboxCommand } from './commands/sandboxCommand';
import { sendCommand } from './commands/sendCommand';
import { sqlCommand } from './commands/sqlCommand';
import { testCommand } from './commands/testCommand';
import { tokenCommand } from './commands/tokenCommand';
import { printUsage, USAGE } from './support/usage';
import { validateCommand } from './commands/validateCommand';
import { vehiclesCommand } from './commands/vehiclesCommand';

export type { CliIo } from './support/cliIo';
export { describeFailure } from './support/output';

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  token: tokenCommand,
  decode: decodeCommand,
  vehicles: vehiclesCommand,
  request: requestCommand,
  send: sendCommand,
  code: codeCommand,
  harvest: harvestCommand,
  grpc: grpcCommand,
  endpoints: endpointsCommand,
  validate: validateCommand,
  sql: sqlCommand,
  check: checkCommand,
  metrics: metricsCommand,
  parquet: parquetCommand,
  sandbox: sandboxCommand,
  demo: demoCommand,
  test: testCommand,
  // The MCP SDK is loaded only by this command.
  mcp: async (args, io) => (await import('./commands/mcpCommand')).mcpCommand(args, io),
};

/**
 * Runs one CLI invocation and returns its exit code. Whatever it prints passes through
 * `escapeForTerminal`: claims, server answers and file names are data, never terminal commands.
 */
export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  const { write } = rawIo;
  const io: CliIo = {
    ...rawIo,
    out: (text) => rawIo.out(escapeForTerminal(text)),
    err: (text) => rawIo.err(escapeForTerminal(text)),
    ...(write ? { write: (text: string) => write(escapeForTerminal(text)) } : {}),
  };
  const [command, ...rest] = argv;
  try {
    if (command !== undefined && Object.hasOwn(COMMANDS, command)) {
      // `mobility-api <command> --help`: that command's usage, whatever else the line holds.
      const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
      if (options.includes('--help') || options.includes('-h')) return printUsage(io, command);
      return await COMMANDS[command](rest, io);
    }
    if (command === '--version' || command === '-V' || command === 'version') {
      io.out(`mobility-api ${cliVersion()}`);
      return 0;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      io.out(USAGE);
      return command === undefined ? 2 : 0;
    }
    throw new MobilityError('USAGE', `Unknown command "${command}". Run \`mobility-api help\` for the commands.`);
  } catch (err) {
    return reportError(err, io);
  }
}

/** The package's version, from its package.json (beside dist/ in the package and the clone). */
function cliVersion(): string {
  for (let dir = __dirname, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'mobility-api-explorer' && manifest.version) return manifest.version;
    } catch {
      // not here: one folder up
    }
  }
  return 'unknown';
}

function reportError(err: unknown, io: CliIo): number {
  if (isMobilityError(err)) {
    io.err(`mobility-api: ${err.message}`);
    return err.code.startsWith('HTTP_') ||
      err.code === 'SIGNATURE_INVALID' ||
      err.code === 'GRPC_UNREACHABLE' ||
      err.code === 'GRPC_TLS' ||
      err.code === 'GRPC_FAILED'
      ? 1
      : 2;
  }
  const code = (err as { code?: string })?.code ?? '';
  if (code.startsWith('ERR_PARSE_ARGS')) {
    io.err(`mobility-api: ${(err as Error).message.split('\n')[0]} Run \`mobility-api help\` for the options.`);
    return 2;
  }
  io.err(`mobility-api: unexpected failure: ${(err as Error)?.message ?? String(err)}`);
  if (io.env.MOBILITY_API_DEBUG) io.err(String((err as Error)?.stack));
  return 1;
}

/**
 * Node's warnings printed as Node prints them, but for DEP0123: @grpc/grpc-js gives a TLS connection to an IP address
 * target (`grpc … --target 10.0.0.5:443`) that address as its server name, which Node deprecates on every connection.
 * Nothing a user can act on; every other warning still shows.
 */
function withoutIpServerNameWarning(): void {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if ((warning as Error & { code?: string }).code === 'DEP0123') return;
    for (const print of printers) print(warning);
  });
}

if (require.main === module) {
  withoutIpServerNameWarning();
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}
