/**
 * Harvest: one MDS hour endpoint (trips, telemetry, historical events) over a range of UTC hours
 * into a folder, one request per hour (and per page), so that no hour is lost and coverage shows.
 * Resumable: a run skips the hours the folder's manifest records as done. See docs/harvest.md.
 */
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import type { ApiClient } from '../http';
import type { MdsMode } from '../conformance';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import { normaliseBaseUrl } from '../environment';
import { isCancelled, MobilityError } from '../base';
import type { MdsHourEndpointId } from '../mds';
import { buildEndpointRequest, findEndpoint } from '../mds';
import { ConformanceTally } from './harvestConformance';
import type { HarvestWrite } from './harvestFiles';
import { ensureFolder, syncFolder, writeAll, writeFileAtomically } from './harvestFiles';
import { hoursOf, openManifest, reconcile } from './harvestFolder';
import type { HourOutcome } from './harvestHour';
import { DEFAULT_MAX_PAGES_PER_HOUR, harvestHour, refusedRecordOf } from './harvestHour';
import { DEFAULT_LOCK_WAIT_MS, lockHarvestFolder } from './harvestLock';
import type { HarvestConformance, HarvestManifest, HourRecord, HourStatus } from './harvestManifest';
import { DONE_STATUSES, hourFileOf, MANIFEST_FILE } from './harvestManifest';
import type { HarvestProgress } from './harvestProgress';
import { ProgressMeter } from './harvestProgress';
import type { RetryPolicy } from './retryPolicy';
import { retryPolicyOf } from './retryPolicy';

/**
 * Hour files being flushed to disk while the next hours are fetched. Two keep the next request off
 * the disk's critical path without tying up libuv's thread pool (four threads), which the next
 * hour's own file writes need.
 */
const MAX_HOURS_FLUSHING = 2;

/** What to harvest, where to, and how. */
export interface HarvestOptions {
  /** Signs a fresh token per request (its issuer's clock precision decides the pace: see the progress notice). */
  client: ApiClient;
  environment: Environment;
  credential: Credential;
  endpoint: MdsHourEndpointId;
  /** First and last hour, both included, `YYYY-MM-DDTHH`. */
  from: string;
  to: string;
  /** The output folder; created when missing. */
  outDir: string;
  /** Extra request headers (the MDS Accept is the environment's business). */
  headers?: Record<string, string>;
  /** Check every page against the official MDS 2.0 schemas and record the findings per hour. */
  validate?: boolean;
  mode?: MdsMode;
  retry?: Partial<RetryPolicy>;
  maxPagesPerHour?: number;
  /** Stops after the current request; the folder stays consistent and the summary says `interrupted`. */
  signal?: AbortSignal;
  onProgress?: (progress: HarvestProgress) => void;
  /** Every byte written goes through this (default: write it all); lets tests fail writes as a full disk does. */
  write?: HarvestWrite;
  /** How long to wait for another harvest's lock on the folder (default a little over the stale time of a killed one's). */
  lockWaitMs?: number;
  /** The manifest is rewritten at most this often while hours finish (default 1000 ms), and always at the end. */
  manifestIntervalMs?: number;
}

/** The coverage of the range at the end of a run. */
export interface HarvestSummary {
  endpoint: MdsHourEndpointId;
  baseUrl: string;
  outDir: string;
  manifestFile: string;
  from: string;
  to: string;
  hours: number;
  /** Hours of the range per status (hours not reached, after an interruption, count in none). */
  coverage: Record<HourStatus, number>;
  /** Hours already done before this run (skipped). */
  skipped: number;
  /** Hours requested by this run. */
  fetched: number;
  /** Hours of the range not reached (the run was stopped). */
  notReached: number;
  /** Items and bytes of the range's done hours, skipped ones included. */
  items: number;
  bytes: number;
  requests: number;
  durationMs: number;
  interrupted: boolean;
  /** Every hour of the range with items or empty. */
  complete: boolean;
  /** The hours that are not done, in order (with why). */
  notDone: { hour: string; status: HourStatus | 'not_reached'; problem?: string }[];
  /** With `validate`: the findings of the hours fetched by this run, added up. */
  conformance?: HarvestConformance;
}

/**
 * Harvests `options.endpoint` from `from` to `to` into `outDir`. Returns the coverage summary; throws
 * PARAMETER_INVALID for a bad range, HARVEST_FOLDER_MISMATCH / HARVEST_MANIFEST_INVALID for a folder
 * of another harvest, HARVEST_FOLDER_IN_USE when another harvest holds it, HARVEST_WRITE_FAILED when
 * it cannot be written, HARVEST_REFUSED on 401/403. In every case the folder stays consistent.
 */
export async function harvestHours(options: HarvestOptions): Promise<HarvestSummary> {
  const hours = hoursOf(options.from, options.to);
  const policy = retryPolicyOf(options.retry);
  const endpoint = findEndpoint('mds', options.endpoint);
  const parameter = endpoint.parameters.find((p) => p.format === 'utc_hour');
  if (!parameter || !(['trips', 'telemetry', 'events_historical'] as string[]).includes(endpoint.id)) {
    throw new MobilityError(
      'PARAMETER_INVALID',
      l10n.t('{0} is not an hour endpoint; harvest trips, telemetry or events_historical.', options.endpoint),
    );
  }
  const baseUrl = normaliseBaseUrl(options.environment.baseUrl, options.environment.name);
  const outDir = path.resolve(options.outDir);
  const write = options.write ?? writeAll;
  const manifestFile = path.join(outDir, MANIFEST_FILE);
  const t0 = performance.now();

  await ensureFolder(outDir);
  const lock = await lockHarvestFolder(outDir, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, options.signal);
  try {
    const { manifest, originalText } = await openManifest(
      manifestFile,
      options.endpoint,
      baseUrl,
      endpoint.pathTemplate,
      parameter.name,
      hours,
    );
    const endpointDir = path.join(outDir, options.endpoint);
    await ensureFolder(endpointDir);
    const before = JSON.stringify(manifest);
    await reconcile(outDir, endpointDir, manifest);
    if (options.validate) manifest.validatedMode = options.mode ?? 'micromobility';
    // A manifest is written only when it has news: a run that skips every hour leaves it as it was.
    let dirty = before !== originalText || JSON.stringify(manifest) !== before;
    // Throttled from the start, so a run shorter than the interval writes it once, at the end: each
    // write costs three fsyncs. A crash loses at most the records of the last interval, and the
    // files of those hours are then removed and fetched again (see reconcile).
    let lastWrite = performance.now();
    const saveManifest = async (force: boolean) => {
      const lost = lock.lost();
      if (lost)
        throw new MobilityError(
          'HARVEST_FOLDER_IN_USE',
          l10n.t('{0} Nothing more is written; run again once no other harvest uses {1}.', lost, outDir),
        );
      if (!dirty || (!force && performance.now() - lastWrite < (options.manifestIntervalMs ?? 1000))) return;
      manifest.updatedAt = new Date().toISOString();
      // The hour files' renames are on disk before the manifest that records them replaces the old
      // one: the folder is flushed while the new manifest is written to its temporary file.
      await writeFileAtomically(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, write, () =>
        syncFolder(endpointDir),
      );
      lastWrite = performance.now();
      dirty = false;
    };

    const isDone = (hour: string) => DONE_STATUSES.includes(manifest.hours[hour]?.status);
    const doneAtStart = hours.filter(isDone).length;
    const meter = new ProgressMeter(
      options.endpoint,
      hours.length,
      doneAtStart,
      options.client.issuer.clock.precision,
      options.onProgress,
    );
    const runTally = options.validate ? new ConformanceTally(options.endpoint, options.mode) : undefined;
    let requests = 0;
    let fetched = 0;
    let interrupted = false;
    // Hours fetched whose files are still being flushed and renamed (the disk works while the next
    // hour is requested), oldest first. An hour is recorded only once its file is on disk, and in
    // the order of the range; every exit path waits for them (see settleAll) before the manifest's
    // last write and before the lock is released.
    const flushing: {
      hour: string;
      record: HourRecord;
      committed: Promise<MobilityError | undefined>;
      settled: boolean;
    }[] = [];
    const record = (hour: string, rec: HourRecord) => {
      fetched++;
      requests += rec.requests;
      manifest.hours[hour] = rec;
      dirty = true;
      if (rec.conformance) runTally?.addSummary(rec.conformance);
      meter.hourDone(hour, rec);
    };
    /** Records the oldest hour in flight once its file is on disk; throws the error when that failed. */
    const settleOldest = async () => {
      const next = flushing[0];
      const error = await next.committed;
      flushing.shift();
      if (error) throw error;
      record(next.hour, next.record);
    };
    /** Waits for every hour in flight and records those whose file made it; the first failure, if any. */
    const settleAll = async (): Promise<Error | undefined> => {
      let first: Error | undefined;
      while (flushing.length) await settleOldest().catch((err: unknown) => (first ??= asError(err)));
      return first;
    };

    meter.start();
    let failure: Error | undefined;
    try {
      for (const hour of hours) {
        if (isDone(hour)) continue;
        if (options.signal?.aborted) {
          interrupted = true;
          break;
        }
        const file = hourFileOf(options.endpoint, hour);
        let outcome: HourOutcome;
        try {
          outcome = await harvestHour({
            client: options.client,
            environment: options.environment,
            credential: options.credential,
            endpoint: options.endpoint,
            hour,
            request: buildEndpointRequest(
              'mds',
              options.endpoint,
              { [parameter.name]: hour },
              { headers: options.headers },
            ),
            target: path.join(outDir, ...file.split('/')),
            file,
            policy,
            write,
            maxPages: options.maxPagesPerHour ?? DEFAULT_MAX_PAGES_PER_HOUR,
            validate: options.validate === true,
            mode: options.mode,
            signal: options.signal,
            onEvent: (event) => meter.hourEvent(hour, event),
          });
        } catch (err) {
          // The hours before this one are recorded first (the manifest keeps the range's order).
          const flushFailure = await settleAll();
          const refused = refusedRecordOf(err);
          if (refused) {
            manifest.hours[hour] = refused;
            dirty = true;
            requests += refused.requests;
            if (!flushFailure) await saveManifest(true);
          }
          if (flushFailure) throw flushFailure;
          if (isCancelled(err)) {
            interrupted = true;
            break;
          }
          throw err;
        }
        if (outcome.committed || flushing.length > 0) {
          const entry = {
            hour,
            record: outcome.record,
            committed: outcome.committed ?? Promise.resolve(undefined),
            settled: !outcome.committed,
          };
          void entry.committed.then(() => (entry.settled = true));
          flushing.push(entry);
        } else {
          record(hour, outcome.record);
        }
        // Record what is already on disk; wait for the oldest only when too many are in flight.
        while (flushing.length > 0 && (flushing[0].settled || flushing.length > MAX_HOURS_FLUSHING))
          await settleOldest();
        await saveManifest(false);
      }
    } catch (err) {
      failure = asError(err);
    }
    // Whatever stopped the run, the hours finished so far are recorded (a failed write is reported by the caller).
    const flushFailure = await settleAll();
    failure ??= flushFailure;
    // A manifest that cannot be written leaves the hours since the last write unrecorded (their files are on
    // disk; a rerun fetches them again), so it fails the run unless something failed first.
    const manifestFailure: unknown = await saveManifest(true).then(
      () => undefined,
      (err: unknown) => err,
    );
    failure ??= manifestFailure === undefined ? undefined : asError(manifestFailure);
    if (failure) throw failure;
    meter.finish();
    return summarise({
      manifest,
      hours,
      outDir,
      manifestFile,
      skipped: doneAtStart,
      fetched,
      requests,
      interrupted,
      durationMs: performance.now() - t0,
      conformance: runTally?.summary(),
    });
  } finally {
    await lock.release();
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function summarise(run: {
  manifest: HarvestManifest;
  hours: string[];
  outDir: string;
  manifestFile: string;
  skipped: number;
  fetched: number;
  requests: number;
  interrupted: boolean;
  durationMs: number;
  conformance?: HarvestConformance;
}): HarvestSummary {
  const { manifest, hours } = run;
  const coverage: Record<HourStatus, number> = { items: 0, empty: 0, not_found: 0, pending: 0, failed: 0 };
  const notDone: HarvestSummary['notDone'] = [];
  let items = 0;
  let bytes = 0;
  let notReached = 0;
  for (const hour of hours) {
    const record = manifest.hours[hour];
    if (!record) {
      notReached++;
      notDone.push({ hour, status: 'not_reached' });
      continue;
    }
    coverage[record.status]++;
    if (DONE_STATUSES.includes(record.status)) {
      items += record.items;
      bytes += record.bytes;
    } else {
      notDone.push({ hour, status: record.status, ...(record.problem ? { problem: record.problem } : {}) });
    }
  }
  return {
    endpoint: manifest.endpoint,
    baseUrl: manifest.baseUrl,
    outDir: run.outDir,
    manifestFile: run.manifestFile,
    from: hours[0],
    to: hours[hours.length - 1],
    hours: hours.length,
    coverage,
    skipped: run.skipped,
    fetched: run.fetched,
    notReached,
    items,
    bytes,
    requests: run.requests,
    durationMs: Math.round(run.durationMs),
    interrupted: run.interrupted,
    complete: notDone.length === 0,
    notDone,
    ...(run.conformance ? { conformance: run.conformance } : {}),
  };
}
