import os from 'node:os';
import type { AnalysisOptions, HarvestSource } from '../../core/analysis';
import { AnalysisSession } from '../../core/analysis';
import type { CliIo } from './cliIo';

/** What `stopOnSignals` gives an analysis command. */
export interface AnalysisStop {
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM: the session interrupts DuckDB's statement. */
  signal: AbortSignal;
  /** The exit code once stopped by a signal (128 + its number, as shells report it), else undefined. */
  exitCode(): number | undefined;
  /** Stops listening; call in `finally`, after the session is closed (its temporary folder removed). */
  end(): void;
}

/**
 * Ctrl-C (SIGINT) and SIGTERM (what `timeout` and CI send) during `sql`, `check`, `metrics` or `parquet`: the first
 * interrupts the engine, so that the command unwinds through its `finally` and the session's temporary folder (its
 * database file and spill files, hundreds of MB) is removed before the process ends; a second ends it at once.
 */
export function stopOnSignals(io: CliIo): AnalysisStop {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const codeOf = (signal: NodeJS.Signals) => 128 + (os.constants.signals[signal] ?? 2);
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(codeOf(received));
    received = signal;
    io.err(
      `mobility-api: stopping (${signal}); removing the analysis's temporary folder. Press Ctrl-C again to end at once.`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    exitCode: () => (received ? codeOf(received) : undefined),
    end: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Opens an analysis session of `source`, runs `work` on it and closes it (its temporary folder removed), stopping
 * on Ctrl-C or SIGTERM: then the exit code is 128 + the signal's number (130, 143).
 */
export async function withAnalysisSession(
  io: CliIo,
  source: HarvestSource,
  options: AnalysisOptions,
  work: (session: AnalysisSession) => Promise<number>,
): Promise<number> {
  const stop = stopOnSignals(io);
  try {
    const session = await AnalysisSession.open(source, options, stop.signal);
    try {
      return await work(session);
    } finally {
      session.close();
    }
  } catch (err) {
    const code = stop.exitCode();
    if (code !== undefined) return code;
    throw err;
  } finally {
    stop.end();
  }
}
