/**
 * Registry rules over the `/vehicles` and `/vehicles/status` snapshot and the events: a vehicle_id that names two
 * devices, a status device that `/vehicles` does not list, a status `last_event` that the harvested events lack.
 */
import type { CheckRule } from '../checkRules';

/** Hours (`2026-11-20T07`) as a SQL list; anything else is left out. */
const hoursSql = (hours: readonly string[] = []) =>
  ["''", ...hours.filter((h) => /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(h)).map((h) => `'${h}'`)].join(', ');

export const REGISTRY_RULES: readonly CheckRule[] = [
  {
    id: 'registry-vehicle-id',
    code: 'MDS-REGISTRY-VEHICLE-ID',
    title: 'Each vehicle_id names one device',
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Vehicles: vehicle_id is "a unique vehicle identifier (visible code, license plate, etc)"; device_id is unique within the fleet (general-information.md, Devices)',
    mds: [
      { file: 'data-types.md', section: 'Vehicles' },
      { file: 'general-information.md', section: 'Devices' },
    ],
    needs: ['vehicles'],
    sql: (_t, w, c) => `
      WITH v AS (SELECT DISTINCT vehicle_id, device_id FROM _vehicles_listed WHERE vehicle_id IS NOT NULL AND device_id IS NOT NULL),
      shared AS (SELECT vehicle_id, list_sort(list(device_id)) AS devices FROM v GROUP BY vehicle_id HAVING count(*) > 1)
      SELECT v.device_id, NULL AS trip_id, ${c?.snapshotLastUpdated ?? w.end} AS time,
        format('/vehicles gives vehicle_id {} to {} devices: {}', v.vehicle_id, len(devices), array_to_string(devices, ', ')) AS detail
      FROM v JOIN shared USING (vehicle_id)`,
  },
  {
    id: 'registry-status-device',
    code: 'MDS-REGISTRY-STATUS-DEVICE',
    title: 'Every /vehicles/status device is a vehicle of /vehicles',
    severity: 'error',
    basis:
      'MDS 2.0.2 provider/README.md, Vehicles: /vehicles lists the vehicles, /vehicles/status their status; data-types.md, Vehicle Status: device_id "should match this device in Provider"',
    mds: [
      { file: 'provider/README.md', section: 'Vehicles' },
      { file: 'data-types.md', section: 'Vehicle Status' },
    ],
    needs: ['vehicles', 'vehicles_status'],
    sql: () => `
      SELECT s.device_id, s.last_event.trip_ids[1] AS trip_id, s.last_event.timestamp AS time,
        format('/vehicles/status lists this device ({}), but /vehicles does not', coalesce(s.last_event.vehicle_state, 'no last_event')) AS detail
      FROM vehicles_status s WHERE s.device_id IS NOT NULL AND s.device_id NOT IN (SELECT device_id FROM _vehicles_listed WHERE device_id IS NOT NULL)`,
  },
  {
    id: 'status-last-event',
    code: 'MDS-STATUS-LAST-EVENT',
    title: "A status's last_event is an event of the device",
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Vehicle Status: last_event is the "most recent Event for this device"; it must be one of the events /events/historical serves for its hour',
    mds: [
      { file: 'data-types.md', section: 'Vehicle Status' },
      { file: 'provider/README.md', section: 'Historical Events' },
    ],
    needs: ['vehicles_status', 'events'],
    // Compared only when the hour of last_event is a done hour of the events' harvest; later hours are not in it.
    sql: (_t, _w, c) => `
      SELECT s.device_id, s.last_event.trip_ids[1] AS trip_id, s.last_event.timestamp AS time,
        format('last_event {} ({} at {}) is not among the harvested events of its hour{}', s.last_event.event_id, array_to_string(s.last_event.event_types, ', '), epoch_ms(s.last_event.timestamp)::VARCHAR,
          CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.event_id = s.last_event.event_id) THEN ' with this device and time (its event_id is there, with other content)' ELSE '' END) AS detail
      FROM vehicles_status s
      WHERE s.last_event.timestamp IS NOT NULL
        AND strftime(epoch_ms(s.last_event.timestamp), '%Y-%m-%dT%H') IN (${hoursSql(c?.eventHours)})
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.device_id = s.device_id AND e.event_id = s.last_event.event_id AND e.timestamp = s.last_event.timestamp)`,
  },
];
