// Tests that read "the current hour" (or day) from the real clock and then ask a server about it: when the hour is
// about to end, they wait until the next one has begun, so that the hour they name is still the current one when the
// answer comes (an hour that ended in between is answered 200, not 202). A wait for a condition, never a fixed sleep.
import { waitUntil } from './waitUntil';

/** Resolves at once unless fewer than `marginMs` are left of the current UTC period (an hour's or a day's ms); then once the next has begun. */
export async function clearOfPeriodEnd(periodMs: number, marginMs: number): Promise<void> {
  const now = Date.now();
  if (periodMs - (now % periodMs) >= marginMs) return;
  const period = Math.floor(now / periodMs);
  await waitUntil(
    'the next UTC period to begin',
    () => Math.floor(Date.now() / periodMs),
    (p) => p > period,
    { timeoutMs: marginMs + 10_000, intervalMs: 100 },
  );
}
