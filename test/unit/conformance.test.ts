import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { MDS_ENDPOINT_IDS } from '../../src/core/mds/mdsEndpoints';
import { MAX_RULES } from '../../src/core/conformance/findingSummary';
import { previewValue } from '../../src/core/conformance/explainErrors';
import { guessMdsEndpoint, validateMdsResponse } from '../../src/core/conformance/validateMds';
import type { ConformanceReport } from '../../src/core/conformance/validateMds';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import * as sample from './conformanceSamples';

const SOURCE_COMMIT = 'fae69cb5adc947a7fbe36fb0ec32b3549268469b';

/** Every provider finding of a report as `keyword path message`, for readable assertions. */
function findings(report: ConformanceReport): string[] {
  return report.rules.flatMap((r) => r.examples.map((f) => `${f.keyword} ${f.path} ${f.message}`));
}

function items(body: Record<string, unknown>, key: string): Record<string, unknown>[] {
  return body[key] as Record<string, unknown>[];
}

describe('MDS 2.0 conformance (official schemas, corrected)', () => {
  describe('conforming examples built from the official text', function () {
    // The first validation of each endpoint compiles its official schema with ajv: about 1 s alone, and once past the
    // 20 s default in a full run, where four lanes share two cores (2026-11-29).
    this.timeout(90_000);
    it('accepts /vehicles, /vehicles/status, /trips, /telemetry, both /events, and reports the schema commit', () => {
      const cases: [Parameters<typeof validateMdsResponse>[0], unknown][] = [
        ['vehicles', sample.vehiclesBody()],
        ['vehicle', { version: '2.0.2', vehicles: [sample.vehicle()] }],
        ['vehicles_status', sample.vehiclesStatusBody()],
        [
          'vehicle_status',
          { version: '2.0.2', last_updated: 1681855703000, ttl: 0, vehicles_status: [sample.vehicleStatus()] },
        ],
        ['trips', { version: '2.0.0', trips: [sample.trip()] }],
        [
          'telemetry',
          {
            version: '2.0.0',
            telemetry: [sample.telemetry(), sample.telemetry({ trip_ids: [sample.TRIP_ID], journey_id: randomUUID() })],
          },
        ],
        ['events_historical', { version: '2.0.0', events: [sample.event()] }],
        [
          'events_recent',
          {
            version: '2.0.0',
            events: [sample.event({ vehicle_state: 'on_trip', event_types: ['trip_start'] })],
            links: sample.links(),
          },
        ],
        ['trips', { version: '2.0.0', trips: [] }],
      ];
      for (const [endpoint, body] of cases) {
        const report = validateMdsResponse(endpoint, body);
        assert.deepEqual(findings(report), [], endpoint);
        assert.equal(report.conforms, true, endpoint);
        assert.equal(report.schemaSource.commit, SOURCE_COMMIT);
        assert.equal(report.schemaSource.repository, 'openmobilityfoundation/mds-openapi');
      }
    });

    it('accepts the September 2019 report of provider/examples.md and counts its rows', () => {
      const report = validateMdsResponse('reports', sample.REPORT_CSV);
      assert.equal(report.conforms, true, findings(report).join('\n'));
      assert.equal(report.itemsChecked, 3);
    });

    it('accepts the media type the text requires, and flags application/json (what the official file declares)', () => {
      assert.equal(
        validateMdsResponse('vehicles', sample.vehiclesBody(), { contentType: 'application/vnd.mds+json;version=2.0' })
          .conforms,
        true,
      );
      const report = validateMdsResponse('vehicles', sample.vehiclesBody(), { contentType: 'application/json' });
      assert.deepEqual(findings(report), [
        'contentType  Content-Type must be application/vnd.mds+json;version=2.x (general-information.md "Versioning")',
      ]);
      assert.equal(
        validateMdsResponse('reports', sample.REPORT_CSV, { contentType: 'text/vnd.mds+csv; version=2.0' }).conforms,
        true,
      );
    });
  });

  describe('real non-conforming answers', () => {
    it('names a vehicle status whose last_event has no device_id, with the JSON Pointer to the event', () => {
      const body = sample.vehiclesStatusBody([sample.vehicleStatus(), sample.vehicleStatus()]);
      delete items(body, 'vehicles_status')[1].last_event;
      (items(body, 'vehicles_status')[0].last_event as Record<string, unknown>).device_id = undefined;
      const report = validateMdsResponse('vehicles_status', JSON.parse(JSON.stringify(body)));
      assert.equal(report.conforms, false);
      assert.deepEqual(findings(report).sort(), [
        'required /vehicles_status/0/last_event missing required property device_id',
        'required /vehicles_status/1 missing required property last_event',
      ]);
      assert.equal(report.itemsChecked, 2);
      assert.equal(report.itemsWithFindings, 2);
      const example = report.rules.find((r) => r.where === '/vehicles_status/*/last_event')?.examples[0];
      assert.match(example?.value ?? '', /^\{"provider_id":"3c9604d6/);
      assert.equal(example?.schemaBug, undefined);
    });

    it('rejects a disallowed state/event pair for micromobility (available + maintenance_end) and says which branch', () => {
      const body = {
        version: '2.0.0',
        events: [sample.event({ event_types: ['maintenance_end'], trip_ids: undefined })],
      };
      const report = validateMdsResponse('events_historical', JSON.parse(JSON.stringify(body)));
      assert.equal(report.conforms, false);
      const [line, ...rest] = findings(report);
      assert.deepEqual(rest, []);
      assert.match(
        line,
        /^enum \/events\/0\/event_types\/0 must be one of: agency_drop_off, .*trip_end.* \(vehicle_state - available of modes\/micromobility\/event\)$/,
      );
      assert.doesNotMatch(line, /maintenance_end,/);
      assert.equal(report.rules[0].examples[0].value, '"maintenance_end"');
    });

    it('validates against the chosen mode: a state only other modes have is a finding for micromobility only', () => {
      const stopped = {
        version: '2.0.0',
        events: [sample.event({ vehicle_state: 'stopped', event_types: ['trip_stop'] })],
      };
      assert.equal(validateMdsResponse('events_historical', stopped).conforms, false);
      assert.equal(validateMdsResponse('events_historical', stopped, { mode: 'passenger-services' }).conforms, true);
      assert.equal(validateMdsResponse('events_historical', stopped, { mode: 'any' }).conforms, true);
    });

    it('requires trip_ids on a trip event', () => {
      const report = validateMdsResponse('events_recent', {
        version: '2.0.0',
        events: [sample.event({ trip_ids: undefined })],
        links: sample.links(),
      });
      assert.deepEqual(findings(report), ['required /events/0 missing required property trip_ids']);
      const empty = validateMdsResponse('events_recent', {
        version: '2.0.0',
        events: [sample.event({ trip_ids: [] })],
        links: sample.links(),
      });
      assert.deepEqual(findings(empty), ['minItems /events/0/trip_ids must NOT have fewer than 1 items']);
    });

    it('rejects a bad version string, a missing payload, a body that is no object', () => {
      assert.deepEqual(findings(validateMdsResponse('trips', { version: '2.0', trips: [] })), [
        'pattern /version must match the pattern ^2\\.(\\d|[1-9]\\d+)\\.(\\d|[1-9]\\d+)$',
      ]);
      assert.deepEqual(findings(validateMdsResponse('trips', { version: '1.2.0', trips: [] })).length, 1);
      assert.deepEqual(
        findings(validateMdsResponse('vehicles_status', { version: '2.0.0', last_updated: 1681855703000, ttl: 0 })),
        ['required  missing required property vehicles_status'],
      );
      assert.deepEqual(findings(validateMdsResponse('vehicles', [])), ['type  must be of type object']);
    });

    it('explains a telemetry whose trip_ids is neither null nor a non-empty list', () => {
      const report = validateMdsResponse('telemetry', {
        version: '2.0.0',
        telemetry: [sample.telemetry({ trip_ids: 'x' })],
      });
      assert.deepEqual(findings(report), [
        'oneOf /telemetry/0/trip_ids matches none of the alternatives: data-types/uuid-array, alternative 2',
      ]);
    });

    it('rejects a report without the documented header row', () => {
      const report = validateMdsResponse('reports', 'provider_id,start_date,trips\n1,2,3\n');
      assert.deepEqual(findings(report), [
        'pattern  the CSV must start with the header row provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count',
      ]);
      assert.equal(report.rules[0].examples[0].value, '"provider_id,start_date,trips"');
    });

    it('gives paths that are JSON Pointers into the body, to the value shown', () => {
      const body = sample.vehiclesStatusBody([sample.vehicleStatus(), sample.vehicleStatus(), sample.vehicleStatus()]);
      const [a, b, c] = items(body, 'vehicles_status') as Record<string, Record<string, unknown>>[];
      a.last_event.event_types = ['maintenance_end'];
      b.last_telemetry.location = { lat: 91, lng: 8 };
      delete c.last_event.device_id;
      const report = validateMdsResponse('vehicles_status', body);
      const examples = report.rules.flatMap((r) => r.examples);
      assert.equal(examples.length, 3);
      for (const finding of examples) {
        let node: unknown = body;
        for (const segment of finding.path.split('/').slice(1))
          node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
        assert.equal(previewValue(node), finding.value, finding.path);
      }
      assert.deepEqual(examples.map((f) => f.path).sort(), [
        '/vehicles_status/0/last_event/event_types/0',
        '/vehicles_status/1/last_telemetry/location/lat',
        '/vehicles_status/2/last_event',
      ]);
    });

    it('allows exactly one item in the single-item answers', () => {
      assert.equal(validateMdsResponse('vehicle', { version: '2.0.2', vehicles: [sample.vehicle()] }).conforms, true);
      assert.deepEqual(
        findings(validateMdsResponse('vehicle', { version: '2.0.2', vehicles: [sample.vehicle(), sample.vehicle()] })),
        ['maxItems /vehicles must NOT have more than 1 items'],
      );
      assert.deepEqual(findings(validateMdsResponse('vehicle', { version: '2.0.2', vehicles: [] })), [
        'minItems /vehicles must NOT have fewer than 1 items',
      ]);
    });

    it('escapes control and bidi characters in the values it shows', () => {
      const report = validateMdsResponse(
        'vehicles',
        sample.vehiclesBody([{ ...sample.vehicle(), vehicle_type: '\u001b[31mred\u202e' }]),
      );
      const value = report.rules[0].examples[0].value;
      assert.equal(value, '"\\u001b[31mred\\u202e"');
    });
  });

  describe('bounded output', () => {
    it('summarises a 100,000-item page as one rule with a count and a few examples', function () {
      // About 2 s alone; CPU-bound, so on two cores shared by four test lanes it once took more than 20 s.
      this.timeout(90_000);
      const broken = sample.vehicleStatus();
      delete (broken.last_event as Record<string, unknown>).device_id;
      const page = sample.vehiclesStatusBody(
        Array.from({ length: 100_000 }, (_, i) => (i % 2 ? broken : sample.vehicleStatus())),
      );
      const report = validateMdsResponse('vehicles_status', page, { maxExamplesPerRule: 3 });
      assert.equal(report.itemsChecked, 100_000);
      assert.equal(report.itemsWithFindings, 50_000);
      assert.equal(report.findingCount, 50_000);
      assert.equal(report.rules.length, 1);
      assert.equal(report.rules[0].count, 50_000);
      assert.deepEqual(
        report.rules[0].examples.map((f) => f.path),
        ['/vehicles_status/1/last_event', '/vehicles_status/3/last_event', '/vehicles_status/5/last_event'],
      );
      assert.ok(JSON.stringify(report).length < 20_000, 'the report stays small');
      assert.equal(report.officialItemsChecked, 10);
    });

    it('keeps at most MAX_RULES distinct rules and counts the rest', () => {
      const vehicles = Array.from({ length: MAX_RULES + 50 }, (_, i) => ({
        ...sample.vehicle(),
        vehicle_attributes: { [`extra_${i}`]: 1 },
      }));
      const report = validateMdsResponse('vehicles', sample.vehiclesBody(vehicles));
      assert.equal(report.rules.length, MAX_RULES);
      assert.equal(report.omittedFindings, 50);
      assert.equal(report.findingCount, MAX_RULES + 50);
    });
  });

  describe('schema bugs are labelled, not blamed on the provider', () => {
    it('reports what the uncorrected official schema would reject in a conforming /vehicles answer', () => {
      const report = validateMdsResponse('vehicles', sample.vehiclesBody());
      assert.equal(report.conforms, true);
      const bugs = report.schemaBugs.map((r) => `${r.schemaBug} ${r.where} ${r.message}`).sort();
      assert.deepEqual(bugs, [
        'mode-one-of /vehicles/* matches more than one alternative (modes/delivery-robots/vehicle, modes/micromobility/vehicle) where exactly one is allowed',
        'vehicles-last-updated-ttl  missing required property last_updated',
        'vehicles-last-updated-ttl  missing required property ttl',
      ]);
      assert.equal(report.officialItemsChecked, 1);
    });

    it('does not call a provider problem a schema bug where the corrected schema finds it too', () => {
      const body = { version: '2.0.0', events: [sample.event({ event_types: ['maintenance_end'] })] };
      const report = validateMdsResponse('events_historical', body);
      assert.equal(report.conforms, false);
      assert.deepEqual(report.schemaBugs, []);
    });

    it('checks only the first items against the official schema (officialSampleSize)', () => {
      const report = validateMdsResponse(
        'vehicles',
        sample.vehiclesBody(Array.from({ length: 50 }, (_, i) => sample.vehicle(sample.uuidOf(i)))),
        { officialSampleSize: 7 },
      );
      assert.equal(report.officialItemsChecked, 7);
      assert.equal(report.schemaBugs.find((r) => r.schemaBug === 'mode-one-of')?.count, 7);
    });

    it('schemaBugs: false gives the same verdict and no check against the official schema (what ?? mds conformance asks)', () => {
      const conforming = validateMdsResponse('vehicles', sample.vehiclesBody(), { schemaBugs: false });
      assert.equal(conforming.conforms, true);
      assert.deepEqual(conforming.schemaBugs, [], "not even the envelope's last_updated and ttl");
      assert.equal(conforming.officialItemsChecked, 0);
      const body = { version: '2.0.0', events: [sample.event({ event_types: ['maintenance_end'] })] };
      assert.deepEqual(
        validateMdsResponse('events_historical', body, { schemaBugs: false }).rules,
        validateMdsResponse('events_historical', body).rules,
      );
    });
  });

  describe('guessMdsEndpoint', () => {
    it('tells the endpoint of a saved answer from its top-level keys', () => {
      assert.equal(guessMdsEndpoint(sample.vehiclesBody()), 'vehicles');
      assert.equal(guessMdsEndpoint(sample.vehiclesStatusBody()), 'vehicles_status');
      assert.equal(guessMdsEndpoint({ version: '2.0.0', trips: [] }), 'trips');
      assert.equal(guessMdsEndpoint({ version: '2.0.0', telemetry: [] }), 'telemetry');
      assert.equal(guessMdsEndpoint({ version: '2.0.0', events: [] }), 'events_historical');
      assert.equal(guessMdsEndpoint({ version: '2.0.0', events: [], links: sample.links() }), 'events_recent');
      assert.equal(guessMdsEndpoint({ version: '2.0.0', stops: [] }), 'stops');
      assert.equal(guessMdsEndpoint(sample.REPORT_CSV), 'reports');
      assert.equal(guessMdsEndpoint({ error: 'x' }), undefined);
      assert.equal(guessMdsEndpoint([1]), undefined);
      assert.equal(guessMdsEndpoint(null), undefined);
    });

    it('compiles a schema for every endpoint id', () => {
      for (const endpoint of MDS_ENDPOINT_IDS)
        assert.equal(typeof validateMdsResponse(endpoint, {}).conforms, 'boolean', endpoint);
    });
  });

  describe('the bundled JSON', () => {
    it('is what scripts/update-mds-schemas.mjs generates from the vendored YAML (not stale)', () => {
      // Throws (exit 1, with the stale file names) when the committed JSON differs.
      const out = execFileSync(process.execPath, ['scripts/update-mds-schemas.mjs', '--check'], { encoding: 'utf8' });
      assert.match(out, /up to date/);
    });

    it('records the source commit of the vendored files', () => {
      const vendored = JSON.parse(readFileSync('schemas/mds-openapi/source.json', 'utf8')) as { commit: string };
      const bundled = JSON.parse(readFileSync('src/core/conformance/schemas/vehicles.json', 'utf8')) as {
        $comment: string;
      };
      assert.equal(vendored.commit, SOURCE_COMMIT);
      assert.ok(bundled.$comment.includes(SOURCE_COMMIT));
    });
  });

  describe('the sandbox', () => {
    it('serves a /vehicles page that conforms', async () => {
      const sandbox = await startSandbox({ fleetSize: 120, pageSize: 100, demoDir: undefined });
      try {
        const env = sandbox.environments.find((e) => e.id === 'mds-staging');
        assert.ok(env);
        const { kid, issuer } = sandbox.demo;
        const iat = Date.now() / 1000;
        const token = await new SignJWT({
          iss: issuer,
          aud: env.baseUrl,
          iat,
          exp: Math.floor(iat) + 300,
          jti: randomUUID(),
        })
          .setProtectedHeader({ alg: 'ES256', kid })
          .sign(createPrivateKey(readFileSync(sandbox.demo.privateKeyFile, 'utf8')));
        const res = await fetch(`${env.baseUrl}/vehicles`, {
          headers: { Authorization: `Bearer ${token}`, Accept: 'application/vnd.mds+json;version=2.0' },
        });
        assert.equal(res.status, 200);
        const report = validateMdsResponse('vehicles', await res.json(), {
          contentType: res.headers.get('content-type') ?? '',
        });
        assert.deepEqual(findings(report), []);
        assert.equal(report.itemsChecked, 100);
      } finally {
        await sandbox.close();
      }
    });
  });
});
