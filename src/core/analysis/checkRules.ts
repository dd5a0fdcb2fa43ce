/**
 * The data-quality rules: what the official schemas cannot see because it lies between items (a trip without its
 * events, a vehicle that jumps with no trip, values in another unit). Each rule is one SQL query over the analysis
 * views that returns its findings as rows (device_id, trip_id, time in ms, detail), so that a user can read the
 * rule's own SQL and change it; hour coverage is read from the manifests.
 */
import type { HarvestSource } from './harvestSource';
import type { Intake } from './integrity/intake';
import { INTEGRITY_RULES } from './integrity/integrityRules';
import type { ModeMachines } from './modeMachines';
import machinesJson from './modeTransitions.json';
import type { MdsBasis, RuleSeverity } from './rules/ruleBasis';
import type { EdgeRuleThresholds } from './rules/ruleThresholds';
import { EDGE_RULE_THRESHOLDS } from './rules/ruleThresholds';
import { MS_FLOOR } from './rules/timeUnits';
import type { TripTelemetryThresholds } from './rules/tripTelemetryRules';
import { TRIP_TELEMETRY_THRESHOLDS } from './rules/tripTelemetryRules';

/** The MDS 2.0.2 state machines, parsed from the official modes/*.md (see modeMachines.ts and schemas/mds-modes/). */
export const MODE_MACHINES = machinesJson as unknown as ModeMachines;

/** The thresholds the rules use; each has a default (`DEFAULT_THRESHOLDS`) and can be set. */
export interface CheckThresholds extends EdgeRuleThresholds, TripTelemetryThresholds {
  /** trip-events: how far an event may be from its trip's start or end time, in seconds. */
  tripEventToleranceSeconds: number;
  /** trip-events: a trip start older than this without an end (within the harvest) is a finding, in hours. */
  maxTripHours: number;
  /** telemetry-gaps: the longest gap between two points of a trip, in seconds. */
  telemetryGapSeconds: number;
  /** teleport: how far a vehicle may be from its last known location with no trip between, in metres. */
  teleportMeters: number;
  /** phantom-trips: trips shorter than this, in seconds... */
  phantomSeconds: number;
  /** ...or than this, in metres. */
  phantomMeters: number;
  /** units: the highest plausible speed of any vehicle, in metres per second. */
  maxSpeedMetersPerSecond: number;
  /** hour-coverage: an empty hour between two hours with at least this many items is a likely outage. */
  busyHourItems: number;
  /** status-vs-events: a snapshot taken more than this after the harvest ends cannot be compared, in minutes. */
  snapshotGapMinutes: number;
}

export const DEFAULT_THRESHOLDS: CheckThresholds = {
  tripEventToleranceSeconds: 60,
  maxTripHours: 3,
  telemetryGapSeconds: 300,
  teleportMeters: 500,
  phantomSeconds: 60,
  phantomMeters: 50,
  maxSpeedMetersPerSecond: 45,
  busyHourItems: 10,
  ...EDGE_RULE_THRESHOLDS,
  ...TRIP_TELEMETRY_THRESHOLDS,
  snapshotGapMinutes: 90,
};

/** The views a rule reads. */
export type CheckView = 'trips' | 'events' | 'telemetry' | 'vehicles' | 'vehicles_status';

/** The time window every view of a rule covers, in ms: [start, end). */
export interface CheckWindow {
  start: number;
  end: number;
}

/** What some rules need besides the thresholds and the window. */
export interface CheckContext {
  /** The mode whose state machine event-sequence follows (default micromobility). */
  mode?: string;
  /** The snapshot's /vehicles/status `last_updated` (ms); status-vs-events compares the events up to it. */
  snapshotLastUpdated?: number;
  /** The agency's IANA time zone, which reports-vs-trips counts months in. */
  timeZone?: string;
  /** The events' done hours (`2026-11-20T07`): a rule that looks for an event compares only inside them. */
  eventHours?: readonly string[];
}

/** One rule. */
export interface CheckRule {
  /** The kebab id, an alias of the code (`--rule` takes either). */
  id: string;
  /** The stable code (`MDS-TRIP-EVENTS`); the rules listed in rules/ruleBasis.ts get theirs there. */
  code?: string;
  title: string;
  severity: RuleSeverity;
  /** The MDS text or OMF issue it rests on, in words. */
  basis: string;
  /** Where the official MDS 2.0.2 text says it (file and section). */
  mds?: readonly MdsBasis[];
  /** The views it needs data in; a rule whose views are missing from the harvest is skipped, saying why. */
  needs: readonly CheckView[];
  /** Its findings as SQL: columns device_id, trip_id, time (ms), detail. Absent for rules read from the manifests. */
  sql?: (t: CheckThresholds, w: CheckWindow, c?: CheckContext) => string;
  /** Its findings read from the manifests, for a rule without SQL. */
  manifest?: (source: HarvestSource, t: CheckThresholds) => CheckFinding[];
  /** Its findings read from the harvest's files and what the session read of them (integrity/). */
  local?: (source: HarvestSource, intake: Intake) => CheckFinding[];
}

const list = (values: readonly string[]) => `[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;
const PROW = list(MODE_MACHINES.prowStates);

/** The transitions of a mode's machine as a SQL VALUES list (from, event type, to). */
function transitionsSql(mode: string | undefined): string {
  const machine = MODE_MACHINES.modes[mode && Object.hasOwn(MODE_MACHINES.modes, mode) ? mode : 'micromobility'];
  const q = (v: string) => `'${v.replace(/'/g, "''")}'`;
  return `(VALUES ${machine.transitions.map(([from, type, to]) => `(${q(from)}, ${q(type)}, ${q(to)})`).join(', ')}) AS tr(f, e, t)`;
}

const TRIP_STARTS = "['trip_start', 'trip_enter_jurisdiction']";
const TRIP_ENDS = "['trip_end', 'trip_leave_jurisdiction']";

/** Metres between two (lat, lng) points on the earth, in SQL (haversine). */
function metres(lat1: string, lng1: string, lat2: string, lng2: string): string {
  return `(2 * 6371008.8 * asin(sqrt(pow(sin(radians(${lat2} - ${lat1}) / 2), 2) + cos(radians(${lat1})) * cos(radians(${lat2})) * pow(sin(radians(${lng2} - ${lng1}) / 2), 2))))`;
}

/** Trips wholly inside the window, so that their events and telemetry are in the harvest too. */
const tripsIn = (w: CheckWindow) => `(SELECT * FROM trips WHERE start_time >= ${w.start} AND end_time < ${w.end})`;

export const CHECK_RULES: readonly CheckRule[] = [
  ...INTEGRITY_RULES,
  {
    id: 'trip-events',
    title: 'Every trip has its start and end events',
    severity: 'error',
    basis:
      'MDS 2.0 provider, Events: a trip_start and a trip_end (or jurisdiction enter/leave) event of the device, carrying the trip_id; mobility-data-specification #748, #792',
    needs: ['trips', 'events'],
    sql: (t, w) => `
      WITH t AS ${tripsIn(w)}
      SELECT t.device_id, t.trip_id, t.start_time AS time, format('no trip_start event of its device with this trip_id within {} s of its start_time', ${t.tripEventToleranceSeconds}) AS detail
      FROM t WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.device_id = t.device_id AND list_contains(e.trip_ids, t.trip_id)
        AND list_has_any(e.event_types, ${TRIP_STARTS}) AND abs(e.timestamp - t.start_time) <= ${t.tripEventToleranceSeconds * 1000})
      UNION ALL
      SELECT t.device_id, t.trip_id, t.end_time, format('no trip_end event of its device with this trip_id within {} s of its end_time', ${t.tripEventToleranceSeconds})
      FROM t WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.device_id = t.device_id AND list_contains(e.trip_ids, t.trip_id)
        AND list_has_any(e.event_types, ${TRIP_ENDS}) AND abs(e.timestamp - t.end_time) <= ${t.tripEventToleranceSeconds * 1000})
      UNION ALL
      SELECT s.device_id, s.trip_ids[1], s.timestamp, format('a trip_start never followed by a trip_end of its trip within {} h', ${t.maxTripHours})
      FROM events s WHERE list_has_any(s.event_types, ${TRIP_STARTS}) AND s.timestamp + ${t.maxTripHours * 3_600_000} < ${w.end}
        AND NOT EXISTS (SELECT 1 FROM events f WHERE f.device_id = s.device_id AND list_has_any(f.trip_ids, s.trip_ids)
          AND list_has_any(f.event_types, ${TRIP_ENDS}) AND f.timestamp >= s.timestamp)`,
  },
  {
    id: 'duplicate-events',
    title: 'No event twice',
    severity: 'error',
    basis:
      'MDS 2.0 provider, Events: one event per change of state; the same device, timestamp and event types twice is a duplicate (mobility-data-specification #667)',
    needs: ['events'],
    sql: () => `
      SELECT device_id, NULL AS trip_id, timestamp AS time,
        format('{} events at this time with the event types {} (event_ids {})', count(*), list_sort(event_types)::VARCHAR, list_sort(list(event_id))::VARCHAR) AS detail
      FROM events GROUP BY device_id, timestamp, list_sort(event_types) HAVING count(*) > 1`,
  },
  {
    id: 'telemetry-gaps',
    title: 'Every trip has its telemetry, without long gaps',
    severity: 'error',
    basis:
      'MDS 2.0 provider, Telemetry: "at least 2 points" per trip, its start and end; mobility-data-specification #749, #877',
    needs: ['trips', 'telemetry'],
    sql: (t, w) => `
      WITH t AS ${tripsIn(w)},
      p AS (SELECT unnest(trip_ids) AS trip_id, device_id, timestamp FROM telemetry),
      j AS (SELECT t.device_id, t.trip_id, t.start_time, p.timestamp,
              p.timestamp - lag(p.timestamp) OVER (PARTITION BY t.trip_id ORDER BY p.timestamp) AS gap
            FROM t LEFT JOIN p ON p.trip_id = t.trip_id AND p.device_id = t.device_id),
      s AS (SELECT device_id, trip_id, min(start_time) AS start_time, count(timestamp) AS points, max(gap) AS gap, arg_max(timestamp, gap) AS gap_end FROM j GROUP BY device_id, trip_id)
      SELECT device_id, trip_id, start_time AS time, format('{} telemetry points (MDS: at least 2, its start and end)', points) FROM s WHERE points < 2
      UNION ALL
      SELECT device_id, trip_id, gap_end - gap, format('no telemetry for {} s inside the trip (more than {} s)', gap // 1000, ${t.telemetryGapSeconds})
      FROM s WHERE points >= 2 AND gap > ${t.telemetryGapSeconds * 1000}`,
  },
  {
    id: 'teleport',
    title: 'No vehicle moves without a trip',
    severity: 'warning',
    basis:
      'MDS 2.0 provider, Events: a vehicle moves on a trip or while removed by the provider; mobility-data-specification #642, #889',
    needs: ['events'],
    sql: (t) => `
      WITH e AS (SELECT device_id, timestamp, event_types, location.lat AS lat, location.lng AS lng,
          lag(location.lat) OVER w AS prev_lat, lag(location.lng) OVER w AS prev_lng, lag(vehicle_state) OVER w AS prev_state, lag(timestamp) OVER w AS prev_time
        FROM events WHERE location IS NOT NULL WINDOW w AS (PARTITION BY device_id ORDER BY timestamp)),
      d AS (SELECT *, ${metres('prev_lat', 'prev_lng', 'lat', 'lng')} AS metres FROM e WHERE prev_lat IS NOT NULL)
      SELECT device_id, NULL AS trip_id, timestamp AS time,
        format('{} m from its last known location (at {}) with no trip between (more than {} m)', round(metres)::BIGINT, epoch_ms(prev_time)::VARCHAR, ${t.teleportMeters})
      FROM d WHERE metres > ${t.teleportMeters} AND prev_state NOT IN ('on_trip', 'removed', 'elsewhere', 'missing')
        AND NOT list_has_any(event_types, ['trip_end', 'trip_leave_jurisdiction', 'trip_enter_jurisdiction', 'provider_drop_off', 'located'])`,
  },
  {
    id: 'units',
    title: 'Values in the units MDS 2.0 asks for',
    severity: 'error',
    basis:
      'MDS 2.0 data types: timestamps in milliseconds, battery_percent 0 to 100, distances in metres, costs in cents (never negative); coordinates as lat/lng; mobility-data-specification #770, #899',
    needs: [],
    sql: (t) => `
      WITH pts AS (SELECT location.lat AS lat, location.lng AS lng FROM events WHERE location IS NOT NULL
                   UNION ALL SELECT location.lat, location.lng FROM telemetry),
      box AS (SELECT approx_quantile(lat, 0.05) AS lat0, approx_quantile(lat, 0.95) AS lat1, approx_quantile(lng, 0.05) AS lng0, approx_quantile(lng, 0.95) AS lng1 FROM pts)
      SELECT device_id, trip_id, start_time AS time, format('start_time {} looks like seconds, not milliseconds', start_time) AS detail FROM trips WHERE start_time < ${MS_FLOOR}
      UNION ALL SELECT device_id, trip_id, end_time, format('end_time {} looks like seconds, not milliseconds', end_time) FROM trips WHERE end_time < ${MS_FLOOR}
      UNION ALL SELECT device_id, NULL, timestamp, format('event timestamp {} looks like seconds, not milliseconds', timestamp) FROM events WHERE timestamp < ${MS_FLOOR}
      UNION ALL SELECT device_id, NULL, timestamp, format('telemetry timestamp {} looks like seconds, not milliseconds', timestamp) FROM telemetry WHERE timestamp < ${MS_FLOOR}
      UNION ALL SELECT device_id, NULL, timestamp, format('battery_percent {} is above 100', battery_percent) FROM events WHERE battery_percent > 100
      UNION ALL SELECT device_id, NULL, timestamp, format('battery_percent {} is above 100', battery_percent) FROM telemetry WHERE battery_percent > 100
      UNION ALL SELECT device_id, NULL, min(timestamp), format('every battery_percent of this device is between 0 and 1 ({} readings): a fraction where MDS 2.0 wants 0 to 100', count(*))
        FROM (SELECT device_id, timestamp, battery_percent FROM events UNION ALL SELECT device_id, timestamp, battery_percent FROM telemetry)
        WHERE battery_percent IS NOT NULL GROUP BY device_id HAVING count(*) >= 3 AND max(battery_percent) <= 1 AND max(battery_percent) > 0
      UNION ALL SELECT device_id, trip_ids[1], timestamp, format('speed {} m/s is above {} m/s', location.speed, ${t.maxSpeedMetersPerSecond}) FROM telemetry WHERE location.speed > ${t.maxSpeedMetersPerSecond}
      UNION ALL SELECT device_id, trip_id, start_time, format('an average speed of {} m/s ({} m in {} s) is above {} m/s', round(distance / duration, 1), distance, duration, ${t.maxSpeedMetersPerSecond})
        FROM trips WHERE duration > 0 AND distance / duration > ${t.maxSpeedMetersPerSecond}
      UNION ALL SELECT device_id, trip_id, start_time, format('a negative {}', what) FROM (
        SELECT device_id, trip_id, start_time, 'distance (' || distance || ')' AS what FROM trips WHERE distance < 0
        UNION ALL SELECT device_id, trip_id, start_time, 'duration (' || duration || ')' FROM trips WHERE duration < 0
        UNION ALL SELECT device_id, trip_id, start_time, 'standard_cost (' || standard_cost || ')' FROM trips WHERE standard_cost < 0
        UNION ALL SELECT device_id, trip_id, start_time, 'actual_cost (' || actual_cost || ')' FROM trips WHERE actual_cost < 0)
      UNION ALL SELECT device_id, NULL, timestamp, format('location {}, {} lies outside the others but inside them once lat and lng are swapped', location.lat, location.lng)
        FROM (SELECT device_id, timestamp, location FROM events WHERE location IS NOT NULL UNION ALL SELECT device_id, timestamp, location FROM telemetry), box
        WHERE NOT (location.lat BETWEEN lat0 - 0.5 AND lat1 + 0.5 AND location.lng BETWEEN lng0 - 0.5 AND lng1 + 0.5)
          AND location.lng BETWEEN lat0 - 0.5 AND lat1 + 0.5 AND location.lat BETWEEN lng0 - 0.5 AND lng1 + 0.5`,
  },
  {
    id: 'phantom-trips',
    title: 'No phantom trips',
    severity: 'warning',
    basis:
      'MDS 2.0 provider, Trips: a trip is a journey of a rider; very short ones are usually unlock tests or errors (mobility-data-specification #889)',
    needs: ['trips'],
    sql: (t) => `
      SELECT device_id, trip_id, start_time AS time, format('a trip of {} s and {} m (shorter than {} s or {} m)', duration, distance, ${t.phantomSeconds}, ${t.phantomMeters}) AS detail
      FROM trips WHERE duration < ${t.phantomSeconds} OR distance < ${t.phantomMeters}`,
  },
  {
    id: 'hour-coverage',
    title: 'Every hour of the harvest is there',
    severity: 'warning',
    basis:
      'MDS 2.0 provider: an hour answers 200 once processed, 202 until then, 404 before the provider operated; an empty hour between busy ones is a likely outage',
    needs: [],
  },
  {
    id: 'status-vs-events',
    title: 'The status feed agrees with the events',
    severity: 'error',
    basis:
      "MDS 2.0 provider, Vehicle Status: a vehicle's last_event is its last event, and every vehicle in the public right-of-way is listed (mobility-data-specification #770); the PROW states of modes/vehicle_states.md",
    needs: ['vehicles_status', 'events'],
    // Only a status whose last_event falls inside the harvested window can be compared: later events are not in the harvest.
    sql: (_t, w, c) => `
      WITH s AS (SELECT device_id, last_event.vehicle_state AS state, last_event.timestamp AS time FROM vehicles_status),
      e AS (SELECT device_id, arg_max(vehicle_state, timestamp) AS state, max(timestamp) AS time FROM events
            WHERE timestamp <= ${c?.snapshotLastUpdated ?? w.end} GROUP BY device_id),
      l AS (SELECT device_id, arg_max(vehicle_state, timestamp) AS state, max(timestamp) AS time FROM events GROUP BY device_id)
      SELECT s.device_id, NULL AS trip_id, e.time,
        format('the /vehicles/status snapshot says {} (last_event at {}), but the last event of the device before last_updated says {}', s.state, epoch_ms(s.time)::VARCHAR, e.state) AS detail
      FROM s JOIN e USING (device_id)
      WHERE s.time >= ${w.start} AND s.time < ${w.end} AND s.state IS DISTINCT FROM e.state
      UNION ALL
      SELECT l.device_id, NULL, l.time, format('its last event puts it in the public right-of-way ({}), but the /vehicles/status snapshot does not list it', l.state)
      FROM l WHERE list_contains(${PROW}, l.state) AND l.device_id NOT IN (SELECT device_id FROM vehicles_status WHERE device_id IS NOT NULL)`,
  },
  {
    id: 'reports-vs-trips',
    title: 'The monthly reports agree with the trips',
    severity: 'error',
    basis:
      "MDS 2.0 data-types.md, Reports: trips counted by start time in the agency's local time zone and by start geography, every combination a row, counts below 10 written -1 (reportsRule.ts)",
    needs: ['trips', 'vehicles'],
  },
  {
    id: 'registry',
    title: 'Every device is registered once, and its type agrees',
    severity: 'error',
    basis:
      'MDS 2.0 provider, Vehicles: every device_id of trips, events and telemetry is a vehicle of /vehicles, listed once, with its vehicle_type and propulsion_types',
    needs: ['vehicles'],
    sql: () => `
      WITH ids AS (SELECT device_id, 'trips' AS source, min(start_time) AS time FROM trips GROUP BY device_id
                   UNION ALL SELECT device_id, 'events', min(timestamp) FROM events GROUP BY device_id
                   UNION ALL SELECT device_id, 'telemetry', min(timestamp) FROM telemetry GROUP BY device_id),
      v AS (SELECT device_id, any_value(vehicle_type) AS vehicle_type, any_value(list_sort(propulsion_types)) AS propulsion_types FROM _vehicles_listed GROUP BY device_id)
      SELECT device_id, NULL AS trip_id, min(time) AS time, format('{} carry this device_id, which the /vehicles snapshot does not list', string_agg(DISTINCT source, ', ' ORDER BY source)) AS detail
      FROM ids WHERE device_id IS NOT NULL AND device_id NOT IN (SELECT device_id FROM _vehicles_listed WHERE device_id IS NOT NULL) GROUP BY device_id
      UNION ALL
      SELECT device_id, NULL, NULL, format('listed {} times by /vehicles', count(*)) FROM _vehicles_listed GROUP BY device_id HAVING count(*) > 1
      UNION ALL
      SELECT i.device_id, NULL, min(i.time), format('{} give vehicle_type {}, /vehicles says {}', string_agg(DISTINCT i.source, ', ' ORDER BY i.source), i.vehicle_type, v.vehicle_type)
      FROM _item_vehicles i JOIN v USING (device_id) WHERE i.vehicle_type IS NOT NULL AND i.vehicle_type IS DISTINCT FROM v.vehicle_type GROUP BY i.device_id, i.vehicle_type, v.vehicle_type
      UNION ALL
      SELECT i.device_id, NULL, min(i.time), format('{} give propulsion_types {}, /vehicles says {}', string_agg(DISTINCT i.source, ', ' ORDER BY i.source), list_sort(i.propulsion_types)::VARCHAR, v.propulsion_types::VARCHAR)
      FROM _item_vehicles i JOIN v USING (device_id) WHERE i.propulsion_types IS NOT NULL AND list_sort(i.propulsion_types) IS DISTINCT FROM v.propulsion_types
      GROUP BY i.device_id, list_sort(i.propulsion_types), v.propulsion_types`,
  },
  {
    id: 'event-sequence',
    title: "Events follow the state machine of the device's mode",
    severity: 'error',
    basis:
      'MDS 2.0.2 modes/<mode>.md, Vehicle State Events: the valid (vehicle_state, event_type) transitions; an event with several event_types passes through each in order (mobility-data-specification #642)',
    needs: ['events'],
    // Events in timestamp order (not delivery order); each event's event_types walk the machine from the state of the
    // device's previous event, and must arrive at the event's vehicle_state. An event sent twice (same device, time,
    // event types and state: a duplicate-events finding) is walked once, so that its copy is not a second finding.
    // Events of one device in the same millisecond (a trip_end and a reservation_start) are ordered as the machine
    // allows: an event that can follow more of the others comes after them (tie, tw, rk).
    sql: (_t, _w, c) => `
      WITH RECURSIVE tr AS (SELECT * FROM ${transitionsSql(c?.mode)}),
      once AS (SELECT *, row_number() OVER () AS _k FROM events
               QUALIFY row_number() OVER (PARTITION BY device_id, timestamp, list_sort(event_types), vehicle_state ORDER BY event_id) = 1),
      tie AS (SELECT DISTINCT a._k, b.vehicle_state AS f, a.event_types, a.vehicle_state FROM once a JOIN once b
              ON a.device_id = b.device_id AND a.timestamp = b.timestamp AND a._k <> b._k),
      tw(_k, f, i, s) AS (
        SELECT _k, f, 0, f FROM tie
        UNION
        SELECT tw._k, tw.f, tw.i + 1, tr.t FROM tw JOIN tie USING (_k, f) JOIN tr ON tr.f = tw.s AND tr.e = tie.event_types[tw.i + 1]
        WHERE tw.i < len(tie.event_types)),
      rk AS (SELECT tie._k, count(DISTINCT tie.f) AS follows FROM tie JOIN tw USING (_k, f) WHERE tw.i = len(tie.event_types) AND tw.s = tie.vehicle_state GROUP BY tie._k),
      ev AS (SELECT device_id, _k, event_id, timestamp, event_types, vehicle_state, trip_ids,
               lag(vehicle_state) OVER w AS prev_state, lag(timestamp) OVER w AS prev_time
             FROM once LEFT JOIN rk USING (_k) WINDOW w AS (PARTITION BY device_id ORDER BY timestamp, coalesce(rk.follows, 0), event_id)),
      walk(_k, i, s) AS (
        SELECT _k, 0, prev_state FROM ev WHERE prev_state IS NOT NULL
        UNION
        SELECT walk._k, walk.i + 1, tr.t FROM walk JOIN ev USING (_k) JOIN tr ON tr.f = walk.s AND tr.e = ev.event_types[walk.i + 1]
        WHERE walk.i < len(ev.event_types))
      SELECT device_id, trip_ids[1] AS trip_id, timestamp AS time,
        format('{} -> {} by {} is not a transition of the {} state machine (previous event at {})', prev_state, vehicle_state, event_types::VARCHAR, ${list([MODE_MACHINES.modes[c?.mode ?? ''] ? (c?.mode as string) : 'micromobility'])}[1], epoch_ms(prev_time)::VARCHAR) AS detail
      FROM ev WHERE prev_state IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM walk WHERE walk._k = ev._k AND walk.i = len(ev.event_types) AND walk.s = ev.vehicle_state)`,
  },
];

/** One finding of a rule. */
export interface CheckFinding {
  device_id: string | null;
  trip_id: string | null;
  /** ISO 8601, UTC. */
  time: string | null;
  detail: string;
  /** For a finding about one line of a harvest file: the file (relative to the harvest folder) and its line. */
  file?: string;
  line?: number;
}
