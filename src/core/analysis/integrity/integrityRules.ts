/**
 * The rules that say no item was lost or skipped in silence: ids that name two different items (two devices, or two
 * versions of one item), items that could not be typed (set aside in `untyped_items`), and hour files that disagree
 * with their manifest. They keep the shape of the other rules (checkRules.ts): SQL over the views, or findings read
 * from the files (`local`).
 */
import type { HarvestSource } from '../harvestSource';
import type { Intake } from './intake';
import { UNTYPED_VIEW } from './intake';
import { manifestFindings } from './manifestCheck';

/** A finding as the rules give it (checkRules.ts's CheckFinding). */
interface Finding {
  device_id: string | null;
  trip_id: string | null;
  time: string | null;
  detail: string;
}

/** The views whose items an id names once, the id, and the item's time. */
const IDS = [
  { view: 'trips', key: 'trip_id', time: 'start_time', trip: 'trip_id' },
  { view: 'events', key: 'event_id', time: 'timestamp', trip: 'trip_ids[1]' },
  { view: 'telemetry', key: 'telemetry_id', time: 'timestamp', trip: 'trip_ids[1]' },
  { view: 'vehicles', key: 'device_id', time: 'NULL::BIGINT', trip: 'NULL' },
  { view: 'vehicles_status', key: 'device_id', time: 'last_event.timestamp', trip: 'NULL' },
] as const;

export const INTEGRITY_RULES = [
  {
    id: 'duplicate-ids',
    title: 'Every id names one item',
    severity: 'error' as const,
    basis:
      'MDS 2.0 provider: trip_id, event_id and telemetry_id are UUIDs of one trip, event or point; device_id names one vehicle in /vehicles and /vehicles/status, and its vehicle_id one vehicle. Identical copies (as a resumed harvest writes them) are one item; any other two items under one id are both kept, counted and reported here',
    needs: [] as const,
    // First a grouping by a 64-bit hash of each id, narrow and fixed-size, that spills beyond the memory limit (over
    // millions of ids, a grouping with the DISTINCT aggregates below ran out of 256 MB); then only the rows of ids
    // that come twice (and the rare hash collisions, which the exact grouping drops) are grouped by the id itself.
    sql: () => `
      WITH ids AS NOT MATERIALIZED (${IDS.map((i) => `SELECT '${i.view}' AS view, '${i.key}' AS key, ${i.key} AS id, device_id, ${i.trip} AS trip_id, ${i.time} AS time FROM ${i.view}`).join(' UNION ALL ')}),
      twice AS (SELECT view, hash(id) AS h FROM ids WHERE id IS NOT NULL GROUP BY view, hash(id) HAVING count(*) > 1),
      candidates AS (SELECT ids.* FROM ids SEMI JOIN twice ON ids.view = twice.view AND hash(ids.id) = twice.h)
      SELECT min(device_id) AS device_id, min(trip_id) AS trip_id, min(time) AS time,
        CASE WHEN count(DISTINCT device_id) > 1
          THEN format('{} {} {} is used by {} devices ({}): {} different items under one id', view, key, id, count(DISTINCT device_id), string_agg(DISTINCT device_id, ', ' ORDER BY device_id), count(*))
          ELSE format('{} {} {}: {} versions of one item with different content (not identical copies); each is kept', view, key, id, count(*)) END AS detail
      FROM candidates GROUP BY view, key, id HAVING count(*) > 1
      UNION ALL
      SELECT min(device_id), NULL, NULL, format('vehicles vehicle_id {} is used by {} devices ({})', vehicle_id, count(DISTINCT device_id), string_agg(DISTINCT device_id, ', ' ORDER BY device_id))
      FROM vehicles WHERE vehicle_id IS NOT NULL GROUP BY vehicle_id HAVING count(DISTINCT device_id) > 1`,
  },
  {
    id: 'untyped-items',
    title: 'Every item has the types of the MDS 2.0 model',
    severity: 'error' as const,
    basis:
      'MDS 2.0 models (the official JSON Schemas): each field has its type (a number where a number belongs), required fields are present and not null, enumerated fields take one of their values. An item that cannot be typed is left out of the typed views and kept, as raw JSON with its file and line, in the view untyped_items',
    needs: [] as const,
    sql: () => `
      SELECT CASE WHEN json_valid(item) THEN json_extract_string(item, '$.device_id') END AS device_id,
        CASE WHEN json_valid(item) THEN coalesce(json_extract_string(item, '$.trip_id'), json_extract_string(item, '$.trip_ids[0]')) END AS trip_id,
        CASE WHEN json_valid(item) THEN TRY_CAST(coalesce(json_extract_string(item, '$.timestamp'), json_extract_string(item, '$.start_time')) AS BIGINT) END AS time,
        format('{}, {} line {}: {} (left out of {}; the item is in ${UNTYPED_VIEW})', endpoint, file, line, problem, endpoint) AS detail
      FROM ${UNTYPED_VIEW}`,
  },
  {
    id: 'harvest-files',
    title: 'Every hour file agrees with its manifest',
    severity: 'error' as const,
    basis:
      "The harvest's manifest.json: each hour's file, its item count and the endpoint it names; an hour file the manifest does not list is not read",
    needs: [] as const,
    local: (source: HarvestSource, intake: Intake): Finding[] => manifestFindings(source, intake),
  },
];
