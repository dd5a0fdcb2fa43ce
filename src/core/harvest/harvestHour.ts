/**
 * One hour of a harvest: every page of it, each request with a fresh token (the client signs one
 * per request), items streamed to the hour's temporary file, retried within the policy's bounds.
 */
import * as l10n from '@vscode/l10n';
import type { ApiClient, ApiResult, HttpExchange } from '../http';
import type { MdsMode } from '../conformance';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import { MobilityError } from '../base';
import type { EndpointRequest, MdsHourEndpointId } from '../mds';
import { ConformanceTally } from './harvestConformance';
import type { HarvestWrite } from './harvestFiles';
import { HourFileWriter, writeFailed } from './harvestFiles';
import type { HourRecord } from './harvestManifest';
import type { RetryDecision, RetryPolicy } from './retryPolicy';
import {
  after202,
  afterTransient,
  isClientOwnError,
  isTransientError,
  isTransientStatus,
  waitFor,
} from './retryPolicy';

/** Pages one hour may have before it is recorded as failed (a server that links pages in a loop). */
export const DEFAULT_MAX_PAGES_PER_HOUR = 10_000;

/** What the hour loop reports while it works. */
export type HourEvent =
  | { kind: 'request'; attempt: number; page: number }
  | { kind: 'waiting'; waitMs: number; reason: string }
  | { kind: 'page'; items: number };

/** Everything one hour needs. */
export interface HourJob {
  client: ApiClient;
  environment: Environment;
  credential: Credential;
  endpoint: MdsHourEndpointId;
  hour: string;
  request: EndpointRequest;
  /** The hour file's absolute path (its final name). */
  target: string;
  /** The hour file as the manifest records it. */
  file: string;
  policy: RetryPolicy;
  write: HarvestWrite;
  maxPages: number;
  validate: boolean;
  mode?: MdsMode;
  signal?: AbortSignal;
  onEvent: (event: HourEvent) => void;
}

/** How one hour ended, and when its file is on disk. */
export interface HourOutcome {
  record: HourRecord;
  /**
   * For an hour with a file: settles once the file is flushed (fsync) and renamed into place, with
   * the error when that failed (then the temporary file is removed). Never rejects. Until it settles
   * the hour must not be recorded as done. Absent when the hour has no file.
   */
  committed?: Promise<MobilityError | undefined>;
}

/**
 * Fetches one hour into its file and returns its record as soon as the last page is written: the
 * file's flush and rename go on in the background (see `committed`), so that the next hour's
 * request does not wait for the disk. Throws CANCELLED when stopped (the temporary file removed,
 * nothing recorded), HARVEST_REFUSED with the record for 401 and 403 (every hour would fail the
 * same way), and HARVEST_WRITE_FAILED when the file cannot be written.
 */
export async function harvestHour(job: HourJob): Promise<HourOutcome> {
  const startedAt = new Date();
  const t0 = performance.now();
  const writer = new HourFileWriter(job.target, job.write);
  const tally = job.validate ? new ConformanceTally(job.endpoint, job.mode) : undefined;
  let attempts = 0;
  let requests = 0;
  let pages = 0;
  let count202 = 0;
  let transient = 0;
  let pageUrl: string | undefined;
  let lastStatus: number | undefined;
  const record = (status: HourRecord['status'], problem?: string, extra: Partial<HourRecord> = {}): HourRecord => {
    const done = status === 'items' || status === 'empty';
    const rec: HourRecord = {
      status,
      ...(done ? { file: job.file } : {}),
      items: done ? writer.items : 0,
      bytes: done ? writer.bytes : 0,
      attempts,
      requests,
      pages,
      ...(lastStatus !== undefined ? { httpStatus: lastStatus } : {}),
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      ...(problem ? { problem } : {}),
      ...extra,
    };
    if (tally && pages > 0) rec.conformance = tally.summary();
    return rec;
  };
  const giveUp = async (
    status: HourRecord['status'],
    problem: string,
    extra: Partial<HourRecord> = {},
  ): Promise<HourOutcome> => {
    await writer.discard();
    return { record: record(status, problem, extra) };
  };
  const wait = async (decision: Extract<RetryDecision, { retry: true }>) => {
    job.onEvent({ kind: 'waiting', waitMs: decision.waitMs, reason: decision.reason });
    await waitFor(decision.waitMs, job.signal);
  };

  try {
    for (;;) {
      if (pages === 0) attempts++;
      job.onEvent({ kind: 'request', attempt: attempts, page: pages + 1 });
      let result: ApiResult;
      requests++;
      try {
        result = await job.client.request(job.environment, job.credential, job.request, {
          allPages: false,
          signal: job.signal,
          ...(pageUrl ? { from: pageUrl } : {}),
        });
      } catch (err) {
        if (job.signal?.aborted) throw abortedError(err);
        // The client's own error stops the harvest: every hour would fail the same way, and retrying cannot help.
        if (isClientOwnError(err)) throw err;
        if (!isTransientError(err)) return await giveUp('failed', (err as Error).message);
        const decision = afterTransient(job.policy, ++transient, (err as Error).message.replace(/\.$/, ''), undefined);
        if (!decision.retry) return await giveUp('failed', decision.reason);
        await wait(decision);
        continue;
      }
      const page = result.pages[result.pages.length - 1];
      lastStatus = page.status;
      switch (result.outcome) {
        case 'items':
        case 'empty': {
          await writer.append(result.items);
          pages++;
          job.onEvent({ kind: 'page', items: result.items.length });
          if (tally && page.bodyKind === 'json') tally.addPage(page.body, page.contentType);
          if (result.stoppedBecause)
            return await giveUp(
              'failed',
              `page ${pages} was read, but ${result.stoppedBecause}, so the hour is incomplete`,
            );
          if (result.nextUrl) {
            if (pages >= job.maxPages)
              return await giveUp(
                'failed',
                `the hour has more than ${job.maxPages} pages; stopped (the server may link its pages in a loop)`,
              );
            pageUrl = result.nextUrl;
            continue;
          }
          const done = record(writer.items > 0 ? 'items' : 'empty');
          return {
            record: done,
            committed: writer.commit().then(
              () => undefined,
              (err: unknown) => writeFailed(err, job.target, 'write'),
            ),
          };
        }
        case 'not_processed': {
          count202++;
          const decision = after202(job.policy, count202, result.retryAfterSeconds);
          if (!decision.retry)
            return await giveUp(
              'pending',
              decision.reason,
              result.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.retryAfterSeconds } : {},
            );
          await wait(decision);
          continue;
        }
        case 'not_found':
          if (pages > 0) return await giveUp('failed', `page ${pages + 1} answered 404; the hour is incomplete`);
          return await giveUp('not_found', '404: the provider does not serve this hour (yet)');
        case 'body':
          return await giveUp(
            'failed',
            `the answer${pages ? ` (page ${pages + 1})` : ''} has no "${job.request.itemsKey ?? 'items'}" list${page.bodyProblem ? `: ${page.bodyProblem}` : ''}`,
          );
        case 'error': {
          const what = describeStatus(page);
          if (page.status === 401 || page.status === 403) {
            const { record: rec } = await giveUp('failed', what);
            throw Object.assign(
              new MobilityError(
                'HARVEST_REFUSED',
                l10n.t(
                  'The provider refused the request for {0} with {1}. Every hour would be refused the same way, so the harvest stopped; check the credential, its access to {2}, and the base URL, then run the same command again to resume.',
                  job.hour,
                  what,
                  job.endpoint,
                ),
              ),
              { record: rec },
            );
          }
          if (!isTransientStatus(page.status)) return await giveUp('failed', what);
          const decision = afterTransient(job.policy, ++transient, what, page.retryAfterSeconds);
          if (!decision.retry) return await giveUp('failed', decision.reason);
          await wait(decision);
          continue;
        }
      }
    }
  } catch (err) {
    await writer.discard();
    if (job.signal?.aborted && !(err instanceof MobilityError && err.code === 'HARVEST_REFUSED'))
      throw abortedError(err);
    throw err;
  }
}

/** The record carried by a HARVEST_REFUSED error, to be written to the manifest before stopping. */
export function refusedRecordOf(err: unknown): HourRecord | undefined {
  return err instanceof MobilityError && err.code === 'HARVEST_REFUSED'
    ? (err as MobilityError & { record?: HourRecord }).record
    : undefined;
}

function abortedError(cause: unknown): MobilityError {
  return cause instanceof MobilityError && cause.code === 'CANCELLED'
    ? cause
    : new MobilityError('CANCELLED', l10n.t('The harvest was stopped.'), { cause });
}

/** `503 Service Unavailable: server_error: …` from an answer, for the manifest (cut to a sentence's length). */
function describeStatus(page: HttpExchange): string {
  const head = `${page.status}${page.statusText ? ` ${page.statusText}` : ''}`;
  const error = page.mdsError;
  const detail = error
    ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`
    : page.bodyKind === 'text' && typeof page.body === 'string'
      ? page.body
      : '';
  const text = detail ? `${head}: ${detail}` : head;
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
