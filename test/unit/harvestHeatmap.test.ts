import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HarvestManifest } from '../../src/core/harvest/harvestManifest';
import { harvestHours } from '../../src/core/harvest/harvestRun';
import { harvestHeatmapView } from '../../src/results/analysis/harvestHeatmap';
import { harvestHourView, parseHourLines } from '../../src/results/analysis/harvestHourView';
import type { HeatmapCellView } from '../../src/shared/harvestViews';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { SyntheticFleet } from '../../src/sandbox/world/syntheticFleet';
import { HarvestSession } from '../../src/vscode/panel/harvestPanel';
import { clientOn, demoCredential, mdsEnvironment, readManifest } from './harvestSupport';

const NOW = Date.UTC(2025, 10, 5, 15, 37, 12);
// The sandbox's clock starts at NOW when this file's tests start (set again in `before`), not when mocha loads the
// file: a unit layer slowed down by load reached this file 25 minutes after loading it, when 16:00 had become the
// current hour (202) and 15:00 a past one, and four tests failed on the hours they expect.
let T0 = Date.now();
const now = () => NOW + (Date.now() - T0);
const FLEET = { fleetSize: 4, seed: 11 };
const FROM = '2025-11-04T18';
const TO = '2025-11-05T17';
const RETRIED = '2025-11-04T20';
const BROKEN = '2025-11-04T21';
const hourMs = (hour: string) => Date.parse(`${hour}:00:00Z`);

/**
 * The heatmap view model from manifests written by the real harvest engine against the sandbox: a
 * small fleet (hours with trips and hours without), the current hour (202), future hours (404), an
 * hour that answers 500 once and then 200, and one that answers 500 every time.
 */
describe('harvest heatmap view model (from real manifests)', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let manifest: HarvestManifest;
  const truth = new SyntheticFleet({ size: FLEET.fleetSize, seed: FLEET.seed, createdAt: NOW });
  const cellOf = (hour: string): HeatmapCellView => {
    const view = harvestHeatmapView({ endpoint: 'trips', from: FROM, to: TO, hours: manifest.hours });
    const cell = view.days.flatMap((d) => d.cells).find((c) => c.hour === hour);
    assert.ok(cell, `a cell for ${hour}`);
    return cell;
  };

  before(async () => {
    T0 = Date.now();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harvest-heatmap-'));
    sandbox = await startSandbox({
      ...FLEET,
      now,
      faults: [
        { endpoint: 'trips', hour: RETRIED, status: 500, times: 1 },
        { endpoint: 'trips', hour: BROKEN, status: 500, times: 1000 },
      ],
    });
    const summary = await harvestHours({
      client: clientOn(now),
      environment: mdsEnvironment(sandbox),
      credential: demoCredential(sandbox),
      endpoint: 'trips',
      from: FROM,
      to: TO,
      outDir: dir,
      retry: { backoffBaseMs: 5, maxRetries: 2 },
    });
    assert.equal(summary.hours, 24);
    manifest = readManifest(dir);
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lays the range out as days × 24 UTC hours; hours of the first and last day outside the range are marked so', () => {
    const view = harvestHeatmapView({ endpoint: 'trips', from: FROM, to: TO, hours: manifest.hours });
    assert.deepEqual(
      view.days.map((d) => d.day),
      ['2025-11-04', '2025-11-05'],
    );
    for (const day of view.days)
      assert.deepEqual(
        day.cells.map((c) => c.hour.slice(11)),
        Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')),
      );
    const outside = view.days
      .flatMap((d) => d.cells)
      .filter((c) => c.state === 'outside')
      .map((c) => c.hour);
    assert.equal(outside.length, 24, '18 hours before 18:00 on the first day, 6 after 17:00 on the last');
    assert.ok(
      outside.includes('2025-11-04T17') &&
        outside.includes('2025-11-05T18') &&
        !outside.includes(FROM) &&
        !outside.includes(TO),
    );
  });

  it('colours every hour by its outcome in the manifest: items, empty, 404, 202, failed', () => {
    const view = harvestHeatmapView({ endpoint: 'trips', from: FROM, to: TO, hours: manifest.hours });
    const byHour = new Map(view.days.flatMap((d) => d.cells).map((c) => [c.hour, c]));
    for (const [hour, record] of Object.entries(manifest.hours))
      assert.equal(byHour.get(hour)?.state, record.status, hour);
    // The sandbox's own world says which past hours have trips.
    for (let t = hourMs(FROM); t < hourMs('2025-11-05T15'); t += 3_600_000) {
      const hour = new Date(t).toISOString().slice(0, 13);
      if (hour === BROKEN) continue;
      const trips = truth.world.countTripsEndingIn(t);
      assert.equal(byHour.get(hour)?.state, trips > 0 ? 'items' : 'empty', hour);
      if (trips > 0) assert.equal(byHour.get(hour)?.text, String(trips));
    }
    assert.equal(byHour.get('2025-11-05T15')?.state, 'pending', 'the current hour is still 202');
    assert.equal(byHour.get('2025-11-05T15')?.text, '202');
    for (const hour of ['2025-11-05T16', '2025-11-05T17'])
      assert.deepEqual([byHour.get(hour)?.state, byHour.get(hour)?.text], ['not_found', '404']);
    assert.deepEqual([byHour.get(BROKEN)?.state, byHour.get(BROKEN)?.text], ['failed', '500']);
    const states = new Set(view.days.flatMap((d) => d.cells).map((c) => c.state));
    for (const state of ['items', 'empty', 'not_found', 'pending', 'failed'] as const)
      assert.ok(states.has(state), `some hour is ${state}`);
  });

  it('counts the outcomes in the legend and the summary line, items of the done hours added up', () => {
    const view = harvestHeatmapView({ endpoint: 'trips', from: FROM, to: TO, hours: manifest.hours });
    const counts = Object.fromEntries(view.legend.map((l) => [l.state, l.count]));
    const statuses = Object.values(manifest.hours).map((r) => r.status);
    const count = (s: string) => statuses.filter((x) => x === s).length;
    assert.deepEqual(counts, {
      items: count('items'),
      empty: count('empty'),
      not_found: 2,
      pending: 1,
      failed: 1,
      fetching: 0,
      not_fetched: 0,
    });
    const items = Object.values(manifest.hours).reduce((n, r) => n + r.items, 0);
    assert.equal(view.items, items);
    assert.ok(items > 0);
    assert.equal(
      view.line,
      `24 hours: ${count('items')} hours with items (${items.toLocaleString('en-US')} trips), ${count('empty')} empty, 2 not found (404), 1 pending (202), 1 failed`,
    );
    assert.deepEqual(
      view.legend.map((l) => l.label),
      [
        'With items',
        '200 but empty',
        '404 not found',
        '202 still pending',
        'Failed',
        'Fetching now',
        'Not yet fetched',
      ],
    );
  });

  it('gives each hour its detail on hover: status, item count, bytes, attempts, time; a retried hour says 2 attempts', () => {
    const retried = cellOf(RETRIED);
    const record = manifest.hours[RETRIED];
    assert.equal(record.attempts, 2, 'the engine retried after the 500');
    assert.equal(retried.state, record.items > 0 ? 'items' : 'empty');
    assert.match(retried.detail, /^2025-11-04 20:00–21:00 UTC\n/);
    assert.match(retried.detail, /\nHTTP status: 200\n/);
    assert.match(retried.detail, new RegExp(`\\nTrips: ${record.items}\\n`));
    assert.match(retried.detail, /\nBytes: \d/);
    assert.match(retried.detail, /\nAttempts: 2\n/);
    assert.match(retried.detail, /\nFetched: 2\d{3}-\d\d-\d\d \d\d:\d\d:\d\dZ in [\d,]+ ms$/);
    const broken = cellOf(BROKEN);
    assert.match(broken.label, /^2025-11-04 21:00–22:00 UTC: failed with 500: /);
    for (const cell of harvestHeatmapView({
      endpoint: 'trips',
      from: FROM,
      to: TO,
      hours: manifest.hours,
    }).days.flatMap((d) => d.cells)) {
      if (/\w/.test(cell.text))
        assert.ok(
          cell.label.includes(cell.text),
          `the accessible name "${cell.label}" holds the text shown, "${cell.text}"`,
        );
    }
    assert.match(broken.detail, /\nAttempts: 3\n/, 'the first request and two retries');
    const pending = cellOf('2025-11-05T15');
    assert.match(pending.label, /202 still pending/);
    assert.match(pending.detail, /\nRetry-After: \d+ s\n/);
    assert.equal(cellOf('2025-11-05T16').canShow, false);
    assert.equal(retried.canShow, true);
  });

  it('shows hours not fetched yet and the one in flight while a harvest runs', () => {
    const some = Object.fromEntries(Object.entries(manifest.hours).filter(([h]) => h < '2025-11-04T22'));
    const view = harvestHeatmapView({ endpoint: 'trips', from: FROM, to: TO, hours: some, fetching: '2025-11-04T22' });
    const cells = view.days.flatMap((d) => d.cells);
    assert.equal(cells.find((c) => c.hour === '2025-11-04T22')?.state, 'fetching');
    assert.equal(cells.find((c) => c.hour === '2025-11-04T23')?.state, 'not_fetched');
    assert.equal(cells.find((c) => c.hour === '2025-11-04T23')?.label, '2025-11-04 23:00–24:00 UTC: not yet fetched');
    assert.equal(view.legend.find((l) => l.state === 'not_fetched')?.count, 24 - 4 - 1);
    assert.match(view.line, /, 20 not yet fetched$/);
  });

  it("reads an hour's items from its NDJSON file into the trips table; a 404 hour says why it has none", () => {
    const hour = Object.entries(manifest.hours).find(([, r]) => r.status === 'items')?.[0];
    assert.ok(hour);
    const record = manifest.hours[hour];
    const text = fs.readFileSync(path.join(dir, 'trips', `${hour}.ndjson`), 'utf8');
    const view = harvestHourView('trips', hour, record, text);
    assert.equal(view.table?.resource, 'trips');
    assert.equal(view.table?.count, record.items);
    const ids = view.table?.columns.find((c) => c.id === 'tripId');
    assert.ok(ids && ids.type === 'text');
    assert.deepEqual(
      ids.values,
      text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { trip_id: string }).trip_id),
    );
    assert.match(view.line, new RegExp(`: ${record.items} trips? \\(`));
    const missing = harvestHourView('trips', '2025-11-05T16', manifest.hours['2025-11-05T16'], undefined);
    assert.equal(missing.table, undefined);
    assert.match(missing.line, /404 not found; no trips were written/);
    assert.deepEqual(parseHourLines('{"a":1}\nnot json\n{"b":2}'), { items: [{ a: 1 }, { b: 2 }], badLines: 1 });
  });

  it("after a reload, rebuilds the heatmap from the folder's manifest (not running) and reads an hour's items again", async () => {
    const environment = {
      id: 'sandbox-mds',
      name: 'Sandbox',
      api: 'mds' as const,
      apiLabel: 'MDS',
      stage: 'sandbox',
      baseUrl: 'http://127.0.0.1:1/mds',
    };
    const origin = { environment, endpoint: 'trips', outDir: dir, from: FROM, to: TO };
    const posted: unknown[] = [];
    const session = HarvestSession.restored(origin, 'Trips', 42, 'r1', (m) => posted.push(m));
    assert.ok(session);
    assert.equal(session.view.running, false);
    assert.equal(session.view.createdAt, 42);
    assert.deepEqual(session.view.summary.harvest, origin, 'the restored panel persists its origin again');
    const states = Object.fromEntries(
      session.view.heatmap.days
        .flatMap((d) => d.cells)
        .filter((c) => c.state !== 'outside')
        .map((c) => [c.hour, c.state]),
    );
    assert.deepEqual(states, Object.fromEntries(Object.entries(manifest.hours).map(([h, r]) => [h, r.status])));
    const withItems = Object.entries(manifest.hours).find(([, r]) => r.status === 'items');
    assert.ok(withItems);
    const message = await session.hourMessage(withItems[0]);
    assert.ok(
      message.type === 'harvestHour' && message.hour.table?.count === withItems[1].items,
      "the hour's items, read from its file",
    );
    assert.equal(session.view.analysisFolder, dir, "one endpoint's harvest: Analyze Harvest opens its folder");
    // One endpoint's subfolder of a harvest of several: Analyze Harvest opens the whole harvest, after a reload too.
    const whole = path.dirname(dir);
    const part = HarvestSession.restored({ ...origin, harvestFolder: whole }, 'Trips', 42, 'r5', () => undefined);
    assert.equal(part?.view.analysisFolder, whole);
    assert.equal(part?.view.summary.harvest?.harvestFolder, whole, 'persisted with the panel');
    assert.equal(
      HarvestSession.restored({ ...origin, endpoint: 'vehicles' }, 'x', 0, 'r2', () => undefined),
      undefined,
      'not an hour endpoint',
    );
    assert.equal(
      HarvestSession.restored({ ...origin, outDir: path.join(dir, 'moved-away') }, 'x', 0, 'r3', () => undefined),
      undefined,
      'no manifest there',
    );
    assert.equal(
      HarvestSession.restored({ ...origin, endpoint: 'telemetry' }, 'x', 0, 'r4', () => undefined),
      undefined,
      'the folder holds another endpoint',
    );
  });

  it('shows a large count short in the cell and exact in its name and hover', () => {
    const record = { ...manifest.hours[RETRIED], status: 'items' as const, items: 12_345 };
    const view = harvestHeatmapView({
      endpoint: 'events_historical',
      from: RETRIED,
      to: RETRIED,
      hours: { [RETRIED]: record },
    });
    const cell = view.days[0].cells.find((c) => c.hour === RETRIED);
    assert.equal(cell?.text, '12k');
    assert.equal(cell?.label, '2025-11-04 20:00–21:00 UTC: 12,345 events (shown as 12k)');
    assert.match(cell?.detail ?? '', /\nEvents: 12,345\n/);
    assert.equal(
      view.line,
      '1 hour: 1 hour with items (12,345 events), 0 empty, 0 not found (404), 0 pending (202), 0 failed',
    );
  });
});

describe('harvest messages from the webview', () => {
  it('accepts an hour to show and "Fetch hours", and drops anything else', () => {
    assert.deepEqual(
      parseWebviewMessage({ type: 'showHarvestHour', resultId: 'r1', hour: '2025-11-04T20', extra: 1 }),
      { type: 'showHarvestHour', resultId: 'r1', hour: '2025-11-04T20' },
    );
    assert.deepEqual(parseWebviewMessage({ type: 'fetchHours', resultId: 'r1' }), {
      type: 'fetchHours',
      resultId: 'r1',
    });
    for (const hour of ['2025-11-04', '../../etc/passwd', '2025-11-04T20/../x', 42, undefined]) {
      assert.equal(parseWebviewMessage({ type: 'showHarvestHour', resultId: 'r1', hour }), undefined, String(hour));
    }
    assert.equal(parseWebviewMessage({ type: 'fetchHours' }), undefined);
  });
});
