// The Data Quality view of the results panel (issue 31) on its own page (the real bundle and CSP, see
// standalonePanelPage.ts) in headless Chromium: the metrics as plots with their text alternatives (a sentence, a
// legend and a table, all text) in the theme's colours; a finding opens its device's timeline by keyboard, a table
// and a plot with the rows the finding names marked, and "Back to the Finding" returns there; a report restored after
// a reload says that it is being made again, or why it could not be, with a button to analyse again. axe-clean.
// Run alone: node esbuild.js --tests && npx mocha --no-config --timeout 300000 out/test/unit/panel/analysisPanel.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Playwright from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type { CheckReport } from '../../../src/core/analysis';
import { DEFAULT_THRESHOLDS } from '../../../src/core/analysis';
import { analysisResultView } from '../../../src/results/analysis/analysisView';
import { analysisTimelineView } from '../../../src/results/analysis/analysisTimeline';
import type { AnalysisResultView } from '../../../src/shared/analysisViews';
import { PERSISTED_STATE_VERSION, parsePersistedState } from '../../../src/shared/protocol';
import { axeViolations, describeViolations } from '../../e2e/panelFrame';
import type { TestServer } from '../support/testServer';
import {
  PANEL_BUNDLE,
  deliverHostMessages as deliver,
  launchPanelBrowser,
  openPanelPage,
  postedMessages,
  startPanelPageServer,
} from './standalonePanelPage';

const T0 = Date.UTC(2026, 10, 20, 8);
const MIN = 60_000;
const DEVICE = 'dddddddd-0000-4000-8000-00000000000a';
const TRIP = 'rrrrrrrr-0000-4000-8000-000000000001';
const iso = (ms: number) => new Date(ms).toISOString();
const hour = (h: number) => iso(T0 + h * 60 * MIN).slice(0, 13);

const REPORT: CheckReport = {
  report_version: '1.0',
  mode: 'micromobility',
  thresholds: DEFAULT_THRESHOLDS,
  folder: '/data/harvest',
  window: { start: iso(T0), end: iso(T0 + 3 * 60 * MIN) },
  items: { trips: 12, events: 40, telemetry: 90, vehicles: 0, vehicles_status: 0 },
  rules: [
    {
      code: 'MDS-TRIP-EVENTS',
      id: 'trip-events',
      title: 'Every trip has its start and end events',
      severity: 'error',
      basis: 'MDS 2.0 provider, Events',
      mds: [],
      doc: 'data-quality.md',
      count: 1,
      findings: [
        {
          device_id: DEVICE,
          trip_id: TRIP,
          time: iso(T0 + 10 * MIN),
          detail: 'no trip_start event of its device with this trip_id within 60 s of its start_time',
        },
      ],
    },
    {
      code: 'MDS-TRIP-PHANTOM',
      id: 'phantom-trips',
      title: 'No phantom trips',
      severity: 'warning',
      basis: 'MDS 2.0 provider, Trips',
      mds: [],
      doc: 'data-quality.md',
      count: 0,
      findings: [],
    },
  ],
  skipped: [
    {
      code: 'MDS-REGISTRY-DEVICE',
      id: 'registry',
      why: 'no snapshot of /vehicles and /vehicles/status in this harvest: harvest with --snapshot',
    },
  ],
};

/** `mobility-api metrics --json`'s hourly rows for three hours. */
const METRICS = [0, 1, 2].map((h) => ({
  hour: hour(h),
  prow_at_hour_end: 10 + h,
  available_at_hour_end: 7 + h,
  non_operational_at_hour_end: 2,
  reserved_at_hour_end: 0,
  on_trip_at_hour_end: 1,
  stopped_at_hour_end: 0,
  non_contactable_at_hour_end: 0,
  trips_started: [4, 9, 2][h],
  trips_ended: [3, 8, 4][h],
  duration_median_s: 300,
  duration_p90_s: 500,
  distance_median_m: 900,
  distance_p90_m: 1500,
  telemetry_points: 30,
}));

/** The worker's timeline rows of the finding (timelineSql's columns), as DuckDB answers them. */
const TIMELINE_ROWS = [
  {
    kind: 'event',
    time: T0 + 5 * MIN,
    end_time: null,
    id: 'e1',
    vehicle_state: 'available',
    event_types: 'located',
    trip_ids: null,
    lat: 52.5,
    lng: 13.4,
    battery_percent: 90,
    duration: null,
    distance: null,
    speed: null,
    marked: false,
    total: 6,
  },
  {
    kind: 'trip',
    time: T0 + 10 * MIN,
    end_time: T0 + 20 * MIN,
    id: TRIP,
    vehicle_state: null,
    event_types: null,
    trip_ids: TRIP,
    lat: 52.5,
    lng: 13.4,
    battery_percent: null,
    duration: 600,
    distance: 2000,
    speed: null,
    marked: true,
    total: 6,
  },
  {
    kind: 'telemetry',
    time: T0 + 10 * MIN,
    end_time: null,
    id: 't1',
    vehicle_state: null,
    event_types: null,
    trip_ids: TRIP,
    lat: 52.5,
    lng: 13.4,
    battery_percent: 88,
    duration: null,
    distance: null,
    speed: 4.2,
    marked: true,
    total: 6,
  },
  {
    kind: 'telemetry',
    time: T0 + 15 * MIN,
    end_time: null,
    id: 't2',
    vehicle_state: null,
    event_types: null,
    trip_ids: TRIP,
    lat: 52.51,
    lng: 13.4,
    battery_percent: 86,
    duration: null,
    distance: null,
    speed: 5.1,
    marked: true,
    total: 6,
  },
  {
    kind: 'event',
    time: T0 + 20 * MIN,
    end_time: null,
    id: 'e2',
    vehicle_state: 'available',
    event_types: 'trip_end',
    trip_ids: TRIP,
    lat: 52.52,
    lng: 13.4,
    battery_percent: 85,
    duration: null,
    distance: null,
    speed: null,
    marked: true,
    total: 6,
  },
  {
    kind: 'event',
    time: T0 + 30 * MIN,
    end_time: null,
    id: 'e3',
    vehicle_state: 'non_operational',
    event_types: 'battery_low',
    trip_ids: null,
    lat: 52.52,
    lng: 13.4,
    battery_percent: 9,
    duration: null,
    distance: null,
    speed: null,
    marked: false,
    total: 6,
  },
];

const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR ?? path.join(process.cwd(), 'test-results', 'panel');
/** A picture of the page for a person to look at (test-results/panel), never compared. */
async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `analysis-${name}.png`), fullPage: true });
}

/** The element with the keyboard focus: its test id (or its nearest one's) and role. */
function focused(page: Page): Promise<{ testid: string; tag: string }> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return {
      testid: el?.getAttribute('data-testid') ?? el?.closest('[data-testid]')?.getAttribute('data-testid') ?? '',
      tag: el?.tagName.toLowerCase() ?? '',
    };
  });
}

/** Presses Tab until the focus is on `testid` (at most `max` times); the presses it took. */
async function tabTo(page: Page, testid: string, max = 80): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)).testid === testid) return i;
  }
  throw new Error(`Tab never reached ${testid}`);
}

describe('results panel: the Data Quality view (standalone page)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let view: AnalysisResultView;

  before(async () => {
    server = await startPanelPageServer(PANEL_BUNDLE);
    const { chromium } = createRequire(__filename)('playwright-core') as typeof Playwright;
    browser = await launchPanelBrowser(chromium);
    view = analysisResultView({ id: 'dq-1', report: REPORT, inUse: [], now: T0, metrics: METRICS });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function showReport(theme: 'dark' | 'light'): Promise<Page> {
    const page = await openPanelPage(browser, server.url, { theme });
    await deliver(page, { type: 'show', panelKey: 'analysis', result: view });
    await page.locator('[data-testid="chart-trips-svg"]').waitFor();
    return page;
  }

  for (const theme of ['dark', 'light'] as const) {
    it(`plots the metrics per hour with text alternatives, in the theme's colours, axe-clean (${theme} theme)`, async () => {
      const page = await showReport(theme);
      const prow = page.locator('[data-testid="chart-prow-svg"]');
      assert.equal(await prow.getAttribute('role'), 'img');
      const summary = (await page.locator('[data-testid="chart-prow-summary"]').textContent()) ?? '';
      assert.equal(
        summary,
        `Vehicles in the public right-of-way at the end of each of 3 hours from ${hour(0)} to ${hour(2)}, by state (from the events): at most 12, at ${hour(2)}; at least 10.`,
      );
      assert.equal(await prow.getAttribute('aria-label'), summary, 'the image is named by the sentence on the page');
      assert.match(
        (await page.locator('[data-testid="chart-trips-summary"]').textContent()) ?? '',
        /^15 trips started and 15 ended in 3 hours .*: 9, at /,
      );
      // Every number is text: the table under each chart, and the legend.
      const cells = await page
        .locator('[data-testid="chart-prow-table"] tbody tr')
        .evaluateAll((rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent)));
      assert.deepEqual(cells, [
        [hour(0), '7', '2', '1', '10'],
        [hour(1), '8', '2', '1', '11'],
        [hour(2), '9', '2', '1', '12'],
      ]);
      assert.match(
        (await page.locator('[data-testid="chart-prow"] .chart-legend').textContent()) ?? '',
        /available: 24 in all/,
      );
      const axis = await page.locator('[data-testid="chart-trips-svg"] text').allTextContents();
      assert.ok(axis.includes('11-20 08h'), `the hours on the axis are text: ${axis.join(', ')}`);
      // Bars coloured by state from the theme's variables, and nothing the CSP blocked.
      const fills = await page.evaluate(() => {
        const fill = (selector: string) => getComputedStyle(document.querySelector(selector) as Element).fill;
        const probe = document.createElement('span');
        probe.className = 'state-available';
        document.body.appendChild(probe);
        const green = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return {
          available: fill('[data-testid="chart-prow-svg"] rect.state-available'),
          nonOperational: fill('[data-testid="chart-prow-svg"] rect.state-non_operational'),
          green,
        };
      });
      assert.equal(fills.available, fills.green, 'available bars in --vscode-charts-green');
      assert.notEqual(fills.nonOperational, fills.available);
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
      await page.evaluate(() =>
        document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')),
      );
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, describeViolations(violations));
      await page.close();
    });
  }

  it("keeps a finding's time on one line in a narrow panel", async () => {
    const page = await openPanelPage(browser, server.url, { theme: 'dark', width: 520 });
    await deliver(page, { type: 'show', panelKey: 'analysis', result: view });
    const lines = await page
      .locator('[data-testid="findings-trip-events"] tbody tr td')
      .first()
      .evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        return {
          text: td.textContent,
          lines: new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size,
        };
      });
    assert.deepEqual(lines, { text: iso(T0 + 10 * MIN), lines: 1 });
    await page.close();
  });

  it("a finding opens its device's timeline by keyboard: the rows in time order in a table and on a plot, the finding's rows marked", async () => {
    const page = await showReport('dark');
    await tabTo(page, 'timeline-trip-events-0');
    await page.keyboard.press('Enter');
    assert.deepEqual(
      (await postedMessages<{ type: string }>(page)).filter((m) => m.type === 'analysisTimeline'),
      [{ type: 'analysisTimeline', resultId: 'dq-1', rule: 'trip-events', index: 0 }],
    );
    assert.equal((await focused(page)).testid, 'timeline-title', 'the keyboard moves to the timeline');
    assert.match(
      (await page.locator('[data-testid="timeline-line"]').textContent()) ?? '',
      /^Reading the device's trips, events and telemetry/,
    );
    assert.equal(
      await page.evaluate(() =>
        document.querySelector('[data-testid="findings-trip-events"]')?.nextElementSibling?.getAttribute('data-testid'),
      ),
      'analysis-timeline',
      "the timeline opens under its finding's table, not at the end of the report",
    );
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { __state: { ui: unknown } }).__state.ui),
      { pageIndex: 0, timeline: { rule: 'trip-events', index: 0 } },
      'the open timeline is remembered for a reload',
    );

    const timeline = analysisTimelineView({
      resultId: 'dq-1',
      rule: 'trip-events',
      index: 0,
      finding: view.rules[0].findings[0],
      rows: TIMELINE_ROWS,
    });
    await deliver(page, { type: 'analysisTimeline', timeline });
    await page.locator('[data-testid="timeline-table"]').waitFor();
    assert.equal(
      await page.locator('[data-testid="timeline-line"]').textContent(),
      `Device ${DEVICE}: 1 trip, 3 events, 2 telemetry points from 2026-11-20 08:05:00Z to 2026-11-20 08:30:00Z; 4 named by the finding.`,
    );
    assert.equal((await focused(page)).testid, 'timeline-title', 'the focus stays on the timeline as it arrives');
    assert.equal(await page.locator('[data-testid="timeline-table"]').getAttribute('aria-rowcount'), '7');
    const rows = await page.locator('[data-testid="timeline-table"] .vt-row').evaluateAll((els) =>
      els
        .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
        .map((el) => ({
          marked: el.classList.contains('vt-marked'),
          cells: Array.from(el.querySelectorAll('[role="gridcell"]'), (c) => c.textContent ?? ''),
        })),
    );
    assert.deepEqual(
      rows.map((r) => r.cells[0]),
      TIMELINE_ROWS.map((r) => `${iso(r.time).replace('T', ' ').replace('.000Z', 'Z')}`),
      'in time order',
    );
    assert.deepEqual(
      rows.map((r) => r.marked),
      TIMELINE_ROWS.map((r) => r.marked),
      "the finding's rows are marked",
    );
    assert.deepEqual(
      rows.map((r) => r.cells[1]),
      TIMELINE_ROWS.map((r) => (r.marked ? 'named by the finding' : '')),
      'and say so in words',
    );
    // The plot: an image named in words, the rings on the finding's events and telemetry, a line at its time.
    const svg = page.locator('[data-testid="timeline-svg"]');
    await svg.waitFor();
    assert.equal(await svg.getAttribute('role'), 'img');
    assert.equal(await svg.getAttribute('aria-label'), `Timeline plot. ${timeline.line}`);
    assert.equal(await page.locator('[data-testid="timeline-svg"] .tl-ring').count(), 3);
    assert.equal(await page.locator('[data-testid="timeline-svg"] .tl-trip.tl-marked').count(), 1);
    assert.equal(await page.locator('[data-testid="timeline-svg"] .tl-finding-line').count(), 1);
    const lanes = await page.locator('[data-testid="timeline-svg"] text').allTextContents();
    for (const lane of ['Trips', 'Events', 'Telemetry'])
      assert.ok(lanes.includes(lane), `the lane ${lane} is labelled in text`);
    await shot(page, 'timeline');
    let violations = await axeViolations(page);
    assert.equal(violations.length, 0, describeViolations(violations));

    // By keyboard: Back to the Finding, then the table's row cursor.
    assert.equal(await tabTo(page, 'timeline-back', 3), 1);
    await tabTo(page, 'timeline-table', 12);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('[data-testid="timeline-table"] .vt-cursor').getAttribute('aria-rowindex'), '3');
    await page.locator('[data-testid="timeline-back"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'timeline-trip-events-0');
    assert.equal(
      (await postedMessages<{ type: string }>(page)).filter((m) => m.type === 'analysisTimeline').length,
      1,
      'the Enter that pressed Back did not open the timeline again',
    );
    assert.equal(await page.locator('[data-testid="analysis-timeline"]').isHidden(), true);
    assert.equal(
      await page.evaluate(() =>
        JSON.stringify((window as unknown as { __state: { ui: { timeline?: unknown } } }).__state.ui.timeline),
      ),
      undefined,
    );

    // An error of the engine is said in words, in place of the timeline.
    await page.keyboard.press('Enter');
    await deliver(page, {
      type: 'analysisTimeline',
      timeline: {
        ...timeline,
        table: undefined,
        marked: undefined,
        kinds: undefined,
        error: 'The analysis engine stopped',
        line: 'The timeline of device x could not be read: The analysis engine stopped',
      },
    });
    await page.locator('[data-testid="timeline-line"].error-text').waitFor();
    assert.equal(await page.locator('[data-testid="timeline-table"]').count(), 0);
    violations = await axeViolations(page);
    assert.equal(violations.length, 0, describeViolations(violations));
    await page.close();
  });

  it('a report restored after a reload is made again, or says why it could not be, with a button to analyse again', async () => {
    const page = await showReport('light');
    const persisted = parsePersistedState(
      await page.evaluate(() => (window as unknown as { __state: unknown }).__state),
    );
    assert.equal(persisted?.version, PERSISTED_STATE_VERSION);
    assert.deepEqual(
      persisted?.summary?.analysis,
      { folder: '/data/harvest' },
      "the persisted state knows the report's folder",
    );
    const summary = persisted?.summary;
    assert.equal(summary?.kind, 'analysis');

    const restored = await openPanelPage(browser, server.url, { theme: 'light' });
    await deliver(restored, { type: 'restore', panelKey: 'analysis', summary, analysis: { state: 'running' } });
    assert.match(
      (await restored.locator('[data-testid="restored"]').textContent()) ?? '',
      /the report is being made again from the folder/,
    );
    assert.equal(await restored.locator('[data-testid="analyze-again"]').count(), 0);
    await deliver(restored, {
      type: 'restore',
      panelKey: 'analysis',
      summary,
      analysis: { state: 'failed', problem: '/data/harvest is not a harvest folder: no such folder.' },
    });
    assert.match(
      (await restored.locator('[data-testid="restored"]').textContent()) ?? '',
      /could not be made again after the reload: \/data\/harvest is not a harvest folder: no such folder\./,
    );
    assert.equal(await restored.locator('[data-testid="result-title"]').textContent(), 'Data quality: harvest');
    await restored.locator('[data-testid="analyze-again"]').click();
    assert.ok((await postedMessages<{ type: string }>(restored)).some((m) => m.type === 'analyzeAgain'));
    const violations = await axeViolations(restored);
    assert.equal(violations.length, 0, describeViolations(violations));
    await page.close();
    await restored.close();
  });
});
