import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createPrivateKey, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { runCli } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/main';
import { SandboxGrpcClient, bearer } from './grpcSupport';
import { runCliInProcess } from './support/cliRunner';
import { waitUntil } from './support/waitUntil';

interface SandboxLine {
  environments: Array<{
    name: string;
    baseUrl: string;
    grpcTarget: string;
    grpcProtoFiles?: string[];
    grpcImportPaths?: string[];
  }>;
  demo: { kid: string; issuer: string; privateKeyFile: string };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port p such that p, p+1 and p+2 are free on loopback now. */
async function threeFreePorts(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    if (first < 65000 && (await portIsFree(first + 1)) && (await portIsFree(first + 2))) return first;
  }
  throw new Error('no three consecutive free ports');
}

async function demoToken(line: SandboxLine, aud: string): Promise<string> {
  const key = createPrivateKey(fs.readFileSync(line.demo.privateKeyFile, 'utf8'));
  // The banner and --json show the kid masked (a secret, spec 5.7); the whole one is in the demo credential file.
  const { kid } = JSON.parse(
    fs.readFileSync(path.join(path.dirname(line.demo.privateKeyFile), 'demo-credential.json'), 'utf8'),
  ) as { kid: string };
  return new SignJWT({ iss: line.demo.issuer, aud, exp: Math.floor(Date.now() / 1000) + 300, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuedAt()
    .sign(key);
}

describe('CLI sandbox: gRPC', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-grpc-cli-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the built `sandbox --json --grpc-port <n>` prints each environment's grpcTarget on ports n, n+1, n+2, and serves gRPC there", async () => {
    const first = await threeFreePorts();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        path.resolve('dist/cli.js'),
        'sandbox',
        '--json',
        '--fleet',
        '12',
        '--grpc-port',
        String(first),
        '--demo-dir',
        path.join(dir, 'spawned'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const lineText = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout?.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const line = JSON.parse(lineText) as SandboxLine;
      assert.deepEqual(
        line.environments.map((e) => [e.name, e.grpcTarget]),
        [
          ['mds-staging', `127.0.0.1:${first}`],
          ['mds-production', `127.0.0.1:${first + 1}`],
          ['maas-staging', `127.0.0.1:${first + 2}`],
        ],
      );
      const production = line.environments[1];
      const client = new SandboxGrpcClient(production.grpcTarget, 'VehicleService');
      const listed = await client.stream('ListVehicles', bearer(await demoToken(line, production.baseUrl)));
      client.close();
      assert.equal(listed.error, undefined);
      assert.equal(listed.items.length, 12);

      // Its .proto files, for programs: `code --grpc` writes one with them.
      const { grpcProtoFiles: protoFiles = [], grpcImportPaths: importPaths = [] } = production;
      assert.deepEqual(
        protoFiles.map((f) => path.basename(f)),
        ['vehicles.proto', 'maas.proto'],
      );
      for (const file of [...protoFiles, ...importPaths]) assert.ok(fs.existsSync(file), file);
      const code = await runCliInProcess([
        'code',
        'typescript',
        '--grpc',
        'mobility.sandbox.v1.VehicleService/GetVehicle',
        '--target',
        production.grpcTarget,
        '--plaintext',
        ...protoFiles.flatMap((f) => ['--proto', f]),
        ...importPaths.flatMap((d) => ['--import-path', d]),
        '--aud',
        production.baseUrl,
        '--credential',
        path.join(dir, 'spawned', 'demo-credential.json'),
        '--data',
        '{"device_id": "x"}',
      ]);
      assert.equal(code.code, 0, code.err);
      assert.match(code.out, /loadSync\(\[?\s*"mobility\/sandbox\/v1\/vehicles\.proto"/);
    } finally {
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exit, 0);
    }
  });

  it('`sandbox --log` shows gRPC calls with their status and rule, without the token or the whole kid; the banner shows the targets', async () => {
    let out = '';
    let err = '';
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const io: CliIo = {
      out: (t) => (out += `${t}\n`),
      err: (t) => (err += `${t}\n`),
      readStdin: () => Promise.resolve(''),
      env: {},
      untilStopped: () => stopped,
    };
    const demoDir = path.join(dir, 'logged');
    const running = runCli(['sandbox', '--log', '--fleet', '7', '--demo-dir', demoDir], io);
    try {
      await waitUntil(
        'the banner',
        () => out,
        (text) => text.includes('Try:'),
      );
      const target = /mds-staging\s+mds\s+(\S+)\s+gRPC (127\.0\.0\.1:\d+)/.exec(out);
      assert.ok(target, out);
      const [, baseUrl, grpcTarget] = target;
      const credential = JSON.parse(
        fs.readFileSync(path.join(demoDir, 'demo-credential.json'), 'utf8'),
      ) as SandboxLine['demo'];
      const kid = credential.kid;
      const line: SandboxLine = { environments: [], demo: credential };
      const client = new SandboxGrpcClient(grpcTarget, 'VehicleService');
      const token = await demoToken(line, baseUrl);
      assert.equal((await client.stream('ListVehicles', bearer(token))).error, undefined);
      const replayed = await client.stream('ListVehicles', bearer(token));
      client.close();
      assert.equal(replayed.error?.code, status.UNAUTHENTICATED);
      const lines = await waitUntil(
        'two gRPC log lines',
        () => err.split('\n').filter((l) => l.startsWith('gRPC ')),
        (l) => l.length >= 2,
      );
      assert.match(lines[0], /^gRPC mds-staging \/mobility\.sandbox\.v1\.VehicleService\/ListVehicles OK \(7 sent\)$/);
      assert.match(
        lines[1],
        /^gRPC mds-staging \/mobility\.sandbox\.v1\.VehicleService\/ListVehicles UNAUTHENTICATED jti_replayed kid "[^"]{1,4}…[^"]{1,4}": jti_replayed: /,
      );
      assert.ok(!err.includes(token) && !err.includes(token.split('.')[2]), 'no token in the log');
      assert.ok(
        !err
          .split('\n')
          .filter((l) => l.startsWith('gRPC '))
          .some((l) => l.includes(kid)),
        'no whole kid in the gRPC log',
      );
    } finally {
      stop();
      assert.equal(await running, 0);
    }
  });

  it('refuses an unknown --grpc-reflection value, saying which ones exist', async () => {
    const r = await runCliInProcess(['sandbox', '--grpc-reflection', 'v2']);
    assert.notEqual(r.code, 0);
    assert.match(r.err, /--grpc-reflection is "v2"; use one of v1, v1alpha, both, none/);
  });
});
