/**
 * `reports-vs-trips`: the provider's monthly reports (MDS 2.0 data-types.md, Reports) against the harvest's trips
 * counted the way a report counts them: by start time in the agency's local time zone, by start geography (the
 * session's `trips_geographies`; the whole area when a report row's geography_id is null), by vehicle type (the
 * snapshot's /vehicles), counts below 10 written -1. Trips carry no special group, so `all_riders` rows are compared
 * exactly and the other groups only as parts of them (never more trips than all riders). A month is compared only
 * when the harvest holds every hour in which its trips can end (its local bounds, plus `maxTripHours`).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { parse as parseCsv } from 'csv-parse/sync';
import { MobilityError, errorMessage } from '../base';
import { MDS_SPECIAL_GROUP_TYPES } from '../mds';
import type { AnalysisSession } from './analysisEngine';
import type { CheckFinding, CheckThresholds } from './checkRules';

/** The k-anonymity threshold of MDS 2.0 reports: fewer trips are written -1. */
export const REPORT_K = 10;
const HOUR_MS = 3_600_000;

/** What the rule gives: its findings and the months it could not compare, or why it could not run at all. */
export type ReportsVsTrips =
  { findings: CheckFinding[]; notCompared: { month: string; why: string }[] } | { skip: string };

interface ReportRow {
  month: string;
  group: string;
  geography: string;
  vehicleType: string;
  trips: number;
}

/** The instant local midnight starts `year`-`month` (1..12) in `timeZone`. */
export function localMonthStart(year: number, month: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, 1);
  const offsetAt = (ms: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(ms));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return (
      Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) -
      Math.floor(ms / 1000) * 1000
    );
  };
  // Guessed with the offset of the evening before, then corrected with the offset in force at the guess.
  const guess = wall - offsetAt(wall - 12 * HOUR_MS);
  return wall - offsetAt(guess);
}

/** Checks an IANA time zone name, naming it when it is not one. */
export function checkTimeZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new MobilityError(
      'USAGE',
      l10n.t(
        '--timezone {0}: not a time zone; give an IANA name such as Europe/Berlin or America/Los_Angeles.',
        timeZone,
      ),
    );
  }
}

function readReports(session: AnalysisSession): ReportRow[] | undefined {
  const snapshot = session.source.snapshot;
  const records = snapshot?.manifest.reports;
  if (!snapshot || !records) return undefined;
  const rows: ReportRow[] = [];
  for (const [month, record] of Object.entries(records)) {
    if (record.status !== 200 || !record.file) continue;
    const file = path.join(snapshot.dir, record.file);
    let records: Record<string, string>[];
    try {
      records = parseCsv<Record<string, string>>(fs.readFileSync(file, 'utf8'), {
        columns: true,
        skip_empty_lines: true,
        trim: true,
      });
    } catch (err) {
      throw new MobilityError(
        'ANALYSIS_DATA_INVALID',
        l10n.t(
          'Cannot read the report {0}: {1}. Take the snapshot again: harvest with --snapshot.',
          file,
          errorMessage(err),
        ),
        { cause: err },
      );
    }
    for (const r of records) {
      rows.push({
        month: (r.start_date ?? '').slice(0, 7) || month,
        group: r.special_group_type ?? '',
        geography: r.geography_id ?? '',
        vehicleType: r.vehicle_type ?? '',
        trips: Number(r.trip_count),
      });
    }
  }
  return rows;
}

/** Whether the trips' manifest holds every hour from `startMs` up to `endMs` as done (items or empty). */
function covered(session: AnalysisSession, startMs: number, endMs: number): boolean {
  const part = session.source.parts.find((p) => p.table === 'trips');
  if (!part) return false;
  for (let ms = Math.floor(startMs / HOUR_MS) * HOUR_MS; ms < endMs; ms += HOUR_MS) {
    const status = part.manifest.hours[new Date(ms).toISOString().slice(0, 13)]?.status;
    if (status !== 'items' && status !== 'empty') return false;
  }
  return true;
}

const shown = (n: number) => (n < REPORT_K ? -1 : n);

/** Runs the rule (see the file's comment). */
export async function reportsVsTrips(
  session: AnalysisSession,
  t: CheckThresholds,
  timeZone: string | undefined,
): Promise<ReportsVsTrips> {
  const rows = readReports(session);
  if (!rows)
    return {
      skip: l10n.t(
        'no monthly reports in this harvest: harvest with --snapshot (it fetches /reports/YYYY-MM.csv of the months harvested into <folder>/snapshot/reports/)',
      ),
    };
  if (!timeZone)
    return {
      skip: l10n.t(
        "reports count in the agency's local time zone: give it with --timezone, such as --timezone Europe/Berlin",
      ),
    };
  const geographies = session.geographyAssignment !== undefined;
  if (!geographies && rows.some((r) => r.geography !== '')) {
    return {
      skip: l10n.t(
        "the reports count by geography_id: give the agency's geographies with --geographies <geographies.json | URL of /geographies>",
      ),
    };
  }
  const names = new Map<string, string>();
  if (geographies)
    for (const row of (await session.query('SELECT geography_id, name FROM geographies')).rows)
      names.set(String(row.geography_id), String(row.name));
  const findings: CheckFinding[] = [];
  const notCompared: { month: string; why: string }[] = [];
  const months = [...new Set(rows.map((r) => r.month))].sort();
  const at = (month: string) => `${month}-01T00:00:00.000Z`;
  const place = (id: string) =>
    id === '' ? l10n.t('the whole area') : names.has(id) ? `${names.get(id)} (${id})` : id;
  for (const month of months) {
    const [year, m] = month.split('-').map(Number);
    if (!year || !m) continue;
    const startMs = localMonthStart(year, m, timeZone);
    const endMs = m === 12 ? localMonthStart(year + 1, 1, timeZone) : localMonthStart(year, m + 1, timeZone);
    if (!covered(session, startMs, endMs + t.maxTripHours * HOUR_MS)) {
      notCompared.push({
        month,
        why: l10n.t(
          'the harvest does not hold every hour of trips from {0} to {1} (the month in {2}, and {3} h after for its last trips to end)',
          new Date(startMs).toISOString(),
          new Date(endMs).toISOString(),
          timeZone,
          t.maxTripHours,
        ),
      });
      continue;
    }
    // The month's trips by start geography and vehicle type, and over the whole area ('' as geography).
    const geographyJoin = geographies
      ? `UNION ALL SELECT g.geography_id, coalesce(v.vehicle_type, '') FROM trips t JOIN trips_geographies g ON g.trip_id = t.trip_id AND g.device_id = t.device_id AND g.point = 'start' LEFT JOIN types v ON v.device_id = t.device_id WHERE t.start_time >= ${startMs} AND t.start_time < ${endMs}`
      : '';
    const answer =
      await session.query(`WITH types AS (SELECT device_id, any_value(vehicle_type) AS vehicle_type FROM vehicles GROUP BY device_id)
      SELECT geography_id, vehicle_type, count(*) AS n FROM (
        SELECT '' AS geography_id, coalesce(v.vehicle_type, '') AS vehicle_type FROM trips t LEFT JOIN types v ON v.device_id = t.device_id WHERE t.start_time >= ${startMs} AND t.start_time < ${endMs}
        ${geographyJoin}) GROUP BY ALL`);
    const counted = new Map<string, number>();
    const types = new Set<string>();
    for (const row of answer.rows) {
      const type = String(row.vehicle_type);
      counted.set(`${String(row.geography_id)}|${type}`, Number(row.n));
      if (type !== '') types.add(type);
    }
    const untyped = counted.get('|') ?? 0;
    if (untyped)
      findings.push({
        device_id: null,
        trip_id: null,
        time: at(month),
        detail: l10n.t(
          '{0}: {1} trips are of devices missing from /vehicles; their vehicle type is unknown, so no report row can count them',
          month,
          untyped,
        ),
      });
    const inMonth = rows.filter((r) => r.month === month);
    const allRiders = new Map(
      inMonth.filter((r) => r.group === 'all_riders').map((r) => [`${r.geography}|${r.vehicleType}`, r.trips]),
    );
    for (const r of inMonth) {
      const key = `${r.geography}|${r.vehicleType}`;
      if (r.geography !== '' && !names.has(r.geography)) {
        findings.push({
          device_id: null,
          trip_id: null,
          time: at(month),
          detail: l10n.t(
            '{0}: a row counts geography_id {1}, which is not one of the geographies given',
            month,
            r.geography,
          ),
        });
        continue;
      }
      if (r.group === 'all_riders') {
        const n = counted.get(key) ?? 0;
        if (r.trips !== shown(n)) {
          findings.push({
            device_id: null,
            trip_id: null,
            time: at(month),
            detail: l10n.t(
              "{0}, {1}, {2}, all_riders: the report says trip_count {3}; the harvest's trips give {4} (written {5})",
              month,
              place(r.geography),
              r.vehicleType,
              r.trips,
              n,
              shown(n),
            ),
          });
        }
        continue;
      }
      const all = allRiders.get(key);
      if (all !== undefined && (all === -1 ? r.trips !== -1 : r.trips > all)) {
        findings.push({
          device_id: null,
          trip_id: null,
          time: at(month),
          detail: l10n.t(
            '{0}, {1}, {2}, {3}: the report says trip_count {4}, more than all riders ({5})',
            month,
            place(r.geography),
            r.vehicleType,
            r.group,
            r.trips,
            all,
          ),
        });
      }
    }
    // Every combination of special group, geography and vehicle type in operation is a row (Reports, Data Notes).
    const present = new Set(inMonth.map((r) => `${r.group}|${r.geography}|${r.vehicleType}`));
    for (const r of inMonth) types.add(r.vehicleType);
    const places = inMonth.some((r) => r.geography !== '') ? [...names.keys()] : [''];
    for (const group of MDS_SPECIAL_GROUP_TYPES) {
      for (const geography of places) {
        for (const type of [...types].sort()) {
          if (!present.has(`${group}|${geography}|${type}`)) {
            const n = group === 'all_riders' ? (counted.get(`${geography}|${type}`) ?? 0) : undefined;
            findings.push({
              device_id: null,
              trip_id: null,
              time: at(month),
              detail:
                n === undefined
                  ? l10n.t('{0}: the report leaves out {1}, {2}, {3}', month, place(geography), type, group)
                  : l10n.t(
                      "{0}: the report leaves out {1}, {2}, {3} (the harvest's trips give {4})",
                      month,
                      place(geography),
                      type,
                      group,
                      n,
                    ),
            });
          }
        }
      }
    }
  }
  if (!months.length)
    return {
      skip: l10n.t(
        "the snapshot holds no monthly report: the provider served none for the months harvested (a month's report exists once the month has ended)",
      ),
    };
  return { findings, notCompared };
}
