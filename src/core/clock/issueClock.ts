import * as l10n from '@vscode/l10n';
import { errorMessage, MobilityError } from '../base';

/**
 * `seconds`: whole-second NumericDates (the default; what most verifiers expect).
 * `milliseconds`: fractional NumericDates such as 1767225599.123 (RFC 7519 allows them), so one key
 * can sign up to a thousand tokens a second. They run {@link MILLISECOND_LAG_MS} behind the wall
 * clock, so that verifiers which compare `iat` with a whole-second "now" accept them.
 */
export type ClockPrecision = 'seconds' | 'milliseconds';

/**
 * How far millisecond-precision issue times lie behind the wall clock. Common verifiers (PyJWT 2.6,
 * for one) refuse a token whose `iat` is later than `int(now)`, a "now" cut to whole seconds: a
 * fractional `iat` equal to the true time (12.345 at 12.345) is then "not yet valid" for the rest
 * of that second. One second behind (11.345) is at or below the whole second at every moment, for
 * such verifiers and for exact ones alike. The cost: the token is stamped one
 * second before it was signed, and since `exp` = `iat` + lifetime (spec 5.4: issue time plus 60 to
 * 3600 s, so `exp - iat` stays the chosen lifetime), it also expires one second earlier.
 * The issue times stay strictly increasing per key: the lag is the same for every token.
 */
export const MILLISECOND_LAG_MS = 1000;

/** What `decide` answers inside a store update: issue this time, or wait this long and ask again. */
export type ClockDecision = { issue: number } | { waitMs: number };

/**
 * Persists the per-key high-water mark: the `iat` (NumericDate seconds, maybe fractional) of the
 * last token issued with that key. Never holds key material. `update` must be atomic for its key:
 * read the mark, call `decide`, and store `issue` when it decides to issue.
 */
export interface ClockStore {
  update(keyId: string, decide: (last: number | undefined) => ClockDecision): Promise<ClockDecision> | ClockDecision;
}

/** A store that lives as long as the process. */
export class MemoryClockStore implements ClockStore {
  private readonly marks = new Map<string, number>();

  update(keyId: string, decide: (last: number | undefined) => ClockDecision): ClockDecision {
    const decision = decide(this.marks.get(keyId));
    if ('issue' in decision) this.marks.set(keyId, decision.issue);
    return decision;
  }

  /** For diagnostics and tests. */
  get(keyId: string): number | undefined {
    return this.marks.get(keyId);
  }

  delete(keyId: string): void {
    this.marks.delete(keyId);
  }
}

export interface IssueClockOptions {
  store?: ClockStore;
  precision?: ClockPrecision;
  /** Wall clock in ms; injectable for tests. */
  now?: () => number;
  /**
   * The longest wait for the clock to pass the last issued time before giving up with
   * CLOCK_BEHIND (the wall clock stepped back further than this). Default 10 s.
   */
  maxWaitMs?: number;
}

/**
 * Hands out issue times (`iat`) that are strictly later than every earlier one for the same key
 * (spec 5.1 rule 6): under concurrent calls, across restarts (through the store) and when the wall
 * clock steps backwards. It never forges a future time: when the next second (or millisecond) has
 * not come yet, it waits for it.
 */
export class IssueClock {
  readonly precision: ClockPrecision;
  private readonly store: ClockStore;
  private readonly now: () => number;
  private readonly maxWaitMs: number;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(options: IssueClockOptions = {}) {
    this.store = options.store ?? new MemoryClockStore();
    this.precision = options.precision ?? 'seconds';
    this.now = options.now ?? Date.now;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
  }

  /** The next issue time for `keyId`, as a NumericDate (seconds since the epoch). */
  next(keyId: string, signal?: AbortSignal): Promise<number> {
    // Calls for one key are served one after another, so each sees the mark its predecessor set; with
    // none pending (the usual case) the call starts at once instead of a tick later.
    const previous = this.chains.get(keyId);
    const run = () => this.issue(keyId, signal);
    const result = previous ? previous.then(run, run) : run();
    this.chains.set(keyId, result);
    const forget = () => {
      if (this.chains.get(keyId) === result) this.chains.delete(keyId);
    };
    result.then(forget, forget);
    return result;
  }

  private async issue(keyId: string, signal?: AbortSignal): Promise<number> {
    let waitedMs = 0;
    for (;;) {
      if (signal?.aborted) throw new MobilityError('CANCELLED', l10n.t('Token issuing was cancelled.'));
      let decision: ClockDecision;
      try {
        decision = await this.store.update(keyId, (last) => this.decide(last));
      } catch (err) {
        if (err instanceof MobilityError) throw err;
        throw new MobilityError(
          'CLOCK_STORE_FAILED',
          l10n.t('Could not read or save the issue time of key "{0}": {1}', keyId, errorMessage(err)),
          { cause: err },
        );
      }
      if ('issue' in decision) return decision.issue;
      if (waitedMs + decision.waitMs > this.maxWaitMs) {
        const behind = Math.ceil(decision.waitMs / 1000);
        throw new MobilityError(
          'CLOCK_BEHIND',
          l10n.t(
            'The system clock is about {0} s behind the last token issued with key "{1}". A server refuses a token that is not later than the previous one (spec 5.1 rule 6): correct the system clock, or wait {2} s and try again.',
            behind,
            keyId,
            behind,
          ),
        );
      }
      // The next millisecond is no timer's wait: setTimeout fires about 1.1 ms later at best, which would cap one key
      // near 880 tokens/s; with the clock in this process, one turn of the event loop (I/O runs in it) and it is asked
      // again. A store shared across processes (a locked file) waits on a timer: asking it every turn would contend
      // for its lock with the other processes signing on the key.
      const turn = decision.waitMs <= NEXT_TURN_MS && this.store instanceof MemoryClockStore;
      await (turn ? nextTurn(signal) : sleep(decision.waitMs, signal));
      waitedMs += decision.waitMs;
    }
  }

  private decide(last: number | undefined): ClockDecision {
    const nowMs = this.now();
    const step = this.precision === 'seconds' ? 1000 : 1;
    const lag = this.precision === 'seconds' ? 0 : MILLISECOND_LAG_MS;
    const candidateMs = Math.floor((nowMs - lag) / step) * step;
    const lastMs = last === undefined || !Number.isFinite(last) ? -Infinity : Math.round(last * 1000);
    if (candidateMs > lastMs) return { issue: candidateMs / 1000 };
    // The next allowed time is one step past the last one; wait until the (lagging) clock gets there.
    const nextMs = Math.floor(lastMs / step) * step + step;
    return { waitMs: Math.max(1, nextMs + lag - nowMs) };
  }
}

/** Waits up to this long are a turn of the event loop, not a timer (millisecond precision's next millisecond). */
const NEXT_TURN_MS = 1;

function nextTurn(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve)).then(() => {
    if (signal?.aborted)
      throw new MobilityError('CANCELLED', l10n.t('Token issuing was cancelled while it waited for the next second.'));
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new MobilityError('CANCELLED', l10n.t('Token issuing was cancelled while it waited for the next second.')),
      );
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
