// `grpc call` as a user runs it: answers of any size printed whole, streams printed as they arrive, Ctrl-C, the proto3
// JSON mapping, local inputs checked before anything goes out, the schema reflection gave kept for a while, and the
// smaller things the audit of issue 29 found.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { writeDemoCredential } from '../../src/sandbox/auth/demoCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { TrustStore } from '../../src/sandbox/auth/trustStore';
import { runCliInProcess } from './support/cliRunner';
import type { GrpcTestServer } from './support/grpcTestServer';
import { FIXTURES, FLEET_PROTO, INCLUDE_DIR, startGrpcTestServer } from './support/grpcTestServer';
import { waitUntil } from './support/waitUntil';

const AUDIENCE = 'https://mds.grpc-call.test.invalid';
const GET = 'mobility.test.v1.Fleet/GetVehicle';
const WATCH = 'mobility.test.v1.Fleet/WatchVehicles';

/** A Fleet server of this test: WatchVehicles sends what the test pushes, when it pushes it; GetVehicle answers `big` with a 5 MiB id. */
interface ScriptedServer {
  address: string;
  /** Sends one vehicle on the open WatchVehicles stream (waits for the stream to open). */
  send(deviceId: string): Promise<void>;
  /** Ends the open stream OK. */
  end(): Promise<void>;
  /** Resolves when the client cancelled the open stream. */
  cancelled: Promise<void>;
  close(): void;
}

async function startScriptedServer(): Promise<ScriptedServer> {
  const definition = protoLoader.loadSync(FLEET_PROTO, {
    includeDirs: [INCLUDE_DIR],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const server = new grpc.Server({ 'grpc.max_send_message_length': -1 });
  let stream: grpc.ServerWritableStream<unknown, unknown> | undefined;
  let onCancelled = () => {};
  const cancelled = new Promise<void>((resolve) => (onCancelled = resolve));
  server.addService(definition['mobility.test.v1.Fleet'] as grpc.ServiceDefinition, {
    GetVehicle: (call: grpc.ServerUnaryCall<{ device_id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      callback(null, {
        device_id: call.request.device_id === 'big' ? 'x'.repeat(5 * 1024 * 1024) : call.request.device_id,
      });
    },
    WatchVehicles: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      stream = call;
      call.on('cancelled', () => onCancelled());
    },
    UploadTelemetry: () => undefined,
    Echo: () => undefined,
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const open = () =>
    waitUntil(
      'the WatchVehicles stream to open',
      () => stream,
      (s) => s !== undefined,
    );
  return {
    address: `127.0.0.1:${port}`,
    send: async (deviceId) => void (await open())!.write({ device_id: deviceId }),
    end: async () => void (await open())!.end(),
    cancelled,
    close: () => server.forceShutdown(),
  };
}

/** The built CLI in a child process, its output read as it comes. */
function spawnCli(args: string[]): {
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
} {
  const child = spawn(process.execPath, [path.resolve('dist/cli.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MOBILITY_API_DEBUG: '' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { out: () => out, err: () => err, exit, kill: (signal) => void child.kill(signal) };
}

describe('CLI: grpc call, as the issue 29 audit ran it', function () {
  this.timeout(60_000);
  let dir: string;
  let credentialFile: string;
  let trust: TrustStore;
  /** The Fleet test server, tokens checked, schema from --proto only. */
  let fleet: GrpcTestServer;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-call-'));
    const setup = await writeDemoCredential(path.join(dir, 'demo'));
    credentialFile = setup.demo.credentialFile;
    trust = new TrustStore([setup.trusted]);
    fleet = await startGrpcTestServer({ reflection: 'none', trust, audience: AUDIENCE });
  });
  after(async () => {
    await fleet?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const signing = (state = 'state') => [
    '--aud',
    AUDIENCE,
    '--credential',
    credentialFile,
    '--state-dir',
    path.join(dir, state),
    '--precision',
    'milliseconds',
  ];

  describe('answers of any size', () => {
    let sandbox: RunningSandbox;
    before(async () => {
      sandbox = await startSandbox({ demoDir: path.join(dir, 'sandbox') });
    });
    after(async () => {
      await sandbox?.close();
    });

    it("--json of the sandbox's full ListVehicles (500 vehicles, far over 10 KB) is one JSON document with every vehicle; the human output has them all", async () => {
      const env = sandbox.environments.find((e) => e.id === 'mds-staging')!;
      const flags = [
        '--target',
        env.grpcTarget!,
        '--plaintext',
        '--aud',
        env.baseUrl,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        path.join(dir, 'sandbox-state'),
        '--precision',
        'milliseconds',
      ];
      const json = await runCliInProcess([
        'grpc',
        'call',
        'mobility.sandbox.v1.VehicleService/ListVehicles',
        ...flags,
        '--json',
      ]);
      assert.equal(json.code, 0, json.err);
      assert.ok(json.out.length > 100_000, `${json.out.length} characters`);
      const parsed = JSON.parse(json.out) as {
        messages: { device_id: string }[];
        messageCount: number;
        status: { name: string };
      };
      assert.equal(parsed.status.name, 'OK');
      assert.equal(parsed.messages.length, 500);
      assert.equal(parsed.messageCount, 500);
      assert.equal(new Set(parsed.messages.map((m) => m.device_id)).size, 500);
      const human = await runCliInProcess([
        'grpc',
        'call',
        'mobility.sandbox.v1.VehicleService/ListVehicles',
        ...flags,
      ]);
      assert.equal(human.code, 0, human.err);
      assert.match(human.out, /^500 messages$/m);
      assert.equal(human.out.match(/"device_id": /g)?.length, 500);
      assert.doesNotMatch(human.out, /more characters not logged/);
    });

    it('a single message over 10 KB is printed whole, in the human output and in --json', async () => {
      {
        const id = `vehicle-${'x'.repeat(20_000)}-end`;
        const flags = [
          '--target',
          fleet.address,
          '--plaintext',
          '--proto',
          FLEET_PROTO,
          '--import-path',
          INCLUDE_DIR,
          ...signing(),
        ];
        const human = await runCliInProcess([
          'grpc',
          'call',
          GET,
          ...flags,
          '--data',
          JSON.stringify({ device_id: id }),
        ]);
        assert.equal(human.code, 0, human.err);
        assert.ok(human.out.includes(`"device_id": "${id}"`), 'the whole id');
        const json = await runCliInProcess([
          'grpc',
          'call',
          GET,
          ...flags,
          '--data',
          JSON.stringify({ device_id: id }),
          '--json',
        ]);
        assert.equal(json.code, 0, json.err);
        assert.equal((JSON.parse(json.out) as { messages: { device_id: string }[] }).messages[0].device_id, id);
      }
    });
  });

  describe('streams', () => {
    let server: ScriptedServer;
    beforeEach(async () => {
      server = await startScriptedServer();
    });
    afterEach(() => server.close());
    const flags = () => [
      '--target',
      server.address,
      '--plaintext',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
      ...signing(),
      '--data',
      '{"count": 3}',
    ];

    for (const json of [false, true]) {
      it(`prints each message as it arrives${json ? ' (--json, one document written as it goes)' : ''}`, async () => {
        const run = spawnCli(['grpc', 'call', WATCH, ...flags(), ...(json ? ['--json'] : [])]);
        await server.send('first-vehicle');
        await waitUntil('the first message on stdout while the stream is open', run.out, (out) =>
          out.includes('"device_id": "first-vehicle"'),
        );
        await server.send('second-vehicle');
        await waitUntil('the second message on stdout', run.out, (out) =>
          out.includes('"device_id": "second-vehicle"'),
        );
        await server.send('last-vehicle');
        await server.end();
        assert.equal(await run.exit, 0, run.err());
        if (json) {
          const parsed = JSON.parse(run.out()) as { messages: { device_id: string }[]; messageCount: number };
          assert.deepEqual(
            parsed.messages.map((m) => m.device_id),
            ['first-vehicle', 'second-vehicle', 'last-vehicle'],
          );
          assert.equal(parsed.messageCount, 3);
        } else {
          assert.match(run.out(), /^3 messages$/m);
        }
      });

      it(`Ctrl-C prints the messages that arrived, says how many and exits 130${json ? ' (--json: the document is complete)' : ''}`, async () => {
        const run = spawnCli(['grpc', 'call', WATCH, ...flags(), ...(json ? ['--json'] : [])]);
        await server.send('one');
        await server.send('two');
        await waitUntil('both messages on stdout', run.out, (out) => out.includes('"device_id": "two"'));
        run.kill('SIGINT');
        assert.equal(await run.exit, 130, run.err());
        await server.cancelled;
        assert.match(run.err(), /cancelled after 2 messages/);
        if (json) {
          const parsed = JSON.parse(run.out()) as { messages: { device_id: string }[]; status: { name: string } };
          assert.deepEqual(
            parsed.messages.map((m) => m.device_id),
            ['one', 'two'],
          );
          assert.equal(parsed.status.name, 'CANCELLED');
        } else {
          assert.match(run.out(), /"device_id": "one"[\s\S]*"device_id": "two"/);
        }
      });
    }

    it('--max-message-size lets a 5 MiB answer through; without it, the error names the flag', async () => {
      const base = [
        '--target',
        server.address,
        '--plaintext',
        '--proto',
        FLEET_PROTO,
        '--import-path',
        INCLUDE_DIR,
        ...signing(),
        '--data',
        '{"device_id": "big"}',
      ];
      const refused = await runCliInProcess(['grpc', 'call', GET, ...base]);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /RESOURCE_EXHAUSTED[\s\S]*--max-message-size/);
      const allowed = await runCliInProcess(['grpc', 'call', GET, ...base, '--max-message-size', '8MB', '--json']);
      assert.equal(allowed.code, 0, allowed.err);
      assert.equal(
        (JSON.parse(allowed.out) as { messages: { device_id: string }[] }).messages[0].device_id.length,
        5 * 1024 * 1024,
      );
      const bad = await runCliInProcess(['grpc', 'call', GET, ...base, '--max-message-size', 'lots']);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--max-message-size must be a size such as 8MB/);
    });
  });

  it('messages follow the proto3 JSON mapping, both ways: Timestamp, Duration, int64, bytes, enums, wrappers, Struct, FieldMask', async () => {
    const server = new grpc.Server();
    const raw = (b: Buffer) => b;
    server.addService(
      {
        Reflect: {
          path: '/mobility.test.wkt.Mirror/Reflect',
          requestStream: false,
          responseStream: false,
          requestSerialize: raw,
          requestDeserialize: raw,
          responseSerialize: raw,
          responseDeserialize: raw,
        },
      },
      {
        Reflect: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) =>
          callback(null, call.request),
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    try {
      const sample = {
        at: '2025-11-05T07:00:00.250Z',
        took: '1.500s',
        big: '9007199254740993',
        raw: Buffer.from('hello, bytes').toString('base64'),
        mode: 'FAST',
        maybe: 7,
        extra: { zone: 'north', level: 2, tags: ['a', null, true] },
        mask: 'deviceId,lastSeen',
      };
      const r = await runCliInProcess([
        'grpc',
        'call',
        'mobility.test.wkt.Mirror/Reflect',
        '--target',
        `127.0.0.1:${port}`,
        '--plaintext',
        '--proto',
        path.join(FIXTURES, 'wellknown.proto'),
        ...signing(),
        '--data',
        JSON.stringify(sample),
        '--json',
      ]);
      assert.equal(r.code, 0, r.err);
      const [message] = (JSON.parse(r.out) as { messages: Record<string, unknown>[] }).messages;
      assert.deepEqual(message, { ...sample, took: '1.500s' });
      const fixed = await runCliInProcess([
        'grpc',
        'call',
        GET,
        '--target',
        fleet.address,
        '--plaintext',
        '--proto',
        FLEET_PROTO,
        '--import-path',
        INCLUDE_DIR,
        ...signing(),
        '--data',
        '{"device_id": "v7"}',
        '--json',
      ]);
      assert.equal(fixed.code, 0, fixed.err);
      const vehicle = (JSON.parse(fixed.out) as { messages: Record<string, unknown>[] }).messages[0];
      assert.deepEqual(
        [vehicle.last_seen, vehicle.odometer_m, vehicle.vehicle_type],
        ['2025-11-05T07:00:00Z', '9007199254740993', 'SCOOTER'],
      );
    } finally {
      server.forceShutdown();
    }
  });

  describe('reflection, checked inputs and the schema kept for a while', () => {
    let server: GrpcTestServer;
    before(async () => {
      server = await startGrpcTestServer({
        reflection: 'v1alpha',
        trust,
        audience: AUDIENCE,
        reflectionNeedsToken: true,
      });
    });
    after(async () => {
      await server?.close();
    });
    const reflections = () => server.seen.filter((s) => s.path.includes('reflection')).length;
    const calls = () => server.seen.filter((s) => !s.path.includes('reflection')).length;

    it('refuses --data @missing, bad base64 in a -bin value, CR/LF in metadata and an own authorization before any reflection stream or token', async () => {
      const flags = ['--target', server.address, '--plaintext', ...signing('checked')];
      const before = server.seen.length;
      const cases: [string[], RegExp][] = [
        [['--data', `@${path.join(dir, 'missing.json')}`], /Cannot read the --data file .*missing\.json: no such file/],
        [['--metadata', 'x-trace-bin: not base64!'], /The value of the binary metadata x-trace-bin must be base64/],
        [['--metadata', 'x-note: one\r\nx-injected: two'], /printable ASCII only/],
        [['--metadata', 'authorization: Bearer mine'], /leave out your own authorization metadata/],
      ];
      for (const [extra, message] of cases) {
        const r = await runCliInProcess(['grpc', 'call', GET, ...flags, ...extra]);
        assert.equal(r.code, 2, `${extra.join(' ')}: ${r.err}`);
        assert.match(r.err, message);
      }
      assert.equal(server.seen.length, before, 'nothing reached the server, reflection included');
      assert.equal(
        fs.existsSync(path.join(dir, 'checked')),
        false,
        'no token was signed (the state folder was never opened)',
      );
    });

    it('keeps what reflection said per target for 10 minutes: the second call opens no reflection stream; --refresh-schema asks again', async () => {
      const flags = ['--target', server.address, '--plaintext', ...signing('cached'), '--data', '{"device_id": "v1"}'];
      const [r0, c0] = [reflections(), calls()];
      const first = await runCliInProcess(['grpc', 'call', GET, ...flags]);
      assert.equal(first.code, 0, first.err);
      const [r1, c1] = [reflections(), calls()];
      assert.ok(r1 > r0, 'the first call read the schema by reflection');
      assert.equal(c1, c0 + 1);
      const second = await runCliInProcess(['grpc', 'call', GET, ...flags]);
      assert.equal(second.code, 0, second.err);
      assert.equal(reflections(), r1, 'no reflection stream the second time');
      assert.equal(calls(), c1 + 1);
      const refreshed = await runCliInProcess(['grpc', 'call', GET, ...flags, '--refresh-schema']);
      assert.equal(refreshed.code, 0, refreshed.err);
      const r2 = reflections();
      assert.ok(r2 > r1, '--refresh-schema reads it again');
      const unknown = await runCliInProcess(['grpc', 'call', 'mobility.test.v1.Fleet/AddedSince', ...flags]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /has no method "AddedSince"/);
      assert.ok(reflections() > r2, 'a method the kept schema does not know makes it ask the server before saying so');
      const help = await runCliInProcess(['grpc', '--help']);
      assert.match(help.out, /10 minutes[\s\S]*--refresh-schema/);
    });

    it('a server without reflection: the error names --proto and --protoset', async () => {
      const none = await startGrpcTestServer({ reflection: 'none' });
      try {
        const r = await runCliInProcess(['grpc', 'list', '--target', none.address, '--plaintext']);
        assert.equal(r.code, 2, r.err);
        assert.match(r.err, /--proto <file>.*--protoset <file>/);
      } finally {
        await none.close();
      }
    });
  });

  it('a .proto that does not parse is named with its line and column, among several --proto files', async () => {
    const r = await runCliInProcess([
      'grpc',
      'list',
      '--proto',
      FLEET_PROTO,
      '--proto',
      path.join(FIXTURES, 'semicolon.proto'),
      '--import-path',
      INCLUDE_DIR,
    ]);
    assert.equal(r.code, 2);
    assert.match(r.err, /semicolon\.proto, line 7, column 3: illegal token 'string'/);
  });

  it('--ca-file that is not PEM says so', async () => {
    const notPem = path.join(dir, 'not-a-cert.txt');
    fs.writeFileSync(notPem, 'just some text, no certificate\n');
    const r = await runCliInProcess(['grpc', 'list', '--target', '127.0.0.1:9', '--ca-file', notPem]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /not-a-cert\.txt is not a PEM certificate/);
  });

  it('grpc-status-details-bin is shown decoded as a google.rpc.Status, and a trailing slash of --aud is said', async () => {
    const flags = [
      '--target',
      fleet.address,
      '--plaintext',
      '--proto',
      FLEET_PROTO,
      '--import-path',
      INCLUDE_DIR,
      '--data',
      '{"device_id": "missing"}',
      '--credential',
      credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ];
    const human = await runCliInProcess(['grpc', 'call', GET, ...flags, '--aud', AUDIENCE]);
    assert.equal(human.code, 1);
    assert.match(
      human.out,
      /grpc-status-details-bin: \{"@type":"google\.rpc\.Status","code":5,"message":"no vehicle missing","details":\[\{"@type":"type\.googleapis\.com\/google\.rpc\.ErrorInfo"/,
    );
    assert.doesNotMatch(human.out, /redacted/);
    const json = await runCliInProcess(['grpc', 'call', GET, ...flags, '--aud', `${AUDIENCE}/`, '--json']);
    const trailers = (JSON.parse(json.out) as { trailers: Record<string, { code: number }[]> }).trailers;
    assert.equal(trailers['grpc-status-details-bin'][0].code, 5);
    assert.match(
      json.err,
      /note: the audience is the base URL without its trailing slash: https:\/\/mds\.grpc-call\.test\.invalid$/m,
    );
  });
});
