/**
 * When the harvest asks again for an hour, and how long it waits first. Two kinds of "not now":
 * 202 ("not processed yet", wait what Retry-After says) and transient failures (429, 5xx, network
 * errors: exponential backoff, longer when Retry-After asks for it). Both are bounded.
 */
import { setTimeout as delay } from 'node:timers/promises';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';

/** The bounds of every wait and retry of one hour. */
export interface RetryPolicy {
  /** Requests an hour may get while it answers 202, the first included (default 3). */
  max202Attempts: number;
  /**
   * The longest wait for a 202 (default 60 s). When the server asks for longer (the current hour
   * asks until its end), the hour is recorded `pending` at once: asking earlier is pointless.
   */
  max202WaitSeconds: number;
  /** Retries after a 429, a 5xx, a timeout or a dropped connection (default 4, so 5 requests). */
  maxRetries: number;
  /** The first backoff; each further retry doubles it (default 500 ms). */
  backoffBaseMs: number;
  /** No backoff or Retry-After wait of a transient failure is longer than this (default 60 s). */
  maxBackoffSeconds: number;
  /** Wait for a 202 without Retry-After (default 10 s). */
  default202WaitSeconds: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  max202Attempts: 3,
  max202WaitSeconds: 60,
  maxRetries: 4,
  backoffBaseMs: 500,
  maxBackoffSeconds: 60,
  default202WaitSeconds: 10,
};

/** The policy with `given` over the defaults; PARAMETER_INVALID for a bound that makes no sense. */
export function retryPolicyOf(given: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...given };
  const checks: [keyof RetryPolicy, number, number, boolean][] = [
    ['max202Attempts', 1, 1000, true],
    ['maxRetries', 0, 1000, true],
    ['max202WaitSeconds', 0, 86_400, false],
    ['backoffBaseMs', 0, 3_600_000, false],
    ['maxBackoffSeconds', 0, 86_400, false],
    ['default202WaitSeconds', 0, 86_400, false],
  ];
  for (const [name, min, max, whole] of checks) {
    const value = policy[name];
    if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      throw new MobilityError(
        'PARAMETER_INVALID',
        `The harvest's ${name} is ${String(value)}; use ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
      );
    }
  }
  return policy;
}

/** What to do after an answer or failure: wait and ask again, or stop with this reason. */
export type RetryDecision = { retry: true; waitMs: number; reason: string } | { retry: false; reason: string };

/** After the `attempt`-th 202 of an hour (1-based), with the server's Retry-After. */
export function after202(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | undefined): RetryDecision {
  const wait = retryAfterSeconds ?? policy.default202WaitSeconds;
  if (attempt >= policy.max202Attempts) {
    return {
      retry: false,
      reason: `still 202 (not processed yet) after ${attempt} request${attempt === 1 ? '' : 's'}`,
    };
  }
  if (wait > policy.max202WaitSeconds) {
    return {
      retry: false,
      reason: `202 (not processed yet), and the server asks to wait ${wait} s, longer than the ${policy.max202WaitSeconds} s allowed`,
    };
  }
  return { retry: true, waitMs: wait * 1000, reason: `202 not processed yet, waiting ${wait} s as the server asks` };
}

/** HTTP statuses worth asking again: rate limits, timeouts and server errors. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Errors of the client's own making (a refused base URL, a key that cannot sign, a bad parameter): the same for every
 * request, so no retry helps and no other hour would fare better. Everything but the HTTP failures.
 */
export function isClientOwnError(err: unknown): boolean {
  return err instanceof MobilityError && !err.code.startsWith('HTTP_');
}

/** Failures of the connection (not of our own making) worth asking again. */
export function isTransientError(err: unknown): boolean {
  return (
    err instanceof MobilityError &&
    ['HTTP_TIMEOUT', 'HTTP_NETWORK', 'HTTP_CONNECTION_REFUSED', 'HTTP_DNS'].includes(err.code)
  );
}

/** After the `retry`-th transient failure (1-based): exponential backoff, at least what Retry-After asks. */
export function afterTransient(
  policy: RetryPolicy,
  retry: number,
  what: string,
  retryAfterSeconds: number | undefined,
): RetryDecision {
  if (retry > policy.maxRetries)
    return {
      retry: false,
      reason: `${what}, ${policy.maxRetries} retr${policy.maxRetries === 1 ? 'y' : 'ies'} did not help`,
    };
  const capMs = policy.maxBackoffSeconds * 1000;
  if (retryAfterSeconds !== undefined && retryAfterSeconds * 1000 > capMs) {
    return {
      retry: false,
      reason: `${what}, and the server asks to wait ${retryAfterSeconds} s, longer than the ${policy.maxBackoffSeconds} s allowed`,
    };
  }
  const backoff = Math.min(capMs, policy.backoffBaseMs * 2 ** (retry - 1));
  const waitMs = Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
  return { retry: true, waitMs, reason: `${what}, retry ${retry} of ${policy.maxRetries} in ${formatSeconds(waitMs)}` };
}

/** Waits `ms`, or rejects with CANCELLED as soon as `signal` fires. */
export async function waitFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return;
  try {
    await delay(ms, undefined, { signal });
  } catch (err) {
    throw new MobilityError('CANCELLED', l10n.t('The harvest was stopped while waiting to retry.'), { cause: err });
  }
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}
