import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { SandboxEnvironment, SandboxOptions } from '../src/sandbox/sandboxServer';

/** What the parent sends the sandbox child: options that survive IPC, and trust-file entries. */
export interface SandboxChildRequest {
  options: Pick<SandboxOptions, 'fleetSize' | 'pageSize' | 'verifyTokens'>;
  trust: unknown[];
}

export type SandboxChildReply =
  { ok: true; url: string; environments: SandboxEnvironment[] } | { ok: false; error: string };

/** A sandbox running in a child process. */
export interface SandboxProcess {
  url: string;
  environments: SandboxEnvironment[];
  pid: number;
  /** The MDS staging environment, where every benchmark request goes. */
  mds: SandboxEnvironment;
  close(): Promise<void>;
}

/** Forks `dist/bench/sandboxChild.js` and waits until its sandbox listens. */
export function startSandboxProcess(request: SandboxChildRequest): Promise<SandboxProcess> {
  const child: ChildProcess = fork(join(__dirname, 'sandboxChild.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The sandbox child exited early (code ${String(code)}).`)));
    child.once('message', (reply: SandboxChildReply) => {
      if (!reply.ok) {
        reject(new Error(`The sandbox did not start: ${reply.error}`));
        return;
      }
      const mds = reply.environments.find((e) => e.id === 'mds-staging');
      if (!mds) {
        reject(new Error('The sandbox has no mds-staging environment.'));
        return;
      }
      resolve({
        url: reply.url,
        environments: reply.environments,
        pid: child.pid ?? 0,
        mds,
        close: async () => {
          if (child.exitCode === null && child.connected) child.send('close');
          await exited;
        },
      });
    });
    child.send(request);
  });
}
