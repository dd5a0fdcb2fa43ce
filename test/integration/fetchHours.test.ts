import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { HOUR_MS, floorToUtcHour, formatUtcHour } from '../../src/core/mds/utcHour';
import { answerUntilReturned, run } from './extensionApi';
import type { Outcome } from './extensionApi';

type FetchOutcome = Outcome & {
  endpoint?: string;
  outDir?: string;
  from?: string;
  to?: string;
  hours?: number;
  coverage?: Record<string, number>;
  items?: number;
  fetched?: number;
  skipped?: number;
  interrupted?: boolean;
  complete?: boolean;
  endpoints?: { endpoint: string; outDir: string; complete: boolean }[];
  snapshot?: { folder: string; vehicles: number; vehiclesStatus: number };
};

interface ManifestOnDisk {
  format: string;
  formatVersion: number;
  endpoint: string;
  baseUrl: string;
  hours: Record<string, { status: string; items: number; bytes: number; file?: string }>;
}

const fetchHours = (args: unknown) => run<FetchOutcome>('mobilityApi.fetchHours', args);
const readManifest = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestOnDisk;

/** Fetch Hours… in the extension host, against the extension's own sandbox, with the range and folder given as arguments. */
describe('Fetch Hours…', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-fetch-hours-'));

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await run('mobilityApi.stopSandbox');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fetches every hour of the range into the CLI folder format: past hours 200, the current one 202, a future one 404', async () => {
    const current = floorToUtcHour(Date.now());
    const from = formatUtcHour(current - 3 * HOUR_MS);
    // Two hours ahead, not one: the run can cross an hour boundary between here and the harvest, and the next hour
    // would then be the current one (202), not a future one (404).
    const to = formatUtcHour(current + 2 * HOUR_MS);
    const outDir = path.join(dir, 'trips');
    const r = await fetchHours({ environmentId: 'sandbox-mds-staging', endpointId: 'trips', from, to, outDir });
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(
      {
        endpoint: r.endpoint,
        from: r.from,
        to: r.to,
        hours: r.hours,
        interrupted: r.interrupted,
        fetched: r.fetched,
        skipped: r.skipped,
      },
      { endpoint: 'trips', from, to, hours: 6, interrupted: false, fetched: 6, skipped: 0 },
    );
    const manifest = readManifest(outDir);
    assert.equal(manifest.format, 'mobility-api-harvest');
    assert.equal(manifest.endpoint, 'trips');
    assert.match(manifest.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/mds-staging$/);
    for (let t = current - 3 * HOUR_MS; t < current; t += HOUR_MS) {
      const record = manifest.hours[formatUtcHour(t)];
      assert.ok(
        record && ['items', 'empty'].includes(record.status),
        `${formatUtcHour(t)} is done (${record?.status})`,
      );
      const file = path.join(outDir, 'trips', `${formatUtcHour(t)}.ndjson`);
      assert.equal(fs.statSync(file).size, record.bytes, 'the hour file has the size the manifest records');
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      assert.equal(lines.length, record.items);
      for (const line of lines) assert.ok((JSON.parse(line) as { trip_id?: string }).trip_id, 'one trip per line');
    }
    // The current hour answers 202 until it ends (when it ends during the run, its 200 is fine too).
    assert.ok(
      ['pending', 'items', 'empty'].includes(manifest.hours[formatUtcHour(current)]?.status ?? ''),
      `the current hour is ${manifest.hours[formatUtcHour(current)]?.status}`,
    );
    assert.equal(manifest.hours[to]?.status, 'not_found', 'a future hour is 404');
    const next = manifest.hours[formatUtcHour(current + HOUR_MS)]?.status;
    assert.ok(
      next === 'not_found' || (next === 'pending' && floorToUtcHour(Date.now()) > current),
      `the next hour is 404 (or 202 once it has begun): ${next}`,
    );
    assert.equal(r.coverage?.not_found, Object.values(manifest.hours).filter((h) => h.status === 'not_found').length);
    assert.equal(r.complete, false, 'a 404 hour is not done');
    assert.equal(
      r.items,
      Object.values(manifest.hours).reduce((n, h) => n + h.items, 0),
    );
  });

  it('resumes the folder: done hours are skipped, the others are asked again', async () => {
    const outDir = path.join(dir, 'trips');
    const before = readManifest(outDir);
    const done = Object.values(before.hours).filter((h) => h.status === 'items' || h.status === 'empty').length;
    const hours = Object.keys(before.hours).sort();
    const r = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      from: hours[0],
      to: hours[hours.length - 1],
      outDir,
    });
    assert.equal(r.ok, true, r.message);
    assert.equal(r.skipped, done);
    assert.equal(r.fetched, hours.length - done);
  });

  it('harvests telemetry and historical events too, each in its own folder', async () => {
    const hour = formatUtcHour(floorToUtcHour(Date.now()) - 2 * HOUR_MS);
    for (const endpointId of ['telemetry', 'events_historical']) {
      const outDir = path.join(dir, endpointId);
      const r = await fetchHours({ environmentId: 'sandbox-mds-staging', endpointId, from: hour, to: hour, outDir });
      assert.equal(r.ok, true, r.message);
      assert.equal(r.complete, true, `${endpointId} ${hour} is done`);
      assert.equal(readManifest(outDir).endpoint, endpointId);
      assert.ok(fs.existsSync(path.join(outDir, endpointId, `${hour}.ndjson`)));
    }
  });

  it('harvests several endpoints, a subfolder each, and the /vehicles snapshot at the end, as the CLI does', async () => {
    const hour = formatUtcHour(floorToUtcHour(Date.now()) - 2 * HOUR_MS);
    const outDir = path.join(dir, 'several');
    const r = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointIds: ['trips', 'events_historical'],
      snapshot: true,
      from: hour,
      to: hour,
      outDir,
    });
    assert.equal(r.ok, true, r.message);
    assert.equal(r.complete, true);
    assert.deepEqual(
      r.endpoints?.map((e) => [e.endpoint, e.outDir, e.complete]),
      [
        ['trips', path.join(outDir, 'trips'), true],
        ['events_historical', path.join(outDir, 'events'), true],
      ],
    );
    assert.equal(readManifest(path.join(outDir, 'events')).endpoint, 'events_historical');
    assert.equal(r.snapshot?.folder, path.join(outDir, 'snapshot'));
    assert.ok(
      (r.snapshot?.vehicles ?? 0) > 0 && r.snapshot?.vehicles === r.snapshot?.vehiclesStatus,
      JSON.stringify(r.snapshot),
    );
    const lines = fs
      .readFileSync(path.join(outDir, 'snapshot', 'vehicles.ndjson'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, r.snapshot?.vehicles);
    // Each endpoint's heatmap stays on screen, in a tab of its own (one panel showed the last endpoint's only).
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputWebview)
      .map((t) => t.label);
    for (const title of ['Fetch Hours: Trips', 'Fetch Hours: Historical events'])
      assert.ok(
        tabs.some((t) => t.startsWith(title)),
        `a tab "${title} · …": ${JSON.stringify(tabs)}`,
      );
    const twice = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointIds: ['trips', 'trips'],
      from: hour,
      to: hour,
      outDir: path.join(dir, 'twice'),
    });
    assert.deepEqual({ ok: twice.ok, code: twice.code }, { ok: false, code: 'ENDPOINT_UNKNOWN' });
  });

  it('Enter in the endpoint pick with nothing ticked fetches the highlighted endpoint (it ended the command with an error)', async () => {
    const hour = formatUtcHour(floorToUtcHour(Date.now()) - 2 * HOUR_MS);
    const outDir = path.join(dir, 'picked');
    // The cursor on the first endpoint (as the arrows, or a filter, put it), nothing ticked, then Enter.
    const outcome = await answerUntilReturned(
      fetchHours({ environmentId: 'sandbox-mds-staging', from: hour, to: hour, outDir }),
      ['quickInput.first', 'quickInput.accept'],
      'Fetch Hours',
    );
    assert.equal(outcome.ok, true, outcome.message);
    assert.equal(outcome.endpoint, 'trips', 'the endpoint highlighted was taken');
    assert.equal(readManifest(outDir).endpoint, 'trips');
  });

  it('refuses a bad range with what to fix, before anything is written', async () => {
    const outDir = path.join(dir, 'never');
    const typo = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      from: '2025-11-5T7',
      to: '2025-11-05T09',
      outDir,
    });
    assert.deepEqual({ ok: typo.ok, code: typo.code }, { ok: false, code: 'PARAMETER_INVALID' });
    assert.match(String(typo.message), /from "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH/);
    const swapped = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      from: '2025-11-05T09',
      to: '2025-11-05T07',
      outDir,
    });
    assert.deepEqual({ ok: swapped.ok, code: swapped.code }, { ok: false, code: 'PARAMETER_INVALID' });
    assert.match(String(swapped.message), /before the first hour 2025-11-05T09; swap them/);
    assert.equal(fs.existsSync(outDir), false, 'no folder was made');
  });

  it('refuses an endpoint that is not an hour endpoint, and a folder holding another endpoint', async () => {
    const notHourly = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'vehicles',
      from: '2025-11-05T07',
      to: '2025-11-05T07',
      outDir: path.join(dir, 'x'),
    });
    assert.deepEqual({ ok: notHourly.ok, code: notHourly.code }, { ok: false, code: 'ENDPOINT_UNKNOWN' });
    assert.match(
      String(notHourly.message),
      /vehicles is not an hour endpoint\. Fetch Hours works on trips, telemetry, events_historical/,
    );
    const hour = formatUtcHour(floorToUtcHour(Date.now()) - 2 * HOUR_MS);
    const mismatch = await fetchHours({
      environmentId: 'sandbox-mds-staging',
      endpointId: 'trips',
      from: hour,
      to: hour,
      outDir: path.join(dir, 'telemetry'),
    });
    assert.deepEqual({ ok: mismatch.ok, code: mismatch.code }, { ok: false, code: 'HARVEST_FOLDER_MISMATCH' });
  });
});
