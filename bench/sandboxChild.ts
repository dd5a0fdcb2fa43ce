// Runs one sandbox in its own process, so that the server's work does not share a thread with the
// client being measured. Started by sandboxProcess.ts over IPC; never run by hand.
import { parseTrustFile, startSandbox } from '../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../src/sandbox/sandboxServer';
import type { SandboxChildReply, SandboxChildRequest } from './sandboxProcess';

let sandbox: RunningSandbox | undefined;

async function stop(): Promise<void> {
  await sandbox?.close();
  process.exit(0);
}

process.once('message', (message: SandboxChildRequest) => {
  const trust =
    message.trust.length > 0 ? parseTrustFile(JSON.stringify(message.trust), 'the benchmark trust list') : [];
  startSandbox({ ...message.options, trust, port: 0, host: '127.0.0.1' }).then(
    (started) => {
      sandbox = started;
      const reply: SandboxChildReply = { ok: true, url: started.url, environments: started.environments };
      process.send?.(reply);
      process.on('message', () => void stop());
    },
    (err: unknown) => {
      const reply: SandboxChildReply = { ok: false, error: err instanceof Error ? err.message : String(err) };
      process.send?.(reply);
      process.exit(1);
    },
  );
});
// The parent died or closed the channel: leave nothing behind (the demo folder included).
process.on('disconnect', () => void stop());
