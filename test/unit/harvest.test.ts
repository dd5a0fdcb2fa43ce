import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MobilityError } from '../../src/core/base/errors';
import type { HarvestProgress } from '../../src/core/harvest/harvestProgress';
import type { HarvestOptions } from '../../src/core/harvest/harvestRun';
import { harvestHours } from '../../src/core/harvest/harvestRun';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxOptions, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import { clientOn, demoCredential, mdsEnvironment, readHarvest, readManifest, tempFilesUnder } from './harvestSupport';

const HOUR = 3_600_000;
/** The sandbox's "now" starts here and moves with the wall clock, so tokens signed on it stay valid. */
const NOW = Date.UTC(2025, 10, 5, 15, 37, 12);
const T0 = Date.now();
const now = () => NOW + (Date.now() - T0);
const DAY = '2025-11-04';
const hourMs = (hour: string) => Date.parse(`${hour}:00:00Z`);
const hourName = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const fails = (code: string, message?: RegExp) => (e: unknown) =>
  e instanceof MobilityError && e.code === code && (!message || message.test(e.message));
const FAST_RETRY = { backoffBaseMs: 5, max202WaitSeconds: 5 };

describe('harvest: an hour endpoint over a range of hours, against the sandbox', function () {
  this.timeout(60_000);
  const sandboxes: RunningSandbox[] = [];
  let dir: string;
  let folders = 0;
  const outDir = () => path.join(dir, `out-${++folders}`);
  const truth = new SyntheticFleet({ size: 120, seed: 7, createdAt: NOW });

  const start = async (options: SandboxOptions = {}) => {
    const sandbox = await startSandbox({ fleetSize: 120, seed: 7, now, ...options });
    sandboxes.push(sandbox);
    return sandbox;
  };
  /** Harvest options for `sandbox`, signing with its demo credential on the sandbox's clock. */
  const optionsFor = (sandbox: RunningSandbox, extra: Partial<HarvestOptions>): HarvestOptions => ({
    client: clientOn(now),
    environment: mdsEnvironment(sandbox),
    credential: demoCredential(sandbox),
    endpoint: 'trips',
    from: `${DAY}T00`,
    to: `${DAY}T23`,
    outDir: outDir(),
    retry: FAST_RETRY,
    ...extra,
  });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-'));
  });
  after(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('harvests a day of trips: each hour file holds exactly the trips the world ended in that hour, each once', async () => {
    const seen: SandboxRequestLog[] = [];
    const sandbox = await start({ onRequest: (e) => seen.push(e) });
    const progress: HarvestProgress[] = [];
    const options = optionsFor(sandbox, { onProgress: (p) => progress.push(p) });
    const summary = await harvestHours(options);

    const items = readHarvest(options.outDir, 'trips');
    const manifest = readManifest(options.outDir);
    let expectedTotal = 0;
    for (let h = 0; h < 24; h++) {
      const hour = hourName(hourMs(`${DAY}T00`) + h * HOUR);
      const expected = truth.world.countTripsEndingIn(hourMs(hour));
      expectedTotal += expected;
      const inFile = items.filter((i) => i.hour === hour);
      assert.equal(inFile.length, expected, `trips in ${hour}`);
      for (const { item } of inFile)
        assert.ok(
          (item.end_time as number) >= hourMs(hour) && (item.end_time as number) < hourMs(hour) + HOUR,
          `${String(item.trip_id)} ended in ${hour}`,
        );
      const record = manifest.hours[hour];
      assert.equal(record?.status, expected ? 'items' : 'empty', hour);
      assert.equal(record?.items, expected);
      assert.equal(record?.bytes, fs.statSync(path.join(options.outDir, 'trips', `${hour}.ndjson`)).size);
      assert.equal(record?.attempts, 1);
    }
    assert.ok(expectedTotal > 100, `the day has trips (${expectedTotal})`);
    assert.equal(new Set(items.map((i) => i.item.trip_id)).size, items.length, 'no trip is written twice');
    assert.equal(summary.items, expectedTotal);
    assert.equal(summary.complete, true);
    assert.equal(summary.coverage.items + summary.coverage.empty, 24);
    assert.equal(summary.requests, 24);
    assert.equal(seen.filter((e) => e.path.endsWith('/trips')).length, 24, 'one request per hour');
    assert.ok(
      seen.every((e) => e.status === 200),
      'the sandbox accepted every token (each is fresh)',
    );
    assert.equal(manifest.endpoint, 'trips');
    assert.equal(manifest.baseUrl, mdsEnvironment(sandbox).baseUrl);
    assert.ok(!JSON.stringify(manifest).includes('eyJ'), 'no token in the manifest');
    assert.equal(progress.at(-1)?.phase, 'done');
    assert.equal(progress.filter((p) => p.phase === 'hour').at(-1)?.hoursDone, 24);
    assert.equal(
      progress.find((p) => p.phase === 'start')?.notice,
      undefined,
      'no second-precision notice at millisecond precision',
    );

    // Run again: every hour is done, nothing is requested.
    const before = seen.length;
    const again = await harvestHours({ ...options, onProgress: undefined });
    assert.equal(seen.length, before);
    assert.equal(again.skipped, 24);
    assert.equal(again.fetched, 0);
    assert.equal(again.items, expectedTotal);
  });

  it('progress is exact: each hour line counts the items of the hours recorded so far, and a resumed run counts up to its total', async () => {
    const sandbox = await start();
    const first: HarvestProgress[] = [];
    const options = optionsFor(sandbox, { to: `${DAY}T11`, onProgress: (p) => first.push(p) });
    await harvestHours(options);
    const check = (progress: HarvestProgress[], skipped: number, total: number) => {
      const hours = progress.filter((p) => p.phase === 'hour');
      assert.equal(hours.length, total - skipped, 'one hour event per hour fetched');
      let recorded = 0;
      hours.forEach((p, i) => {
        recorded += p.record?.items ?? 0;
        assert.equal(
          p.items,
          recorded,
          `items at ${p.hour}: those of the hours recorded, not of hours still fetched or flushed`,
        );
        assert.equal(p.hoursDone, skipped + i + 1);
        assert.equal(p.hoursTotal, total);
      });
      for (const p of progress)
        assert.ok(p.hoursDone <= p.hoursTotal && p.items <= recorded, `${p.phase} ${p.hour ?? ''} within the total`);
      assert.equal(progress.at(-1)?.hoursDone, total);
      assert.equal(progress.at(-1)?.items, recorded);
    };
    check(first, 0, 12);
    assert.ok((first.at(-1)?.items ?? 0) > 0, 'the morning has trips');
    const second: HarvestProgress[] = [];
    await harvestHours({ ...options, to: `${DAY}T23`, onProgress: (p) => second.push(p) });
    check(second, 12, 24);
  });

  it('waits out a 202 and retries a 500, then records the hour with all its trips', async () => {
    const busy = `${DAY}T14`;
    const flaky = `${DAY}T15`;
    const sandbox = await start({
      faults: [
        { endpoint: 'trips', hour: busy, status: 202, times: 1 },
        { endpoint: 'trips', hour: flaky, status: 500, times: 2 },
      ],
    });
    const waits: HarvestProgress[] = [];
    const options = optionsFor(sandbox, {
      from: busy,
      to: flaky,
      onProgress: (p) => p.phase === 'waiting' && waits.push(p),
    });
    const summary = await harvestHours(options);
    const manifest = readManifest(options.outDir);
    assert.equal(manifest.hours[busy]?.status, 'items');
    assert.equal(manifest.hours[busy]?.attempts, 2);
    assert.equal(manifest.hours[busy]?.items, truth.world.countTripsEndingIn(hourMs(busy)));
    assert.equal(manifest.hours[flaky]?.status, 'items');
    assert.equal(manifest.hours[flaky]?.attempts, 3);
    assert.equal(manifest.hours[flaky]?.items, truth.world.countTripsEndingIn(hourMs(flaky)));
    assert.equal(summary.complete, true);
    assert.match(waits[0]?.reason ?? '', /202 not processed yet, waiting 1 s as the server asks/);
    assert.equal(waits[0]?.waitSeconds, 1);
    assert.match(waits[1]?.reason ?? '', /^500 Internal Server Error: server_error: .*retry 1 of 4/);
  });

  it('records an hour still 202 as pending and one still failing as failed, and the next run retries both', async () => {
    const slow = `${DAY}T10`;
    const broken = `${DAY}T11`;
    const sandbox = await start({
      faults: [
        { endpoint: 'trips', hour: slow, status: 202, times: 2 },
        { endpoint: 'trips', hour: broken, status: 500, times: 2 },
      ],
    });
    const options = optionsFor(sandbox, {
      from: slow,
      to: broken,
      retry: { ...FAST_RETRY, max202Attempts: 2, maxRetries: 1 },
    });
    const first = await harvestHours(options);
    let manifest = readManifest(options.outDir);
    assert.equal(manifest.hours[slow]?.status, 'pending');
    assert.equal(manifest.hours[slow]?.attempts, 2);
    assert.equal(manifest.hours[slow]?.retryAfterSeconds, 1);
    assert.equal(manifest.hours[broken]?.status, 'failed');
    assert.match(manifest.hours[broken]?.problem ?? '', /500 .*1 retry did not help/);
    assert.equal(first.complete, false);
    assert.deepEqual(
      first.notDone.map((h) => [h.hour, h.status]),
      [
        [slow, 'pending'],
        [broken, 'failed'],
      ],
    );
    assert.deepEqual(fs.readdirSync(path.join(options.outDir, 'trips')), [], 'no file for an hour that is not done');

    const second = await harvestHours(options);
    manifest = readManifest(options.outDir);
    assert.equal(second.complete, true);
    assert.equal(second.fetched, 2);
    assert.equal(manifest.hours[slow]?.items, truth.world.countTripsEndingIn(hourMs(slow)));
    assert.equal(manifest.hours[broken]?.items, truth.world.countTripsEndingIn(hourMs(broken)));
  });

  it('records 404 for hours before the world starts and future hours, never as "no trips", and a quiet hour as empty', async () => {
    const sandbox = await start({ historyDays: 1 });
    const worldStart = Date.UTC(2025, 10, 4);
    const quiet = [...Array(24).keys()]
      .map((h) => worldStart + h * HOUR)
      .find((ms) => truth.world.countTripsEndingIn(ms) === 0);
    assert.ok(quiet !== undefined, 'the world has a quiet hour on its first day');
    const options = optionsFor(sandbox, { from: hourName(worldStart - 2 * HOUR), to: hourName(quiet) });
    const summary = await harvestHours(options);
    const manifest = readManifest(options.outDir);
    assert.equal(manifest.hours[hourName(worldStart - 2 * HOUR)]?.status, 'not_found');
    assert.equal(manifest.hours[hourName(worldStart - 1 * HOUR)]?.status, 'not_found');
    assert.equal(manifest.hours[hourName(worldStart - HOUR)]?.httpStatus, 404);
    assert.equal(manifest.hours[hourName(quiet)]?.status, 'empty');
    assert.equal(
      fs.statSync(path.join(options.outDir, 'trips', `${hourName(quiet)}.ndjson`)).size,
      0,
      'an empty hour has an empty file',
    );
    assert.equal(
      fs.existsSync(path.join(options.outDir, 'trips', `${hourName(worldStart - HOUR)}.ndjson`)),
      false,
      'a 404 hour has no file',
    );
    assert.equal(summary.coverage.not_found, 2);
    assert.equal(summary.complete, false);

    const future = optionsFor(sandbox, { from: hourName(now() + HOUR), to: hourName(now() + 2 * HOUR) });
    const ahead = await harvestHours(future);
    assert.equal(ahead.coverage.not_found, 2);
    assert.equal(ahead.items, 0);
    // The current hour answers 202 until it ends (Retry-After: the rest of the hour): pending at once, no waiting.
    const current = await harvestHours(optionsFor(sandbox, { from: hourName(now()), to: hourName(now()) }));
    assert.equal(current.coverage.pending, 1);
    assert.match(current.notDone[0]?.problem ?? '', /asks to wait \d+ s, longer than the 5 s allowed/);
  });

  it('follows every page of a telemetry hour, streaming each to the file', async () => {
    const sandbox = await start({ fleetSize: 600 });
    const big = new SyntheticFleet({ size: 600, seed: 7, createdAt: NOW });
    const hour = `${DAY}T15`;
    let expected = 0;
    for (let v = 0; v < big.size; v++)
      expected += big.world.vehicleTelemetry(v, hourMs(hour), hourMs(hour) + HOUR).length;
    assert.ok(expected > 1000, `more telemetry than one page holds (${expected})`);
    const options = optionsFor(sandbox, { endpoint: 'telemetry', from: hour, to: hour });
    await harvestHours(options);
    const record = readManifest(options.outDir).hours[hour];
    assert.equal(record?.items, expected);
    assert.ok((record?.pages ?? 0) >= 2, `${record?.pages} pages`);
    const items = readHarvest(options.outDir, 'telemetry');
    assert.equal(new Set(items.map((i) => i.item.telemetry_id)).size, expected);
  });

  it('redoes an hour whose file is missing, replaces an hour file the manifest does not know, removes leftovers', async () => {
    const sandbox = await start();
    const options = optionsFor(sandbox, { from: `${DAY}T12`, to: `${DAY}T14` });
    await harvestHours(options);
    const trips = path.join(options.outDir, 'trips');
    fs.rmSync(path.join(trips, `${DAY}T12.ndjson`));
    // A crash after the rename of an hour file and before the manifest write leaves a file without its entry.
    const manifest = readManifest(options.outDir);
    delete manifest.hours[`${DAY}T13`];
    fs.writeFileSync(path.join(options.outDir, 'manifest.json'), JSON.stringify(manifest));
    fs.writeFileSync(path.join(trips, `${DAY}T13.ndjson`), '{"trip_id":"half"}\n{"trip_id":');
    fs.writeFileSync(path.join(trips, `.${DAY}T14.ndjson.999-abcd.tmp`), '{"trip_id":"half"}\n');
    const summary = await harvestHours(options);
    assert.equal(summary.fetched, 2);
    assert.equal(summary.complete, true);
    assert.deepEqual(tempFilesUnder(options.outDir), []);
    const items = readHarvest(options.outDir, 'trips');
    const expected = [12, 13, 14].reduce((n, h) => n + truth.world.countTripsEndingIn(hourMs(`${DAY}T${h}`)), 0);
    assert.equal(items.length, expected);
    assert.equal(new Set(items.map((i) => i.item.trip_id)).size, expected);
  });

  it('refuses a folder holding another endpoint or another base URL, naming both', async () => {
    const sandbox = await start();
    const options = optionsFor(sandbox, { from: `${DAY}T12`, to: `${DAY}T12` });
    await harvestHours(options);
    await assert.rejects(
      harvestHours({ ...options, endpoint: 'telemetry' }),
      fails('HARVEST_FOLDER_MISMATCH', /holds a harvest of trips, not telemetry/),
    );
    const other = await start();
    await assert.rejects(
      harvestHours({ ...optionsFor(other, {}), outDir: options.outDir }),
      fails(
        'HARVEST_FOLDER_MISMATCH',
        new RegExp(`holds a harvest from ${mdsEnvironment(sandbox).baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      ),
    );
    await assert.rejects(
      harvestHours({ ...options, from: `${DAY}T13`, to: `${DAY}T12` }),
      fails('PARAMETER_INVALID', /before the first hour/),
    );
    await assert.rejects(
      harvestHours({ ...options, from: '2025-11-4T13' }),
      fails('PARAMETER_INVALID', /not a UTC hour; write YYYY-MM-DDTHH/),
    );
  });

  it('stops the whole run at a 401 with a clear error, recording the refused hour', async () => {
    const stranger = await start();
    const seen: SandboxRequestLog[] = [];
    const refusing = await start({ onRequest: (e) => seen.push(e) });
    // The other sandbox's demo key is unknown here: every request is 401.
    const options = { ...optionsFor(refusing, {}), credential: demoCredential(stranger) };
    await assert.rejects(
      harvestHours(options),
      fails('HARVEST_REFUSED', /refused the request for 2025-11-04T00 with 401 .*the harvest stopped/),
    );
    assert.equal(seen.length, 1, 'no other hour was requested');
    const manifest = readManifest(options.outDir);
    assert.equal(manifest.hours[`${DAY}T00`]?.status, 'failed');
    assert.equal(manifest.hours[`${DAY}T00`]?.httpStatus, 401);
  });
});
