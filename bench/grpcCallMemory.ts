// Issue 29: `mobility-api grpc call` of a server stream keeps its memory bounded: peak RSS of the built CLI (a child
// process of its own, stdout to /dev/null) for 1,000,000 small messages against 10,000, from a grpc-js server of this
// bench, as text and with --json (issue 37: both forms, each figure as measured).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { writeDemoCredential } from '../src/sandbox/auth/demoCredential';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { nowMs } from './stats';

const FLEET_PROTO = path.resolve('test/fixtures/grpc/fleet.proto');
const INCLUDE_DIR = path.resolve('test/fixtures/grpc/include');
const AUDIENCE = 'https://mds.bench-call-memory.invalid';
const SMALL = 10_000;
const LARGE = 1_000_000;

/** A Fleet server whose WatchVehicles sends `count` small vehicles, as fast as the client reads them. */
async function startStreamServer(): Promise<{ address: string; close(): void }> {
  const definition = protoLoader.loadSync(FLEET_PROTO, {
    includeDirs: [INCLUDE_DIR],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const server = new grpc.Server();
  server.addService(definition['mobility.test.v1.Fleet'] as grpc.ServiceDefinition, {
    WatchVehicles: (call: grpc.ServerWritableStream<{ count: number }, unknown>) => {
      let i = 0;
      const pump = () => {
        while (i < call.request.count) {
          if (!call.write({ device_id: `v${i++}`, vehicle_type: 'SCOOTER' })) {
            call.once('drain', pump);
            return;
          }
        }
        call.end();
      };
      pump();
    },
    GetVehicle: () => undefined,
    UploadTelemetry: () => undefined,
    Echo: () => undefined,
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/** One run of the built CLI: its peak RSS (from `process.resourceUsage()` as it exits, by a preloaded script) and time. */
function runCli(dir: string, args: string[]): Promise<{ maxRssKb: number; ms: number }> {
  const rssFile = path.join(dir, `rss-${process.hrtime.bigint()}.txt`);
  const preload = path.join(dir, 'rss-on-exit.cjs');
  fs.writeFileSync(
    preload,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
  );
  const t0 = nowMs();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, path.resolve('dist/cli.js'), ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, BENCH_RSS_FILE: rssFile },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('close', (code) => {
      const ms = nowMs() - t0;
      if (code !== 0) return reject(new Error(`grpc call exited ${code}: ${err.slice(0, 500)}`));
      resolve({ maxRssKb: Number(fs.readFileSync(rssFile, 'utf8')), ms });
    });
  });
}

export async function grpcCallMemoryFigure(): Promise<ReportedFigure> {
  const [text, json] = [await grpcCallMemoryOf(false), await grpcCallMemoryOf(true)];
  const worst = text.value >= json.value ? text : json;
  return {
    ...worst,
    name: 'grpc call of a server stream, peak RSS: 1,000,000 / 10,000 small messages (the larger of text and --json)',
    raw: `text: ${text.value} x, ${text.raw}; --json: ${json.value} x, ${json.raw}`,
  };
}

async function grpcCallMemoryOf(json: boolean): Promise<ReportedFigure> {
  if (!fs.existsSync(path.resolve('dist/cli.js')))
    return Promise.reject(new Error('dist/cli.js is missing: build first (node esbuild.js).'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-grpc-call-'));
  const server = await startStreamServer();
  try {
    const { demo } = await writeDemoCredential(path.join(dir, 'demo'));
    const call = (count: number) =>
      runCli(dir, [
        'grpc',
        'call',
        'mobility.test.v1.Fleet/WatchVehicles',
        '--target',
        server.address,
        '--plaintext',
        '--proto',
        FLEET_PROTO,
        '--import-path',
        INCLUDE_DIR,
        '--aud',
        AUDIENCE,
        '--credential',
        demo.credentialFile,
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
        '--deadline',
        '3600',
        '--data',
        JSON.stringify({ count }),
        ...(json ? ['--json'] : []),
      ]);
    const small = await call(SMALL);
    const large = await call(LARGE);
    const ratio = large.maxRssKb / small.maxRssKb;
    const mb = (kb: number) => `${round3(kb / 1024)} MB`;
    return {
      name: `grpc call${json ? ' --json' : ''} of a server stream, peak RSS: ${LARGE.toLocaleString('en')} / ${SMALL.toLocaleString('en')} small messages`,
      value: round3(ratio),
      unit: 'x',
      target: '<= 1.2 x',
      met: ratio <= 1.2,
      raw: `peak RSS ${mb(small.maxRssKb)} for ${SMALL.toLocaleString('en')} messages (${round3(small.ms / 1000)} s), ${mb(large.maxRssKb)} for ${LARGE.toLocaleString('en')} (${round3(large.ms / 1000)} s); the built CLI in a child process, stdout to /dev/null, one run each`,
    };
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
