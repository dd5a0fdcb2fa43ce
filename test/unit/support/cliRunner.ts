import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distinctKeyPair } from '../keyFixtures';
import { runCli } from '../../../src/cli/main';
import type { CliIo } from '../../../src/cli/main';

/** What one CLI run printed and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `mobility-api <args>` in this process, capturing its output. */
export async function runCliInProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += `${t}\n`),
    write: (t) => (out += t),
    err: (t) => (err += `${t}\n`),
    readStdin: () => Promise.resolve(''),
    env,
    untilStopped: () => Promise.resolve(),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/** Runs the built `dist/cli.js` in a child process, as a shell would, with extra environment variables. */
export function spawnBuiltCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.resolve('dist/cli.js'), ...args],
      { env: { ...process.env, MOBILITY_API_DEBUG: '', ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** A throw-away External Organization credential on disk, and the CLI flags that use it. */
export interface CliCredential {
  dir: string;
  kid: string;
  /** `--private-key … --kid … --iss … --type external-org --state-dir … --precision milliseconds`. */
  flags: string[];
  remove(): void;
}

/** Writes a P-256 key generated for this run (mode 0600) to a new temporary folder. */
export function makeCliCredential(): CliCredential {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-cli-faults-'));
  const keyFile = path.join(dir, 'test-only-ec.pem');
  const { privateKey } = distinctKeyPair('p256');
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const kid = `cli-faults-${path.basename(dir).slice(-6)}`;
  return {
    dir,
    kid,
    flags: [
      '--private-key',
      keyFile,
      '--kid',
      kid,
      '--iss',
      'org-1@example.test',
      '--type',
      'external-org',
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ],
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
