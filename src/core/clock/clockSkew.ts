// How far this computer's clock is from a server's, read from the `Date` header of an answer.
// Tokens carry this computer's time: a clock ahead puts `iat` in the server's future, a clock
// behind can put `exp` in its past, and either way the server refuses tokens that look fine here.
import * as l10n from '@vscode/l10n';
import { formatDuration } from '../base';

/** Differences up to this are not reported: `Date` has whole seconds, and answers take time to arrive. */
export const CLOCK_SKEW_THRESHOLD_MS = 5000;

/** This computer's clock against a server's, when they differ by more than {@link CLOCK_SKEW_THRESHOLD_MS}. */
export interface ClockSkew {
  /** This clock minus the server's, in ms: positive when this computer is ahead. */
  offsetMs: number;
  direction: 'ahead' | 'behind';
  /** The server's `Date`, ms since the epoch. */
  serverDateMs: number;
  /** This computer's clock when the answer's headers arrived. */
  localMs: number;
  /** By how much and which way: "This computer's clock is about 10 min ahead of the server's". */
  summary: string;
  /** One sentence: by how much, which way, what it does to tokens, and what to do. */
  message: string;
}

/**
 * The skew between this computer and the server that sent `Date` = `serverDateMs` when the answer
 * arrived at `receivedAtMs` (this clock), or undefined when within the threshold or unknown.
 * `Date` is cut to whole seconds and the answer was sent before it arrived, so with a right clock
 * `receivedAtMs` lies at or after `serverDateMs`, within the second plus the travel time: only a
 * difference beyond that and the threshold is reported.
 */
export function clockSkewOf(exchange: { serverDateMs?: number; receivedAtMs?: number }): ClockSkew | undefined {
  const { serverDateMs, receivedAtMs } = exchange;
  if (serverDateMs === undefined || receivedAtMs === undefined) return undefined;
  const ahead = receivedAtMs - (serverDateMs + 1000);
  const behind = serverDateMs - receivedAtMs;
  if (ahead <= CLOCK_SKEW_THRESHOLD_MS && behind <= CLOCK_SKEW_THRESHOLD_MS) return undefined;
  // The middle of the second the Date header names is the best single guess of the server's time.
  const offsetMs = receivedAtMs - (serverDateMs + 500);
  const direction = offsetMs > 0 ? 'ahead' : 'behind';
  const by = formatDuration(Math.round(Math.abs(offsetMs) / 1000));
  const effect =
    direction === 'ahead'
      ? l10n.t(
          'tokens signed here carry an "iat" in the server\'s future (refused as iat_in_future beyond its allowed skew)',
        )
      : l10n.t(
          'tokens signed here look older to the server and expire early for it ("exp" in its past, refused as expired)',
        );
  const summary =
    direction === 'ahead'
      ? l10n.t("This computer's clock is about {0} ahead of the server's", by)
      : l10n.t("This computer's clock is about {0} behind the server's", by);
  const message = l10n.t(
    '{0} (the server\'s Date header said {1}, this clock {2}): {3}. Sync the system clock with a time server (NTP), e.g. turn on "set time automatically".',
    summary,
    new Date(serverDateMs).toISOString(),
    new Date(receivedAtMs).toISOString(),
    effect,
  );
  return { offsetMs, direction, serverDateMs, localMs: receivedAtMs, summary, message };
}
