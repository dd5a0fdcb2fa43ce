// One test per correction of the official MDS 2.0 schemas (src/core/conformance/schemaCorrections.ts): the official
// schema, as bundled from the vendored files, misbehaves on a sample, and the corrected one does not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SCHEMA_CORRECTIONS, correctSchema, officialSchema } from '../../src/core/conformance/schemaCorrections';
import type { SchemaCorrectionId, SchemaObject } from '../../src/core/conformance/schemaCorrections';
import { checkMdsContentType, validateMdsHour, validateMdsResponse } from '../../src/core/conformance/validateMds';
import eventsBundle from '../../src/core/conformance/schemas/events_historical.json';
import hourBundle from '../../src/core/conformance/schemas/iso-dayhour.json';
import source from '../../src/core/conformance/schemas/source.json';
import vehiclesBundle from '../../src/core/conformance/schemas/vehicles.json';
import * as sample from './conformanceSamples';

function ajv(): Ajv2020 {
  const instance = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
  addFormats(instance);
  return instance;
}

/** Validates `value` against `$defs/<def>` of a document (the whole document when `def` is omitted). */
function accepts(root: SchemaObject, value: unknown, def?: string): boolean {
  const schema = def ? { $ref: `#/$defs/${def}`, $defs: root.$defs } : root;
  return ajv().validate(schema, value);
}

const official = (bundle: unknown) => officialSchema(bundle as SchemaObject).root;
const corrected = (bundle: unknown, mode: Parameters<typeof correctSchema>[1] = 'micromobility') =>
  correctSchema(bundle as SchemaObject, mode);

const tested = new Set<SchemaCorrectionId>();

describe('corrections of the official MDS 2.0 schemas', () => {
  after(() => {
    // Every correction in the list has a test here, and every correction is documented.
    assert.deepEqual([...tested].sort(), SCHEMA_CORRECTIONS.map((c) => c.id).sort());
    const docs = readFileSync('docs/conformance.md', 'utf8');
    for (const c of SCHEMA_CORRECTIONS)
      assert.ok(docs.includes(`\`${c.id}\``), `docs/conformance.md documents ${c.id}`);
  });

  it('month-november: the official iso-dayhour and iso-date reject every November date; corrected they do not', () => {
    tested.add('month-november');
    for (const hour of ['2024-11-05T13', '2023-11-30T00']) {
      assert.equal(accepts(official(hourBundle), hour), false, `official rejects ${hour}`);
      assert.equal(accepts(corrected(hourBundle), hour), true, `corrected accepts ${hour}`);
    }
    assert.equal(accepts(corrected(hourBundle), '2024-13-05T13'), false, 'month 13 is still wrong');
    assert.equal(accepts(official(vehiclesBundle), '2023-11-30', 'models.data-types.iso-date'), false);
    assert.equal(accepts(corrected(vehiclesBundle), '2023-11-30', 'models.data-types.iso-date'), true);
    // Through the API: a November hour is accepted, with the official schema's rejection labelled as its bug.
    const findings = validateMdsHour('2024-11-05T13');
    assert.deepEqual(
      findings.map((f) => [f.keyword, f.schemaBug]),
      [['pattern', 'month-november']],
    );
    assert.deepEqual(validateMdsHour('2024-12-05T13'), []);
    assert.deepEqual(
      validateMdsHour('2024-13-05T13').map((f) => f.schemaBug),
      [undefined],
      "month 13 is the provider's problem, not a schema bug",
    );
  });

  it('mode-one-of: a valid micromobility vehicle matches several mode schemas and fails the official oneOf', () => {
    tested.add('mode-one-of');
    const vehicle = sample.vehicle();
    assert.equal(accepts(official(vehiclesBundle), vehicle, 'models.vehicle'), false);
    assert.equal(accepts(corrected(vehiclesBundle), vehicle, 'models.vehicle'), true);
    assert.equal(accepts(corrected(vehiclesBundle, 'any'), vehicle, 'models.vehicle'), true);
    // The chosen mode still rules: micromobility vehicle_attributes are not a car-share vehicle's.
    assert.equal(accepts(corrected(vehiclesBundle, 'car-share'), vehicle, 'models.vehicle'), false);
    const event = sample.event();
    assert.equal(accepts(official(eventsBundle), event, 'models.event'), false);
    assert.equal(accepts(corrected(eventsBundle), event, 'models.event'), true);
  });

  it('contains-list: the official mode event files do not compile (contains given a list); corrected they do', () => {
    tested.add('contains-list');
    assert.throws(() => ajv().compile(eventsBundle), /contains must be object,boolean/);
    assert.equal(accepts(corrected(eventsBundle), { version: '2.0.0', events: [sample.event()] }), true);
  });

  it('trip-ids-required: the official condition accepts a trip_end event without trip_ids; corrected it is refused', () => {
    tested.add('trip-ids-required');
    const withoutTripIds = sample.event({ trip_ids: undefined });
    delete withoutTripIds.trip_ids;
    // The official files with only the compile fix (contains as a schema): minItems alone never requires trip_ids.
    assert.equal(accepts(official(eventsBundle), withoutTripIds, 'models.modes.micromobility.event'), true);
    assert.equal(accepts(corrected(eventsBundle), withoutTripIds, 'models.modes.micromobility.event'), false);
    // Not a trip event: no trip_ids needed.
    const located = sample.event({ event_types: ['located'] });
    delete located.trip_ids;
    assert.equal(accepts(corrected(eventsBundle), located, 'models.modes.micromobility.event'), true);
  });

  it('vehicles-last-updated-ttl: a 2.0.2 /vehicles answer without last_updated and ttl fails the official schema only', () => {
    tested.add('vehicles-last-updated-ttl');
    const body = sample.vehiclesBody();
    const officialRoot = official(vehiclesBundle);
    const envelope = { ...officialRoot, $defs: { ...(officialRoot.$defs as object), item: true } };
    assert.equal(accepts(envelope, body), false);
    const correctedRoot = corrected(vehiclesBundle);
    assert.equal(accepts({ ...correctedRoot, $defs: { ...(correctedRoot.$defs as object), item: true } }, body), true);
    // 2.0.0 answers that still send them stay valid, and /vehicles/status keeps requiring them.
    assert.equal(validateMdsResponse('vehicles', { ...body, last_updated: 1681855703000, ttl: 0 }).conforms, true);
    const status = sample.vehiclesStatusBody();
    delete status.ttl;
    assert.equal(validateMdsResponse('vehicles_status', status).conforms, false);
  });

  it('media-type: the official file declares application/json; the text requires application/vnd.mds+json', () => {
    tested.add('media-type');
    assert.equal(source.schemas.vehicles.mediaType, 'application/json');
    assert.equal(source.schemas.reports.mediaType, 'text/csv');
    assert.ok(checkMdsContentType('vehicles', 'application/json'), 'what the official file declares is flagged');
    assert.equal(checkMdsContentType('vehicles', 'application/vnd.mds+json;version=2.0'), undefined);
    assert.ok(checkMdsContentType('vehicles', 'application/vnd.mds+json'), 'the version parameter is required');
    assert.ok(checkMdsContentType('vehicles', 'application/vnd.mds+json;version=1.2'));
    assert.equal(checkMdsContentType('reports', 'text/vnd.mds+csv;version=2.0'), undefined);
    assert.ok(checkMdsContentType('reports', 'text/csv'));
  });

  it('notices when the official file no longer has the bug a correction describes (after a refresh)', () => {
    const fixed = structuredClone(hourBundle) as SchemaObject;
    const defs = fixed.$defs as Record<string, SchemaObject>;
    defs['models.data-types.iso-dayhour'].pattern = String(defs['models.data-types.iso-dayhour'].pattern).replace(
      '1[02]',
      '1[0-2]',
    );
    assert.throws(
      () => correctSchema(fixed, 'micromobility'),
      /month-november no longer matches the vendored official schema/,
    );
  });
});
