// The built CLI as a shell and CI run it: SIGTERM (what `timeout` and CI runners send) ends a `grpc call --json` with a
// whole JSON document, a closed stdout (`| head`) ends it quietly, and `test` reads its variables from a pipe or a
// process substitution once (`--dotenv`), says why an `--env-file` pipe arrives empty, and ends on SIGTERM while it
// waits for a named pipe's writer.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { makeCliCredential } from './support/cliRunner';
import type { CliCredential } from './support/cliRunner';
import { startCannedServer } from './support/testServer';
import { waitUntil } from './support/waitUntil';

const CLI = path.resolve('dist/cli.js');
const PROTO = `syntax = "proto3";
package ticks.test.v1;
message Ask { uint32 every_ms = 1; }
message Tick { uint32 n = 1; string note = 2; }
service Ticks { rpc Watch (Ask) returns (stream Tick); }
`;

interface Spawned {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  const child = spawn(command, args, {
    env: { ...process.env, MOBILITY_API_DEBUG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out, err: () => err, exited };
}

/** Whether a thread of process `pid` is opening a named pipe, waiting for the other end (Linux names that wait in /proc). */
function waitsForPartner(pid: number): boolean {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .some((t) => fs.readFileSync(`/proc/${pid}/task/${t}/wchan`, 'utf8') === 'wait_for_partner');
  } catch {
    return false;
  }
}

describe('the built CLI under signals, closed pipes and piped files', function () {
  this.timeout(60_000);
  let cred: CliCredential;
  let server: grpc.Server;
  let address: string;
  let protoFile: string;

  before(async () => {
    assert.ok(fs.existsSync(CLI), 'dist/cli.js is built (node esbuild.js)');
    cred = makeCliCredential();
    protoFile = path.join(cred.dir, 'ticks.proto');
    fs.writeFileSync(protoFile, PROTO);
    const definition = protoLoader.loadSync(protoFile, { keepCase: true, defaults: true });
    server = new grpc.Server();
    server.addService(definition['ticks.test.v1.Ticks'] as grpc.ServiceDefinition, {
      Watch: (call: grpc.ServerWritableStream<{ every_ms: number }, unknown>) => {
        let n = 0;
        const timer = setInterval(() => call.write({ n: n++, note: 'tick' }), call.request.every_ms || 20);
        call.on('cancelled', () => clearInterval(timer));
        call.on('close', () => clearInterval(timer));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    address = `127.0.0.1:${port}`;
  });
  after(() => {
    server?.forceShutdown();
    cred?.remove();
  });

  it('SIGTERM of grpc call --json ends the JSON document with what came (exit 143), as Ctrl-C does', async () => {
    const run = start(process.execPath, [
      CLI,
      'grpc',
      'call',
      'ticks.test.v1.Ticks/Watch',
      '--target',
      address,
      '--plaintext',
      '--aud',
      'https://mds.ticks.test.invalid',
      '--proto',
      protoFile,
      '--data',
      '{"every_ms": 10}',
      '--json',
      ...cred.flags,
    ]);
    await waitUntil(
      'three messages printed',
      () => run.out(),
      (out) => (out.match(/"n":/g) ?? []).length >= 3,
    );
    run.child.kill('SIGTERM');
    const end = await run.exited;
    assert.equal(end.code, 143, run.err());
    const doc = JSON.parse(run.out()) as { messages: { n?: number }[]; messageCount: number };
    assert.ok(doc.messages.length >= 3);
    assert.equal(doc.messageCount, doc.messages.length);
    assert.match(run.err(), /cancelled \(SIGTERM\) after \d+ messages/);
  });

  it('a closed stdout ends the CLI quietly (no EPIPE stack trace), with the status of a closed pipe', async () => {
    const run = start(process.execPath, [
      CLI,
      'grpc',
      'call',
      'ticks.test.v1.Ticks/Watch',
      '--target',
      address,
      '--plaintext',
      '--aud',
      'https://mds.ticks.test.invalid',
      '--proto',
      protoFile,
      '--data',
      '{"every_ms": 5}',
      ...cred.flags,
    ]);
    await waitUntil(
      'a message printed',
      () => run.out(),
      (out) => out.includes('"n"'),
    );
    run.child.stdout?.destroy();
    const end = await run.exited;
    assert.equal(end.code, 141, run.err());
    assert.doesNotMatch(run.err(), /EPIPE|\n\s+at /);
    const listing = start(process.execPath, [CLI, 'endpoints', '--api', 'mds']);
    listing.child.stdout?.destroy();
    const listed = await listing.exited;
    assert.doesNotMatch(listing.err(), /EPIPE|\n\s+at /);
    assert.ok(listed.code === 141 || listed.code === 0, `exit ${listed.code}`);
  });

  describe('test --dotenv and --env-file from pipes', () => {
    let canned: Awaited<ReturnType<typeof startCannedServer>>;
    let file: string;
    let variables: string;
    const keyFlags = () => Object.fromEntries(cred.flags.map((f, i, all) => [f, all[i + 1]]));
    before(async () => {
      canned = await startCannedServer(() => ({ status: 200, body: { version: '2.0', vehicles: [] } }));
      file = path.join(cred.dir, 'ok.http');
      fs.writeFileSync(file, 'GET {{baseUrl}}/vehicles\n?? status == 200\n');
      const flags = keyFlags();
      variables = `MOBILITY_API_KEY_FILE=${flags['--private-key']}\nMOBILITY_API_KEY_ID=${flags['--kid']}\nMOBILITY_API_ISSUER=${flags['--iss']}\nMOBILITY_API_CREDENTIAL_TYPE=external-org\n`;
    });
    after(() => canned?.close());
    const testArgs = () => [
      CLI,
      'test',
      file,
      '--base-url',
      `${canned.url}/mds`,
      '--state-dir',
      path.join(cred.dir, 'state'),
      '--precision',
      'milliseconds',
    ];
    const bash = (flag: string) =>
      start('bash', ['-c', `node "$@" ${flag} <(printf '%s' "$VARS")`, 'bash', ...testArgs()], { VARS: variables });

    it('reads a process substitution given as --dotenv, and says why one given as --env-file arrives empty (exit 2)', async () => {
      const dotenv = bash('--dotenv');
      assert.equal((await dotenv.exited).code, 0, dotenv.err());
      assert.match(dotenv.out(), /1 passed, 0 failed/);
      const envFile = bash('--env-file');
      assert.equal((await envFile.exited).code, 2, envFile.err());
      assert.match(
        envFile.err(),
        /--env-file \/dev\/fd\/\d+ is a pipe that Node read before mobility-api started .* give it as --dotenv/,
      );
      assert.doesNotMatch(envFile.err(), /Give a credential/);
    });

    it("reads a named pipe once as --dotenv, and ends on SIGTERM while it waits for the pipe's writer", async () => {
      const fifo = path.join(cred.dir, 'vars.fifo');
      execFileSync('mkfifo', [fifo]);
      const reader = start(process.execPath, [...testArgs(), '--dotenv', fifo]);
      // Written once the CLI opens the pipe (else the write would wait for a reader that never comes).
      await waitUntil(
        'the CLI opening the pipe',
        () => [reader.child.exitCode, waitsForPartner(reader.child.pid!)] as const,
        ([code, waiting]) => code !== null || waiting,
      );
      assert.equal(reader.child.exitCode, null, reader.err());
      await fs.promises.writeFile(fifo, variables);
      assert.equal((await reader.exited).code, 0, reader.err());
      assert.match(reader.out(), /1 passed, 0 failed/);

      const waiting = start(process.execPath, [...testArgs(), '--dotenv', fifo]);
      const pid = waiting.child.pid!;
      await waitUntil(
        "the CLI waiting for the pipe's writer",
        () => waitsForPartner(pid),
        (waiting) => waiting,
      );
      waiting.child.kill('SIGTERM');
      const end = await Promise.race([
        waiting.exited,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
      ]);
      if (end === 'hung') waiting.child.kill('SIGKILL');
      assert.notEqual(end, 'hung', 'SIGTERM ends a CLI waiting for a named pipe');
    });
  });
});
