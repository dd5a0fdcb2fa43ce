/**
 * Short, deterministic wording for how far a time lies from "now", as shown next to `iat`, `nbf`
 * and `exp` and in lint messages. Units are truncated, not rounded, so that "expires in 4 min"
 * never promises more time than is left.
 */
import * as l10n from '@vscode/l10n';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span of seconds in the largest two units that matter: "42 s", "4 min", "2 h 5 min", "3 d 4 h".
 * Seconds are shown only under a minute; the sign is ignored. Non-finite input gives "an unbounded time".
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return l10n.t('an unbounded time');
  const s = Math.floor(Math.abs(seconds));
  if (s < MINUTE) return l10n.t('{0} s', s);
  if (s < HOUR) return l10n.t('{0} min', Math.floor(s / MINUTE));
  if (s < DAY) {
    const h = Math.floor(s / HOUR);
    const min = Math.floor((s % HOUR) / MINUTE);
    return min ? l10n.t('{0} h {1} min', h, min) : l10n.t('{0} h', h);
  }
  const d = Math.floor(s / DAY);
  const h = Math.floor((s % DAY) / HOUR);
  // Beyond a year the hours are noise next to the number of days.
  return h && d < 365 ? l10n.t('{0} d {1} h', d, h) : l10n.t('{0} d', d);
}

/**
 * Where `targetMs` lies relative to `nowMs`: "in 4 min", "3 min ago", "in 2 h 5 min", "in 42 s",
 * or "just now" within one second either way.
 */
export function describeRelative(targetMs: number, nowMs: number): string {
  const diffMs = targetMs - nowMs;
  if (Number.isNaN(diffMs)) return l10n.t('at an unknown time');
  if (Math.abs(diffMs) < 1000) return l10n.t('just now');
  const span = formatDuration(diffMs / 1000);
  return diffMs > 0 ? l10n.t('in {0}', span) : l10n.t('{0} ago', span);
}

/** An `exp` time as users read it: "expires in 4 min", "expired 3 min ago", "expired just now". */
export function describeExpiry(expMs: number, nowMs: number): string {
  // exp <= now counts as expired (RFC 7519 4.1.4: "on or after").
  return expMs > nowMs
    ? l10n.t('expires {0}', describeRelative(expMs, nowMs))
    : l10n.t('expired {0}', describeRelative(expMs, nowMs));
}

/** An `iat` time: "issued 2 min ago", "issued in 10 s" (a clock ahead of ours). */
export function describeIssued(iatMs: number, nowMs: number): string {
  return l10n.t('issued {0}', describeRelative(iatMs, nowMs));
}

/** An `nbf` time: "valid since 3 min ago", "becomes valid in 2 min". */
export function describeNotBefore(nbfMs: number, nowMs: number): string {
  return nbfMs > nowMs
    ? l10n.t('becomes valid {0}', describeRelative(nbfMs, nowMs))
    : l10n.t('valid since {0}', describeRelative(nbfMs, nowMs));
}
