// The Metrics view of the Data Quality panel (issue 40) on its own page (the real bundle and CSP, see
// standalonePanelPage.ts) in headless Chromium: the hourly plots draw an hour the harvest lacks as a gap that says
// "no data"; Compute asks the host; the answer per geography is a map of SVG paths shaded by class, with missing and
// k-suppressed apart from 0, a legend and a table beside it, names from the Geography document as text; the slider
// moves the interval; Save CSV asks the host for the interval shown; without geographies, a line says how to load
// them and each measure is plotted. axe-clean.
// Run alone: node esbuild.js --tests && npx mocha --no-config --timeout 300000 out/test/unit/panel/metricsPanel.test.js
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as Playwright from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type { CheckReport } from '../../../src/core/analysis';
import { CHECK_REPORT_VERSION, DEFAULT_THRESHOLDS } from '../../../src/core/analysis';
import type { OmfMetricsReport } from '../../../src/core/metrics';
import { analysisResultView } from '../../../src/results/analysis/analysisView';
import { metricsMapView } from '../../../src/results/metrics/metricsPanelView';
import type { AnalysisResultView } from '../../../src/shared/analysisViews';
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

const REPORT: CheckReport = {
  report_version: CHECK_REPORT_VERSION,
  folder: '/data/harvest',
  window: { start: '2026-11-20T08:00:00.000Z', end: '2026-11-20T10:00:00.000Z' },
  mode: 'micromobility',
  thresholds: DEFAULT_THRESHOLDS,
  items: { trips: 3, events: 4, telemetry: 0 },
  rules: [],
  skipped: [],
};
const METRICS = [
  { hour: '2026-11-20T08', prow_at_hour_end: 4, available_at_hour_end: 4, trips_started: 2, trips_ended: 1 },
  {
    hour: '2026-11-20T09',
    prow_at_hour_end: null,
    available_at_hour_end: null,
    trips_started: null,
    trips_ended: null,
  },
];
const square = (x0: number, y0: number) => [
  [
    [x0, y0],
    [x0 + 0.1, y0],
    [x0 + 0.1, y0 + 0.1],
    [x0, y0 + 0.1],
    [x0, y0],
  ],
];
const GEOGRAPHIES = {
  source: '/data/geographies.json',
  list: [
    { geography_id: 'g-old', name: 'Old <img src=x onerror=alert(1)> town', polygons: [square(13, 52)] },
    { geography_id: 'g-north', name: 'North', polygons: [square(13, 52.1)] },
    { geography_id: 'g-harbour', name: 'Harbour', polygons: [square(13.1, 52)] },
  ],
};
const OMF: OmfMetricsReport = {
  response: {
    id: 'x',
    query: {
      measures: ['trips.start_loc.count'],
      interval: 'PT1H',
      start_date: '2026-11-20T08:00Z',
      end_date: '2026-11-20T09:00Z',
      dimensions: ['geography_id'],
      timezone: 'UTC',
      k_value: 10,
      filters: [],
    },
    columns: [
      { name: 'interval_start', column_type: 'dimension', data_type: 'datetime' },
      { name: 'geography_id', column_type: 'dimension', data_type: 'string' },
      { name: 'trips.start_loc.count', column_type: 'measure', data_type: 'integer' },
    ],
    rows: [
      ['2026-11-20T08:00Z', 'g-north', 14],
      ['2026-11-20T08:00Z', 'g-old', -1],
      ['2026-11-20T09:00Z', 'g-north', null],
      ['2026-11-20T09:00Z', 'g-old', null],
    ],
  },
  incomplete: [
    {
      interval_start: '2026-11-20T09:00Z',
      measures: ['trips.start_loc.count'],
      hours: [{ hour: '2026-11-20T09 trips', why: 'still 202' }],
    },
  ],
};

describe('results panel: the Metrics view (standalone page)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let view: AnalysisResultView;

  before(async () => {
    server = await startPanelPageServer(PANEL_BUNDLE);
    const { chromium } = createRequire(__filename)('playwright-core') as typeof Playwright;
    browser = await launchPanelBrowser(chromium);
    view = analysisResultView({ id: 'dq-m', report: REPORT, inUse: [], now: Date.UTC(2026, 10, 20), metrics: METRICS });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function show(): Promise<Page> {
    const page = await openPanelPage(browser, server.url, { theme: 'dark' });
    await deliver(page, { type: 'show', panelKey: 'analysis', result: view });
    await page.locator('[data-testid="metrics-view"]').waitFor();
    return page;
  }

  it('draws an hour the harvest lacks as a gap that says "no data", never as 0', async () => {
    const page = await show();
    await page.locator('[data-testid="chart-trips-svg"]').waitFor();
    assert.equal(await page.locator('[data-testid="chart-trips-svg"] rect.chart-gap').count(), 1);
    assert.equal(
      await page.locator('[data-testid="chart-trips-svg"] rect.chart-gap').getAttribute('data-gap'),
      '2026-11-20T09',
    );
    const rows = await page
      .locator('[data-testid="chart-trips-table"] tbody tr')
      .evaluateAll((trs) => trs.map((r) => Array.from(r.children, (c) => c.textContent)));
    assert.deepEqual(rows, [
      ['2026-11-20T08', '2', '1'],
      ['2026-11-20T09', 'no data', 'no data'],
    ]);
    const tip = await page.locator('[data-testid="chart-trips-svg"] rect.chart-hit title').allTextContents();
    assert.match(tip[1], /no data/);
    await page.close();
  });

  it('maps the metrics per geography: shaded by class, missing and k-suppressed apart, a table beside, the slider and Save CSV', async () => {
    const page = await show();
    await page.locator('[data-testid="metrics-compute"]').click();
    const asked = (await postedMessages<{ type: string; resultId?: string; request?: { op: string } }>(page)).filter(
      (m) => m.type === 'metricsView',
    );
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].request, {
      op: 'compute',
      measures: ['dockless.deployed.avg', 'trips.start_loc.count'],
      interval: 'PT1H',
      timeZone: 'UTC',
    });
    await deliver(page, {
      type: 'metricsView',
      answer: { resultId: 'dq-m', view: metricsMapView({ resultId: 'dq-m', report: OMF, geographies: GEOGRAPHIES }) },
    });
    const paths = page.locator('[data-testid="geo-map"] path');
    await paths.first().waitFor();
    const classes = await paths.evaluateAll((ps) =>
      ps.map((p) => [p.getAttribute('data-geography'), p.getAttribute('data-class')]),
    );
    // 14 a class, a count below k written -1 (suppressed), the harbour without trips (0 → -1 too): never the colour of a value.
    assert.deepEqual(classes, [
      ['g-old', 'suppressed'],
      ['g-north', '0'],
      ['g-harbour', 'suppressed'],
    ]);
    assert.equal(await page.locator('[data-testid="geo-map"] img').count(), 0, 'a name is text, not markup');
    assert.match(
      (await page.locator('[data-testid="geo-map"] path title').first().textContent()) ?? '',
      /^Old <img src=x onerror=alert\(1\)> town \(g-old\): trips.start_loc.count fewer than k/,
    );
    const legend = (await page.locator('[data-testid="map-legend"]').textContent()) ?? '';
    assert.match(legend, /no data/);
    assert.match(legend, /fewer than k: suppressed \(-1\), not 0/);
    const cells = async () =>
      page
        .locator('[data-testid="metrics-table"] tbody tr')
        .evaluateAll((trs) => trs.map((r) => Array.from(r.children, (c) => c.textContent)));
    assert.deepEqual(await cells(), [
      ['Old <img src=x onerror=alert(1)> town', 'g-old', 'fewer than k (-1)'],
      ['North', 'g-north', '14'],
      ['Harbour', 'g-harbour', 'fewer than k (-1)'],
    ]);
    // The slider, by keyboard: the next interval is incomplete, every value missing.
    await page.locator('[data-testid="metrics-slider"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="metrics-interval-shown"]')?.textContent === '2026-11-20T09:00Z',
    );
    assert.deepEqual(
      (await cells()).map((r) => r[2]),
      ['no data', 'no data', 'no data'],
    );
    assert.deepEqual(await paths.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-class'))), [
      'missing',
      'missing',
      'missing',
    ]);
    await page.locator('[data-testid="metrics-save-csv"]').click();
    const last = (await postedMessages<{ type: string; request?: unknown }>(page))
      .filter((m) => m.type === 'metricsView')
      .pop();
    assert.deepEqual(last?.request, { op: 'export', format: 'csv', interval: 1, measure: 0 });
    await deliver(page, { type: 'metricsView', answer: { resultId: 'dq-m', status: 'Saved harvest-metrics.csv.' } });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="metrics-status"]')?.textContent === 'Saved harvest-metrics.csv.',
    );
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
      [],
      'nothing the CSP blocked',
    );
    const violations = await axeViolations(page);
    assert.equal(violations.length, 0, describeViolations(violations));
    await page.close();
  });

  it('without geographies: the table and a plot per measure, and a line saying how to load geographies', async () => {
    const page = await show();
    const r = structuredClone(OMF);
    r.response.columns.splice(1, 1);
    r.response.rows = [
      ['2026-11-20T08:00Z', 14],
      ['2026-11-20T09:00Z', null],
    ];
    await deliver(page, {
      type: 'metricsView',
      answer: { resultId: 'dq-m', view: metricsMapView({ resultId: 'dq-m', report: r }) },
    });
    await page.locator('[data-testid="metrics-plots"]').waitFor();
    assert.match(
      (await page.locator('[data-testid="metrics-geographies-line"]').textContent()) ?? '',
      /mobilityApi\.analysis\.geographies .*Choose Geographies/,
    );
    assert.equal(await page.locator('[data-testid="geo-map"]').count(), 0);
    assert.equal(await page.locator('[data-testid="metrics-save-geojson"]').count(), 0);
    assert.equal(
      await page.locator('[data-testid="chart-omf-0-svg"] rect.chart-gap').count(),
      1,
      'the missing interval is a gap',
    );
    await page.close();
  });
});
