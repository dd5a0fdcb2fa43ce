/**
 * A gRPC call made from the CLI (`grpc call`, and `send` of a `.http` file's GRPC request): each answer message printed
 * as it arrives, then the summary, and after a refusal why it was likely refused.
 */
import type { Credential } from '../../core/auth';
import type { Environment } from '../../core/environment';
import type { FileClockStore } from '../../core/clock';
import type { GrpcAuth, GrpcCallRequest, GrpcCallResult, GrpcConnection, GrpcSchema } from '../../core/grpc';
import { callMethod } from '../../core/grpc';
import { refusalExchangeOf } from '../../results/grpc/grpcRefusal';
import type { CliIo } from '../support/cliIo';
import { formatRefusal } from '../support/output';
import { CallPrinter, grpcServerLine } from './grpcOutput';

/** What a run signs with, when it was given a credential: the auth for calls and what explains a refusal. */
export interface Signing {
  auth: GrpcAuth;
  environment: Environment;
  credential: Credential;
  store: FileClockStore;
  /** The state folder (the shared clock's), where the schema reflection gave is kept for a while. */
  stateDir: string;
}

/**
 * Makes the call and prints it as it goes (each answer message as it arrives, never all of them held), then the summary;
 * on stderr a status that is not OK and, after a refusal, why it was likely refused. Ctrl-C cancels the call: what arrived
 * is printed, then "cancelled after N messages", exit 130. Exit 0 only on OK.
 */
export async function runCall(
  connection: GrpcConnection,
  schema: GrpcSchema,
  signing: Signing | undefined,
  request: GrpcCallRequest,
  values: { json?: boolean },
  io: CliIo,
): Promise<number> {
  const printer = new CallPrinter(io, values.json === true);
  const controller = new AbortController();
  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  const undo = io.onInterrupt?.((signal) => {
    interrupted = signal;
    controller.abort();
  });
  // Exit 130 after Ctrl-C, 143 after SIGTERM (128 + the signal's number), as a shell reports a process they ended.
  const cancelled = (count: number) => {
    io.err(
      `mobility-api: cancelled${interrupted === 'SIGTERM' ? ' (SIGTERM)' : ''} after ${count} ${count === 1 ? 'message' : 'messages'}`,
    );
    return interrupted === 'SIGTERM' ? 143 : 130;
  };
  let result: GrpcCallResult;
  try {
    result = await callMethod(connection, schema, signing?.auth, {
      ...request,
      signal: controller.signal,
      keepMessages: false,
      onStarted: (started) => printer.started(started),
      onMessage: (message) => printer.message(message),
    });
  } catch (err) {
    if (interrupted) {
      // What was printed stays a whole document.
      printer.end();
      return cancelled(printer.printed);
    }
    throw err;
  } finally {
    undo?.();
  }
  printer.finish(result);
  if (interrupted) return cancelled(result.messageCount);
  if (result.status.code === 0) return 0;
  io.err(`mobility-api: ${result.status.name}: ${grpcServerLine(result, result.status.message, 500)}`);
  if (result.status.name === 'RESOURCE_EXHAUSTED' && /message larger than max/i.test(result.status.message)) {
    io.err('mobility-api: give a larger limit with --max-message-size (such as --max-message-size 16MB).');
  }
  const exchange = refusalExchangeOf(result);
  if (exchange && signing) {
    const refusal = await formatRefusal(exchange, signing.environment, signing.credential, signing.store);
    if (refusal) io.err(refusal);
  }
  return 1;
}
