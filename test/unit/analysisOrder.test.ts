// event-sequence orders the events of one device in the same millisecond as the MDS 2.0.2 state machine allows, and
// status-vs-events says it could not compare, and why, when the snapshot was taken long after the harvest ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';

const T0 = Date.UTC(2026, 10, 20, 8);
const MIN = 60_000;
const HOUR = 60 * MIN;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const id = (prefix: string, n: number) =>
  `${prefix}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`.slice(0, 36);
const dev = (n: number) => id('d', n);
type Item = Record<string, unknown>;

function writeEvents(dir: string, events: Item[], hours: number): void {
  fs.mkdirSync(path.join(dir, 'events_historical'), { recursive: true });
  const record: Record<string, unknown> = {};
  for (let h = 0; h < hours; h++) {
    const hour = hourOf(T0 + h * HOUR);
    const inHour = events.filter(
      (e) => (e.timestamp as number) >= T0 + h * HOUR && (e.timestamp as number) < T0 + (h + 1) * HOUR,
    );
    const body = inHour.map((e) => `${JSON.stringify(e)}\n`).join('');
    fs.writeFileSync(path.join(dir, 'events_historical', `${hour}.ndjson`), body);
    record[hour] = {
      status: inHour.length ? 'items' : 'empty',
      file: `events_historical/${hour}.ndjson`,
      items: inHour.length,
      bytes: body.length,
      attempts: 1,
      requests: 1,
      pages: 1,
      httpStatus: 200,
      startedAt: new Date(T0).toISOString(),
      durationMs: 1,
    };
  }
  fs.writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({
      format: 'mobility-api-harvest',
      formatVersion: 1,
      endpoint: 'events_historical',
      path: '/events/historical',
      hourParameter: 'event_time',
      baseUrl: 'https://mds.example/provider',
      from: hourOf(T0),
      to: hourOf(T0 + (hours - 1) * HOUR),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
      hours: record,
    }),
  );
}

let eventNo = 0;
const event = (device: string, timestamp: number, types: string[], state: string, extra: Item = {}): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  event_id: id('e', ++eventNo),
  vehicle_state: state,
  event_types: types,
  timestamp,
  location: { lat: 52.5, lng: 13.4 },
  ...extra,
});

describe('event-sequence with events in the same millisecond; status-vs-events that cannot compare', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'order-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a trip_end and a reservation_start of one device in one millisecond give no event-sequence finding, whatever their event_ids', async () => {
    const folder = path.join(dir, 'ties');
    const trip = id('r', 1);
    const t = T0 + 20 * MIN;
    // event_ids chosen so that the reservation_start sorts first by id: the order must come from the state machine.
    const events = [
      event(dev(1), T0 + 10 * MIN, ['trip_start'], 'on_trip', { trip_ids: [trip] }),
      { ...event(dev(1), t, ['reservation_start'], 'reserved'), event_id: id('a', 1) },
      { ...event(dev(1), t, ['trip_end'], 'available', { trip_ids: [trip] }), event_id: id('b', 1) },
      event(dev(1), T0 + 30 * MIN, ['trip_start'], 'on_trip', { trip_ids: [id('r', 2)] }),
      // Device 2: the same millisecond, but no order the machine allows (on_trip -> reserved by reservation_start,
      // reserved -> on_trip by trip_end): still a finding.
      event(dev(2), T0 + 10 * MIN, ['trip_start'], 'on_trip', { trip_ids: [id('r', 3)] }),
      { ...event(dev(2), t, ['reservation_start'], 'reserved'), event_id: id('a', 2) },
      { ...event(dev(2), t, ['trip_end'], 'on_trip', { trip_ids: [id('r', 3)] }), event_id: id('b', 2) },
    ];
    writeEvents(folder, events, 1);
    const r = await runCliInProcess(['check', folder, '--json', '--rule', 'event-sequence']);
    const report = JSON.parse(r.out) as CheckReport;
    const findings = report.rules[0].findings;
    assert.deepEqual(
      findings.filter((f) => f.device_id === dev(1)),
      [],
      JSON.stringify(findings),
    );
    assert.ok(
      findings.some((f) => f.device_id === dev(2)),
      JSON.stringify(findings),
    );
  });

  it('status-vs-events: a snapshot taken a day after the harvest ends is "could not compare", with the reason, not "no finding"', async () => {
    const folder = path.join(dir, 'gap');
    writeEvents(path.join(folder, 'events'), [event(dev(1), T0 + 10 * MIN, ['located'], 'available')], 2);
    const snap = path.join(folder, 'snapshot');
    fs.mkdirSync(snap, { recursive: true });
    const lastUpdated = T0 + 26 * HOUR;
    // The status disagrees with the harvest's last event, but a day of events lies between: nothing can be said.
    const status = {
      device_id: dev(1),
      provider_id: PROVIDER,
      last_event: { ...event(dev(1), T0 + 25 * HOUR, ['battery_low'], 'non_operational') },
      last_telemetry: {
        device_id: dev(1),
        provider_id: PROVIDER,
        telemetry_id: id('t', 1),
        timestamp: T0 + 25 * HOUR,
        trip_ids: null,
        journey_id: null,
        location: { lat: 52.5, lng: 13.4 },
      },
    };
    fs.writeFileSync(
      path.join(snap, 'vehicles.ndjson'),
      `${JSON.stringify({ device_id: dev(1), provider_id: PROVIDER, vehicle_id: 'V-1', vehicle_type: 'bicycle', propulsion_types: ['human'] })}\n`,
    );
    fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), `${JSON.stringify(status)}\n`);
    fs.writeFileSync(
      path.join(snap, 'snapshot.json'),
      JSON.stringify({
        format: 'mobility-api-snapshot',
        formatVersion: 1,
        baseUrl: 'https://mds.example/provider',
        fetchedAt: new Date(lastUpdated).toISOString(),
        lastUpdated,
        lists: {
          vehicles: { file: 'vehicles.ndjson', items: 1, pages: 1 },
          vehicles_status: { file: 'vehicles_status.ndjson', items: 1, pages: 1 },
        },
      }),
    );
    const r = await runCliInProcess(['check', folder, '--json', '--rule', 'status-vs-events']);
    const report = JSON.parse(r.out) as CheckReport;
    assert.deepEqual(report.rules, [], 'not run, so never "ok"');
    assert.match(
      report.skipped[0]?.why ?? '',
      /^could not compare: the snapshot was taken at 2026-11-21T10:00:00.000Z, 1 d after the harvest ends \(2026-11-20T10:00:00.000Z\)/,
    );
    const text = await runCliInProcess(['check', folder, '--rule', 'status-vs-events']);
    assert.match(text.out, /^skip {2}MDS-STATUS-EVENTS: could not compare/m);
    assert.doesNotMatch(text.out, /^ok {2}status-vs-events/m);
    // A threshold that lets the gap pass: still nothing to compare, since no status's last_event lies in the harvest.
    const near = await runCliInProcess([
      'check',
      folder,
      '--json',
      '--rule',
      'status-vs-events',
      '--threshold',
      'snapshotGapMinutes=2000',
    ]);
    assert.match(
      (JSON.parse(near.out) as CheckReport).skipped[0]?.why ?? '',
      /^could not compare: none of the 1 statuses has its last_event inside the harvest \(2026-11-20T08:00:00.000Z to 2026-11-20T10:00:00.000Z\)/,
    );
  });
});
