import type { ClockPrecision } from '../clock';
import type { MdsHourEndpointId } from '../mds';
import type { HourEvent } from './harvestHour';
import type { HourRecord } from './harvestManifest';

/**
 * Said once at the start of a harvest signing at second precision: it sets the pace of every
 * request, and front ends should show it.
 */
export const SECOND_PRECISION_NOTICE =
  'Tokens are signed at second precision: one key signs at most one token per second (spec 5.1 rule 6: each iat later than the last), so the harvest makes at most one request per second. Millisecond precision (--precision milliseconds) is faster, where the provider accepts fractional iat.';

/** Where a harvest stands. */
export interface HarvestProgress {
  /** `start`, then `request` / `waiting` / `page` while an hour runs, `hour` when it is recorded, `done` at the end. */
  phase: 'start' | 'request' | 'waiting' | 'page' | 'hour' | 'done';
  endpoint: MdsHourEndpointId;
  hoursTotal: number;
  /** Hours finished (any status), those done before this run included. */
  hoursDone: number;
  /** Hours done before this run, skipped. */
  hoursSkipped: number;
  /**
   * Items of the hours this run recorded (those counted in `hoursDone`, skipped ones aside): never
   * those of an hour still being fetched or flushed to disk.
   */
  items: number;
  /** Items recorded per second of this run so far. */
  itemsPerSecond: number;
  /** Seconds left at the pace of this run's hours so far (once one hour is finished). */
  etaSeconds?: number;
  /** The hour being fetched, its attempt (1 = first request) and page. */
  hour?: string;
  attempt?: number;
  page?: number;
  /** For `waiting`: how long, and why (202 Retry-After, backoff after a 5xx...). */
  waitSeconds?: number;
  reason?: string;
  /** For `hour`: the record just written to the manifest. */
  record?: HourRecord;
  /** On `start` at second precision: {@link SECOND_PRECISION_NOTICE}. */
  notice?: string;
}

/** Counts hours and items of a run and turns them into progress events. */
export class ProgressMeter {
  private readonly t0 = performance.now();
  private done: number;
  private fetchedHours = 0;
  /** Items of the hours recorded by this run. */
  private committed = 0;

  constructor(
    private readonly endpoint: MdsHourEndpointId,
    private readonly total: number,
    private readonly skipped: number,
    private readonly precision: ClockPrecision,
    private readonly onProgress: ((progress: HarvestProgress) => void) | undefined,
  ) {
    this.done = skipped;
  }

  start(): void {
    this.emit({ phase: 'start', ...(this.precision === 'seconds' ? { notice: SECOND_PRECISION_NOTICE } : {}) });
  }

  hourEvent(hour: string, event: HourEvent): void {
    if (event.kind === 'request') this.emit({ phase: 'request', hour, attempt: event.attempt, page: event.page });
    else if (event.kind === 'waiting')
      this.emit({ phase: 'waiting', hour, waitSeconds: event.waitMs / 1000, reason: event.reason });
    else this.emit({ phase: 'page', hour });
  }

  /** The hour is recorded in the manifest (its file is on disk): it counts, with its items. */
  hourDone(hour: string, record: HourRecord): void {
    this.done++;
    this.fetchedHours++;
    this.committed += record.items;
    this.emit({ phase: 'hour', hour, record });
  }

  finish(): void {
    this.emit({ phase: 'done' });
  }

  private emit(fields: Partial<HarvestProgress> & Pick<HarvestProgress, 'phase'>): void {
    if (!this.onProgress) return;
    const elapsed = (performance.now() - this.t0) / 1000;
    const remaining = this.total - this.done;
    const progress: HarvestProgress = {
      endpoint: this.endpoint,
      hoursTotal: this.total,
      hoursDone: this.done,
      hoursSkipped: this.skipped,
      items: this.committed,
      itemsPerSecond: elapsed > 0 ? this.committed / elapsed : 0,
      ...(this.fetchedHours > 0 ? { etaSeconds: (remaining * elapsed) / this.fetchedHours } : {}),
      ...fields,
    };
    this.onProgress(progress);
  }
}
