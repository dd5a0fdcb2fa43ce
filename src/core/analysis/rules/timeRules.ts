/**
 * Time rules: a `publication_time` before the item's own time, the latency from an item's time to its
 * `publication_time` per hour (p50, p95) and the hours where it is too long, and hours that still answer 202 long
 * after they ended.
 */
import type { CheckFinding, CheckRule } from '../checkRules';

/** Items with a publication_time, as (endpoint, device_id, trip_id, time, publication_time): an event's timestamp, a trip's end_time. */
const PUBLISHED = `
        SELECT 'events' AS endpoint, device_id, trip_ids[1] AS trip_id, timestamp AS time, publication_time FROM events WHERE publication_time IS NOT NULL AND timestamp IS NOT NULL
        UNION ALL SELECT 'trips', device_id, trip_id, end_time, publication_time FROM trips WHERE publication_time IS NOT NULL AND end_time IS NOT NULL`;

/** Per endpoint and hour of the item's time: items, p50 and p95 of the latency in ms, and the item of the largest one. */
const LATENCY = `
        SELECT endpoint, time // 3600000 * 3600000 AS hour, count(*) AS n, quantile_cont(publication_time - time, 0.5) AS p50, quantile_cont(publication_time - time, 0.95) AS p95,
          arg_max(device_id, publication_time - time) AS device_id, arg_max(trip_id, publication_time - time) AS trip_id
        FROM (${PUBLISHED}) GROUP BY ALL`;

const minutes = (ms: string) => `round(${ms} / 60000, 1)`;

export const TIME_RULES: readonly CheckRule[] = [
  {
    id: 'publication-before-time',
    code: 'MDS-PUBLICATION-BEFORE-TIME',
    title: 'No item is published before it happened',
    severity: 'error',
    basis:
      'MDS 2.0.2 data-types.md, Events and Trips: publication_time is when the event or trip "became available" through its endpoint, which cannot be before the event\'s timestamp or the trip\'s end_time',
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Trips' },
    ],
    needs: [],
    sql: () => `
      SELECT device_id, trip_id, time, format('{} item: publication_time {} is {} s before its {} {}', endpoint, epoch_ms(publication_time)::VARCHAR, (time - publication_time) / 1000,
          CASE endpoint WHEN 'trips' THEN 'end_time' ELSE 'timestamp' END, epoch_ms(time)::VARCHAR) AS detail
      FROM (${PUBLISHED}) WHERE publication_time < time`,
  },
  {
    id: 'publication-latency',
    code: 'MDS-PUBLICATION-LATENCY',
    title: 'How long items take to be published, per hour',
    severity: 'info',
    basis:
      "MDS 2.0.2 data-types.md, Events and Trips: publication_time. A measurement per hour of the items' time: the median and 95th percentile from an item's time to its publication_time",
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Trips' },
    ],
    needs: [],
    sql: () => `
      SELECT NULL AS device_id, NULL AS trip_id, hour AS time, format('{}: {} items with publication_time, latency p50 {} min, p95 {} min', endpoint, n, ${minutes('p50')}, ${minutes('p95')}) AS detail
      FROM (${LATENCY})`,
  },
  {
    id: 'publication-late',
    code: 'MDS-PUBLICATION-LATE',
    title: 'Items are published within the latency limit',
    severity: 'warning',
    basis:
      "MDS 2.0.2 data-types.md, Events and Trips: publication_time. MDS 2.0.2 sets no latency for /trips and /events/historical (its Data Latency Requirements, 5 minutes, are for the near-realtime endpoints): the limit is the city's, publicationP95Hours",
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Trips' },
    ],
    needs: [],
    sql: (t) => `
      SELECT device_id, trip_id, hour AS time, format('{}: the 95th percentile of the publication latency of this hour is {} h (more than {} h; {} items, p50 {} h); the latest item is this device''s', endpoint, round(p95 / 3600000, 1), ${t.publicationP95Hours}, n, round(p50 / 3600000, 1)) AS detail
      FROM (${LATENCY}) WHERE p95 > ${t.publicationP95Hours * 3_600_000}`,
  },
  {
    id: 'hour-pending-long',
    code: 'MDS-HOUR-PENDING-LONG',
    title: 'No hour stays 202 for long',
    severity: 'warning',
    basis:
      'MDS 2.0.2 provider/README.md, Trips - Responses and Historical Events - Responses: 202 Accepted for "hours that are in the past but for which data is not yet available"; an hour still 202 pendingHours after it ended is late',
    mds: [
      { file: 'provider/README.md', section: 'Trips - Responses' },
      { file: 'provider/README.md', section: 'Historical Events - Responses' },
    ],
    needs: [],
    manifest: (source, t) => {
      const findings: CheckFinding[] = [];
      for (const part of source.parts) {
        for (const [hour, record] of Object.entries(part.manifest.hours)) {
          const end = Date.parse(`${hour}:00:00Z`) + 3_600_000;
          const asked = Date.parse(record.startedAt) + (record.durationMs || 0);
          if (record.status !== 'pending' || !Number.isFinite(end) || !Number.isFinite(asked)) continue;
          const hours = (asked - end) / 3_600_000;
          if (hours > t.pendingHours) {
            findings.push({
              device_id: null,
              trip_id: null,
              time: new Date(end - 3_600_000).toISOString(),
              detail: `${part.table}: the hour ${hour} still answered 202 ${hours.toFixed(1)} h after it ended (more than ${t.pendingHours} h), at ${new Date(asked).toISOString()}`,
            });
          }
        }
      }
      return findings.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.detail.localeCompare(b.detail));
    },
  },
];
