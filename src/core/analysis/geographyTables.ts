/**
 * The geographies of a session's items, as tables a query joins on (docs/analysis.md, Geographies): each trip's start
 * and end, each event and each telemetry point assigned to every geography that contains it and is live at its time,
 * once, when the session opens. The containment test is `core/geography`'s index (an R-tree and point-in-polygon-hao):
 * DuckDB's spatial extension is not there offline. Without geographies the tables exist, empty, so that a query works
 * either way.
 *
 *   geographies(geography_id, name, geography_type, live_from, live_until)
 *   trips_geographies(trip_id, device_id, point ('start' | 'end'), geography_id)
 *   events_geographies(event_id, device_id, geography_id)
 *   telemetry_geographies(telemetry_id, device_id, geography_id)
 */
import type { GeographyIndex } from '../geography';

type Connection = import('@duckdb/node-api').DuckDBConnection;
type Appender = import('@duckdb/node-api').DuckDBAppender;

/** The tables, for the list of what a query may read. */
export const GEOGRAPHY_TABLES = [
  'geographies',
  'trips_geographies',
  'events_geographies',
  'telemetry_geographies',
] as const;

/** What the assignment did: rows per table and the time it took (a benchmark figure). */
export interface GeographyAssignment {
  geographies: number;
  rows: { trips: number; events: number; telemetry: number };
  durationMs: number;
}

/** One kind of point: the query that reads it (id, device, lng, lat, time) and the `point` it is, for trips. */
const POINTS = [
  {
    table: 'trips',
    sql: 'SELECT trip_id, device_id, start_location.lng, start_location.lat, start_time FROM trips',
    point: 'start',
  },
  {
    table: 'trips',
    sql: 'SELECT trip_id, device_id, end_location.lng, end_location.lat, end_time FROM trips',
    point: 'end',
  },
  {
    table: 'events',
    sql: 'SELECT event_id, device_id, location.lng, location.lat, "timestamp" FROM events',
    point: undefined,
  },
  {
    table: 'telemetry',
    sql: 'SELECT telemetry_id, device_id, location.lng, location.lat, "timestamp" FROM telemetry',
    point: undefined,
  },
] as const;

/** Creates the tables and fills them from `index` (nothing to fill without one). */
export async function createGeographyTables(
  connection: Connection,
  index: GeographyIndex | undefined,
): Promise<GeographyAssignment | undefined> {
  await connection.run(
    [
      'CREATE TABLE geographies (geography_id VARCHAR, name VARCHAR, geography_type VARCHAR, live_from BIGINT, live_until BIGINT)',
      'CREATE TABLE trips_geographies (trip_id VARCHAR, device_id VARCHAR, point VARCHAR, geography_id VARCHAR)',
      'CREATE TABLE events_geographies (event_id VARCHAR, device_id VARCHAR, geography_id VARCHAR)',
      'CREATE TABLE telemetry_geographies (telemetry_id VARCHAR, device_id VARCHAR, geography_id VARCHAR)',
    ].join('; '),
  );
  if (!index) return undefined;
  const started = performance.now();
  const list = await connection.createAppender('geographies');
  for (const g of index.geographies) {
    list.appendVarchar(g.geography_id);
    list.appendVarchar(g.name);
    if (g.geography_type === undefined) list.appendNull();
    else list.appendVarchar(g.geography_type);
    list.appendBigInt(BigInt(g.liveFromMs));
    if (g.liveUntilMs === Infinity) list.appendNull();
    else list.appendBigInt(BigInt(g.liveUntilMs));
    list.endRow();
  }
  list.closeSync();
  const ids = index.geographies.map((g) => g.geography_id);
  const rows = { trips: 0, events: 0, telemetry: 0 };
  for (const { table, sql, point } of POINTS) {
    const appender = await connection.createAppender(`${table}_geographies`);
    try {
      rows[table] += await assign(connection, sql, appender, index, ids, point);
    } finally {
      appender.closeSync();
    }
  }
  return { geographies: ids.length, rows, durationMs: performance.now() - started };
}

/** Streams the points of `sql` chunk by chunk and appends a row per (item, geography containing it). */
async function assign(
  connection: Connection,
  sql: string,
  appender: Appender,
  index: GeographyIndex,
  ids: readonly string[],
  point: string | undefined,
): Promise<number> {
  const result = await connection.stream(sql);
  let rows = 0;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const [itemIds, devices, lngs, lats, times] = chunk.getColumns();
    for (let i = 0; i < chunk.rowCount; i++) {
      const lng = lngs[i];
      const lat = lats[i];
      if (typeof lng !== 'number' || typeof lat !== 'number') continue;
      const time = times[i];
      const found = index.containingAt(lng, lat, time === null ? NaN : Number(time));
      if (!found.length) continue;
      const itemId = itemIds[i];
      const device = devices[i];
      for (const g of found) {
        if (itemId === null) appender.appendNull();
        else appender.appendVarchar(String(itemId));
        if (device === null) appender.appendNull();
        else appender.appendVarchar(String(device));
        if (point !== undefined) appender.appendVarchar(point);
        appender.appendVarchar(ids[g]);
        appender.endRow();
        rows++;
      }
    }
  }
  return rows;
}
