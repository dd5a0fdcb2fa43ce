/**
 * Stale vehicles and the window's edges: a vehicle left in the public right-of-way with no event for longer than
 * `staleHours`; a trip_start whose device's next event is not its trip's; trips that start in the window and end
 * after it (or began before it), which the trip rules leave out and say so here.
 */
import type { CheckRule } from '../checkRules';
import { MODE_MACHINES } from '../checkRules';

const quoted = (values: readonly string[]) => `[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;
const PROW = quoted(MODE_MACHINES.prowStates);
const TRIP_STARTS = "['trip_start', 'trip_enter_jurisdiction']";
const TRIP_ENDS = "['trip_end', 'trip_leave_jurisdiction', 'trip_cancel']";

export const VEHICLE_RULES: readonly CheckRule[] = [
  {
    id: 'vehicle-stale',
    code: 'MDS-VEHICLE-STALE',
    title: 'No vehicle stays in the public right-of-way without an event for long',
    severity: 'warning',
    basis:
      'MDS 2.0.2 modes/vehicle_states.md: the PROW states; non_contactable only "for short periods"; provider/README.md, Vehicle Status: every vehicle in a PROW state is listed. A vehicle in the PROW with no event for staleHours (48 h, as LADOT and SFMTA count) is a stale vehicle',
    mds: [
      { file: 'modes/vehicle_states.md', section: 'Limitations on the Use of Certain Values' },
      { file: 'provider/README.md', section: 'Vehicle Status' },
    ],
    needs: ['events'],
    sql: (t, w, c) => `
      WITH e AS (SELECT device_id, trip_ids[1] AS trip_id, timestamp, vehicle_state, lead(timestamp) OVER (PARTITION BY device_id ORDER BY timestamp) AS next_time
                 FROM events WHERE timestamp IS NOT NULL)
      SELECT device_id, trip_id, timestamp AS time,
        format('in the public right-of-way ({}) with no event for {} h (more than {} h){}', vehicle_state, round((coalesce(next_time, ${w.end}) - timestamp) / 3600000, 1), ${t.staleHours},
          CASE WHEN next_time IS NULL THEN ' until the end of the harvest' ELSE format(' until {}', epoch_ms(next_time)::VARCHAR) END) AS detail
      FROM e WHERE list_contains(${PROW}, vehicle_state) AND coalesce(next_time, ${w.end}) - timestamp > ${t.staleHours * 3_600_000}
      UNION ALL
      SELECT device_id, last_event.trip_ids[1], last_event.timestamp,
        format('/vehicles/status shows it in the public right-of-way ({}) by a last_event {} h before last_updated (more than {} h)', last_event.vehicle_state, round((${c?.snapshotLastUpdated ?? w.end} - last_event.timestamp) / 3600000, 1), ${t.staleHours})
      FROM vehicles_status WHERE list_contains(${PROW}, last_event.vehicle_state) AND ${c?.snapshotLastUpdated ?? w.end} - last_event.timestamp > ${t.staleHours * 3_600_000}`,
  },
  {
    id: 'trip-start-unfinished',
    code: 'MDS-TRIP-START-UNFINISHED',
    title: "A trip_start's next event is its trip's",
    severity: 'error',
    basis:
      'MDS 2.0.2 modes/micromobility.md, Vehicle State Events: from on_trip a vehicle leaves by trip_end, trip_leave_jurisdiction or trip_cancel of its trip (data-types.md, Events: trip_ids required on them); another event of the device first means the trip was never ended, whether or not the next hours were harvested',
    mds: [
      { file: 'modes/micromobility.md', section: 'Vehicle State Events' },
      { file: 'data-types.md', section: 'Events' },
    ],
    needs: ['events'],
    sql: () => `
      WITH e AS (SELECT device_id, timestamp, event_types, trip_ids, lead(timestamp) OVER w AS next_time, lead(event_types) OVER w AS next_types,
                   lead(trip_ids) OVER w AS next_trips, lead(vehicle_state) OVER w AS next_state
                 FROM events WHERE timestamp IS NOT NULL WINDOW w AS (PARTITION BY device_id ORDER BY timestamp, list_has_any(event_types, ${TRIP_ENDS}) DESC, event_id))
      SELECT device_id, trip_ids[1] AS trip_id, timestamp AS time,
        format('{} of this trip is followed at {} by {} ({}) of {}, not by its end', array_to_string(list_intersect(event_types, ${TRIP_STARTS}), ', '), epoch_ms(next_time)::VARCHAR,
          array_to_string(next_types, ', '), next_state, CASE WHEN len(coalesce(next_trips, [])) = 0 THEN 'no trip' ELSE 'trip ' || array_to_string(next_trips, ', ') END) AS detail
      FROM e WHERE list_has_any(event_types, ${TRIP_STARTS}) AND len(coalesce(trip_ids, [])) > 0 AND next_time IS NOT NULL
        AND NOT list_has_any(coalesce(next_trips, []), trip_ids)
        AND (next_state NOT IN ('on_trip', 'stopped') OR list_has_any(next_types, ${TRIP_STARTS}))`,
  },
  {
    id: 'trip-outside-window',
    code: 'MDS-TRIP-OUTSIDE-WINDOW',
    title: 'Trips across the edges of the window',
    severity: 'info',
    basis:
      'MDS 2.0.2 provider/README.md, Trips - Query Parameters: a trip is served in the hour of its end_time. A trip that ends after the window (or began before it) is outside the window: the trip rules leave it out, and this rule lists it',
    mds: [{ file: 'provider/README.md', section: 'Trips - Query Parameters' }],
    needs: [],
    sql: (t, w) => `
      SELECT device_id, trip_id, start_time AS time, format('starts in the window and ends at {}, after it ({}): outside the window, left out of the trip rules', epoch_ms(end_time)::VARCHAR, epoch_ms(${w.end})::VARCHAR) AS detail
      FROM trips WHERE start_time >= ${w.start} AND start_time < ${w.end} AND end_time >= ${w.end}
      UNION ALL
      SELECT device_id, trip_id, start_time, format('starts at {}, before the window ({}): outside the window, left out of the trip rules', epoch_ms(start_time)::VARCHAR, epoch_ms(${w.start})::VARCHAR)
      FROM trips WHERE start_time < ${w.start} AND end_time >= ${w.start}
      UNION ALL
      SELECT s.device_id, s.trip_ids[1], s.timestamp, format('{} with no later event of its device by the window''s end ({}): its end lies after the window', array_to_string(list_intersect(s.event_types, ${TRIP_STARTS}), ', '), epoch_ms(${w.end})::VARCHAR)
      FROM events s LEFT JOIN (SELECT device_id, max(timestamp) AS last FROM events GROUP BY device_id) l ON l.device_id = s.device_id
      WHERE list_has_any(s.event_types, ${TRIP_STARTS}) AND s.timestamp >= ${w.start} AND s.timestamp + ${t.maxTripHours * 3_600_000} >= ${w.end}
        -- No later event of its device: it is its device's last (a join on the device's last time, not a search).
        AND (l.last IS NULL OR s.timestamp >= l.last)
        AND NOT EXISTS (SELECT 1 FROM trips r WHERE list_contains(s.trip_ids, r.trip_id))`,
  },
];
