// MDS-TRIP-OUTSIDE-WINDOW at the window's end (issue 39): MDS 2.0.2 provider/README.md, Trips - Query Parameters,
// serves a trip in the hour of its end_time, so a trip_start late in the window whose trip the harvest does not hold
// and that no later event of its device follows has its end after the window. Run by `runChecks` over a small harvest
// of three hours written here; each device is made to fire the rule or made not to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnalysisSession, readHarvestSource, runChecks } from '../../src/core/analysis';
import type { CheckReport } from '../../src/core/analysis';
import { writeHarvestPart } from './support/harvestFixture';

const T0 = Date.UTC(2026, 10, 20, 8); // three hours: the window ends at T(180)
const T = (minutes: number) => T0 + minutes * 60_000;
const PROVIDER = 'aaaaaaaa-0000-4000-8000-000000000000';
const dev = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`;
const tripId = (n: number) => `rrrrrrrr-0000-4000-8000-${String(n).padStart(12, '0')}`;
const here = { lat: 52.5, lng: 13.4 };

type Item = Record<string, unknown>;
let serial = 0;
const events: Item[] = [];
const trips: Item[] = [];
const event = (n: number, timestamp: number, types: string[], state: string, trip?: number) =>
  events.push({
    device_id: dev(n),
    provider_id: PROVIDER,
    event_id: `eeeeeeee-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
    vehicle_state: state,
    event_types: types,
    timestamp,
    location: here,
    ...(trip ? { trip_ids: [tripId(trip)] } : {}),
  });
const trip = (n: number, start: number, end: number) =>
  trips.push({
    provider_id: PROVIDER,
    device_id: dev(n),
    trip_id: tripId(n),
    start_time: start,
    end_time: end,
    duration: (end - start) / 1000,
    distance: 100,
    start_location: here,
    end_location: here,
  });

// 1: a trip_start at 10:50, the device's last event, its trip not in the harvest: its end lies after the window.
event(1, T(10), ['located'], 'available');
event(1, T(170), ['trip_start'], 'on_trip', 1);
// 2: a trip_start at 10:50 that a trip_end of the device follows at 10:55 (its trip in the harvest): inside the window.
event(2, T(170), ['trip_start'], 'on_trip', 2);
event(2, T(175), ['trip_end'], 'available', 2);
trip(2, T(170), T(175));
// 3: a trip_start at 10:52, the device's last event, but its trip is in the harvest (ended 10:58): not outside.
event(3, T(172), ['trip_start'], 'on_trip', 3);
trip(3, T(172), T(178));
// 4: a trip_start that another event of the device follows (not its end): trip-start-unfinished's, not this rule's.
event(4, T(160), ['trip_start'], 'on_trip', 4);
event(4, T(165), ['located'], 'available');

describe('check: a trip_start at the end of the window whose trip ends after it', function () {
  this.timeout(60_000);
  let dir: string;
  let session: AnalysisSession;
  let report: CheckReport;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'window-edge-'));
    writeHarvestPart(path.join(dir, 'trips'), 'trips', trips, (i) => i.end_time as number, T0, 3);
    writeHarvestPart(
      path.join(dir, 'events_historical'),
      'events_historical',
      events,
      (i) => i.timestamp as number,
      T0,
      3,
    );
    session = await AnalysisSession.open(await readHarvestSource(dir));
    report = await runChecks(session, ['trip-outside-window']);
  });
  after(() => {
    session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists only the device whose trip_start is its last event and whose trip the harvest does not hold', () => {
    const rule = report.rules.find((r) => r.id === 'trip-outside-window');
    assert.ok(rule, 'the rule ran');
    assert.deepEqual(
      rule.findings.map((f) => [f.device_id, f.trip_id, f.time]),
      [[dev(1), tripId(1), new Date(T(170)).toISOString()]],
    );
    assert.match(
      rule.findings[0].detail,
      /^trip_start with no later event of its device by the window's end \(2026-11-20 11:00:00\): its end lies after the window/,
    );
  });
});
