// MDS Geography documents (core/geography): read and checked against the official schema, effective and retire dates,
// which geographies contain a point (cross-checked against a second library, robust-point-in-polygon, on points near
// the edges), and the sandbox's Geography API, whose districts tile the fleet's area.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import classifyPoint from 'robust-point-in-polygon';
import { geographySchemaErrors } from '../../src/core/conformance';
import { GeographyIndex, geographyBaseUrlOf, parseGeographyDocument, readGeographies } from '../../src/core/geography';
import type { GeographySet, PolygonRings, Position } from '../../src/core/geography';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { FLEET_CENTRE, FLEET_RADIUS_METRES, locationNear } from '../../src/sandbox/world/worldGeography';
import { SandboxClient, assertMdsError } from './sandboxSupport';

const PUBLISHED = Date.UTC(2025, 0, 1);
const ids = {
  square: '11111111-1111-4111-8111-111111111111',
  ell: '22222222-2222-4222-8222-222222222222',
  old: '33333333-3333-4333-8333-333333333333',
  next: '44444444-4444-4444-8444-444444444444',
};

/** A square (0..10) with a square hole (4..6), and an L made of two squares as a MultiPolygon (concave where they meet). */
const SQUARE: number[][][] = [
  [
    [0, 0],
    [10, 0],
    [10, 10],
    [0, 10],
    [0, 0],
  ],
  [
    [4, 4],
    [4, 6],
    [6, 6],
    [6, 4],
    [4, 4],
  ],
];
const ELL: number[][][][] = [
  [
    [
      [20, 0],
      [30, 0],
      [30, 5],
      [25, 5],
      [25, 15],
      [20, 15],
      [20, 0],
    ],
  ],
  [
    [
      [40, 40],
      [42, 40],
      [41, 43],
      [40, 40],
    ],
  ],
];

function geography(
  id: string,
  name: string,
  geometry: unknown,
  dates: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    geography_id: id,
    name,
    published_date: PUBLISHED,
    geography_json: { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry }] },
    ...dates,
  };
}

function document(geographies: unknown[]): Record<string, unknown> {
  return { version: '2.0.0', last_updated: PUBLISHED, geographies };
}

const SET: GeographySet = parseGeographyDocument(
  JSON.stringify(
    document([
      geography(ids.square, 'Square with a hole', { type: 'Polygon', coordinates: SQUARE }),
      geography(ids.ell, 'An L and a triangle', { type: 'MultiPolygon', coordinates: ELL }),
    ]),
  ),
  'test.json',
);

describe('Geography documents: read, checked, dated, and which geographies contain a point', () => {
  it('reads a geographies.json: polygons with holes, MultiPolygons, and the point tests they give', () => {
    const index = new GeographyIndex(SET);
    const names = (lng: number, lat: number) => index.containing(lng, lat).map((i) => SET.geographies[i]?.name);
    assert.deepEqual(names(1, 1), ['Square with a hole']);
    assert.deepEqual(names(5, 5), [], 'in the hole');
    assert.deepEqual(names(27, 10), [], "in the L's notch");
    assert.deepEqual(names(22, 10), ['An L and a triangle']);
    assert.deepEqual(names(41, 41), ['An L and a triangle'], 'the second polygon of the MultiPolygon');
    assert.deepEqual(names(10, 5), ['Square with a hole'], 'a point on an edge is in');
    assert.deepEqual(names(10, 10), ['Square with a hole'], 'a vertex is in');
    assert.deepEqual(names(41, 43), ['An L and a triangle'], 'the apex of the triangle is in');
    assert.deepEqual(names(4, 4), ['Square with a hole'], 'a vertex of the hole is on its edge: in');
    assert.deepEqual(names(Number.NaN, 5), []);
  });

  it('refuses what is not a Geography document, saying where and what to fix', () => {
    const refusal = { last: '' };
    const invalid = (text: string) =>
      assert.throws(
        () => parseGeographyDocument(text, 'bad.json'),
        (err: Error & { code?: string }) => {
          refusal.last = err.message;
          return err.code === 'GEOGRAPHY_INVALID' && /bad\.json/.test(err.message);
        },
      );
    invalid('{ not json');
    assert.match(refusal.last, /not JSON/);
    const missing = geography(ids.square, 'No date', { type: 'Polygon', coordinates: SQUARE });
    delete missing.published_date;
    invalid(JSON.stringify(document([missing])));
    assert.match(
      refusal.last,
      /MDS 2\.0 Geography schema: \/geographies\/0 must have required property 'published_date'/,
    );
    invalid(JSON.stringify({ ...document([]), version: '1.2.0' }));
    assert.match(refusal.last, /\/version must match pattern/);
    invalid(JSON.stringify(document([geography(ids.square, 'A stop', { type: 'Point', coordinates: [1, 2] })])));
    assert.match(refusal.last, /no Polygon or MultiPolygon/);
    invalid(
      JSON.stringify(
        document([
          geography(ids.square, 'A', { type: 'Polygon', coordinates: SQUARE }),
          geography(ids.square, 'B', { type: 'Polygon', coordinates: SQUARE }),
        ]),
      ),
    );
    assert.match(refusal.last, /name geography_id 11111111-1111-4111-8111-111111111111 twice/);
    invalid(
      JSON.stringify(
        document([
          geography(
            ids.square,
            'Retired first',
            { type: 'Polygon', coordinates: SQUARE },
            { effective_date: PUBLISHED + 10, retire_date: PUBLISHED + 5 },
          ),
        ]),
      ),
    );
    assert.match(refusal.last, /retires before it is effective/);
  });

  it("honours effective and retire dates, and prev_geographies replacing an older geography from the newer's start", () => {
    const t = (days: number) => PUBLISHED + days * 86_400_000;
    const set = parseGeographyDocument(
      JSON.stringify(
        document([
          geography(
            ids.square,
            'Retires on day 20',
            { type: 'Polygon', coordinates: SQUARE },
            { effective_date: t(10), retire_date: t(20) },
          ),
          geography(ids.old, 'Old version', { type: 'Polygon', coordinates: SQUARE }),
          geography(
            ids.next,
            'New version',
            { type: 'Polygon', coordinates: SQUARE },
            { effective_date: t(15), prev_geographies: [ids.old] },
          ),
        ]),
      ),
      'dated.json',
    );
    const index = new GeographyIndex(set);
    const at = (day: number) => index.containingAt(1, 1, t(day)).map((i) => set.geographies[i]?.name);
    assert.deepEqual(at(5), ['Old version']);
    assert.deepEqual(at(12), ['Retires on day 20', 'Old version']);
    assert.deepEqual(at(15), ['Retires on day 20', 'New version']);
    assert.deepEqual(at(25), ['New version']);
  });

  it('agrees with a second library (robust-point-in-polygon, exact arithmetic) on 20,000 points near the edges', () => {
    const index = new GeographyIndex(SET);
    const polygons: { geography: number; rings: PolygonRings }[] = SET.geographies.flatMap((g, geography) =>
      g.polygons.map((rings) => ({ geography, rings })),
    );
    /** In a geography by the second library: in (or on) an outer ring and not strictly inside a hole. */
    // robust-point-in-polygon takes a loop without GeoJSON's closing position.
    const loop = (ring: readonly Position[]) => ring.slice(0, -1);
    const expected = (p: number[]) =>
      [
        ...new Set(
          polygons
            .filter(
              ({ rings }) =>
                classifyPoint(loop(rings[0] ?? []), p) <= 0 &&
                rings.slice(1).every((hole) => classifyPoint(loop(hole), p) >= 0),
            )
            .map((x) => x.geography),
        ),
      ].sort();
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const edges = polygons.flatMap(({ rings }) =>
      rings.flatMap((ring) => ring.slice(1).map((b, i) => [ring[i], b] as const)),
    );
    let onBoundary = 0;
    for (let n = 0; n < 20_000; n++) {
      const [a, b] = edges[Math.floor(random() * edges.length)];
      const f = random();
      // Off the edge by 10^-3 to 10^-9 degrees either side, or (one in ten) exactly on it where that is exact: on an
      // edge along a meridian or a parallel. Not on vertices: robust-point-in-polygon calls a triangle's apex outside
      // (its own flaw), so the vertices are checked by hand in the first test.
      const axisAligned = a[0] === b[0] || a[1] === b[1];
      const off = axisAligned && n % 10 === 0 ? 0 : (random() < 0.5 ? -1 : 1) * 10 ** -(3 + Math.floor(random() * 7));
      const p = [a[0] + f * (b[0] - a[0]) + off, a[1] + f * (b[1] - a[1]) - off];
      if (polygons.some(({ rings }) => rings.some((ring) => classifyPoint(loop(ring), p) === 0))) onBoundary++;
      assert.deepEqual([...index.containing(p[0], p[1])], expected(p), `point ${p.join(',')}`);
    }
    assert.ok(onBoundary >= 200, `points exactly on edges are among them: ${onBoundary}`);
  });

  it('reads a file, and names a file it cannot read; a base URL is the URL before /geographies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geography-'));
    try {
      const file = path.join(dir, 'geographies.json');
      fs.writeFileSync(
        file,
        JSON.stringify(document([geography(ids.square, 'Square', { type: 'Polygon', coordinates: SQUARE })])),
      );
      assert.equal((await readGeographies(file)).geographies[0]?.name, 'Square');
      await assert.rejects(
        readGeographies(path.join(dir, 'none.json')),
        (err: Error & { code?: string }) => err.code === 'FILE_READ_FAILED' && /none\.json/.test(err.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(geographyBaseUrlOf('http://127.0.0.1:1/mds-staging/geographies'), 'http://127.0.0.1:1/mds-staging');
    assert.equal(geographyBaseUrlOf(`https://city.example/api/geographies/${ids.square}`), 'https://city.example/api');
    assert.equal(geographyBaseUrlOf('https://city.example/geo.json'), undefined);
  });
});

describe("The sandbox's Geography API: ten districts of Berlin, as the official schema says", () => {
  let sandbox: RunningSandbox;
  let client: SandboxClient;
  let demoDir: string;
  before(async () => {
    demoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geography-sandbox-'));
    sandbox = await startSandbox({ fleetSize: 5, demoDir, grpc: false });
    client = new SandboxClient(sandbox, Date.now);
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(demoDir, { recursive: true, force: true });
  });

  it("serves /geographies and /geographies/{geography_id} with a token, each conforming to mds-openapi's reference/geography.yaml", async () => {
    const all = await client.get<{ geographies: { geography_id: string; name: string }[] }>('/geographies');
    assert.equal(all.status, 200);
    assert.match(all.headers.get('content-type') ?? '', /^application\/vnd\.mds\+json/);
    assert.deepEqual(geographySchemaErrors(all.body, 'geographies'), []);
    assert.equal(all.body.geographies.length, 10);
    assert.ok(all.body.geographies.some((g) => g.name === 'Friedrichshain-Kreuzberg'));
    const first = all.body.geographies[0];
    const one = await client.get<{ geography: { geography_id: string } }>(`/geographies/${first?.geography_id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(geographySchemaErrors(one.body, 'geography'), []);
    assert.equal(one.body.geography.geography_id, first?.geography_id);
    assertMdsError(await client.get(`/geographies/${ids.square}`), 404, 'not_found');
    assertMdsError(await client.get('/geographies/not-a-uuid'), 400, 'bad_param');
    const unsigned = await fetch(`${client.mds.baseUrl}/geographies`);
    assert.equal(unsigned.status, 401, 'the same token rules as every route');
  });

  it("its districts are polygons that tile the fleet's area: every point of the disc lies in exactly one", async () => {
    const body = (await client.get<Record<string, unknown>>('/geographies')).body;
    const set = parseGeographyDocument(JSON.stringify(body), 'sandbox');
    assert.ok(
      set.geographies.every((g) => g.polygons.length === 1 && (g.polygons[0]?.[0]?.length ?? 0) >= 5),
      'polygons, not discs',
    );
    const index = new GeographyIndex(set);
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 5000; n++) {
      const p = locationNear(random, FLEET_CENTRE, FLEET_RADIUS_METRES);
      assert.equal(index.containing(p.lng, p.lat).length, 1, `${p.lat},${p.lng}`);
    }
    const alexanderplatz = index.containing(13.4132, 52.5219).map((i) => set.geographies[i]?.name);
    assert.deepEqual(alexanderplatz, ['Mitte']);
  });
});
