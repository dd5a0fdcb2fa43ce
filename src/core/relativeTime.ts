/**
 * Short, deterministic wording for how far a time lies from "now", as shown next to `iat`, `nbf`
 * and `exp` and in lint messages. Units are truncated, not rounded, so that "expires in 4 min"
 * never promises more time than is left.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span of seconds in the largest two units that matter: "42 s", "4 min", "2 h 5 min", "3 d 4 h".
 * Seconds are shown only under a minute; the sign is ignored. Non-finite input gives "an unbounded time".
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'an unbounded time';
  const s = Math.floor(Math.abs(seconds));
  if (s < MINUTE) return `${s} s`;
  if (s < HOUR) return `${Math.floor(s / MINUTE)} min`;
  if (s < DAY) {
    const h = Math.floor(s / HOUR);
    const min = Math.floor((s % HOUR) / MINUTE);
    return min ? `${h} h ${min} min` : `${h} h`;
  }
  const d = Math.floor(s / DAY);
  const h = Math.floor((s % DAY) / HOUR);
  // Beyond a year the hours are noise next to the number of days.
  return h && d < 365 ? `${d} d ${h} h` : `${d} d`;
}

/**
 * Where `targetMs` lies relative to `nowMs`: "in 4 min", "3 min ago", "in 2 h 5 min", "in 42 s",
 * or "just now" within one second either way.
 */
export function describeRelative(targetMs: number, nowMs: number): string {
  const diffMs = targetMs - nowMs;
  if (Number.isNaN(diffMs)) return 'at an unknown time';
  if (Math.abs(diffMs) < 1000) return 'just now';
  const span = formatDuration(diffMs / 1000);
  return diffMs > 0 ? `in ${span}` : `${span} ago`;
}

/** An `exp` time as users read it: "expires in 4 min", "expired 3 min ago", "expired just now". */
export function describeExpiry(expMs: number, nowMs: number): string {
  // exp <= now counts as expired (RFC 7519 4.1.4: "on or after").
  return expMs > nowMs ? `expires ${describeRelative(expMs, nowMs)}` : `expired ${describeRelative(expMs, nowMs)}`;
}

/** An `iat` time: "issued 2 min ago", "issued in 10 s" (a clock ahead of ours). */
export function describeIssued(iatMs: number, nowMs: number): string {
  return `issued ${describeRelative(iatMs, nowMs)}`;
}

/** An `nbf` time: "valid since 3 min ago", "becomes valid in 2 min". */
export function describeNotBefore(nbfMs: number, nowMs: number): string {
  return nbfMs > nowMs ? `becomes valid ${describeRelative(nbfMs, nowMs)}` : `valid since ${describeRelative(nbfMs, nowMs)}`;
}
