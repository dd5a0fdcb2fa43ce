import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { runCliInProcess } from './support/cliRunner';
import { startCannedServer } from './support/testServer';

describe('CLI: endpoints, request, send and validate', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const seen: SandboxRequestLog[] = [];
  const mds = () => sandbox.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
  const flags = () => [
    '--api',
    'mds',
    '--base-url',
    mds(),
    '--credential',
    sandbox.demo.credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-request-'));
    sandbox = await startSandbox({
      fleetSize: 120,
      pageSize: 50,
      demoDir: path.join(dir, 'demo'),
      onRequest: (entry) => seen.push(entry),
    });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('endpoints lists every MDS 2.0 Provider endpoint with its parameters, and the MaaS listing', async () => {
    const r = await runCliInProcess(['endpoints', '--json']);
    assert.equal(r.code, 0, r.err);
    const list = JSON.parse(r.out) as {
      api: string;
      id: string;
      path: string;
      parameters: { name: string; required: boolean }[];
    }[];
    assert.deepEqual(
      list.filter((e) => e.api === 'mds').map((e) => e.id),
      [
        'vehicles',
        'vehicle',
        'vehicles_status',
        'vehicle_status',
        'trips',
        'telemetry',
        'events_historical',
        'events_recent',
        'stops',
        'stop',
        'reports',
      ],
    );
    assert.ok(list.some((e) => e.api === 'maas' && e.path === '/v1alpha2/vehicles'));
    assert.deepEqual(
      list.find((e) => e.id === 'trips')?.parameters.map((p) => [p.name, p.required]),
      [['end_time', true]],
    );
    const text = await runCliInProcess(['endpoints', '--api', 'mds']);
    assert.match(text.out, /trips\s+GET \/trips .*one UTC hour per request/);
  });

  it('request sends a catalogue endpoint with a fresh token per page and checks it against the official schemas', async () => {
    const r = await runCliInProcess(['request', 'vehicles', ...flags(), '--all-pages', '--validate']);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /^200 OK · 120 vehicles · 3 pages/m);
    assert.match(r.out, /MDS 2\.0 \(vehicles\): conforms — 120 items checked/);
  });

  it('request refuses a bad parameter before anything is signed or sent, showing the format (exit 2)', async () => {
    const before = seen.length;
    const r = await runCliInProcess(['request', 'trips', '--query', 'end_time=2025-11-5T7', ...flags()]);
    assert.equal(r.code, 2);
    assert.match(r.err, /end_time "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH \(UTC\)/);
    assert.equal(seen.length, before, 'the sandbox saw no request');
  });

  it('request takes any path with a query, and --json prints the answer', async () => {
    const r = await runCliInProcess(['request', '/vehicles', '--query', 'page_size=7', ...flags(), '--json']);
    assert.equal(r.code, 0, r.err);
    const body = JSON.parse(r.out) as { vehicles: unknown[] };
    assert.equal(body.vehicles.length, 7);
  });

  it('request says plainly what a 202 and a 404 mean, and exits 1 for a 404', async () => {
    const server = await startCannedServer((req) =>
      req.query.get('end_time') === '2025-11-05T13'
        ? { status: 202, headers: { 'retry-after': '120' } }
        : { status: 404, body: { error: 'not_found', error_description: 'no data for that hour' } },
    );
    try {
      const base = [
        '--api',
        'mds',
        '--base-url',
        `${server.url}/mds`,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        path.join(dir, 'state'),
      ];
      const pending = await runCliInProcess(['request', 'trips', '--query', 'end_time=2025-11-05T13', ...base]);
      assert.equal(pending.code, 0, pending.err);
      assert.match(pending.out, /not processed yet \(202\): try again later \(Retry-After: 120 s\)/);
      const missing = await runCliInProcess(['request', 'trips', '--query', 'end_time=2025-11-05T14', ...base]);
      assert.equal(missing.code, 1);
      assert.match(missing.out, /404 Not Found .*no data for that hour/);
    } finally {
      await server.close();
    }
  });

  it('send runs a request file with a fresh token each time; {{baseUrl}} is --base-url', async () => {
    const file = path.join(dir, 'requests.http');
    fs.writeFileSync(
      file,
      '@size = 5\n\n# @name few\nGET {{baseUrl}}/vehicles?page_size={{size}}\n\n###\nGET {{baseUrl}}/vehicles/status\n',
    );
    for (let i = 0; i < 2; i++) {
      const r = await runCliInProcess(['send', file, '--request', 'few', ...flags(), '--json']);
      assert.equal(r.code, 0, r.err);
      assert.equal((JSON.parse(r.out) as { vehicles: unknown[] }).vehicles.length, 5);
    }
    // The sandbox enforces one token per request (5.1 rule 4): both sends were accepted, so each carried its own.
    const accepted = seen.filter((e) => e.path.includes('/vehicles') && e.status === 200).slice(-2);
    assert.equal(accepted.length, 2);
    const two = await runCliInProcess(['send', file, ...flags()]);
    assert.equal(two.code, 2);
    assert.match(two.err, /holds 2 requests: pick one with --request <name or number> \(few, 2\)/);
  });

  it('request and vehicles refuse --header Authorization, saying why and naming --send-authorization-as-is; nothing is signed or sent', async () => {
    const before = seen.length;
    for (const args of [['request', '/vehicles'], ['vehicles'], ['request', 'vehicles']]) {
      const r = await runCliInProcess([...args, ...flags(), '--header', 'Authorization: Bearer X']);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /--header sets Authorization/);
      assert.match(r.err, /signs a fresh token for every request \(spec 5\.1 rule 4\)/);
      assert.match(r.err, /--send-authorization-as-is/);
    }
    assert.equal(seen.length, before, 'the sandbox saw no request');
    const lonely = await runCliInProcess(['request', '/vehicles', ...flags(), '--send-authorization-as-is']);
    assert.equal(lonely.code, 2);
    assert.match(lonely.err, /--send-authorization-as-is sends an Authorization given with --header/);
  });

  it('request and vehicles send --header Authorization as written with --send-authorization-as-is, and say so', async () => {
    for (const args of [['request', '/vehicles'], ['vehicles']]) {
      const before = seen.length;
      const r = await runCliInProcess([
        ...args,
        ...flags(),
        '--header',
        'Authorization: Bearer not-a-token',
        '--send-authorization-as-is',
      ]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /sending your own Authorization as written/);
      assert.equal(seen.at(-1)?.status, 401, 'the sandbox refused the fixed token');
      assert.equal(seen.length, before + 1);
    }
  });

  it('send refuses a request that sets its own Authorization unless "# @authorization as-is" (or the flag) asks for it; reused, the sandbox refuses it', async () => {
    const token = (
      await runCliInProcess([
        'token',
        '--credential',
        sandbox.demo.credentialFile,
        '--aud',
        mds(),
        '--state-dir',
        path.join(dir, 'state'),
      ])
    ).out.trim();
    assert.ok(decodeJwt(token).jti);
    const file = path.join(dir, 'own.http');
    fs.writeFileSync(file, `GET {{baseUrl}}/vehicles\nAuthorization: Bearer ${token}\n`);
    const refused = await runCliInProcess(['send', file, ...flags()]);
    assert.equal(refused.code, 2, refused.err);
    assert.match(
      refused.err,
      /sets its own Authorization header.*fresh token for every request.*"# @authorization as-is"/s,
    );
    fs.writeFileSync(file, `# @authorization as-is\nGET {{baseUrl}}/vehicles\nAuthorization: Bearer ${token}\n`);
    const first = await runCliInProcess(['send', file, ...flags()]);
    assert.equal(first.code, 0, first.err);
    assert.match(first.err, /sending your own Authorization as written/);
    const again = await runCliInProcess(['send', file, ...flags()]);
    assert.equal(again.code, 1);
    assert.match(again.out, /401/);
    fs.writeFileSync(file, 'GET {{baseUrl}}/vehicles\nAuthorization: Bearer not-a-token\n');
    const flagged = await runCliInProcess(['send', file, ...flags(), '--send-authorization-as-is']);
    assert.equal(flagged.code, 1, flagged.err);
    assert.match(flagged.out, /401/);
  });

  it('send says once that a binary or non-UTF-8 file is not a text request file', async () => {
    const binary = path.join(dir, 'image.http');
    fs.writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('GET {{baseUrl}}/vehicles\n'),
        Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 256)),
      ]),
    );
    const latin1 = path.join(dir, 'latin1.http');
    fs.writeFileSync(latin1, Buffer.from('GET {{baseUrl}}/caf\xe9\nnot a header\n'.repeat(200), 'latin1'));
    for (const [file, reason] of [
      [binary, /holds NUL bytes/],
      [latin1, /is not valid UTF-8/],
    ] as const) {
      const r = await runCliInProcess(['send', file, ...flags()]);
      assert.equal(r.code, 2, r.err);
      assert.equal(r.err.trim().split('\n').length, 1, `one line, not a warning per line: ${r.err.slice(0, 300)}`);
      assert.match(r.err, /Not a text request file/);
      assert.match(r.err, reason);
    }
  });

  it('send names the first few requests of a file of 10,000 and counts the rest, when --request is missing or unknown', async () => {
    const file = path.join(dir, 'many.http');
    fs.writeFileSync(
      file,
      Array.from({ length: 10_000 }, (_, i) => `# @name r${i + 1}\nGET {{baseUrl}}/vehicles\n`).join('###\n'),
    );
    for (const extra of [[], ['--request', 'nope']]) {
      const r = await runCliInProcess(['send', file, ...flags(), ...extra]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /\br1\b.*\br2\b.*\br10\b\)? and 9,990 more/);
      assert.ok(r.err.length < 400, `a short message, not every name: ${r.err.length} characters`);
    }
  });

  it('validate checks a saved response, names the broken rules, and exits 1 when it does not conform', async () => {
    const file = path.join(dir, 'status.json');
    const item = {
      device_id: '3c9604d6-b5ee-11e8-96f8-529269fb1459',
      provider_id: '3c9604d6-b5ee-11e8-96f8-529269fb1459',
      last_event: {
        event_id: '3c9604d6-b5ee-11e8-96f8-529269fb1450',
        vehicle_state: 'available',
        event_types: ['maintenance_end'],
        timestamp: 1730815200000,
        location: { lat: 52.5, lng: 13.4 },
      },
      last_telemetry: {
        telemetry_id: '3c9604d6-b5ee-11e8-96f8-529269fb1451',
        timestamp: 1730815200000,
        trip_ids: null,
        journey_id: null,
        location: { lat: 52.5, lng: 13.4 },
      },
    };
    fs.writeFileSync(
      file,
      JSON.stringify({ version: '2.0.0', vehicles_status: [item], last_updated: 1730815200000, ttl: 30000 }),
    );
    const r = await runCliInProcess(['validate', file]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /MDS 2\.0 \(vehicles_status\): does not conform/);
    assert.match(r.out, /missing required property device_id at \/vehicles_status\/\*\/last_event/);
    assert.match(r.out, /\/vehicles_status\/0\/last_event\/event_types\/0: "maintenance_end"/);
    const unknown = path.join(dir, 'other.json');
    fs.writeFileSync(unknown, '{"hello":1}');
    const guess = await runCliInProcess(['validate', unknown]);
    assert.equal(guess.code, 2);
    assert.match(guess.err, /give --endpoint/);
  });
});
