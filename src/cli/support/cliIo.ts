import { MobilityError } from '../../core/base';

/** The signals that stop a long call the way Ctrl-C does. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM';

/** Output streams, injectable so that tests can run the CLI in-process. */
export interface CliIo {
  out: (text: string) => void;
  /** Stdout without a line break added, for output written piece by piece (a JSON document of a stream); else `out`. */
  write?: (text: string) => void;
  err: (text: string) => void;
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  /** Resolves when the user asks a long-running command (sandbox) to stop. */
  untilStopped: () => Promise<void>;
  /**
   * On a terminal: replaces the one status line on stderr (progress); '' clears it. Absent when
   * stderr is not a terminal (progress is then printed line by line with `err`). Callers escape the text.
   */
  statusLine?: (text: string) => void;
  /**
   * Calls `handler` on the next Ctrl-C (SIGINT) or SIGTERM (what `timeout`, CI runners and `kill` send) instead of
   * ending the process; returns what undoes that. A second one ends the process as usual. Absent where there is no
   * process to interrupt (tests in-process).
   */
  onInterrupt?: (handler: (signal: InterruptSignal) => void) => () => void;
}

/**
 * A closed stdout or stderr (`mobility-api … | head`) ends the process quietly, with the status of a process ended by
 * SIGPIPE (141), as Unix tools end, instead of Node's `write EPIPE` stack trace: what was asked for is cut short, so
 * it is not a success. Any other write failure is said in one line.
 */
function quietOnClosedOutput(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') {
      try {
        process.stderr.write(`mobility-api: cannot write the output: ${err.message}\n`);
      } catch {
        // stderr is gone as well: nothing more can be said.
      }
    }
    process.exit(err.code === 'EPIPE' ? 141 : 1);
  });
}

/** The real process: stdout, stderr, stdin, the environment, and Ctrl-C / SIGTERM. */
export function processIo(): CliIo {
  quietOnClosedOutput(process.stdout);
  quietOnClosedOutput(process.stderr);
  return {
    out: (text) => process.stdout.write(text + '\n'),
    write: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text + '\n'),
    readStdin: async () => {
      if (process.stdin.isTTY)
        throw new MobilityError('USAGE', 'decode needs a token: give it as an argument, or pipe it in and pass -.');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    ...(process.stderr.isTTY ? { statusLine: (text: string) => void process.stderr.write(`\r\x1b[2K${text}`) } : {}),
    onInterrupt: (handler) => {
      const onInt = () => handler('SIGINT');
      const onTerm = () => handler('SIGTERM');
      process.once('SIGINT', onInt);
      process.once('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
    untilStopped: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
  };
}
