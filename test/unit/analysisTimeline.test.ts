// A finding's device timeline (issue 31, VS Code's Data Quality view): core/analysis `timelineSql` over a small
// harvest made for it (trips, events and telemetry of two devices, delivered out of order), run by DuckDB as the
// analysis worker runs it, and the panel's table of it (results/analysisTimeline.ts): the device's rows only, in time
// order, bounded around the finding's time, and the rows the finding names marked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnalysisSession, readHarvestSource, timelineSql } from '../../src/core/analysis';
import type { QueryAnswer, TimelineTarget } from '../../src/core/analysis';
import { analysisTimelineView } from '../../src/results/analysis/analysisTimeline';
import { cellText, columnById } from '../../src/shared/dataTable';
import { writeHarvestPart } from './support/harvestFixture';

const T0 = Date.UTC(2026, 10, 20, 8);
const MIN = 60_000;
const HOUR = 60 * MIN;
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const A = 'dddddddd-0000-4000-8000-00000000000a';
const B = 'dddddddd-0000-4000-8000-00000000000b';
const TRIP = 'rrrrrrrr-0000-4000-8000-000000000001';
const at = (lat: number) => ({ lat, lng: 13.4 });

type Item = Record<string, unknown>;

let n = 0;
const event = (device: string, timestamp: number, types: string[], state: string, trip?: string): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  event_id: `eeeeeeee-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  vehicle_state: state,
  event_types: types,
  timestamp,
  location: at(52.5),
  ...(trip ? { trip_ids: [trip] } : {}),
});
const point = (device: string, timestamp: number, trip: string): Item => ({
  device_id: device,
  provider_id: PROVIDER,
  telemetry_id: `tttttttt-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  timestamp,
  trip_ids: [trip],
  journey_id: null,
  location: { ...at(52.5 + (timestamp - T0) / 1e9), speed: 4.2 },
  battery_percent: 80,
});

describe("a finding's device timeline (timelineSql, the panel's table)", function () {
  this.timeout(60_000);
  let dir: string;
  let session: AnalysisSession;
  const telemetryTimes = [10, 12, 14, 16, 18, 20].map((m) => T0 + m * MIN);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-'));
    const trips = [
      {
        provider_id: PROVIDER,
        device_id: A,
        trip_id: TRIP,
        trip_type: ['rider'],
        start_time: T0 + 10 * MIN,
        end_time: T0 + 20 * MIN,
        duration: 600,
        distance: 2000,
        start_location: at(52.5),
        end_location: at(52.51),
      },
      {
        provider_id: PROVIDER,
        device_id: B,
        trip_id: 'rrrrrrrr-0000-4000-8000-00000000000b',
        trip_type: ['rider'],
        start_time: T0 + 10 * MIN,
        end_time: T0 + 20 * MIN,
        duration: 600,
        distance: 2000,
        start_location: at(52.5),
        end_location: at(52.51),
      },
    ];
    // Delivered out of order: the trip's end before its start, the located event of 08:05 last.
    const events = [
      event(A, T0 + 20 * MIN, ['trip_end'], 'available', TRIP),
      event(A, T0 + 10 * MIN, ['trip_start'], 'on_trip', TRIP),
      event(A, T0 + 30 * MIN, ['battery_low'], 'non_operational'),
      event(B, T0 + 30 * MIN, ['battery_low'], 'non_operational'),
      // Five hours later: outside the two hours around the findings below.
      event(A, T0 + 5 * HOUR, ['battery_charged'], 'available'),
      event(A, T0 + 5 * MIN, ['located'], 'available'),
    ];
    const telemetry = [...telemetryTimes].reverse().map((t) => point(A, t, TRIP));
    telemetry.push(point(B, T0 + 12 * MIN, 'rrrrrrrr-0000-4000-8000-00000000000b'));
    writeHarvestPart(path.join(dir, 'trips'), 'trips', trips, (i) => i.end_time as number, T0, 6);
    writeHarvestPart(
      path.join(dir, 'events_historical'),
      'events_historical',
      events,
      (i) => i.timestamp as number,
      T0,
      6,
    );
    writeHarvestPart(path.join(dir, 'telemetry'), 'telemetry', telemetry, (i) => i.timestamp as number, T0, 6);
    session = await AnalysisSession.open(await readHarvestSource(dir));
  });
  after(() => {
    session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const timeline = (target: TimelineTarget, bounds?: { spanMs: number; maxRows: number }): Promise<QueryAnswer> =>
    session.query(timelineSql(target, bounds));
  const brief = (answer: QueryAnswer) =>
    answer.rows.map(
      (r) => `${new Date(r.time as number).toISOString().slice(11, 16)} ${String(r.kind)}${r.marked ? ' *' : ''}`,
    );

  it("holds the device's trips, events and telemetry near the finding in time order, and marks the rows of the finding's trip", async () => {
    const answer = await timeline({ device_id: A, trip_id: TRIP, time: T0 + 10 * MIN });
    assert.deepEqual(
      brief(answer),
      [
        '08:05 event',
        '08:10 trip *',
        '08:10 event *',
        '08:10 telemetry *',
        '08:12 telemetry *',
        '08:14 telemetry *',
        '08:16 telemetry *',
        '08:18 telemetry *',
        '08:20 event *',
        '08:20 telemetry *',
        '08:30 event',
      ],
      'device B and the event five hours later are not in it',
    );
    const trip = answer.rows.find((r) => r.kind === 'trip');
    assert.equal(trip?.end_time, T0 + 20 * MIN);
    assert.equal(trip?.id, TRIP);
    assert.equal(answer.rows.find((r) => r.kind === 'event' && r.time === T0 + 10 * MIN)?.event_types, 'trip_start');
  });

  it("marks the rows at the finding's time when it names no trip", async () => {
    const answer = await timeline({ device_id: A, trip_id: null, time: T0 + 30 * MIN });
    assert.deepEqual(
      answer.rows.filter((r) => r.marked).map((r) => [r.kind, r.vehicle_state, r.time]),
      [['event', 'non_operational', T0 + 30 * MIN]],
    );
  });

  it("keeps the rows nearest the finding's time when there are more than the bounds allow, and says how many there were", async () => {
    const answer = await timeline({ device_id: A, time: T0 + 30 * MIN }, { spanMs: 2 * HOUR, maxRows: 3 });
    assert.deepEqual(brief(answer), ['08:20 event', '08:20 telemetry', '08:30 event *']);
    assert.equal(answer.rows[0].total, 11, 'every row within two hours was counted');
    const wide = await timeline({ device_id: A });
    assert.equal(wide.rows.length, 12, "a finding without a time: the device's whole history in the harvest");
    assert.equal(brief(wide).at(-1), '13:00 event');
  });

  it("becomes the panel's table: time order kept, the marked rows flagged and said in words, and a line that counts them", async () => {
    const answer = await timeline({ device_id: A, trip_id: TRIP, time: T0 + 10 * MIN });
    const finding = {
      device_id: A,
      trip_id: TRIP,
      time: new Date(T0 + 10 * MIN).toISOString(),
      detail: 'no trip_start event',
    };
    const view = analysisTimelineView({ resultId: 'r', rule: 'trip-events', index: 0, finding, rows: answer.rows });
    const table = view.table;
    assert.ok(table && view.marked && view.kinds);
    assert.equal(table.resource, 'timeline');
    assert.equal(table.count, 11);
    const time = columnById(table, 'time');
    const flag = columnById(table, 'finding');
    const kind = columnById(table, 'kind');
    const state = columnById(table, 'vehicle_state');
    assert.ok(time && flag && kind && state);
    const times = Array.from({ length: table.count }, (_, row) => cellText(time, row));
    assert.deepEqual(times, [...times].sort(), 'in time order');
    assert.deepEqual(
      [...view.marked],
      answer.rows.map((r) => (r.marked ? 1 : 0)),
    );
    assert.deepEqual(Array.from({ length: table.count }, (_, row) => cellText(flag, row)).filter(Boolean).length, 9);
    assert.equal(cellText(flag, 1), 'named by the finding');
    assert.deepEqual([...view.kinds].slice(0, 4), [1, 0, 1, 2]);
    assert.equal(cellText(kind, 1), 'trip');
    assert.equal(cellText(state, 0), 'available');
    assert.equal(
      view.line,
      `Device ${A}: 1 trip, 4 events, 6 telemetry points from 2026-11-20 08:05:00Z to 2026-11-20 08:30:00Z; 9 named by the finding.`,
    );
    const cut = analysisTimelineView({
      resultId: 'r',
      rule: 'trip-events',
      index: 0,
      finding,
      rows: (await timeline({ device_id: A, time: T0 + 30 * MIN }, { spanMs: 2 * HOUR, maxRows: 3 })).rows,
    });
    assert.match(cut.line, /Only the 3 rows nearest the finding's time are shown, of 11 within 2 hours of it\.$/);
  });
});
