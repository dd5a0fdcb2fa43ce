/**
 * Rules that hold items to what the MDS text says they are, beyond their own fields: one provider_id per device, a
 * status item whose last_event and last_telemetry are its own device's, a telemetry `speed` in metres per second (not
 * km/h), and every item in the hour file of the hour it was asked for. Each is one SQL query over the analysis views
 * (the hidden `_<view>_hours` views carry the hour each item's file answered), with the columns of every rule.
 */
import type { CheckRule } from '../checkRules';
import { inMsSql } from './timeUnits';
import { metresSql } from './tripTelemetryRules';

/** The hour (`2026-11-20T07`, UTC) of a time in ms, in SQL. */
const hourSql = (ms: string) => `strftime(epoch_ms(${ms}), '%Y-%m-%dT%H')`;

export const CONSISTENCY_RULES: readonly CheckRule[] = [
  {
    id: 'provider-id',
    code: 'MDS-PROVIDER-ID',
    title: "Every item of a device names the device's provider",
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Vehicles, Trips, Events and Telemetry: provider_id is "A UUID for the Provider, unique within MDS"; a device (device_id, "unique within the Provider") belongs to one provider',
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Vehicles' },
    ],
    needs: [],
    // Per device, the provider_id most of its items carry; the items that carry another are the findings.
    sql: () => `
      WITH items AS (SELECT device_id, provider_id, trip_id, start_time AS time, 'trip' AS kind FROM trips
        UNION ALL SELECT device_id, provider_id, trip_ids[1], timestamp, 'event' FROM events
        UNION ALL SELECT device_id, provider_id, trip_ids[1], timestamp, 'telemetry point' FROM telemetry
        UNION ALL SELECT device_id, provider_id, NULL, NULL, '/vehicles entry' FROM vehicles),
      n AS (SELECT device_id, provider_id, count(*) AS n FROM items WHERE device_id IS NOT NULL AND provider_id IS NOT NULL GROUP BY ALL),
      main AS (SELECT device_id, arg_max(provider_id, n) AS provider_id, sum(n) AS total FROM n GROUP BY device_id HAVING count(*) > 1)
      SELECT i.device_id, min(i.trip_id) AS trip_id, min(i.time) AS time,
        format('{} {} of this device give provider_id {}; its other {} items give {}', count(*), string_agg(DISTINCT i.kind, ', ' ORDER BY i.kind), i.provider_id, any_value(m.total) - count(*), any_value(m.provider_id)) AS detail
      FROM items i JOIN main m ON m.device_id = i.device_id AND i.provider_id <> m.provider_id
      GROUP BY i.device_id, i.provider_id`,
  },
  {
    id: 'status-own-items',
    code: 'MDS-STATUS-OWN-ITEMS',
    title: "A status's last_event and last_telemetry are its own device's",
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Vehicle Status: last_event is the "most recent Event for this device", last_telemetry the "most recent Telemetry for this device"',
    mds: [{ file: 'data-types.md', section: 'Vehicle Status' }],
    needs: ['vehicles_status'],
    sql: () => `
      SELECT device_id, last_event.trip_ids[1] AS trip_id, last_event.timestamp AS time, format('its last_event is of device {}', last_event.device_id) AS detail
      FROM vehicles_status WHERE last_event.device_id IS NOT NULL AND last_event.device_id IS DISTINCT FROM device_id
      UNION ALL
      SELECT device_id, last_telemetry.trip_ids[1], last_telemetry.timestamp, format('its last_telemetry is of device {}', last_telemetry.device_id)
      FROM vehicles_status WHERE last_telemetry.device_id IS NOT NULL AND last_telemetry.device_id IS DISTINCT FROM device_id`,
  },
  {
    id: 'telemetry-speed-unit',
    code: 'MDS-TELEMETRY-SPEED-UNIT',
    title: 'Telemetry speeds are metres per second',
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, GPS Data: speed is the "Estimated speed in meters / sec as reported by the GPS chipset"',
    mds: [{ file: 'data-types.md', section: 'GPS Data' }],
    needs: ['telemetry'],
    // Per trip, the reported speeds against the speed its points move at (path over time, a lower bound): about 3.6
    // times it is km/h. Trips that barely move (under 1 m/s) say nothing.
    sql: () => `
      WITH p AS (SELECT device_id, trip_ids[1] AS trip_id, timestamp, location.lat AS lat, location.lng AS lng, location.speed AS speed
                 FROM telemetry WHERE len(trip_ids) > 0 AND ${inMsSql('timestamp')} AND location.lat IS NOT NULL),
      s AS (SELECT *, lag(lat) OVER w AS plat, lag(lng) OVER w AS plng FROM p WINDOW w AS (PARTITION BY device_id, trip_id ORDER BY timestamp)),
      t AS (SELECT device_id, trip_id, min(timestamp) AS t0, (max(timestamp) - min(timestamp)) / 1000 AS secs,
              sum(CASE WHEN plat IS NULL THEN 0 ELSE ${metresSql('plat', 'plng', 'lat', 'lng')} END) AS path, avg(speed) AS speed, count(speed) AS n
            FROM s GROUP BY device_id, trip_id)
      SELECT device_id, trip_id, t0 AS time,
        format('its telemetry reports {} on average, but its points move at {} m/s ({} m in {} s): the speeds look like km/h ({} times)', round(speed, 1), round(path / secs, 1), round(path), round(secs), round(speed / (path / secs), 1)) AS detail
      FROM t WHERE n >= 2 AND secs > 0 AND path / secs >= 1 AND speed / (path / secs) BETWEEN 2.9 AND 4.5`,
  },
  {
    id: 'item-hour',
    code: 'MDS-ITEM-HOUR',
    title: 'Every item is in the answer for its own hour',
    severity: 'error',
    basis:
      'MDS 2.0.2 provider/README.md: /trips?end_time= answers the trips that end in that hour; /events/historical?event_time= the events of that hour; /telemetry?telemetry_time= the points of that hour',
    mds: [
      { file: 'provider/README.md', section: 'Trips - Query Parameters' },
      { file: 'provider/README.md', section: 'Historical Events - Query Parameters' },
      { file: 'provider/README.md', section: 'Telemetry - Query Parameters' },
    ],
    needs: [],
    sql: () => `
      SELECT device_id, trip_id, end_time AS time, format('a trip that ends at {} is in the answer for end_time {}', epoch_ms(end_time)::VARCHAR, _hour) AS detail
      FROM _trips_hours WHERE _hour <> '' AND ${inMsSql('end_time')} AND ${hourSql('end_time')} <> _hour
      UNION ALL
      SELECT device_id, trip_ids[1], timestamp, format('an event of {} is in the answer for event_time {}', epoch_ms(timestamp)::VARCHAR, _hour)
      FROM _events_hours WHERE _hour <> '' AND ${inMsSql('timestamp')} AND ${hourSql('timestamp')} <> _hour
      UNION ALL
      SELECT device_id, trip_ids[1], timestamp, format('a telemetry point of {} is in the answer for telemetry_time {}', epoch_ms(timestamp)::VARCHAR, _hour)
      FROM _telemetry_hours WHERE _hour <> '' AND ${inMsSql('timestamp')} AND ${hourSql('timestamp')} <> _hour`,
  },
];
