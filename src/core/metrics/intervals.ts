/**
 * The Metrics API's intervals: an ISO 8601 duration from PT15M to P1M, aligned in an IANA time zone (luxon does the
 * zone arithmetic: a local day is 23 or 25 hours on a daylight-saving day, a month its own length).
 */
import * as l10n from '@vscode/l10n';
import { DateTime, IANAZone } from 'luxon';
import { MobilityError } from '../base';

/** A parsed interval duration: minutes or hours (within a day), a day, a week or a month. */
export interface IntervalDuration {
  /** As the user wrote it, upper case (`PT15M`). */
  text: string;
  unit: 'minutes' | 'hours' | 'days' | 'weeks' | 'months';
  amount: number;
}

/** One interval: [start, end) in ms since 1970, and its start written in the zone (`2026-03-29T00:00+01:00`). */
export interface MetricsInterval {
  start: number;
  end: number;
  label: string;
}

const DURATION = /^P(?:T(\d+)([MH])|(\d+)([DWM]))$/;

/** Parses `--interval`; refuses what is not PT15M…P1M or does not tile a day (PT7M, PT5H), saying what would. */
export function parseIntervalDuration(text: string): IntervalDuration {
  const upper = text.trim().toUpperCase();
  const m = DURATION.exec(upper);
  const refuse = () =>
    new MobilityError(
      'USAGE',
      l10n.t(
        '--interval {0}: give an ISO 8601 duration from PT15M to P1M that tiles a day: PT15M, PT20M, PT30M, PT1H, PT2H, PT3H, PT4H, PT6H, PT8H, PT12H, P1D, P1W or P1M.',
        text,
      ),
    );
  if (!m) throw refuse();
  if (m[1]) {
    const amount = Number(m[1]);
    if (m[2] === 'M') {
      if (amount === 60) return { text: 'PT1H', unit: 'hours', amount: 1 };
      if (amount < 15 || 60 % amount !== 0) throw refuse();
      return { text: upper, unit: 'minutes', amount };
    }
    if (amount === 24) return { text: 'P1D', unit: 'days', amount: 1 };
    if (amount < 1 || 24 % amount !== 0) throw refuse();
    return { text: upper, unit: 'hours', amount };
  }
  const amount = Number(m[3]);
  if (amount !== 1) throw refuse();
  return { text: upper, unit: m[4] === 'D' ? 'days' : m[4] === 'W' ? 'weeks' : 'months', amount: 1 };
}

/** Refuses a time zone the IANA database does not know. */
export function checkTimeZone(zone: string): string {
  if (!IANAZone.isValidZone(zone)) {
    throw new MobilityError(
      'USAGE',
      l10n.t('--timezone {0}: give an IANA time zone name, such as Europe/Berlin, America/Los_Angeles or UTC.', zone),
    );
  }
  return zone;
}

/** The ISO 8601 text of `ms` in `zone`, to the minute, with its offset (`Z` in UTC). */
export function zonedLabel(ms: number, zone: string): string {
  return (
    DateTime.fromMillis(ms, { zone }).toISO({
      suppressSeconds: true,
      suppressMilliseconds: true,
      includeOffset: true,
    }) ?? new Date(ms).toISOString()
  );
}

/** The start of the interval holding `ms`: minutes and hours tile the local day from its midnight. */
function alignedStart(ms: number, d: IntervalDuration, zone: string): DateTime {
  const t = DateTime.fromMillis(ms, { zone });
  if (d.unit === 'months') return t.startOf('month');
  if (d.unit === 'weeks') return t.startOf('week');
  const day = t.startOf('day');
  if (d.unit === 'days') return day;
  const step = (d.unit === 'hours' ? 60 : 1) * d.amount * 60_000;
  return DateTime.fromMillis(day.toMillis() + Math.floor((ms - day.toMillis()) / step) * step, { zone });
}

/** The next interval's start: a local day, week or month later, or the duration in elapsed time (never past the next midnight). */
function nextStart(start: DateTime, d: IntervalDuration): DateTime {
  if (d.unit === 'months') return start.plus({ months: 1 });
  if (d.unit === 'weeks') return start.plus({ weeks: 1 });
  if (d.unit === 'days') return start.plus({ days: 1 });
  const next = start.plus({ milliseconds: (d.unit === 'hours' ? 60 : 1) * d.amount * 60_000 });
  const midnight = start.startOf('day').plus({ days: 1 });
  return next > midnight ? midnight : next;
}

/** The intervals that meet [from, to), aligned in `zone`. */
export function intervalsOf(from: number, to: number, d: IntervalDuration, zone: string): MetricsInterval[] {
  const out: MetricsInterval[] = [];
  for (let s = alignedStart(from, d, zone); s.toMillis() < to; s = nextStart(s, d)) {
    const e = nextStart(s, d);
    out.push({ start: s.toMillis(), end: e.toMillis(), label: zonedLabel(s.toMillis(), zone) });
  }
  return out;
}

/** The sub-intervals of `--avg-of` inside each interval (for `dockless.deployed.avg.min`/`.avg.max`), with their parent's index. */
export function subIntervalsOf(
  intervals: readonly MetricsInterval[],
  d: IntervalDuration,
  zone: string,
): { parent: number; start: number; end: number }[] {
  const out: { parent: number; start: number; end: number }[] = [];
  intervals.forEach((iv, parent) => {
    for (const sub of intervalsOf(iv.start, iv.end, d, zone))
      out.push({ parent, start: Math.max(sub.start, iv.start), end: Math.min(sub.end, iv.end) });
  });
  return out;
}

/** Whether `inner` is strictly shorter than `outer` (compared on a typical span; months as 28 days at least). */
export function isShorter(inner: IntervalDuration, outer: IntervalDuration): boolean {
  const ms = (d: IntervalDuration) =>
    d.amount *
    { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000, months: 28 * 86_400_000 }[d.unit];
  return ms(inner) < ms(outer);
}
