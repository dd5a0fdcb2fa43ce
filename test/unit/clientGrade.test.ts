import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import { ClientGrader } from '../../src/sandbox/auth/clientGrade';
import type { ClientReport } from '../../src/sandbox/auth/clientGrade';
import { clientReportText } from '../../src/sandbox/auth/clientReportText';
import { REPORT_PATH, startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxEnvironment } from '../../src/sandbox/sandboxServer';

describe('grading the client (sandbox --grade)', () => {
  const start = Date.UTC(2030, 0, 15, 12, 0, 0);
  let clock = start;
  let sandbox: RunningSandbox;
  let mds: SandboxEnvironment;
  let privateKey: KeyObject;
  const nowSeconds = () => Math.floor(clock / 1000);

  const sign = (claims: JWTPayload): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: sandbox.demo.kid }).sign(privateKey);
  const claims = (iat: number, extra: JWTPayload = {}): JWTPayload => ({
    iss: sandbox.demo.issuer,
    aud: mds.baseUrl,
    iat,
    exp: iat + 300,
    jti: randomUUID(),
    ...extra,
  });
  const get = async (path: string, token: string): Promise<number> =>
    (await fetch(`${mds.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } })).status;
  const reportOf = async (): Promise<ClientReport> => {
    const res = await fetch(`${sandbox.url}${REPORT_PATH}`);
    assert.equal(res.status, 200);
    return (await res.json()) as ClientReport;
  };

  beforeEach(async () => {
    clock = start;
    sandbox = await startSandbox({ now: () => clock, fleetSize: 20, pageSize: 10, grade: true });
    mds = sandbox.environments.find((e) => e.id === 'mds-staging') as SandboxEnvironment;
    privateKey = createPrivateKey(readFileSync(sandbox.demo.privateKeyFile, 'utf8'));
  });
  afterEach(() => sandbox.close());

  it('names exactly the rules a broken client breaks: the same token twice, two tokens in one second on one key, exp = iat + 1', async () => {
    const iat = nowSeconds();
    const first = await sign(claims(iat));
    assert.equal(await get('/vehicles', first), 200);
    // The next page with the same token.
    assert.equal(await get('/vehicles?page=1', first), 401);
    // A second token in the same second: whole-second iats tie.
    assert.equal(await get('/vehicles', await sign(claims(iat))), 401);
    clock += 1000;
    assert.equal(await get('/vehicles', await sign(claims(iat + 1, { exp: iat + 2 }))), 401);

    const report = await reportOf();
    assert.deepEqual(report.requests, { seen: 4, accepted: 1, refused: 3, unchecked: 0 });
    assert.deepEqual(
      report.refusals.map((r) => [r.rule, r.count]),
      [
        ['lifetime_out_of_range', 1],
        ['jti_replayed', 1],
        ['iat_not_increasing', 1],
      ],
    );
    assert.equal(report.grade, 'fail');
    assert.deepEqual(report.warnings, []);
    const replayed = report.refusals.find((r) => r.rule === 'jti_replayed');
    assert.equal(replayed?.spec, '5.1 rule 4');
    assert.equal(replayed?.first.method, 'GET');
    // The first line keeps the query: the reused token was sent for page 1, not for the first page.
    assert.equal(replayed?.first.path, '/mds-staging/vehicles?page=1');
    assert.equal(replayed?.first.time, new Date(start).toISOString());
    assert.equal(replayed?.first.transport, 'http');
    const ordering = report.refusals.find((r) => r.rule === 'iat_not_increasing');
    assert.deepEqual(Object.keys(ordering?.first.claims ?? {}).sort(), ['iat', 'jti']);
    assert.equal(ordering?.first.claims.iat, iat);
    assert.ok(ordering?.first.details.includes(`latest accepted iat: ${iat}`));
    assert.deepEqual(report.refusals.find((r) => r.rule === 'lifetime_out_of_range')?.first.claims, {
      iat: iat + 1,
      exp: iat + 2,
    });

    const all = JSON.stringify(report);
    assert.ok(!all.includes(first) && !all.includes(first.split('.')[2] ?? '-'), 'no token in the report');
    assert.ok(!all.includes(sandbox.demo.kid), 'no whole kid in the report');
    assert.deepEqual(
      sandbox.clientReport()?.refusals.map((r) => r.rule),
      report.refusals.map((r) => r.rule),
      'the API and the route give the same card',
    );

    const text = await (await fetch(`${sandbox.url}${REPORT_PATH}?format=text`)).text();
    assert.match(text, /Requests seen: 4 {3}accepted: 1 {3}refused: 3/);
    for (const rule of [
      'lifetime_out_of_range (spec 5.1 rule 5)',
      'jti_replayed (spec 5.1 rule 4)',
      'iat_not_increasing (spec 5.1 rule 6)',
    ])
      assert.ok(text.includes(rule), rule);
    assert.match(text, /first: GET \/mds-staging\/vehicles at 2030-01-15T12:00:00.000Z \(http\)/);
    assert.match(text, /first: GET \/mds-staging\/vehicles\?page=1 at 2030-01-15T12:00:00.000Z \(http\)/);
  });

  it('charges a refused token every rule it breaks, and what it does that a stricter server refuses', async () => {
    const iat = nowSeconds();
    // A 30 s lifetime and an iat 10 s ahead: rule 5, and fragile (within the sandbox's 60 s of skew).
    assert.equal(await get('/vehicles', await sign(claims(iat + 10, { exp: iat + 40 }))), 401);
    // A 30 s lifetime and an iat 90 s ahead: rule 5 and iat_in_future.
    assert.equal(await get('/vehicles', await sign(claims(iat + 90, { exp: iat + 120 }))), 401);
    // An accepted token's jti again, with a 30 s lifetime: jti_replayed and rule 5 (rule 6 would only restate the replay).
    const jti = randomUUID();
    assert.equal(await get('/vehicles', await sign(claims(iat, { jti }))), 200);
    assert.equal(await get('/vehicles?page=2', await sign(claims(iat + 1, { jti, exp: iat + 31 }))), 401);

    const report = await reportOf();
    assert.deepEqual(report.requests, { seen: 4, accepted: 1, refused: 3, unchecked: 0 });
    assert.deepEqual(Object.fromEntries(report.refusals.map((r) => [r.rule, r.count])), {
      lifetime_out_of_range: 3,
      iat_in_future: 1,
      jti_replayed: 1,
    });
    assert.deepEqual(
      report.warnings.map((w) => [w.id, w.count]),
      [['iat_ahead', 1]],
      'the iat 90 s ahead is charged as iat_in_future, not warned of again',
    );
    assert.deepEqual(report.refusals.find((r) => r.rule === 'iat_in_future')?.first.claims, { iat: iat + 90 });
    assert.equal(report.refusals.find((r) => r.rule === 'jti_replayed')?.first.path, '/mds-staging/vehicles?page=2');
    const text = await (await fetch(`${sandbox.url}${REPORT_PATH}?format=text`)).text();
    assert.match(text, /Grade: FAIL, 3 rules of spec 5 broken/);
    assert.match(text, /iat_in_future \(spec [^)]+\): 1 request\n/);
    assert.match(text, /iat_ahead: 1 request\n/);
  });

  it('warns of accepted but fragile tokens: a lifetime over 30 minutes, iat more than 5 s ahead, aud as a list with extra values', async () => {
    const iat = nowSeconds();
    assert.equal(await get('/vehicles', await sign(claims(iat, { exp: iat + 45 * 60 }))), 200);
    assert.equal(await get('/vehicles', await sign(claims(iat + 10))), 200);
    assert.equal(
      await get('/vehicles', await sign(claims(iat + 11, { aud: [mds.baseUrl, 'https://other.example.test'] }))),
      200,
    );
    assert.equal(
      await get('/vehicles', await sign(claims(iat + 12, { aud: [mds.baseUrl] }))),
      200,
      'a list of the audience alone',
    );
    const report = await reportOf();
    assert.equal(report.grade, 'pass');
    assert.deepEqual(report.requests, { seen: 4, accepted: 4, refused: 0, unchecked: 0 });
    assert.deepEqual(
      report.warnings.map((w) => [w.id, w.count]),
      [
        ['long_lifetime', 1],
        ['iat_ahead', 3],
        ['aud_list_extra', 1],
      ],
    );
    assert.deepEqual(report.warnings.find((w) => w.id === 'aud_list_extra')?.first.claims, {
      aud: [mds.baseUrl, 'https://other.example.test'],
    });
  });

  it('counts requests answered without a token check apart, and does not count asking for the card', async () => {
    await fetch(`${sandbox.url}/`);
    await fetch(`${mds.baseUrl}/vehicles`, { method: 'POST' });
    await fetch(`${sandbox.url}${REPORT_PATH}`);
    assert.deepEqual((await reportOf()).requests, { seen: 2, accepted: 0, refused: 0, unchecked: 2 });
    assert.equal((await reportOf()).grade, 'no requests');
  });

  it('a sandbox started without grade keeps no card', async () => {
    const plain = await startSandbox({ fleetSize: 5, demoDir: false });
    try {
      assert.equal(plain.clientReport(), undefined);
      assert.equal((await fetch(`${plain.url}${REPORT_PATH}`)).status, 404);
    } finally {
      await plain.close();
    }
  });
});

describe('ClientGrader (pure)', () => {
  it('gives a verdict per request with its transport, ready for gRPC', () => {
    const grader = new ClientGrader(() => 0);
    const verdict = grader.record({
      transport: 'grpc',
      method: 'ListVehicles',
      path: '/mds.Provider/ListVehicles',
      atMs: 0,
      status: 16,
      check: {
        ok: false,
        refusal: { rule: 'missing_bearer', spec: '5.1 rule 3', description: 'no token', details: [] },
      },
    });
    assert.deepEqual(verdict, {
      transport: 'grpc',
      method: 'ListVehicles',
      path: '/mds.Provider/ListVehicles',
      time: '1970-01-01T00:00:00.000Z',
      status: 16,
      outcome: 'refused',
      rule: 'missing_bearer',
      warnings: [],
    });
    assert.deepEqual(grader.report().byTransport, { grpc: 1 });
  });

  it('masks the kid in descriptions and details, and never shows it whole', () => {
    const kid = 'a-secret-key-identifier-1234';
    const grader = new ClientGrader(() => 0);
    grader.record({
      transport: 'http',
      method: 'GET',
      path: '/x',
      atMs: 0,
      status: 401,
      check: {
        ok: false,
        refusal: {
          rule: 'unknown_kid',
          spec: '5.4',
          description: `The header kid "${kid}" is not trusted.`,
          details: [`kid: "${kid}"`, `hint: ${kid} again`],
          kid,
        },
      },
    });
    const text = JSON.stringify(grader.report());
    assert.ok(!text.includes(kid), text);
    assert.match(text, /a-s…234/, 'the kid is masked as everywhere else in the product');
  });

  it('shows what the client sent as data: control characters in a path cannot fake a line of the card', () => {
    const grader = new ClientGrader(() => 0);
    grader.record({
      transport: 'http',
      method: 'GET',
      path: '/a\nGrade: PASS\u001b[2J',
      atMs: 0,
      status: 401,
      check: {
        ok: false,
        refusal: { rule: 'missing_bearer', spec: '5.1 rule 3', description: 'no token', details: [] },
      },
    });
    const text = clientReportText(grader.report());
    assert.ok(!text.includes('\u001b') && !/^Grade: PASS/m.test(text), text);
    assert.match(text, /first: GET \/a\\u000aGrade: PASS\\u001b\[2J/);
  });
});
