/**
 * Monthly reports (MDS 2.0 Reports, `/reports/YYYY-MM.csv`): trip and rider counts per special
 * group, geography and vehicle type, counted from the world's own rides by their start time in the
 * city's local time and their start geography (the districts' polygons, world/cityDistricts.ts) (data-types.md, Reports, Data Notes), every
 * combination a row, with counts below 10 written as -1.
 */
import type { MdsReportRow } from '../../core/mds';
import { MDS_REPORT_COLUMNS, MDS_SPECIAL_GROUP_TYPES } from '../../core/mds';
import { FLEET_VEHICLE_TYPES } from './fleetVehicles';
import type { SyntheticWorld } from './syntheticWorld';
import { CITY_GEOGRAPHIES, cityMonthStart, geographiesOf } from './worldGeography';
import { hashOf, unitOf } from './worldRandom';

/** The media type of MDS reports (general-information.md, Versioning). */
export const MDS_CSV_CONTENT_TYPE = 'text/vnd.mds+csv;version=2.0';

/** The k-anonymity threshold of MDS 2.0 reports. */
export const REPORT_K = 10;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `YYYY-MM` as year and month, or undefined when it is not a month. */
export function parseReportMonth(text: string): { year: number; month: number } | undefined {
  const match = MONTH.exec(text);
  if (!match) return undefined;
  return { year: Number(match[1]), month: Number(match[2]) };
}

/** The local start and end of a month, in ms since the epoch. */
export function reportMonthBounds(year: number, month: number): { startMs: number; endMs: number } {
  const next = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
  return { startMs: cityMonthStart(year, month), endMs: cityMonthStart(next.year, next.month) };
}

/**
 * The rows of the report for a month, counting rides that started from `fromMs` (the later of the
 * month's start and the start of operations) to the month's end.
 */
export function monthlyReportRows(
  world: SyntheticWorld,
  year: number,
  month: number,
  operatingSinceMs: number,
): MdsReportRow[] {
  const { startMs, endMs } = reportMonthBounds(year, month);
  const fromMs = Math.max(startMs, operatingSinceMs);
  const seed = world.seed;
  const riderPool = Math.max(50, world.fleet.size * 6);
  type Tally = { trips: number; riders: Set<number> };
  const tallies = new Map<string, Tally>();
  const tally = (group: string, geography: string, type: string) => {
    const key = `${group}|${geography}|${type}`;
    let t = tallies.get(key);
    if (!t) {
      t = { trips: 0, riders: new Set() };
      tallies.set(key, t);
    }
    return t;
  };
  for (let v = 0; v < world.fleet.size && fromMs < endMs; v++) {
    const type = world.vehicle(v).vehicle.vehicle_type;
    for (const ride of world.ridesStarting(v, fromMs, endMs)) {
      const second = Math.floor(ride.startMs / 1000);
      const rider = hashOf(seed, 0x71, v, second) % riderPool;
      const geographies = geographiesOf(ride.from);
      const groups: string[] = ['all_riders'];
      if (unitOf(seed, 0x10, v, second) < 0.09) groups.push('low_income');
      // A seated scooter is the adaptive vehicle of this fleet.
      if (type === 'scooter_seated') groups.push('adaptive_scooter');
      for (const group of groups) {
        for (const { geography_id } of geographies) {
          const t = tally(group, geography_id, type);
          t.trips += 1;
          t.riders.add(rider);
        }
      }
    }
  }
  const startDate = `${year}-${String(month).padStart(2, '0')}-01`;
  const redact = (n: number) => (n < REPORT_K ? -1 : n);
  const rows: MdsReportRow[] = [];
  // Every combination, also those with no trips (data-types.md, Reports, Data Notes: all geography ids of /geography).
  for (const group of MDS_SPECIAL_GROUP_TYPES) {
    for (const { geography_id } of CITY_GEOGRAPHIES) {
      for (const type of FLEET_VEHICLE_TYPES) {
        const t = tallies.get(`${group}|${geography_id}|${type}`);
        rows.push({
          provider_id: world.fleet.providerId,
          start_date: startDate,
          duration: 'P1M',
          special_group_type: group,
          geography_id,
          vehicle_type: type,
          trip_count: redact(t?.trips ?? 0),
          rider_count: redact(t?.riders.size ?? 0),
        });
      }
    }
  }
  return world.faults?.rules.has('reports-vs-trips') ? reportFaults(rows) : rows;
}

/**
 * The report faults of `sandbox --data-faults reports-vs-trips`: the busiest all_riders row counts 7 trips too many,
 * and the low_income row of the first geography and vehicle type is left out (`/_sandbox/data-faults` does not list
 * them: they are in every report, not in an hour).
 */
function reportFaults(rows: MdsReportRow[]): MdsReportRow[] {
  const busiest = rows
    .filter((r) => r.special_group_type === 'all_riders')
    .reduce<MdsReportRow | undefined>((best, r) => (!best || r.trip_count > best.trip_count ? r : best), undefined);
  const first = CITY_GEOGRAPHIES[0]?.geography_id;
  return rows
    .filter(
      (r) =>
        !(
          r.special_group_type === 'low_income' &&
          r.geography_id === first &&
          r.vehicle_type === FLEET_VEHICLE_TYPES[0]
        ),
    )
    .map((r) => (r === busiest ? { ...r, trip_count: Math.max(REPORT_K, r.trip_count + 7) } : r));
}

/** The rows as CSV with the header of the official Reports section; a null geography is an empty field. */
export function reportCsv(rows: MdsReportRow[]): string {
  const lines: string[] = [MDS_REPORT_COLUMNS.join(',')];
  for (const row of rows) lines.push(MDS_REPORT_COLUMNS.map((c) => (row[c] === null ? '' : String(row[c]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
