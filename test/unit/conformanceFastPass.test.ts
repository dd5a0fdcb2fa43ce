// The fast pass (fastPass.ts) only says "conforms" sooner: whatever it accepts, the corrected schema accepts too, so
// the findings (which come from the corrected schema alone) cannot change. Checked on items broken at random.
import assert from 'node:assert/strict';
import { fullFormats } from 'ajv-formats/dist/formats';
import fc from 'fast-check';
import { UUID_PATTERN } from '../../src/core/conformance/fastPass';
import { compiledMdsSchema } from '../../src/core/conformance/mdsSchemas';
import type { MdsMode } from '../../src/core/conformance/schemaCorrections';
import { validateMdsResponse } from '../../src/core/conformance/validateMds';
import type { MdsEndpointId } from '../../src/core/mds/mdsEndpoints';
import { DEVICE_ID, event, telemetry, trip, vehicle, vehicleStatus } from './conformanceSamples';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = 1500;

const STATES = [
  'removed',
  'available',
  'non_operational',
  'reserved',
  'on_trip',
  'stopped',
  'non_contactable',
  'missing',
  'elsewhere',
  'AVAILABLE',
  '',
];
const UPPER = DEVICE_ID.toUpperCase();
/** Values aimed at the rewritten keywords (ids, the vehicle_state tag, lists or null), and any JSON. */
const VALUE = fc.oneof(
  fc.constantFrom<unknown>(
    ...STATES,
    DEVICE_ID,
    UPPER,
    `urn:uuid:${DEVICE_ID}`,
    `${DEVICE_ID}\n`,
    DEVICE_ID.slice(1),
    '',
    null,
    0,
    -1,
    1.5,
    101,
    2 ** 53,
    true,
    'x',
    [],
    {},
    [DEVICE_ID],
    [DEVICE_ID, DEVICE_ID],
    [UPPER],
    [null],
    ['trip_start'],
    ['trip_end'],
    ['trip_end', 'trip_end'],
    ['located', 'battery_low'],
    ['reservation_start'],
    { lat: 0, lng: 0 },
    { lat: 91, lng: 0 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const EXTRA_KEYS = [
  'vehicle_state',
  'event_types',
  'trip_ids',
  'journey_id',
  'data_provider_id',
  'event_geographies',
  'location',
  'stop_id',
  'battery_percent',
];

/** Every path to a value inside `value` (object keys and array indexes). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (!value || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

type Edit = { path: number; key: number; value: unknown; kind: 'set' | 'drop' | 'add' };
const EDIT: fc.Arbitrary<Edit> = fc.record({
  path: fc.nat(),
  key: fc.nat(),
  value: VALUE,
  kind: fc.constantFrom<Edit['kind']>('set', 'set', 'drop', 'add'),
});

/** A copy of `base` with the edits applied at paths chosen by index (so that fast-check shrinks towards few, early edits). */
function edited(base: Record<string, unknown>, edits: Edit[]): unknown {
  const item = structuredClone(base);
  for (const edit of edits) {
    const paths = [[], ...pathsOf(item)];
    const path = paths[edit.path % paths.length];
    const parentPath = edit.kind === 'add' ? path : path.slice(0, -1);
    let parent: unknown = item;
    for (const step of parentPath) parent = (parent as Record<string | number, unknown>)[step];
    if (!parent || typeof parent !== 'object') continue;
    const key =
      edit.kind === 'add'
        ? Array.isArray(parent)
          ? parent.length
          : EXTRA_KEYS[edit.key % EXTRA_KEYS.length]
        : path[path.length - 1];
    if (key === undefined) continue;
    if (edit.kind === 'drop') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<string, unknown>)[key];
    } else {
      (parent as Record<string | number, unknown>)[key] = structuredClone(edit.value);
    }
  }
  return item;
}

const CASES: { endpoint: MdsEndpointId; modes: MdsMode[]; samples: Record<string, unknown>[] }[] = [
  {
    endpoint: 'vehicles_status',
    modes: ['micromobility', 'car-share', 'any'],
    samples: [
      vehicleStatus(),
      { ...vehicleStatus(), last_event: event({ vehicle_state: 'on_trip', event_types: ['trip_start'] }) },
    ],
  },
  {
    endpoint: 'events_historical',
    modes: ['micromobility', 'passenger-services', 'any'],
    samples: [event(), event({ vehicle_state: 'reserved', event_types: ['reservation_start'], trip_ids: undefined })],
  },
  { endpoint: 'events_recent', modes: ['micromobility'], samples: [event()] },
  {
    endpoint: 'telemetry',
    modes: ['micromobility'],
    samples: [telemetry(), telemetry({ trip_ids: [DEVICE_ID], journey_id: DEVICE_ID })],
  },
  { endpoint: 'vehicles', modes: ['micromobility', 'any'], samples: [vehicle()] },
  { endpoint: 'trips', modes: ['micromobility', 'any'], samples: [trip()] },
];

describe('conformance: the fast pass never accepts what the corrected schema refuses', function () {
  this.timeout(120_000);

  for (const { endpoint, modes, samples } of CASES) {
    for (const mode of modes) {
      it(`${endpoint} (${mode}): an item the fast pass accepts conforms, for items broken at random`, () => {
        const schema = compiledMdsSchema(endpoint, 'corrected', mode);
        const fast = schema.fastItem;
        const full = schema.item;
        assert.ok(fast && full);
        let accepted = 0;
        let refused = 0;
        fc.assert(
          fc.property(fc.constantFrom(...samples), fc.array(EDIT, { minLength: 1, maxLength: 3 }), (base, edits) => {
            const item = edited(base, edits);
            const fastSays = fast(item);
            const fullSays = full(item);
            if (fastSays) accepted++;
            else refused++;
            assert.ok(
              !fastSays || fullSays,
              `the fast pass accepted ${JSON.stringify(item)}, which the corrected schema refuses: ${JSON.stringify(full.errors?.slice(0, 3))}`,
            );
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        // Both answers came up, so the property was put to the test (the unbroken samples conform in micromobility).
        assert.ok(refused > 0, 'some broken items were refused');
        if (mode === 'micromobility') assert.ok(accepted > 0, 'some edited items still conform');
      });
    }
  }

  it('a conforming page goes through the fast pass only, and a broken item gets the same findings as before', () => {
    const page = {
      version: '2.0.2',
      last_updated: 1681855703000,
      ttl: 30_000,
      vehicles_status: [vehicleStatus(), { ...vehicleStatus(), last_event: event({ vehicle_state: 'on_trip' }) }],
      links: { first: null, last: null, prev: null, next: null },
    };
    const report = validateMdsResponse('vehicles_status', page);
    assert.equal(report.itemsChecked, 2);
    assert.equal(report.itemsWithFindings, 1);
    // on_trip with trip_end: the micromobility branch of on_trip does not list trip_end.
    assert.ok(
      report.rules.some((r) => r.examples.some((e) => e.path.startsWith('/vehicles_status/1/last_event'))),
      JSON.stringify(report.rules),
    );
    const schema = compiledMdsSchema('vehicles_status', 'corrected', 'micromobility');
    assert.equal(schema.fastItem?.(page.vehicles_status[0]), true);
    assert.equal(schema.fastItem?.(page.vehicles_status[1]), false);
  });

  it('timestamps (number, multipleOf 1): the fast pass accepts exactly the numbers the corrected schema accepts', () => {
    const schema = compiledMdsSchema('vehicles_status', 'corrected', 'micromobility');
    const base = vehicleStatus();
    const numbers = [
      1681855703000,
      1681855703000.5,
      -0,
      1514764800000,
      1514764799999,
      2 ** 53,
      2 ** 53 + 2,
      1e20,
      1e21 - 65536,
      1e21,
      1e21 + 131072,
      1e22,
      1e300,
      Infinity,
      -Infinity,
      NaN,
      1e-7,
    ];
    let accepted = 0;
    for (const timestamp of [
      ...numbers,
      ...fc.sample(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger()), { numRuns: 2000, seed: SEED }),
    ]) {
      const item = { ...base, last_event: { ...(base.last_event as Record<string, unknown>), timestamp } };
      const fast = schema.fastItem?.(item) === true;
      assert.equal(fast, schema.item?.(item) === true, `timestamp ${timestamp}`);
      if (fast) accepted++;
    }
    assert.ok(accepted > 3, 'some timestamps conform');
  });

  it('models/data-types/uuid.yaml: every string its pattern accepts, the uuid format accepts (so the fast pass drops the format)', () => {
    const pattern = new RegExp(UUID_PATTERN, 'u');
    const format = fullFormats.uuid as RegExp;
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF-:nrNu\n '.split(''));
    const candidates = fc.oneof(
      fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      fc.string({ unit: hex, minLength: 30, maxLength: 46 }),
      fc
        .tuple(
          fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
          fc.string({ unit: hex, maxLength: 3 }),
          fc.string({ unit: hex, maxLength: 3 }),
        )
        .map(([u, a, b]) => `${a}${u}${b}`),
    );
    let matched = 0;
    fc.assert(
      fc.property(candidates, (s) => {
        if (!pattern.test(s)) return;
        matched++;
        assert.ok(format.test(s), `${JSON.stringify(s)} matches the pattern but not the uuid format`);
      }),
      { numRuns: 20_000, seed: SEED, endOnFailure: true },
    );
    assert.ok(matched > 1000);
    assert.equal(
      pattern.test(UPPER) || pattern.test(`urn:uuid:${DEVICE_ID}`),
      false,
      'the pattern is the stricter of the two',
    );
  });
});
