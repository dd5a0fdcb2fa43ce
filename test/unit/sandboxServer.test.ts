import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { distinctKeyPair, keyFixture } from './keyFixtures';
import { MobilityError } from '../../src/core/base/errors';
import { ApiClient } from '../../src/core/http/apiClient';
import { clockSkewOf } from '../../src/core/clock/clockSkew';
import type { Environment } from '../../src/core/environment';
import { makeTestCredential } from './support/testCredentials';
import { parseTrustFile, startSandbox } from '../../src/sandbox/sandboxServer';
import { parseTrustFiles, TrustStore } from '../../src/sandbox/auth/trustStore';
import type { RunningSandbox, SandboxEnvironment, SandboxOptions } from '../../src/sandbox/sandboxServer';
import type {
  MaasVehiclesBody,
  MdsErrorBody,
  MdsVehiclesBody,
  MdsVehiclesStatusBody,
  PageLinks,
} from '../../src/sandbox/routes/mdsResponses';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';

/** The fields of an MDS listing or error body; each test reads those its route has. */
type MdsBody = MdsVehiclesBody & MdsVehiclesStatusBody & { links: PageLinks } & MdsErrorBody;

interface Answer<T = MdsBody> {
  status: number;
  headers: Headers;
  body: T;
}

const MDS_STATES = [
  'removed',
  'available',
  'non_operational',
  'reserved',
  'on_trip',
  'stopped',
  'non_contactable',
  'missing',
  'elsewhere',
];
const MDS_TYPES = [
  'bicycle',
  'bus',
  'cargo_bicycle',
  'car',
  'delivery_robot',
  'moped',
  'motorcycle',
  'scooter_standing',
  'scooter_seated',
  'truck',
  'other',
];
const MDS_PROPULSION = [
  'human',
  'electric_assist',
  'electric',
  'combustion',
  'combustion_diesel',
  'hybrid',
  'hydrogen_fuel_cell',
  'plug_in_hybrid',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Signs fresh tokens for the demo credential of one sandbox, with strictly increasing iats. */
class DemoSigner {
  private lastIat = 0;
  private readonly privateKey: KeyObject;

  constructor(private readonly sandbox: RunningSandbox) {
    this.privateKey = createPrivateKey(readFileSync(sandbox.demo.privateKeyFile, 'utf8'));
  }

  token(env: SandboxEnvironment): Promise<string> {
    const iat = Math.max(Date.now() / 1000, this.lastIat + 0.001);
    this.lastIat = iat;
    const { kid, issuer } = this.sandbox.demo;
    return new SignJWT({ iss: issuer, aud: env.baseUrl, iat, exp: Math.floor(iat) + 300, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(this.privateKey);
  }

  async get<T = MdsBody>(
    env: SandboxEnvironment,
    url: string,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${await this.token(env)}`, ...headers } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  }
}

function env(sandbox: RunningSandbox, id: SandboxEnvironment['id']): SandboxEnvironment {
  const found = sandbox.environments.find((e) => e.id === id);
  assert.ok(found, `environment ${id}`);
  return found;
}

function assertErrorBody(answer: Answer<unknown>, status: number, error: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  const body = answer.body as Partial<MdsErrorBody>;
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
  assert.ok(Array.isArray(body.error_details));
}

describe('sandbox server', () => {
  const started: RunningSandbox[] = [];
  const start = async (options: SandboxOptions = {}) => {
    const sandbox = await startSandbox(options);
    started.push(sandbox);
    return sandbox;
  };
  after(() => Promise.all(started.map((s) => s.close())));

  describe('MDS routes', () => {
    let sandbox: RunningSandbox;
    let signer: DemoSigner;
    let mds: SandboxEnvironment;
    const fleetSize = 250;

    before(async () => {
      sandbox = await start({ fleetSize, pageSize: 100, seed: 7 });
      signer = new DemoSigner(sandbox);
      mds = env(sandbox, 'mds-staging');
    });

    it('lists the environments and their base URLs at / without a token', async () => {
      const res = await fetch(`${sandbox.url}/`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { environments: { id: string; baseUrl: string }[] };
      assert.deepEqual(
        body.environments.map((e) => [e.id, e.baseUrl]),
        sandbox.environments.map((e) => [e.id, e.baseUrl]),
      );
      assert.ok(!JSON.stringify(body).includes('PRIVATE KEY'));
    });

    it('walks every page of /vehicles by links.next: the union of device_ids is the fleet, without duplicates', async () => {
      const seen: string[] = [];
      let url: string | null = `${mds.baseUrl}/vehicles`;
      let pages = 0;
      let last: Answer | undefined;
      while (url) {
        const answer: Answer = await signer.get(mds, url, { Accept: 'application/vnd.mds+json;version=2.0' });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.headers.get('content-type'), 'application/vnd.mds+json;version=2.0');
        assert.equal(answer.body.version, '2.0.2');
        // The 2.0.2 text asks them of /vehicles/status only; the official schema requires them here too.
        assert.equal(typeof answer.body.last_updated, 'number');
        assert.ok(answer.body.ttl > 0, `ttl ${answer.body.ttl}`);
        assert.deepEqual(Object.keys(answer.body.links).sort(), ['first', 'last', 'next', 'prev']);
        if (pages === 0) assert.equal(answer.body.links.prev, null);
        const { first, last: lastLink, prev, next } = answer.body.links;
        for (const link of [first, lastLink, prev, next]) {
          if (link !== null) assert.ok(link.startsWith(`${mds.baseUrl}/vehicles?`), link);
        }
        seen.push(...answer.body.vehicles.map((v) => v.device_id));
        url = answer.body.links.next;
        last = answer;
        pages += 1;
        assert.ok(pages <= 10, 'pagination must end');
      }
      assert.equal(pages, 3);
      assert.equal(last?.body.links.next, null);
      assert.equal(last?.body.links.last, `${mds.baseUrl}/vehicles?page=3`);
      assert.equal(new Set(seen).size, seen.length, 'no device_id twice');
      const fleet = new SyntheticFleet({ size: fleetSize, seed: 7, createdAt: 0 });
      assert.deepEqual(new Set(seen), new Set(Array.from({ length: fleetSize }, (_, i) => fleet.deviceIdAt(i))));
    });

    it('serves realistic MDS 2.0 vehicles', async () => {
      const answer = await signer.get(mds, `${mds.baseUrl}/vehicles?page_size=250`);
      const vehicles = answer.body.vehicles;
      assert.equal(vehicles.length, fleetSize);
      const providers = new Set(vehicles.map((v) => v.provider_id));
      assert.equal(providers.size, 1);
      const types = new Map<string, number>();
      for (const v of vehicles) {
        assert.match(v.device_id, UUID);
        assert.match(v.provider_id, UUID);
        assert.match(v.vehicle_id, /^[A-Z]{3}-\d{5,}$/);
        assert.ok(MDS_TYPES.includes(v.vehicle_type));
        const propulsion = v.propulsion_types;
        assert.ok(propulsion.length >= 1 && propulsion.every((p) => MDS_PROPULSION.includes(p)));
        if (v.vehicle_type === 'scooter_standing') assert.deepEqual(propulsion, ['electric']);
        if (propulsion.includes('human')) assert.equal(v.battery_capacity, undefined);
        types.set(v.vehicle_type, (types.get(v.vehicle_type) ?? 0) + 1);
      }
      const counts = [...types.entries()].sort((a, b) => b[1] - a[1]);
      assert.equal(counts[0]?.[0], 'scooter_standing', 'standing scooters are the largest group');
      assert.ok(types.size >= 4, 'a mix of vehicle types');
    });

    it('serves /vehicles/status with last_event and last_telemetry in MDS shapes', async () => {
      const answer = await signer.get(mds, `${mds.baseUrl}/vehicles/status?page=2`);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.vehicles, undefined);
      const items = answer.body.vehicles_status;
      assert.equal(items.length, 100);
      for (const item of items) {
        const event = item.last_event;
        const telemetry = item.last_telemetry;
        assert.match(event.event_id, UUID);
        assert.ok(MDS_STATES.includes(event.vehicle_state), event.vehicle_state);
        assert.ok(Array.isArray(event.event_types) && event.event_types.length >= 1);
        assert.ok(Number.isInteger(event.timestamp) && Number.isInteger(telemetry.timestamp));
        assert.equal(event.device_id, item.device_id);
        assert.equal(event.provider_id, item.provider_id);
        assert.equal(telemetry.device_id, item.device_id);
        assert.equal(telemetry.journey_id, null);
        for (const loc of [event.location, telemetry.location]) {
          assert.ok(Math.abs(loc.lat - 52.52) < 0.1 && Math.abs(loc.lng - 13.41) < 0.15, JSON.stringify(loc));
        }
        if (event.vehicle_state === 'on_trip') {
          assert.equal(event.trip_ids?.length, 1);
          assert.deepEqual(telemetry.trip_ids, event.trip_ids, 'a vehicle on a trip reports telemetry of that trip');
        }
        if (event.battery_percent !== undefined) assert.ok(event.battery_percent >= 0 && event.battery_percent <= 100);
      }
    });

    it('serves one vehicle and one status by device_id, in the listing shapes', async () => {
      const list = await signer.get(mds, `${mds.baseUrl}/vehicles`);
      const first = list.body.vehicles[0];
      assert.ok(first);
      const one = await signer.get(mds, `${mds.baseUrl}/vehicles/${first.device_id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.vehicles, [first]);
      const status = await signer.get(mds, `${mds.baseUrl}/vehicles/status/${first.device_id}`);
      assert.equal(status.status, 200);
      assert.equal(status.body.vehicles_status.length, 1);
      assert.equal(status.body.vehicles_status[0].device_id, first.device_id);
    });

    it('answers 404 with an MDS error body for an unknown device, an unknown route and a path outside the environments', async () => {
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/vehicles/${randomUUID()}`), 404, 'not_found');
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/vehicles/not-a-uuid`), 404, 'not_found');
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/trip`), 404, 'not_found');
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/vehicles/status/x/y`), 404, 'not_found');
      const outside = await fetch(`${sandbox.url}/nowhere`);
      assertErrorBody(
        { status: outside.status, headers: outside.headers, body: (await outside.json()) as unknown },
        404,
        'not_found',
      );
    });

    it('negotiates the MDS version: 406 for version=1.2, 2.0 for a 2.x version, JSON, */* or no Accept', async () => {
      const refused = await signer.get(mds, `${mds.baseUrl}/vehicles`, {
        Accept: 'application/vnd.mds+json;version=1.2',
      });
      assertErrorBody(refused, 406, 'not_acceptable');
      assert.match(refused.body.error_description, /1\.2/);
      for (const accept of [
        'application/vnd.mds+json;version=2.0',
        'application/vnd.mds+json; version=2.1',
        'application/json',
        '*/*',
        undefined,
      ]) {
        const answer = await signer.get(mds, `${mds.baseUrl}/vehicles`, accept === undefined ? {} : { Accept: accept });
        assert.equal(answer.status, 200, `Accept: ${accept}`);
        assert.equal(answer.headers.get('content-type'), 'application/vnd.mds+json;version=2.0');
      }
    });

    it('honours page_size up to its cap and refuses a page beyond the last with 400', async () => {
      const small = await signer.get(mds, `${mds.baseUrl}/vehicles?page_size=40&page=7`);
      assert.equal(small.body.vehicles.length, 10);
      assert.equal(small.body.links.next, null);
      assert.equal(small.body.links.prev, `${mds.baseUrl}/vehicles?page=6&page_size=40`);
      const jsonApi = await signer.get(mds, `${mds.baseUrl}/vehicles?page%5Bnumber%5D=2&page%5Bsize%5D=50`);
      assert.equal(jsonApi.body.vehicles.length, 50);
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/vehicles?page=4`), 400, 'bad_param');
      assertErrorBody(await signer.get(mds, `${mds.baseUrl}/vehicles?page=0`), 400, 'bad_param');
    });

    it('answers 405 for methods other than GET and HEAD, and HEAD without a body', async () => {
      const post = await fetch(`${mds.baseUrl}/vehicles`, { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
      assert.equal(((await post.json()) as { error: string }).error, 'method_not_allowed');
      const head = await fetch(`${mds.baseUrl}/vehicles`, {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${await signer.token(mds)}` },
      });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
    });

    it('serves the MaaS listing in the sandbox shape as application/json', async () => {
      const maas = env(sandbox, 'maas-staging');
      const answer = await signer.get<MaasVehiclesBody>(maas, `${maas.baseUrl}/v1alpha2/vehicles`);
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      const vehicle = answer.body.vehicles[0];
      assert.ok(vehicle);
      assert.match(vehicle.id, UUID);
      assert.ok(MDS_STATES.includes(vehicle.state));
      assert.equal(typeof vehicle.location.lat, 'number');
      assert.equal(answer.body.links.next, `${maas.baseUrl}/v1alpha2/vehicles?page=2`);
      assertErrorBody(await signer.get(maas, `${maas.baseUrl}/vehicles`), 404, 'not_found');
    });
  });

  describe('fleet', () => {
    it('serves the first and the last page of a 100,000-vehicle fleet', async () => {
      const sandbox = await start({ fleetSize: 100_000 });
      const signer = new DemoSigner(sandbox);
      const mds = env(sandbox, 'mds-production');
      const first = await signer.get(mds, `${mds.baseUrl}/vehicles`);
      assert.equal(first.body.vehicles.length, 100);
      assert.equal(first.body.links.last, `${mds.baseUrl}/vehicles?page=1000`);
      const last = await signer.get(mds, first.body.links.last);
      assert.equal(last.status, 200);
      assert.equal(last.body.vehicles.length, 100);
      assert.equal(last.body.links.next, null);
      const lastVehicle = last.body.vehicles[99];
      assert.equal(lastVehicle?.vehicle_id.endsWith('100000'), true);
      const lastId = lastVehicle?.device_id ?? '';
      assert.equal((await signer.get(mds, `${mds.baseUrl}/vehicles/${lastId}`)).body.vehicles[0]?.device_id, lastId);
    });

    it('is deterministic: the same seed gives the same first page, another seed another', async () => {
      const pageOf = async (seed: number) => {
        const sandbox = await start({ seed, fleetSize: 300 });
        const mds = env(sandbox, 'mds-staging');
        return (await new DemoSigner(sandbox).get(mds, `${mds.baseUrl}/vehicles`)).body.vehicles;
      };
      const a = await pageOf(11);
      assert.deepEqual(await pageOf(11), a);
      assert.notDeepEqual(await pageOf(12), a);
    });
  });

  describe('trust files', () => {
    const ec = () => distinctKeyPair('p256');
    const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string;

    it('reads one entry object with a PEM key and a list with JWK and RSA keys', () => {
      const one = ec();
      const [single] = parseTrustFile(
        JSON.stringify({ kid: 'k1', iss: 'a@org.example.test', type: 'external-org', publicKey: pem(one.publicKey) }),
        'one.json',
      );
      assert.equal(single?.kid, 'k1');
      assert.equal(single?.type, 'external-org');
      assert.ok(single?.publicKey.equals(one.publicKey));
      const rsa = keyFixture('rsa2048');
      const list = parseTrustFile(
        JSON.stringify([
          { kid: 'k2', iss: 'b@iam.example.test', type: 'iam', publicKey: ec().publicKey.export({ format: 'jwk' }) },
          { kid: 'k3', iss: 'svc@project.example.test', type: 'service-account', publicKey: pem(rsa.publicKey) },
        ]),
        'list.json',
      );
      assert.deepEqual(
        list.map((k) => [k.kid, k.type]),
        [
          ['k2', 'iam'],
          ['k3', 'service-account'],
        ],
      );
    });

    it('refuses each bad entry, naming the file, the entry index and the field', () => {
      const good = { kid: 'ok', iss: 'a@org.example.test', type: 'external-org', publicKey: pem(ec().publicKey) };
      const rsa = keyFixture('rsa2048');
      const cases: [unknown, string][] = [
        [{ ...good, kid: '' }, 'kid'],
        [{ ...good, kid: 'ok' }, 'kid'],
        [{ ...good, kid: 'x', iss: 42 }, 'iss'],
        [{ ...good, kid: 'x', type: 'admin' }, 'type'],
        [{ ...good, kid: 'x', publicKey: undefined }, 'publicKey'],
        [{ ...good, kid: 'x', publicKey: 'not a key' }, 'publicKey'],
        [{ ...good, kid: 'x', publicKey: ec().privateKey.export({ type: 'pkcs8', format: 'pem' }) }, 'publicKey'],
        [{ ...good, kid: 'x', publicKey: ec().privateKey.export({ format: 'jwk' }) }, 'publicKey'],
        [{ ...good, kid: 'x', publicKey: pem(rsa.publicKey) }, 'publicKey'],
        [{ ...good, kid: 'x', type: 'service-account' }, 'publicKey'],
        ['just a string', '(entry)'],
      ];
      for (const [bad, field] of cases) {
        assert.throws(
          () => parseTrustFile(JSON.stringify([good, bad]), 'keys/trust.json'),
          (err: unknown) => {
            assert.ok(err instanceof MobilityError);
            assert.equal(err.code, 'TRUST_FILE_INVALID');
            assert.ok(err.message.includes('keys/trust.json'), err.message);
            assert.ok(err.message.includes('entry 1'), err.message);
            assert.ok(err.message.includes(`field "${field}"`), err.message);
            assert.ok(!err.message.includes('PRIVATE KEY'), 'never echoes key material');
            return true;
          },
          JSON.stringify(bad).slice(0, 80),
        );
      }
      assert.throws(() => parseTrustFile('{ not json', 'broken.json'), /broken\.json is not valid JSON/);
      assert.throws(() => parseTrustFile('[]', 'empty.json'), /empty\.json holds an empty list/);
    });

    it('refuses one kid bound by two trust files (or twice to different keys), naming both files and never the whole kid', () => {
      const kid = 'shared-kid-0123456789abcdef';
      const entry = (key = ec().publicKey) => ({
        kid,
        iss: 'a@org.example.test',
        type: 'external-org',
        publicKey: pem(key),
      });
      const files = [
        { text: JSON.stringify(entry()), source: 'team-a.json' },
        { text: JSON.stringify([{ ...entry(), kid: 'other' }, entry()]), source: 'team-b.json' },
      ];
      assert.throws(
        () => parseTrustFiles(files),
        (err: unknown) => {
          assert.ok(err instanceof MobilityError && err.code === 'TRUST_FILE_INVALID');
          assert.match(
            err.message,
            /is bound by two trust files, team-a\.json and team-b\.json\. .*remove the entry from one of the files/,
          );
          assert.ok(!err.message.includes(kid), err.message);
          return true;
        },
      );
      assert.throws(() => parseTrustFiles([files[0], files[0]]), /team-a\.json is given twice with --trust/);
      assert.deepEqual(
        parseTrustFiles([files[0], { text: JSON.stringify({ ...entry(), kid: 'other' }), source: 'c.json' }]).map(
          (k) => k.kid,
        ),
        [kid, 'other'],
      );
      // The keys a sandbox starts with (its demo key, then the trust files') bind a kid once, unless to the very same key.
      const [first] = parseTrustFile(JSON.stringify(entry()), 'a.json');
      const [second] = parseTrustFile(JSON.stringify(entry()), 'b.json');
      assert.throws(
        () => new TrustStore([first, second]),
        (err: unknown) =>
          err instanceof MobilityError &&
          /is bound twice, to different keys/.test(err.message) &&
          !err.message.includes(kid),
      );
      assert.deepEqual(new TrustStore([first, { ...first }]).kids(), [kid]);
    });

    it('a key from a trust file is accepted by a sandbox started with it', async () => {
      const pair = ec();
      const trust = parseTrustFile(
        JSON.stringify({
          kid: 'from-file',
          iss: 'me@org.example.test',
          type: 'external-org',
          publicKey: pem(pair.publicKey),
        }),
        'me.json',
      );
      const sandbox = await start({ trust });
      const mds = env(sandbox, 'mds-staging');
      const iat = Date.now() / 1000;
      const token = await new SignJWT({
        iss: 'me@org.example.test',
        aud: mds.baseUrl,
        iat,
        exp: Math.floor(iat) + 120,
        jti: randomUUID(),
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'from-file' })
        .sign(pair.privateKey);
      const res = await fetch(`${mds.baseUrl}/vehicles`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
    });
  });

  describe('demo credential', () => {
    it('writes the key with mode 0600, a credential file without key material and a trust entry another sandbox accepts', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-demo-test-'));
      try {
        const sandbox = await start({ demoDir: dir });
        const { demo } = sandbox;
        assert.match(demo.kid, /^sandbox-demo-[0-9a-f]{8}$/);
        assert.equal(demo.issuer, 'demo@sandbox.mobility-api.invalid');
        assert.equal(demo.privateKeyFile, join(dir, 'demo-private-key.pem'));
        if (process.platform !== 'win32') assert.equal(statSync(demo.privateKeyFile).mode & 0o777, 0o600);
        const credentialText = readFileSync(demo.credentialFile, 'utf8');
        assert.deepEqual(JSON.parse(credentialText), {
          type: 'external-org',
          kid: demo.kid,
          issuer: demo.issuer,
          privateKeyFile: demo.privateKeyFile,
        });
        assert.ok(!/PRIVATE KEY|"d"\s*:/.test(credentialText));
        const trustText = readFileSync(join(dir, 'demo-trust.json'), 'utf8');
        assert.ok(!/PRIVATE KEY|"d"\s*:/.test(trustText));

        const second = await start({
          trust: parseTrustFile(trustText, 'demo-trust.json'),
          demoDir: join(dir, 'second'),
        });
        const mds = env(second, 'mds-staging');
        const iat = Date.now() / 1000;
        const token = await new SignJWT({
          iss: demo.issuer,
          aud: mds.baseUrl,
          iat,
          exp: Math.floor(iat) + 120,
          jti: randomUUID(),
        })
          .setProtectedHeader({ alg: 'ES256', kid: demo.kid })
          .sign(createPrivateKey(readFileSync(demo.privateKeyFile, 'utf8')));
        assert.equal(
          (await fetch(`${mds.baseUrl}/vehicles`, { headers: { Authorization: `Bearer ${token}` } })).status,
          200,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('keeps the kid when the demo key is reused, and removes only a demo folder it created', async () => {
      const first = await startSandbox();
      const pemText = readFileSync(first.demo.privateKeyFile, 'utf8');
      await first.close();
      assert.equal(existsSync(first.demo.dir), false, 'the temp folder is removed on close');
      const again = await start({ demoPrivateKeyPem: pemText });
      assert.equal(again.demo.kid, first.demo.kid);
      assert.notEqual(createPublicKey(createPrivateKey(pemText)).export({ format: 'jwk' }).x, undefined);
      await assert.rejects(
        startSandbox({ demoPrivateKeyPem: 'nonsense' }),
        (err: unknown) => err instanceof MobilityError && err.code === 'DEMO_KEY_INVALID',
      );
    });
  });

  it('refuses bad options and a port in use with clear errors', async () => {
    await assert.rejects(
      startSandbox({ fleetSize: -1 }),
      (err: unknown) =>
        err instanceof MobilityError && err.code === 'SANDBOX_OPTIONS_INVALID' && /fleetSize/.test(err.message),
    );
    const taken = await start();
    await assert.rejects(
      startSandbox({ port: taken.port }),
      (err: unknown) =>
        err instanceof MobilityError && err.code === 'SANDBOX_START_FAILED' && /already in use/.test(err.message),
    );
  });
});

// Runs after every sandbox above is closed, so that only this test's handles come and go.
describe('sandbox lifecycle', () => {
  it('close() leaves no listening server or open socket behind, even with a keep-alive connection open', async () => {
    // Timers are left out: Node's own unref'd Date-header cache shows up there and keeps nothing alive.
    const handles = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'TCPSocketWrap');
    const before = handles().length;
    const sandbox = await startSandbox();
    const mds = env(sandbox, 'mds-staging');
    const token = await new DemoSigner(sandbox).token(mds);
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${mds.baseUrl}/vehicles`,
        { headers: { Authorization: `Bearer ${token}`, Connection: 'keep-alive' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    await sandbox.close();
    await sandbox.close();
    // The client side learns of the closed socket one turn of the event loop later.
    for (let i = 0; i < 50 && handles().length > before; i++) await new Promise((r) => setImmediate(r));
    assert.equal(handles().length, before, `left: ${handles().join(', ')}`);
  });
});

describe('sandbox without demo files', () => {
  it('with demoDir false writes no file and trusts the demo key it was given', async () => {
    const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('mobility-api-sandbox-')));
    const pem = keyFixture('p256').pkcs8;
    const sandbox = await startSandbox({ demoDir: false, demoPrivateKeyPem: pem, fleetSize: 5 });
    try {
      assert.deepEqual([sandbox.demo.privateKeyFile, sandbox.demo.credentialFile, sandbox.demo.dir], ['', '', '']);
      const after = readdirSync(tmpdir()).filter((f) => f.startsWith('mobility-api-sandbox-') && !before.has(f));
      assert.deepEqual(after, [], 'no demo folder was created');
      const mds = env(sandbox, 'mds-staging');
      const token = await new SignJWT({
        iss: sandbox.demo.issuer,
        aud: mds.baseUrl,
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 300,
        jti: randomUUID(),
      })
        .setProtectedHeader({ alg: 'ES256', kid: sandbox.demo.kid })
        .sign(createPrivateKey(pem));
      const res = await fetch(`${mds.baseUrl}/vehicles`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    } finally {
      await sandbox.close();
    }
  });
});

describe('sandbox clock', () => {
  it('sends a Date header from its injected clock, so a client sees the skew against a sandbox whose clock was moved', async () => {
    const aheadMs = 10 * 60_000;
    const credential = makeTestCredential();
    const sandbox = await startSandbox({
      now: () => Date.now() + aheadMs,
      fleetSize: 5,
      demoDir: false,
      trust: [{ kid: credential.kid, iss: credential.issuer, type: credential.type, publicKey: credential.publicKey }],
    });
    try {
      const mds = sandbox.environments.find((e) => e.id === 'mds-staging') as SandboxEnvironment;
      const environment: Environment = {
        id: 'sandbox',
        name: 'Sandbox',
        api: 'mds',
        stage: 'staging',
        baseUrl: mds.baseUrl,
      };
      const exchange = await new ApiClient().get(`${mds.baseUrl}/vehicles`, environment, credential);
      const skew = clockSkewOf(exchange);
      assert.ok(skew, `no skew seen: Date ${exchange.serverDateMs}, received ${exchange.receivedAtMs}`);
      assert.equal(skew.direction, 'behind');
      assert.ok(Math.abs(skew.offsetMs + aheadMs) < 5000, `offset ${skew.offsetMs} ms`);
      assert.match(skew.summary, /about 10 min behind/);
    } finally {
      await sandbox.close();
    }
  });
});
