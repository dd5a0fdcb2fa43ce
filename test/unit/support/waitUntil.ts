// The one way tests wait for something to happen (unit, integration and e2e alike): poll an
// observable condition until it holds, with a timeout as the upper bound. Never a fixed sleep.

/** How long {@link waitUntil} polls, and how often. */
export interface WaitOptions {
  /** Upper bound before it gives up; default 20 s. */
  timeoutMs?: number;
  /** Pause between two reads; default 100 ms. */
  intervalMs?: number;
}

/**
 * Reads `read()` until `accept` takes its value, and returns that value. After `timeoutMs` it
 * rejects, naming `what` was awaited and the last value read, so that a failure says what was seen.
 * A read that throws counts as not yet (the error is reported if time runs out).
 */
export async function waitUntil<T>(
  what: string,
  read: () => T | Promise<T>,
  accept: (value: T) => boolean,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const value = await read();
      if (accept(value)) return value;
      last = describe(value);
    } catch (err) {
      last = `an error: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (Date.now() >= deadline) throw new Error(`Waited ${timeoutMs} ms for ${what}; last seen ${last}.`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves once `check()` is true; {@link waitUntil} for a plain condition. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<void> {
  await waitUntil(what, check, (ok) => ok, options);
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
