/**
 * Which intervals the harvest covers: an interval needs every UTC hour it meets to be done (200, items or empty) in the
 * harvest of each table its measures read; a trip that starts in an interval may end up to the longest trip kept
 * later, so `trips.start_loc` needs those hours too. An interval that lacks one is missing (no value, never 0), with
 * the hours and why.
 */
import * as l10n from '@vscode/l10n';
import type { HarvestSource } from '../analysis';
import type { MetricsInterval } from './intervals';

const HOUR_MS = 3_600_000;
const hourName = (ms: number) => new Date(ms).toISOString().slice(0, 13);

export type GapKind = 'events' | 'trips_end' | 'trips_start';

/** One interval the harvest does not cover for one table: its hours and why each is missing. */
export interface IntervalGap {
  /** The interval's index. */
  interval: number;
  /** What lacks the hours: the events, the trips ending in the interval, or those starting in it (which may end later). */
  kind: GapKind;
  hours: { hour: string; why: string }[];
}

/** Why an hour of a table is not done, in words. */
function whyMissing(source: HarvestSource, table: 'events' | 'trips', hour: string): string | undefined {
  const parts = source.parts.filter((p) => p.table === table);
  if (!parts.length) return l10n.t('the harvest has no {0}', table);
  let reason: string | undefined;
  for (const part of parts) {
    const record = part.manifest.hours[hour];
    if (record && (record.status === 'items' || record.status === 'empty')) return undefined;
    if (record?.status === 'pending') reason = l10n.t('still 202 (not processed yet by the provider)');
    else if (record?.status === 'failed') reason ??= l10n.t('failed (HTTP {0})', record.httpStatus ?? '—');
    else if (record?.status === 'not_found') reason ??= l10n.t('404 (not served)');
    else if (hour < part.manifest.from) reason ??= l10n.t("before the harvest's first hour");
    else if (hour > part.manifest.to) reason ??= l10n.t("after the harvest's last hour");
    else reason ??= l10n.t('not fetched');
  }
  return reason;
}

/** The gaps of every interval, for the tables the measures read; `startReachMs` is how long after its interval a starting trip may end. */
export function intervalGaps(
  source: HarvestSource,
  intervals: readonly MetricsInterval[],
  kinds: readonly GapKind[],
  startReachMs: number,
): IntervalGap[] {
  const gaps: IntervalGap[] = [];
  intervals.forEach((iv, interval) => {
    for (const kind of kinds) {
      const table = kind === 'events' ? 'events' : 'trips';
      const end = kind === 'trips_start' ? iv.end + startReachMs : iv.end;
      const hours: { hour: string; why: string }[] = [];
      for (let h = Math.floor(iv.start / HOUR_MS) * HOUR_MS; h < end; h += HOUR_MS) {
        const why = whyMissing(source, table, hourName(h));
        if (why) hours.push({ hour: hourName(h), why });
      }
      if (hours.length) gaps.push({ interval, kind, hours });
    }
  });
  return gaps;
}
