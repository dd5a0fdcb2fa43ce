import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { MdsEventItem, MdsStop, MdsTelemetryItem, MdsTrip } from '../../src/core/mds/mdsItems';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/sandboxServer';
import type { WorldVehicleStatus } from '../../src/sandbox/world/syntheticWorld';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import { reportMonthBounds } from '../../src/sandbox/world/monthlyReports';
import { CITY_GEOGRAPHIES, geographyOf } from '../../src/sandbox/world/worldGeography';
import { SandboxClient, UUID_V4, assertMdsError, hourBefore } from './sandboxSupport';

const HOUR = 3_600_000;
/** A Wednesday afternoon in November: the month whose hours the official schema's pattern refuses. */
const NOW = Date.UTC(2025, 10, 5, 15, 37, 12);

interface Listing {
  version: string;
  trips: MdsTrip[];
  telemetry: MdsTelemetryItem[];
  events: MdsEventItem[];
  stops: MdsStop[];
  vehicles: { device_id: string }[];
  vehicles_status: WorldVehicleStatus[];
  last_updated: number;
  ttl: number;
  links?: { first?: string; next: string | null };
}

/**
 * Allowed micromobility (vehicle_state, event_type) pairs (mds-openapi v2.0,
 * models/modes/micromobility/event.yaml), for the event types the sandbox can emit.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  removed: [
    'agency_pick_up',
    'comms_restored',
    'compliance_pick_up',
    'decommissioned',
    'located',
    'maintenance_pick_up',
    'rebalance_pick_up',
    'unspecified',
  ],
  available: [
    'agency_drop_off',
    'battery_charged',
    'comms_restored',
    'located',
    'maintenance',
    'on_hours',
    'provider_drop_off',
    'reservation_cancel',
    'system_resume',
    'trip_cancel',
    'trip_end',
    'unspecified',
  ],
  non_operational: [
    'battery_low',
    'comms_restored',
    'located',
    'maintenance',
    'off_hours',
    'system_suspend',
    'unspecified',
  ],
  reserved: ['comms_restored', 'located', 'reservation_start', 'unspecified'],
  on_trip: ['changed_geographies', 'comms_restored', 'located', 'trip_enter_jurisdiction', 'trip_start', 'unspecified'],
  non_contactable: ['comms_lost', 'unspecified'],
  missing: ['not_located', 'unspecified'],
  elsewhere: ['comms_restored', 'located', 'trip_leave_jurisdiction', 'unspecified'],
};
/** The state an event type may come from (modes/micromobility.md, Vehicle State Events), for the types the sandbox emits. */
const FROM: Readonly<Record<string, readonly string[]>> = {
  trip_start: ['available', 'reserved'],
  trip_end: ['on_trip'],
  reservation_start: ['available'],
  reservation_cancel: ['reserved'],
  battery_low: ['available'],
  battery_charged: ['non_operational'],
  maintenance: ['available', 'non_operational'],
  maintenance_pick_up: ['available', 'non_operational', 'elsewhere'],
  rebalance_pick_up: ['available', 'non_operational', 'elsewhere'],
  provider_drop_off: ['removed', 'non_contactable', 'missing'],
  comms_lost: ['available', 'elsewhere', 'non_operational', 'on_trip', 'removed', 'reserved'],
  comms_restored: ['non_contactable'],
  not_located: ['non_contactable'],
  located: ['missing'],
};
const TRIP_EVENTS = ['trip_start', 'trip_end', 'trip_cancel', 'trip_enter_jurisdiction', 'trip_leave_jurisdiction'];

describe('sandbox world: every MDS 2.0 Provider endpoint', () => {
  const started: RunningSandbox[] = [];
  const start = async (options: SandboxOptions & { now: () => number }) => {
    const sandbox = await startSandbox({ fleetSize: 120, seed: 7, ...options });
    started.push(sandbox);
    return { sandbox, client: new SandboxClient(sandbox, options.now) };
  };
  after(() => Promise.all(started.map((s) => s.close())));

  let client: SandboxClient;
  let truth: SyntheticFleet;
  const busyHour = hourBefore(NOW, 2);
  const busyHourMs = Date.parse(`${busyHour}:00:00Z`);

  before(async () => {
    ({ client } = await start({ now: () => NOW }));
    truth = new SyntheticFleet({ size: 120, seed: 7, createdAt: NOW });
  });

  it('serves every endpoint of the catalogue as MDS 2.0.2 with the MDS media types', async () => {
    const vehicles = await client.get<Listing>('/vehicles');
    const deviceId = vehicles.body.vehicles[0]?.device_id ?? '';
    const stops = await client.get<Listing>('/stops');
    const stopId = stops.body.stops[0]?.stop_id ?? '';
    const paths: [string, string][] = [
      ['vehicles', '/vehicles'],
      ['vehicle', `/vehicles/${deviceId}`],
      ['vehicles_status', '/vehicles/status'],
      ['vehicle_status', `/vehicles/status/${deviceId}`],
      ['trips', `/trips?end_time=${busyHour}`],
      ['telemetry', `/telemetry?telemetry_time=${busyHour}`],
      ['events_historical', `/events/historical?event_time=${busyHour}`],
      ['events_recent', `/events/recent?start_time=${NOW - HOUR}&end_time=${NOW}`],
      ['stops', '/stops'],
      ['stop', `/stops/${stopId}`],
    ];
    for (const [id, path] of paths) {
      const answer = await client.get<Listing>(path);
      assert.equal(answer.status, 200, `${id}: ${answer.text.slice(0, 300)}`);
      assert.equal(answer.headers.get('content-type'), 'application/vnd.mds+json;version=2.0', id);
      assert.equal(answer.body.version, '2.0.2', id);
    }
    const report = await client.get('/reports/2025-10.csv');
    assert.equal(report.status, 200, report.text);
    assert.equal(report.headers.get('content-type'), 'text/vnd.mds+csv;version=2.0');
  });

  it('answers the hour endpoints by MDS rules: 400 missing or malformed, 202 current, 404 future or before the world, 200 past', async () => {
    for (const [path, name] of [
      ['/trips', 'end_time'],
      ['/telemetry', 'telemetry_time'],
      ['/events/historical', 'event_time'],
    ] as const) {
      const missing = await client.get(path);
      assertMdsError(missing, 400, 'missing_param');
      assert.deepEqual((missing.body as { error_details: string[] }).error_details, [name]);
      for (const bad of ['2025-13-01T10', '2025-02-30T10', '2025-11-05T24', '2025-11-05', 'yesterday'])
        assertMdsError(await client.get(`${path}?${name}=${bad}`), 400, 'bad_param');
      const current = await client.get(`${path}?${name}=${hourBefore(NOW, 0)}`);
      assert.equal(current.status, 202, current.text);
      // 15:37:12 now: the hour is processed 22 min 48 s later.
      assert.equal(current.headers.get('retry-after'), String(22 * 60 + 48));
      assertMdsError(await client.get(`${path}?${name}=${hourBefore(NOW, -1)}`), 404, 'not_found');
      assertMdsError(await client.get(`${path}?${name}=2019-01-01T00`), 404, 'not_found');
      // The world covers 35 days by default: 34 days back is served, 40 days back is not.
      assert.equal((await client.get(`${path}?${name}=${hourBefore(NOW, 34 * 24)}`)).status, 200);
      assertMdsError(await client.get(`${path}?${name}=${hourBefore(NOW, 40 * 24)}`), 404, 'not_found');
    }
  });

  it('answers 200 with an empty list for a past hour without trips', async () => {
    const now = () => NOW;
    const { client: tiny } = await start({ now, fleetSize: 2, seed: 3 });
    const tinyTruth = new SyntheticFleet({ size: 2, seed: 3, createdAt: NOW });
    let quiet: string | undefined;
    for (let back = 1; back < 48 && quiet === undefined; back++) {
      const hour = hourBefore(NOW, back);
      if (tinyTruth.world.countTripsEndingIn(Date.parse(`${hour}:00:00Z`)) === 0) quiet = hour;
    }
    assert.ok(quiet, 'two vehicles have an hour without trips in two days');
    const answer = await tiny.get<Listing>(`/trips?end_time=${quiet}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { version: '2.0.2', trips: [] });
  });

  it('serves exactly the trips, events and telemetry of the world for an hour, each with unique v4 UUIDs', async () => {
    const trips = (await client.get<Listing>(`/trips?end_time=${busyHour}`)).body;
    assert.equal(trips.links, undefined, '/trips must not paginate (provider/README.md, Pagination)');
    assert.ok(trips.trips.length > 5, `a busy afternoon has trips (got ${trips.trips.length})`);
    assert.equal(trips.trips.length, truth.world.countTripsEndingIn(busyHourMs));
    assert.deepEqual(trips.trips, truth.world.tripsEndingIn(busyHourMs));
    for (const trip of trips.trips) {
      assert.ok(trip.end_time >= busyHourMs && trip.end_time < busyHourMs + HOUR);
      assert.equal(trip.duration, (trip.end_time - trip.start_time) / 1000);
      assert.ok(trip.distance > 0);
      assert.match(trip.trip_id, UUID_V4);
    }
    const events = (await client.get<Listing>(`/events/historical?event_time=${busyHour}`)).body.events;
    assert.deepEqual(events, truth.world.eventsIn(busyHourMs, busyHourMs + HOUR));
    const telemetry: MdsTelemetryItem[] = [];
    let next: string | null = `/telemetry?telemetry_time=${busyHour}&page_size=250`;
    let pages = 0;
    while (next) {
      const page: Listing = (await client.get<Listing>(next)).body;
      assert.ok(page.telemetry.length <= 250);
      telemetry.push(...page.telemetry);
      next = page.links?.next ?? null;
      pages += 1;
    }
    assert.ok(pages > 1, 'telemetry of a busy hour spans several pages of 250');
    for (const [label, ids] of [
      ['event_id', events.map((e) => e.event_id)],
      ['telemetry_id', telemetry.map((t) => t.telemetry_id)],
      ['trip_id', trips.trips.map((t) => t.trip_id)],
    ] as const) {
      assert.equal(new Set(ids).size, ids.length, `${label}s are unique`);
      for (const id of ids) assert.match(id, UUID_V4, label);
    }
    assert.ok(telemetry.every((t) => t.timestamp >= busyHourMs && t.timestamp < busyHourMs + HOUR));
    for (const e of events) {
      assert.ok(
        ALLOWED[e.vehicle_state]?.includes(e.event_types[0] ?? ''),
        `${e.vehicle_state} with ${e.event_types.join(',')}`,
      );
      if (e.event_types.some((t) => TRIP_EVENTS.includes(t)))
        assert.equal(e.trip_ids?.length, 1, 'trip events carry trip_ids');
    }
  });

  it('keeps one world: a trip has its start and end events and 30-second telemetry, all under its trip_id', async () => {
    const trips = (await client.get<Listing>(`/trips?end_time=${busyHour}`)).body.trips;
    const window = `start_time=${busyHourMs - 2 * HOUR}&end_time=${busyHourMs + HOUR}`;
    const events = (await client.get<Listing>(`/events/recent?${window}&page_size=1000`)).body.events;
    const points: MdsTelemetryItem[] = [];
    for (const hour of [hourBefore(NOW, 4), hourBefore(NOW, 3), busyHour]) {
      let next: string | null = `/telemetry?telemetry_time=${hour}`;
      while (next) {
        const page: Listing = (await client.get<Listing>(next)).body;
        points.push(...page.telemetry);
        next = page.links?.next ?? null;
      }
    }
    for (const trip of trips.filter((t) => t.start_time >= busyHourMs - 2 * HOUR)) {
      const mine = events.filter((e) => e.trip_ids?.includes(trip.trip_id));
      assert.deepEqual(
        mine.map((e) => e.event_types[0]),
        ['trip_start', 'trip_end'],
        trip.trip_id,
      );
      assert.deepEqual(
        mine.map((e) => e.timestamp),
        [trip.start_time, trip.end_time],
      );
      assert.ok(mine.every((e) => e.device_id === trip.device_id));
      const track = points.filter((p) => p.trip_ids?.includes(trip.trip_id));
      assert.ok(track.length >= 2, 'a trip has at least its start and end point');
      assert.equal(track[0]?.timestamp, trip.start_time);
      assert.equal(track[track.length - 1]?.timestamp, trip.end_time);
      assert.deepEqual({ lat: track[0]?.location.lat, lng: track[0]?.location.lng }, trip.start_location);
      assert.deepEqual(
        { lat: track[track.length - 1]?.location.lat, lng: track[track.length - 1]?.location.lng },
        trip.end_location,
      );
      for (let i = 1; i < track.length; i++)
        assert.ok((track[i]?.timestamp ?? 0) - (track[i - 1]?.timestamp ?? 0) <= 30_000);
      assert.ok(track.every((p) => p.device_id === trip.device_id && p.journey_id === null));
      // Through Berlin: within 15 km of Alexanderplatz.
      assert.ok(track.every((p) => Math.abs(p.location.lat - 52.52) < 0.14 && Math.abs(p.location.lng - 13.41) < 0.22));
    }
  });

  it('follows the micromobility state machine: each event may follow the one before it', async () => {
    const events = (
      await client.get<Listing>(`/events/recent?start_time=${NOW - 24 * HOUR}&end_time=${NOW}&page_size=1000`)
    ).body.events;
    const byDevice = new Map<string, MdsEventItem[]>();
    for (const e of events) byDevice.set(e.device_id, [...(byDevice.get(e.device_id) ?? []), e]);
    let transitions = 0;
    for (const list of byDevice.values()) {
      for (let i = 1; i < list.length; i++) {
        const [before, after] = [list[i - 1], list[i]];
        assert.ok(after.timestamp > before.timestamp, 'events of a device are in time order');
        const type = after.event_types[0] ?? '';
        assert.ok(
          FROM[type]?.includes(before.vehicle_state),
          `${before.vehicle_state} -> ${type} -> ${after.vehicle_state}`,
        );
        transitions += 1;
      }
    }
    assert.ok(transitions > 100);
  });

  it('gives each vehicle the status of its latest event and telemetry in the world', async () => {
    const status = (await client.get<Listing>('/vehicles/status?page_size=120')).body;
    assert.equal(status.last_updated, NOW);
    assert.ok(status.ttl >= 0 && status.ttl <= 300_000);
    const events = (
      await client.get<Listing>(
        `/events/recent?start_time=${NOW - 13 * 24 * HOUR}&end_time=${NOW + HOUR}&page_size=1000`,
      )
    ).body;
    assert.ok(events.links?.next, 'two weeks of events take several pages');
    const latest = new Map<string, MdsEventItem>();
    let next: string | null = events.links?.next ?? null;
    const all = [...events.events];
    while (next) {
      const page: Listing = (await client.get<Listing>(next)).body;
      all.push(...page.events);
      next = page.links?.next ?? null;
    }
    for (const e of all) if ((latest.get(e.device_id)?.timestamp ?? -1) < e.timestamp) latest.set(e.device_id, e);
    const states = new Set<string>();
    for (const item of status.vehicles_status) {
      assert.deepEqual(item.last_event, latest.get(item.device_id), item.device_id);
      assert.ok(item.last_telemetry.timestamp <= NOW);
      states.add(item.last_event.vehicle_state);
      if (item.last_event.vehicle_state === 'on_trip')
        assert.deepEqual(item.last_telemetry.trip_ids, item.last_event.trip_ids);
    }
    assert.ok(states.has('available') && states.has('on_trip'), [...states].join(','));
  });

  it('refuses /events/recent windows that are missing, reversed, malformed or older than two weeks', async () => {
    assertMdsError(await client.get('/events/recent'), 400, 'missing_param');
    assertMdsError(await client.get(`/events/recent?start_time=${NOW - HOUR}`), 400, 'missing_param');
    assertMdsError(await client.get(`/events/recent?start_time=${NOW}&end_time=${NOW - HOUR}`), 400, 'bad_param');
    assertMdsError(await client.get(`/events/recent?start_time=yesterday&end_time=${NOW}`), 400, 'bad_param');
    const old = await client.get(`/events/recent?start_time=${NOW - 14 * 24 * HOUR - 1000}&end_time=${NOW}`);
    assertMdsError(old, 400, 'bad_param');
    assert.match((old.body as { error_description: string }).error_description, /two weeks/);
    const edge = await client.get<Listing>(
      `/events/recent?start_time=${NOW - 14 * 24 * HOUR + 1000}&end_time=${NOW - 14 * 24 * HOUR + HOUR}`,
    );
    assert.equal(edge.status, 200);
    assert.deepEqual(
      edge.body.events.map((e) => e.event_id).sort(),
      truth.world
        .eventsIn(NOW - 14 * 24 * HOUR + 1000, NOW - 14 * 24 * HOUR + HOUR)
        .map((e) => e.event_id)
        .sort(),
    );
  });

  it('is deterministic: the same seed gives the same answers, another seed other ones', async () => {
    const answers = async (seed: number) => {
      const { client: c, sandbox } = await start({ now: () => NOW, seed });
      const texts: string[] = [];
      // One after the other: tokens of one key must arrive in iat order.
      for (const p of [
        `/trips?end_time=${busyHour}`,
        `/telemetry?telemetry_time=${busyHour}`,
        '/vehicles/status',
        '/stops',
      ]) {
        const answer = await c.get(p);
        assert.equal(answer.status, 200, answer.text.slice(0, 200));
        // Links name the sandbox's port, which differs between sandboxes.
        texts.push(answer.text.split(sandbox.url).join('<sandbox>'));
      }
      return texts;
    };
    const a = await answers(7);
    assert.ok(
      (await answers(7)).every((text, i) => text === a[i]),
      'the same seed, the same bytes',
    );
    const other = await answers(8);
    for (let i = 0; i < a.length; i++) assert.ok(other[i] !== a[i], `answer ${i} differs with another seed`);
  });

  it('follows the injected clock: an hour that was current answers 200 once the clock has moved on', async () => {
    let clock = NOW;
    const { client: c } = await start({ now: () => clock });
    const hour = hourBefore(NOW, 0);
    assert.equal((await c.get(`/trips?end_time=${hour}`)).status, 202);
    clock = NOW + HOUR;
    const later = await c.get<Listing>(`/trips?end_time=${hour}`);
    assert.equal(later.status, 200);
    assert.deepEqual(later.body.trips, truth.world.tripsEndingIn(Date.parse(`${hour}:00:00Z`)));
  });

  it('has quiet nights and busy afternoons', () => {
    let night = 0;
    let afternoon = 0;
    for (let day = 1; day <= 7; day++) {
      const midnight = Math.floor(NOW / (24 * HOUR)) * 24 * HOUR - day * 24 * HOUR;
      for (const h of [0, 1, 2, 3]) night += truth.world.countTripsEndingIn(midnight + h * HOUR);
      for (const h of [14, 15, 16, 17]) afternoon += truth.world.countTripsEndingIn(midnight + h * HOUR);
    }
    assert.ok(afternoon > 4 * night, `afternoons ${afternoon} trips, nights ${night}`);
  });

  it('injects faults: 202 once then 200, 500 once then 200, counted per hour', async () => {
    const hour = hourBefore(NOW, 3);
    const { client: c } = await start({
      now: () => NOW,
      faults: [
        { endpoint: 'trips', hour, status: 202 },
        { endpoint: 'telemetry', hour, status: 500, times: 2 },
        { endpoint: 'vehicles_status', status: 500 },
      ],
    });
    const accepted = await c.get(`/trips?end_time=${hour}`);
    assert.equal(accepted.status, 202);
    assert.equal(accepted.headers.get('retry-after'), '1');
    assert.equal((await c.get(`/trips?end_time=${hourBefore(NOW, 4)}`)).status, 200, 'another hour is not affected');
    assert.equal((await c.get(`/trips?end_time=${hour}`)).status, 200);
    assertMdsError(await c.get(`/telemetry?telemetry_time=${hour}`), 500, 'server_error');
    assertMdsError(await c.get(`/telemetry?telemetry_time=${hour}`), 500, 'server_error');
    assert.equal((await c.get(`/telemetry?telemetry_time=${hour}`)).status, 200);
    assertMdsError(await c.get('/vehicles/status'), 500, 'server_error');
    assert.equal((await c.get('/vehicles/status')).status, 200);
    await assert.rejects(
      startSandbox({ faults: [{ endpoint: 'trips', hour: '2025-11-31T00', status: 202 }] }),
      /faults\[0\].*hour/,
    );
    await assert.rejects(
      startSandbox({ faults: [{ endpoint: 'nope' as 'trips', status: 500 }] }),
      /faults\[0\].*endpoint/,
    );
    await assert.rejects(
      startSandbox({ faults: [{ endpoint: 'stops', hour: '2025-11-05T10', status: 500 }] }),
      /not an hour endpoint/,
    );
  });

  it('serves stops and one stop by id; an unknown stop is 404', async () => {
    const stops = (await client.get<Listing>('/stops')).body;
    assert.equal(stops.last_updated, NOW);
    assert.ok(stops.stops.length >= 5);
    for (const stop of stops.stops) {
      assert.match(stop.stop_id, UUID_V4);
      for (const [type, capacity] of Object.entries(stop.capacity)) {
        const k = type as keyof typeof stop.capacity;
        assert.equal(
          (stop.num_vehicles_available[k] ?? 0) +
            (stop.num_vehicles_disabled[k] ?? 0) +
            (stop.num_places_available?.[k] ?? 0),
          capacity,
        );
      }
    }
    const one = await client.get<Listing>(`/stops/${stops.stops[2]?.stop_id}`);
    assert.deepEqual(one.body.stops, [stops.stops[2]]);
    assertMdsError(await client.get(`/stops/${randomUUID()}`), 404, 'not_found');
  });

  it("serves monthly reports as CSV with the official columns, counting the world's trips by start in Berlin time", async () => {
    const report = await client.get('/reports/2025-10.csv');
    const lines = report.text.trim().split('\r\n');
    assert.equal(
      lines[0],
      'provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count',
    );
    const rows = lines.slice(1).map((l) => l.split(','));
    const geographyIds = CITY_GEOGRAPHIES.map((g) => g.geography_id);
    assert.equal(
      rows.length,
      3 * geographyIds.length * 5,
      'every special group with every geography and every vehicle type of the fleet',
    );
    for (const row of rows) {
      assert.equal(row[0], truth.providerId);
      assert.equal(row[1], '2025-10-01');
      assert.equal(row[2], 'P1M');
      assert.ok(geographyIds.includes(row[4] ?? ''), `geography_id ${row[4]} is one of the sandbox's geographies`);
      for (const count of [Number(row[6]), Number(row[7])])
        assert.ok(count === -1 || count >= 10, 'counts below 10 are -1');
    }
    const adaptiveOnBikes = rows.find((r) => r[3] === 'adaptive_scooter' && r[5] === 'bicycle');
    assert.equal(adaptiveOnBikes?.[6], '-1');
    // The world's own trips, found through /trips' truth, started in October in Berlin time.
    const bounds = reportMonthBounds(2025, 10);
    // The world of 35 days before 5 November starts on 1 October, 00:00 UTC: later than Berlin's midnight.
    const startMs = Math.max(bounds.startMs, Date.UTC(2025, 9, 1));
    const endMs = bounds.endMs;
    const expected = new Map<string, number>();
    for (let t = Math.floor(startMs / HOUR) * HOUR; t < endMs + 3 * HOUR; t += HOUR) {
      for (const trip of truth.world.tripsEndingIn(t)) {
        if (trip.start_time < startMs || trip.start_time >= endMs) continue;
        // Counted in the geography the trip starts in, as its start_location in /trips says.
        const id = geographyOf(trip.start_location).geography_id;
        expected.set(id, (expected.get(id) ?? 0) + 1);
      }
    }
    for (const id of geographyIds) {
      const inGeography = rows.filter((r) => r[3] === 'all_riders' && r[4] === id);
      const total = inGeography.reduce((sum, r) => sum + Math.max(0, Number(r[6])), 0);
      const redacted = inGeography.filter((r) => r[6] === '-1').length;
      const want = expected.get(id) ?? 0;
      assert.ok(total <= want && total >= want - 9 * redacted, `geography ${id}: report ${total}, world ${want}`);
    }
    assert.ok(
      geographyIds.filter((id) => (expected.get(id) ?? 0) >= 10).length >= 2,
      'trips start in more than one geography',
    );
    assertMdsError(await client.get('/reports/2025-11.csv'), 404, 'not_found');
    assertMdsError(await client.get('/reports/2025-08.csv'), 404, 'not_found');
    assertMdsError(await client.get('/reports/october.csv'), 404, 'not_found');
  });

  it('serves hours of every month, November included', async () => {
    for (let month = 0; month < 12; month++) {
      const now = Date.UTC(2025, month, 14, 18, 5);
      const { client: c } = await start({ now: () => now, fleetSize: 30 });
      const hour = hourBefore(now, 3);
      assert.match(hour, new RegExp(`^2025-${String(month + 1).padStart(2, '0')}-14T15$`));
      for (const path of [
        `/trips?end_time=${hour}`,
        `/telemetry?telemetry_time=${hour}`,
        `/events/historical?event_time=${hour}`,
      ]) {
        const answer = await c.get<Listing>(path);
        assert.equal(answer.status, 200, `${path}: ${answer.text.slice(0, 200)}`);
      }
      assert.equal(
        (await c.get(`/reports/2025-${String(month === 0 ? 12 : month).padStart(2, '0')}.csv`)).status,
        month === 0 ? 404 : 200,
      );
    }
  });

  it("starts a 1,000,000-vehicle world at once and answers one vehicle's status", async () => {
    const { client: c } = await start({ now: () => NOW, fleetSize: 1_000_000 });
    const last = await c.get<Listing>('/vehicles?page=10000');
    const id = last.body.vehicles[99]?.device_id ?? '';
    const status = await c.get<Listing>(`/vehicles/status/${id}`);
    assert.equal(status.status, 200);
    assert.equal(status.body.vehicles_status[0]?.last_event.device_id, id);
  });
});
