import { MobilityError } from '../core/base';

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
   * Calls `handler` on the next Ctrl-C (SIGINT) instead of ending the process; returns what undoes that. A second Ctrl-C
   * ends the process as usual. Absent where there is no terminal to interrupt (tests in-process).
   */
  onInterrupt?: (handler: () => void) => () => void;
}


/** The real process: stdout, stderr, stdin, the environment, and Ctrl-C / SIGTERM. */
export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text + '\n'),
    write: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text + '\n'),
    readStdin: async () => {
      if (process.stdin.isTTY) throw new MobilityError('USAGE', 'decode needs a token: give it as an argument, or pipe it in and pass -.');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    ...(process.stderr.isTTY ? { statusLine: (text: string) => void process.stderr.write(`\r\x1b[2K${text}`) } : {}),
    onInterrupt: (handler) => {
      process.once('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
    untilStopped: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
  };
}
