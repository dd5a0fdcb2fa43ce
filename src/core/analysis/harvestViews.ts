/**
 * The analysis views over a harvest, read once per session into the session's database (AnalysisSession.open,
 * analysisEngine.ts). Views: `trips`, `events`, `telemetry` over the harvest's done hour files, with columns typed from the MDS 2.0
 * models (columnTypes.ts), each item once (by its id; an item harvested in two hours keeps its newest hour's copy),
 * read from the NDJSON once per session into tables of a database file in a temporary folder of the session's own
 * (compressed, evicted to that file beyond DuckDB's memory limit, spilling beside it; removed on close); and
 * `vehicles`, `vehicles_status` over the harvest's snapshot (`harvest --snapshot`), typed, and empty without one.
 * Hidden views for the rules: `_vehicles_listed` (/vehicles as listed, a device twice included) and `_item_vehicles`
 * (the vehicle_type and propulsion_types an item carries, for providers that send them with their items).
 */
import type { MdsEndpointId } from '../mds';
import type { ItemColumn } from './columnTypes';
import { itemColumnsOf, sqlIdentifier, sqlString } from './columnTypes';
import type { AnalysisTable, HarvestSource } from './harvestSource';
import { parquetItemsSql, parquetListedSql } from './parquetLayout';
import { stopped } from './statementGuard';
import type { Intake } from './integrity/intake';
import { UNTYPED_VIEW, intakeOfRead, setAsideSql, untypedTableSql } from './integrity/intake';
import { READ_COLUMNS, readViewTable } from './integrity/typedRead';

type Connection = import('@duckdb/node-api').DuckDBConnection;

/** Every view, the endpoint whose model types it, and the field that names an item once. */
const VIEWS: readonly { view: AnalysisTable | 'vehicles' | 'vehicles_status'; endpoint: MdsEndpointId; key: string }[] =
  [
    { view: 'trips', endpoint: 'trips', key: 'trip_id' },
    { view: 'events', endpoint: 'events_historical', key: 'event_id' },
    { view: 'telemetry', endpoint: 'telemetry', key: 'telemetry_id' },
    { view: 'vehicles', endpoint: 'vehicles', key: 'device_id' },
    { view: 'vehicles_status', endpoint: 'vehicles_status', key: 'device_id' },
  ];

/** The names of the views a query may use: the typed views, and the items that could not be typed. */
export const ANALYSIS_VIEWS: readonly string[] = [...VIEWS.map((v) => v.view), UNTYPED_VIEW];

/** Fields of the items that the registry rule compares with /vehicles, read besides the models' columns. */
const CARRIED_COLUMNS: readonly ItemColumn[] = [
  { name: 'vehicle_type', type: 'VARCHAR' },
  { name: 'propulsion_types', type: 'VARCHAR[]' },
];

/** The table a view's NDJSON is read into, once per session. */
const readTableOf = (view: string) => sqlIdentifier(`_${view}_read`);

/** The hour a harvest file holds, from its name (`…/2026-11-20T07.ndjson`). */
export const HOUR_OF_FILE = `regexp_extract(filename, '(\\d{4}-\\d{2}-\\d{2}T\\d{2})\\.ndjson$', 1)`;

/**
 * Reads the harvest into the session's tables and makes the views: the untyped items' table, each view with its
 * intake counted in `intake` (read, kept, merged, set aside), then the hidden views of the rules. `stop` interrupts
 * between views.
 */
export async function readHarvestViews(
  connection: Connection,
  source: HarvestSource,
  intake: Intake,
  stop?: AbortSignal,
): Promise<void> {
  await connection.run(untypedTableSql());
  for (const { view, endpoint, key } of VIEWS) {
    if (stop?.aborted) throw stopped();
    await connection.run(await viewSql(connection, source, view, endpoint, key));
    if (filesOf(source, view).length && !source.parquet) {
      // Lines that cannot be typed are set aside (untyped_items), counted, and the rest is analysed.
      await intakeOfRead(connection, intake, view, readTableOf(view));
      await connection.run(setAsideSql(view, readTableOf(view), source.folder));
      if (view !== 'vehicles' && view !== 'vehicles_status')
        intake.views[view].merged = await removeCopies(connection, view, key);
    }
    intake.views[view] ??= { read: 0, kept: 0, merged: 0, setAside: 0 };
    intake.views[view].kept = Number(
      (await connection.runAndReadAll(`SELECT count(*) FROM ${sqlIdentifier(view)}`)).getRowsJS()[0][0],
    );
    if (source.parquet) intake.views[view].read = intake.views[view].kept;
  }
  await connection.run(await hiddenViewsSql(connection, source));
}

/**
 * CREATE VIEW for one view: its hour files read with the model's types, one row per item, plus `_hour`. The NDJSON
 * hours are read and de-duplicated once, into a temporary table (spilled to the session's temporary folder beyond
 * the memory limit), which every query then reads instead of the files.
 */
async function viewSql(
  connection: Connection,
  source: HarvestSource,
  view: string,
  endpoint: MdsEndpointId,
  key: string,
): Promise<string> {
  const columns = itemColumnsOf(endpoint);
  const files = filesOf(source, view);
  let hours: string;
  const snapshotView = view === 'vehicles' || view === 'vehicles_status';
  if (files.length && source.parquet) {
    // Written from these views, typed: the hour from the partition folders or the hour column; an item once already
    // but in a snapshot list, which keeps every row as listed (a device listed twice is a registry finding).
    hours = await parquetItemsSql(connection, endpoint, key, files, snapshotView);
  } else if (!files.length) {
    // No data: the same columns, typed, and no row.
    hours = `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')}, CAST(NULL AS VARCHAR) AS _hour WHERE false`;
  } else {
    // The items' own vehicle_type and propulsion_types (not in the models of trips, events and telemetry, but some
    // providers send them) are read with them, for the registry rule's _item_vehicles, and hidden from the views.
    const carried = snapshotView ? [] : CARRIED_COLUMNS;
    const table = readTableOf(view);
    const hidden = [...carried.map((c) => sqlIdentifier(`_${c.name}`)), ...READ_COLUMNS];
    // Read by DuckDB's typed reader as it streams into a table of the session's database file (compressed, and
    // evicted to that file rather than spilled beyond the memory limit); a file it cannot type is read line by line
    // (integrity/typedRead.ts). The lines that cannot be typed are set aside after, and an item's identical copies
    // removed (removeCopies). A snapshot list keeps every row as listed (a device listed twice is a registry
    // finding); its view shows identical rows once.
    await readViewTable(connection, table, endpoint, files, carried, HOUR_OF_FILE);
    const kept = snapshotView
      ? ` QUALIFY row_number() OVER (PARTITION BY ${sqlIdentifier(key)}, _hash ORDER BY _line) = 1`
      : '';
    return [
      `CREATE VIEW ${sqlIdentifier(`_${view}_hours`)} AS SELECT * EXCLUDE (${hidden.join(', ')}) FROM ${table}${kept}`,
      `CREATE VIEW ${sqlIdentifier(view)} AS SELECT * EXCLUDE (_hour) FROM ${sqlIdentifier(`_${view}_hours`)};`,
    ].join('; ');
  }
  return `CREATE VIEW ${sqlIdentifier(`_${view}_hours`)} AS ${hours}; CREATE VIEW ${sqlIdentifier(view)} AS SELECT * EXCLUDE (_hour) FROM ${sqlIdentifier(`_${view}_hours`)};`;
}

/**
 * Keeps each item once: of the rows that share its id, the one of the newest hour (of copies in one hour, any one).
 * A grouping by a 64-bit hash of the id, narrow and fixed-size, first tells whether any id comes twice (in a sound
 * harvest none does, and nothing more is done). Only then are the rows grouped by the id itself, keeping the row
 * with the greatest (hour, rowid) packed into one BIGINT, and the others deleted. Both groupings spill to disk
 * beyond the memory limit (a semi-join of the rows on the candidate hashes, tried first, could not).
 */
async function removeCopies(connection: Connection, view: string, key: string): Promise<number> {
  const table = readTableOf(view);
  const id = sqlIdentifier(key);
  const twice = await connection.runAndReadAll(
    `SELECT count(*) FROM (SELECT hash(${id}, _hash) FROM ${table} GROUP BY 1 HAVING count(*) > 1)`,
  );
  if (Number(twice.getRowsJS()[0][0]) === 0) return 0;
  // Only byte-identical copies (the same id and the same text, as a resumed harvest writes them) are one item; two
  // texts under one id are two items, kept, and reported by duplicate-ids.
  // The hour as hours since 1970 (about 2^19; 0 for a snapshot's list, which has none) above the rowid (below 2^40).
  const order = `(coalesce(epoch(try_strptime(_hour, '%Y-%m-%dT%H'))::BIGINT // 3600, 0) << 40) | rowid`;
  const before = Number((await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0][0]);
  await connection.run(
    `CREATE TABLE _copies AS SELECT ${id} AS _id, _hash AS _h, max(${order}) & ${2 ** 40 - 1} AS _kept FROM ${table} GROUP BY ${id}, _hash HAVING count(*) > 1`,
  );
  await connection.run(
    `DELETE FROM ${table} USING _copies WHERE ${table}.${id} IS NOT DISTINCT FROM _copies._id AND ${table}._hash = _copies._h AND ${table}.rowid <> _copies._kept`,
  );
  await connection.run('DROP TABLE _copies');
  return before - Number((await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0][0]);
}

/** The files a view reads: the harvest's hours, or the snapshot's list. */
function filesOf(source: HarvestSource, view: string): string[] {
  if (view === 'vehicles' || view === 'vehicles_status') return source.snapshot ? [source.snapshot.files[view]] : [];
  return source.parts.filter((p) => p.table === view).flatMap((p) => p.files);
}

/** The hidden views the rules read (see the file's comment). */
async function hiddenViewsSql(connection: Connection, source: HarvestSource): Promise<string> {
  const vehicleColumns = itemColumnsOf('vehicles');
  const vehicleFiles = filesOf(source, 'vehicles');
  if (source.parquet) {
    const listedParquet = vehicleFiles.length
      ? await parquetListedSql(connection, vehicleFiles[0])
      : `SELECT ${vehicleColumns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} WHERE false`;
    const kept = source.parquet.itemVehicles;
    const itemVehiclesParquet = kept
      ? `SELECT source, device_id, time, vehicle_type, propulsion_types FROM read_parquet(${sqlString(kept)})`
      : 'SELECT CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS device_id, CAST(NULL AS BIGINT) AS time, CAST(NULL AS VARCHAR) AS vehicle_type, CAST(NULL AS VARCHAR[]) AS propulsion_types WHERE false';
    return `CREATE VIEW _vehicles_listed AS ${listedParquet}; CREATE VIEW _item_vehicles AS ${itemVehiclesParquet};`;
  }
  const listed = vehicleFiles.length
    ? `SELECT * EXCLUDE (_hour, ${READ_COLUMNS.join(', ')}) FROM ${readTableOf('vehicles')}`
    : `SELECT ${vehicleColumns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} WHERE false`;
  const items = (['trips', 'events', 'telemetry'] as const).flatMap((view) => {
    if (!filesOf(source, view).length) return [];
    const time = view === 'trips' ? 'start_time' : 'timestamp';
    return [
      `SELECT ${sqlString(view)} AS source, device_id, ${sqlIdentifier(time)} AS time, _vehicle_type AS vehicle_type, _propulsion_types AS propulsion_types FROM ${readTableOf(view)}`,
    ];
  });
  const itemVehicles = items.length
    ? items.join(' UNION ALL ')
    : 'SELECT CAST(NULL AS VARCHAR) AS source, CAST(NULL AS VARCHAR) AS device_id, CAST(NULL AS BIGINT) AS time, CAST(NULL AS VARCHAR) AS vehicle_type, CAST(NULL AS VARCHAR[]) AS propulsion_types WHERE false';
  return `CREATE VIEW _vehicles_listed AS ${listed}; CREATE VIEW _item_vehicles AS ${itemVehicles};`;
}
