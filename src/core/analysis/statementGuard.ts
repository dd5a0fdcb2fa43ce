/** The statements of a session: stopped by a caller's signal (Ctrl-C, SIGTERM) or after a timeout, with DuckDB's interrupt. */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { SessionLimits } from './queryErrors';
import { queryFailed } from './queryErrors';

type Connection = import('@duckdb/node-api').DuckDBConnection;

/** The error of a session stopped by its caller (Ctrl-C, SIGTERM). */
export function stopped(cause?: unknown): MobilityError {
  return new MobilityError('ANALYSIS_QUERY_FAILED', l10n.t('The analysis was stopped.'), { cause });
}

/** Runs a session's statements so that they can be interrupted, and says why one was. */
export class StatementGuard {
  /** Why the running statement was interrupted: a timeout (its seconds) or a stop, else undefined. */
  private interrupted?: { timeoutSeconds?: number };
  /** Whether the caller's stop signal came: every statement from then on is refused. */
  private stopped = false;
  private unlisten?: () => void;

  constructor(
    private readonly connection: Connection,
    private readonly limits: SessionLimits,
  ) {}

  /** Interrupts every statement from when `stop` aborts, until `dispose`. */
  stopWhen(stop: AbortSignal): void {
    const onStop = () => {
      this.stopped = true;
      this.interrupt();
    };
    stop.addEventListener('abort', onStop);
    this.unlisten = () => stop.removeEventListener('abort', onStop);
  }

  /** Interrupts the statement running now; it rejects. */
  interrupt(): void {
    this.interrupted ??= {};
    this.connection.interrupt();
  }

  /** Why the statement that just failed was interrupted, if it was. */
  private interruption(): { timeoutSeconds?: number } | undefined {
    return this.interrupted;
  }

  /** Runs `work`, interrupted after `timeoutSeconds` (none: no limit); its error said as a timeout, a stop or a query's. */
  async run<T>(work: () => Promise<T>, timeoutSeconds?: number): Promise<T> {
    if (this.stopped) throw stopped();
    this.interrupted = undefined;
    const timer =
      timeoutSeconds === undefined
        ? undefined
        : setTimeout(() => {
            this.interrupted = { timeoutSeconds };
            this.connection.interrupt();
          }, timeoutSeconds * 1000);
    try {
      return await work();
    } catch (err) {
      const why = this.interruption();
      if (why?.timeoutSeconds !== undefined) {
        throw new MobilityError(
          'ANALYSIS_TIMED_OUT',
          l10n.t(
            'The query ran for {0} s, its --timeout, and was stopped. Narrow it (a WHERE on the time, a LIMIT), or give it longer with --timeout.',
            why.timeoutSeconds,
          ),
          { cause: err },
        );
      }
      if (why || this.stopped) throw stopped(err);
      throw queryFailed(err, this.limits);
    } finally {
      if (timer) clearTimeout(timer);
      this.interrupted = undefined;
    }
  }

  dispose(): void {
    this.unlisten?.();
  }
}
