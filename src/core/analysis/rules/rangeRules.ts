/**
 * Range rules: each value inside what the MDS 2.0.2 text allows (WGS 84 coordinates, a battery between 0 and 100, a
 * heading in degrees, an accuracy in metres, timestamps in milliseconds), and every point inside the provider's own
 * area (a point far outside it, often with lat and lng swapped). Each finding names its device, trip and time.
 */
import type { CheckRule } from '../checkRules';
import { MS_FLOOR, NS_FLOOR, US_FLOOR } from './timeUnits';

/**
 * Every located point of the harvest as (device_id, trip_id, time, what, lat, lng, heading, horizontal, vertical):
 * events and telemetry (their GPS), trips (their start and end locations, without heading or accuracy).
 */
const POINTS = `
        SELECT device_id, trip_ids[1] AS trip_id, timestamp AS time, 'event location' AS what, location.lat AS lat, location.lng AS lng,
          location.heading AS heading, location.horizontal_accuracy AS horizontal, location.vertical_accuracy AS vertical FROM events WHERE location IS NOT NULL
        UNION ALL SELECT device_id, trip_ids[1], timestamp, 'telemetry location', location.lat, location.lng, location.heading, location.horizontal_accuracy, location.vertical_accuracy FROM telemetry WHERE location IS NOT NULL
        UNION ALL SELECT device_id, trip_id, start_time, 'trip start_location', start_location.lat, start_location.lng, NULL, NULL, NULL FROM trips WHERE start_location IS NOT NULL
        UNION ALL SELECT device_id, trip_id, end_time, 'trip end_location', end_location.lat, end_location.lng, NULL, NULL, NULL FROM trips WHERE end_location IS NOT NULL`;

/** Every MDS time of the harvest as (device_id, trip_id, time, what). */
const TIMES = `
        SELECT device_id, trip_id, start_time AS time, 'trip start_time' AS what FROM trips
        UNION ALL SELECT device_id, trip_id, end_time, 'trip end_time' FROM trips
        UNION ALL SELECT device_id, trip_id, publication_time, 'trip publication_time' FROM trips WHERE publication_time IS NOT NULL
        UNION ALL SELECT device_id, trip_ids[1], timestamp, 'event timestamp' FROM events
        UNION ALL SELECT device_id, trip_ids[1], publication_time, 'event publication_time' FROM events WHERE publication_time IS NOT NULL
        UNION ALL SELECT device_id, trip_ids[1], timestamp, 'telemetry timestamp' FROM telemetry`;

const IN_WGS84 = 'lat BETWEEN -90 AND 90 AND lng BETWEEN -180 AND 180';

export const RANGE_RULES: readonly CheckRule[] = [
  {
    id: 'range-coordinates',
    code: 'MDS-RANGE-COORDINATES',
    title: 'Latitudes and longitudes are WGS 84 degrees',
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, GPS Data: lat and lng in WGS 84 decimal degrees (latitude -90 to 90, longitude -180 to 180)',
    mds: [
      { file: 'data-types.md', section: 'GPS Data' },
      { file: 'general-information.md', section: 'Geographic Data' },
    ],
    needs: [],
    sql: () => `
      SELECT device_id, trip_id, time, format('{} lat {}, lng {} is not a WGS 84 position (lat -90 to 90, lng -180 to 180)', what, lat, lng) AS detail
      FROM (${POINTS}) WHERE lat IS NOT NULL AND lng IS NOT NULL AND NOT (${IN_WGS84})`,
  },
  {
    id: 'range-area',
    code: 'MDS-RANGE-AREA',
    title: "Every point lies in the provider's area (no swapped coordinates)",
    severity: 'error',
    basis:
      "MDS 2.0.2 data-types.md, GPS Data and Telemetry: lat is the latitude, lng the longitude; a point far outside the area of the harvest's own points (the box of their middle half, widened by areaMarginDegrees) is a swapped or broken position",
    mds: [
      { file: 'data-types.md', section: 'GPS Data' },
      { file: 'data-types.md', section: 'Telemetry' },
    ],
    needs: [],
    sql: (t) => `
      WITH p AS (SELECT * FROM (${POINTS}) WHERE ${IN_WGS84}),
      box AS (SELECT quantile_cont(lat, 0.25) - ${t.areaMarginDegrees} AS lat0, quantile_cont(lat, 0.75) + ${t.areaMarginDegrees} AS lat1,
                     quantile_cont(lng, 0.25) - ${t.areaMarginDegrees} AS lng0, quantile_cont(lng, 0.75) + ${t.areaMarginDegrees} AS lng1, count(*) AS n FROM p)
      SELECT device_id, trip_id, time,
        CASE WHEN lng BETWEEN lat0 AND lat1 AND lat BETWEEN lng0 AND lng1
          THEN format('{} lat {}, lng {} lies far outside the area of the other points (lat {} to {}, lng {} to {}); with lat and lng swapped it lies inside: coordinates swapped', what, lat, lng, round(lat0, 3), round(lat1, 3), round(lng0, 3), round(lng1, 3))
          ELSE format('{} lat {}, lng {} lies far outside the area of the other points (lat {} to {}, lng {} to {})', what, lat, lng, round(lat0, 3), round(lat1, 3), round(lng0, 3), round(lng1, 3)) END AS detail
      FROM p, box WHERE n >= 4 AND NOT (lat BETWEEN lat0 AND lat1 AND lng BETWEEN lng0 AND lng1)`,
  },
  {
    id: 'range-battery',
    code: 'MDS-RANGE-BATTERY',
    title: 'Battery and fuel are percentages from 0 to 100',
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Events and Telemetry: battery_percent and fuel_percent, "expressed between 0 and 100"',
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Telemetry' },
    ],
    needs: [],
    sql: () => `
      WITH v AS (SELECT device_id, trip_ids[1] AS trip_id, timestamp AS time, 'event' AS what, battery_percent, fuel_percent FROM events
                 UNION ALL SELECT device_id, trip_ids[1], timestamp, 'telemetry', battery_percent, fuel_percent FROM telemetry)
      SELECT device_id, trip_id, time, format('{} battery_percent {} is not between 0 and 100', what, battery_percent) AS detail FROM v WHERE battery_percent NOT BETWEEN 0 AND 100
      UNION ALL SELECT device_id, trip_id, time, format('{} fuel_percent {} is not between 0 and 100', what, fuel_percent) FROM v WHERE fuel_percent NOT BETWEEN 0 AND 100`,
  },
  {
    id: 'range-heading',
    code: 'MDS-RANGE-HEADING',
    title: 'Headings are degrees from 0 to 360',
    severity: 'error',
    basis: 'MDS 2.0.2 data-types.md, GPS Data: heading in degrees, clockwise from 0 at true north',
    mds: [{ file: 'data-types.md', section: 'GPS Data' }],
    needs: [],
    sql: () => `
      SELECT device_id, trip_id, time, format('{} heading {} is not between 0 and 360 degrees', what, heading) AS detail
      FROM (${POINTS}) WHERE heading < 0 OR heading > 360 OR isnan(heading)`,
  },
  {
    id: 'range-accuracy',
    code: 'MDS-RANGE-ACCURACY',
    title: 'Accuracies are plausible distances in metres',
    severity: 'warning',
    basis:
      'MDS 2.0.2 data-types.md, GPS Data: horizontal_accuracy and vertical_accuracy in metres (never negative; above maxAccuracyMeters the position says little)',
    mds: [{ file: 'data-types.md', section: 'GPS Data' }],
    needs: [],
    sql: (t) => `
      WITH p AS (${POINTS})
      SELECT device_id, trip_id, time, format('{} horizontal_accuracy {} m is {}', what, horizontal, CASE WHEN horizontal < 0 THEN 'negative' ELSE format('above {} m', ${t.maxAccuracyMeters}) END) AS detail
      FROM p WHERE horizontal < 0 OR horizontal > ${t.maxAccuracyMeters}
      UNION ALL SELECT device_id, trip_id, time, format('{} vertical_accuracy {} m is {}', what, vertical, CASE WHEN vertical < 0 THEN 'negative' ELSE format('above {} m', ${t.maxAccuracyMeters}) END)
      FROM p WHERE vertical < 0 OR vertical > ${t.maxAccuracyMeters}`,
  },
  {
    id: 'range-timestamp-unit',
    code: 'MDS-RANGE-TIMESTAMP-UNIT',
    title: 'Times are milliseconds since 1970',
    severity: 'error',
    basis:
      'MDS 2.0.2 general-information.md, Timestamps: "integer milliseconds since Unix epoch"; a time below 10^11 is seconds (before 1973 in ms), above 10^14 microseconds (after the year 5000 in ms), above 10^17 nanoseconds',
    mds: [{ file: 'general-information.md', section: 'Timestamps' }],
    needs: [],
    sql: () => `
      WITH t AS (SELECT *, CASE WHEN written < ${MS_FLOOR} THEN 'seconds' WHEN written >= ${NS_FLOOR} THEN 'nanoseconds' ELSE 'microseconds' END AS unit,
                   CASE WHEN written < ${MS_FLOOR} THEN written * 1000 WHEN written >= ${NS_FLOOR} THEN written // 1000000 ELSE written // 1000 END AS ms
                 FROM (SELECT device_id, trip_id, time AS written, what FROM (${TIMES})) WHERE written IS NOT NULL AND (written < ${MS_FLOOR} OR written >= ${US_FLOOR}))
      SELECT device_id, trip_id, ms AS time, format('{} {} looks like {}, not milliseconds (it would be {} in milliseconds; the time shown is that)', what, written, unit, epoch_ms(ms)::VARCHAR) AS detail FROM t`,
  },
];
