/**
 * The host's side of the analysis worker (analysisWorker.ts): forks it on the first request, sends JSON requests
 * over the IPC channel and matches the answers by id. When the worker dies (a native crash of DuckDB, out of
 * memory, killed), every request it held fails with a clear error and the next request starts a new worker; the
 * extension host itself is never touched. Cancelling a request ends the worker (DuckDB cannot be stopped
 * half-way otherwise); the next request starts a new one. No vscode.
 */
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../../core/base';
import { isErrorCode } from '../../shared/errorCodes';
import type { WorkerAnswer, WorkerCall } from './workerProtocol';
import { isWorkerAnswer } from './workerProtocol';

/** A request the user cancelled: not an error to show (the one code of cancellation, recognised in every bundle). */
export function analysisCancelled(): MobilityError {
  return new MobilityError('CANCELLED', l10n.t('The analysis was cancelled.'));
}

interface Pending {
  /** The worker the request went to: only its end fails the request. */
  child: ChildProcess;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** Characters of the worker's last error output kept for the log. */
const STDERR_KEPT = 2000;

export class AnalysisWorkerClient {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Each worker's last error output, for the log line of its end. */
  private readonly stderrOf = new WeakMap<ChildProcess, string>();
  /** Workers started so far (tests read it: a new one after a crash). */
  started = 0;

  /** The limits the running worker was started with (its arguments). */
  private childLimit: string | undefined;

  /**
   * `script` is the worker's file (dist/analysisWorker.js); `onLog` hears its start, end and error output;
   * `memoryLimit` and `tempLimit` give DuckDB's memory limit and its temporary folder's (the settings) when a request
   * is sent: a worker started with other limits is ended first, and a new one starts with them.
   */
  constructor(
    private readonly script: string,
    private readonly onLog: (line: string) => void = () => undefined,
    private readonly memoryLimit: () => string | undefined = () => undefined,
    private readonly tempLimit: () => string | undefined = () => undefined,
  ) {}

  /** The running worker's process id, if one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Sends `call` to the worker (started when none runs) and waits for its answer; `signal` cancels it. */
  request<T>(call: WorkerCall, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(analysisCancelled());
    const child = this.ensure();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        reject(analysisCancelled());
        // The only way to stop a query DuckDB is running: end the worker. Its other requests fail as in a crash.
        this.onLog('cancelled: the analysis worker is stopped; the next analysis starts a new one');
        this.stop(child);
      };
      this.pending.set(id, {
        child,
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value as T);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      const request = { ...call, id };
      child.send(request, (err) => {
        if (err)
          this.settle({
            id,
            ok: false,
            error: {
              code: 'ANALYSIS_ENGINE_FAILED',
              message: l10n.t('Could not reach the analysis engine: {0}', errorMessage(err)),
            },
          });
      });
    });
  }

  /** Ends the worker, if one runs; pending requests fail. */
  dispose(): void {
    if (this.child) this.stop(this.child);
  }

  private ensure(): ChildProcess {
    const memory = this.memoryLimit();
    const temp = this.tempLimit();
    const args = [...(memory ? [`--memory-limit=${memory}`] : []), ...(temp ? [`--temp-limit=${temp}`] : [])];
    const limit = args.join(' ');
    if (this.child && limit !== this.childLimit && !this.pending.size) {
      this.onLog(`the limits are now ${limit || 'the defaults'}: the analysis worker starts again with them`);
      this.stop(this.child);
    }
    if (this.child && this.child.exitCode === null && this.child.signalCode === null && this.child.connected)
      return this.child;
    // execArgv empty: never the extension host's own flags (--inspect and the like).
    const child = fork(this.script, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      execArgv: [],
      serialization: 'json',
    });
    this.child = child;
    this.childLimit = limit;
    this.started++;
    this.onLog(`analysis worker started (pid ${child.pid ?? '?'})`);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrOf.set(child, ((this.stderrOf.get(child) ?? '') + chunk).slice(-STDERR_KEPT));
    });
    child.on('message', (message: unknown) => {
      if (isWorkerAnswer(message)) this.settle(message);
    });
    child.on('error', (err) => this.onLog(`analysis worker: ${errorMessage(err)}`));
    child.on('exit', (code, signal) => this.exited(child, code, signal));
    return child;
  }

  private settle(answer: WorkerAnswer): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (answer.ok) pending.resolve(answer.result);
    else
      pending.reject(
        new MobilityError(
          isErrorCode(answer.error.code) ? answer.error.code : 'ANALYSIS_ENGINE_FAILED',
          answer.error.message,
        ),
      );
  }

  private stop(child: ChildProcess): void {
    if (this.child === child) this.child = undefined;
    child.kill('SIGKILL');
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child === child) this.child = undefined;
    const how = signal
      ? l10n.t('was ended by the signal {0}', signal)
      : l10n.t('stopped with exit code {0}', String(code));
    const stderr = (this.stderrOf.get(child) ?? '').trim();
    this.onLog(
      `analysis worker (pid ${child.pid ?? '?'}) ${signal ? `ended by ${signal}` : `exited with ${String(code)}`}${stderr ? `; its last error output: ${stderr}` : ''}`,
    );
    // Only this worker's requests: a worker ended to start another (a cancel, a new memory limit) ends after the new
    // one already took requests.
    const pending = [...this.pending].filter(([, p]) => p.child === child);
    for (const [id] of pending) this.pending.delete(id);
    for (const [, p] of pending) {
      p.reject(
        new MobilityError(
          'ANALYSIS_ENGINE_FAILED',
          l10n.t(
            'The analysis engine (DuckDB, in a process of its own) {0} before it answered; VS Code is not affected. Run the analysis again: a new engine starts. If it stops again, the harvest may be too large for the memory here (the log has its last words).',
            how,
          ),
        ),
      );
    }
  }
}
