// The Metrics view's pure logic (issue 40, VS Code side): the map's projection and path data, the legend's class
// breaks with missing (null) and k-suppressed (-1) apart from 0, the view model from a Metrics API response per
// geography, the CSV and GeoJSON exports of what is shown (names escaped as data), the panel's hourly plots keeping
// a missing hour null, and the guard of the webview's requests.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/metricsMap.test.js
import assert from 'node:assert/strict';
import type { OmfMetricsReport } from '../../src/core/metrics';
import { analysisMetricsView } from '../../src/results/analysis/analysisView';
import { metricsCsv, metricsGeoJson } from '../../src/results/metrics/metricsExport';
import { metricsMapView } from '../../src/results/metrics/metricsPanelView';
import {
  bboxOf,
  classBreaks,
  classOf,
  classRanges,
  fitProjection,
  pathData,
} from '../../src/shared/metricsMap/mapMath';
import { metricValue, parseMetricsViewRequest } from '../../src/shared/metricsMap/metricsMapViews';
import { answerMap } from '../../src/shared/metricsMap/answerMap';
import { parseSqlAnswer } from '../../src/shared/sqlAnswer';
import { parseWebviewMessage } from '../../src/shared/protocol';

const square = (x0: number, y0: number, d: number) => [
  [x0, y0],
  [x0 + d, y0],
  [x0 + d, y0 + d],
  [x0, y0 + d],
  [x0, y0],
];
const OLD_TOWN = {
  geography_id: 'g-old',
  name: '=HYPERLINK("x"), "Old" town',
  polygons: [[square(13.0, 52.0, 0.1), square(13.02, 52.02, 0.02)]],
};
const NORTH = { geography_id: 'g-north', name: 'North <b>district</b>', polygons: [[square(13.0, 52.1, 0.1)]] };
const EMPTY = { geography_id: 'g-empty', name: 'Harbour', polygons: [[square(13.1, 52.0, 0.1)]] };

/** A Metrics API response per geography: two hours, the second incomplete for the trips; g-empty has no row. */
function report(k = 10): OmfMetricsReport {
  return {
    response: {
      id: 'x',
      query: {
        measures: ['dockless.deployed.avg', 'trips.start_loc.count'],
        interval: 'PT1H',
        start_date: '2026-11-20T08:00Z',
        end_date: '2026-11-20T09:00Z',
        dimensions: ['geography_id'],
        timezone: 'UTC',
        k_value: k,
        filters: [],
      },
      columns: [
        { name: 'interval_start', column_type: 'dimension', data_type: 'datetime' },
        { name: 'geography_id', column_type: 'dimension', data_type: 'string' },
        { name: 'dockless.deployed.avg', column_type: 'measure', data_type: 'float' },
        { name: 'trips.start_loc.count', column_type: 'measure', data_type: 'integer' },
      ],
      rows: [
        ['2026-11-20T08:00Z', 'g-north', 3.5, 12],
        ['2026-11-20T08:00Z', 'g-old', 0, -1],
        ['2026-11-20T09:00Z', 'g-north', 4.25, null],
        ['2026-11-20T09:00Z', 'g-old', 1, null],
      ],
    },
    incomplete: [
      {
        interval_start: '2026-11-20T09:00Z',
        measures: ['trips.start_loc.count'],
        hours: [{ hour: '2026-11-20T10 trips', why: 'still 202' }],
      },
    ],
  };
}

const geographies = { source: '/data/geographies.json', list: [OLD_TOWN, NORTH, EMPTY] };

describe('metrics map: projection and paths', () => {
  it('fits the geographies in the box, north up, keeping their shape', () => {
    const box = bboxOf([...OLD_TOWN.polygons, ...NORTH.polygons, ...EMPTY.polygons]);
    assert.deepEqual(box, [13.0, 52.0, 13.2, 52.2]);
    const project = fitProjection(box, 400, 300, 10);
    const [xw, yn] = project(13.0, 52.2);
    const [xe, ys] = project(13.2, 52.0);
    for (const v of [xw, xe]) assert.ok(v >= 10 - 1e-9 && v <= 390 + 1e-9, `x ${v} inside`);
    for (const v of [yn, ys]) assert.ok(v >= 10 - 1e-9 && v <= 290 + 1e-9, `y ${v} inside`);
    assert.ok(yn < ys, 'north is up');
    // At 52° a degree of longitude is cos(52°) of a degree of latitude: the box is narrower than tall.
    assert.ok(Math.abs((xe - xw) / (ys - yn) - Math.cos((52.1 * Math.PI) / 180)) < 1e-9);
  });

  it('draws each ring as a closed subpath, holes included, and skips what is not a ring', () => {
    const d = pathData(
      [
        ...OLD_TOWN.polygons,
        [
          [
            [13, 52],
            [13.1, 52],
          ],
        ],
      ],
      fitProjection([13, 52, 13.1, 52.1], 100, 100, 0),
    );
    assert.equal(d.match(/M/g)?.length, 2, 'the outer ring and its hole');
    assert.equal(d.match(/Z/g)?.length, 2);
    assert.ok(!/NaN|Infinity/.test(d));
  });
});

describe('metrics map: classes and legend', () => {
  it('never counts missing or k-suppressed as a value, and keeps 0 a value', () => {
    const values = [null, -1, 0, 0, 1, 2, 3, 8, 20, null];
    const breaks = classBreaks(values, true);
    assert.equal(breaks[0], 0, 'the least class starts at 0, not at -1');
    assert.ok(
      breaks.length <= 5 && breaks.every((b, i) => i === 0 || b > breaks[i - 1]),
      'ascending, distinct, at most 5',
    );
    assert.deepEqual(classOf(null, breaks, true), { kind: 'missing' });
    assert.deepEqual(classOf(-1, breaks, true), { kind: 'suppressed' });
    assert.deepEqual(classOf(0, breaks, true), { kind: 'class', index: 0 });
    assert.deepEqual(classOf(20, breaks, true), { kind: 'class', index: breaks.length - 1 });
    // On a measure that is not a count, -1 is a value like any other.
    assert.deepEqual(classOf(-1, classBreaks([-1, 5], false), false), { kind: 'class', index: 0 });
    assert.deepEqual(classBreaks([null, -1], true), [], 'nothing to classify');
    assert.deepEqual(classRanges([2, 4, 6], [2, 4, 6], false), [
      [2, 2],
      [2, 4],
      [4, 6],
    ]);
  });
});

describe('metrics map: the view and its exports', () => {
  it('lays the response out by interval, geography and measure; a geography without a row is a suppressed count, an incomplete interval null', () => {
    const view = metricsMapView({ resultId: 'r', report: report(), geographies });
    assert.deepEqual(
      view.places.map((p) => p.id),
      ['g-old', 'g-north', 'g-empty'],
    );
    assert.deepEqual(view.intervals, ['2026-11-20T08:00Z', '2026-11-20T09:00Z']);
    assert.equal(metricValue(view, 0, 1, 1), 12);
    assert.equal(metricValue(view, 0, 0, 1), -1, 'k-suppressed stays -1');
    assert.equal(metricValue(view, 0, 2, 1), -1, 'no trips in g-empty: 0, below k: -1');
    assert.equal(metricValue(view, 0, 2, 0), null, 'no row for a non-count: no value');
    assert.equal(metricValue(view, 1, 2, 1), null, 'the incomplete interval is missing, not 0 or -1');
    assert.equal(metricValue(view, 1, 1, 0), 4.25);
    assert.equal(view.shapes?.length, 3);
    assert.equal(
      metricsMapView({ resultId: 'r', report: report(0), geographies }).values[(0 * 3 + 2) * 2 + 1],
      0,
      'k 0: a count without a row is 0',
    );
  });

  it('exports the table of an interval as CSV, names escaped and kept text, missing empty, -1 kept', () => {
    const view = metricsMapView({ resultId: 'r', report: report(), geographies });
    const lines = metricsCsv(view, 1).split('\r\n');
    assert.equal(lines[0], 'interval_start,geography_id,name,dockless.deployed.avg,trips.start_loc.count');
    assert.equal(lines[1], `2026-11-20T09:00Z,g-old,"'=HYPERLINK(""x""), ""Old"" town",1,`);
    assert.equal(lines[2], '2026-11-20T09:00Z,g-north,North <b>district</b>,4.25,');
    assert.equal(
      metricsCsv(view, 0).split('\r\n')[1],
      `2026-11-20T08:00Z,g-old,"'=HYPERLINK(""x""), ""Old"" town",0,-1`,
    );
    assert.equal(lines.at(-1), '', 'ends with a line break');
  });

  it('exports the geographies as shaded as GeoJSON: values, null for missing, -1 marked suppressed, the class of the legend', () => {
    const view = metricsMapView({ resultId: 'r', report: report(), geographies });
    const doc = JSON.parse(metricsGeoJson(view, 0, 1) ?? '') as {
      features: { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } }[];
    };
    const old = doc.features.find((f) => f.properties.geography_id === 'g-old');
    assert.equal(old?.properties.name, OLD_TOWN.name);
    assert.equal(old?.properties['trips.start_loc.count'], -1);
    assert.deepEqual(old?.properties.k_suppressed, ['trips.start_loc.count']);
    assert.equal(old?.properties.class, 'suppressed');
    assert.equal(old?.geometry.type, 'MultiPolygon');
    assert.deepEqual(old?.geometry.coordinates, OLD_TOWN.polygons);
    assert.equal(doc.features.find((f) => f.properties.geography_id === 'g-north')?.properties.class, 1);
    const later = JSON.parse(metricsGeoJson(view, 1, 1) ?? '') as typeof doc;
    assert.equal(later.features[0].properties['trips.start_loc.count'], null);
    assert.equal(later.features[0].properties.class, 'missing');
    assert.equal(
      metricsGeoJson(metricsMapView({ resultId: 'r', report: report() }), 0, 0),
      undefined,
      'no geographies, no GeoJSON',
    );
  });

  it('without geographies: one place, the whole fleet', () => {
    const r = report();
    r.response.columns.splice(1, 1);
    r.response.rows = [
      ['2026-11-20T08:00Z', 3, 40],
      ['2026-11-20T09:00Z', 4, null],
    ];
    const view = metricsMapView({ resultId: 'r', report: r });
    assert.equal(view.places.length, 1);
    assert.equal(view.shapes, undefined);
    assert.deepEqual([metricValue(view, 0, 0, 1), metricValue(view, 1, 0, 1)], [40, null]);
  });
});

describe("the panel's hourly plots and the webview's requests", () => {
  it('keeps an hour the harvest lacks null, never 0', () => {
    const m = analysisMetricsView([
      { hour: '2026-11-20T08', prow_at_hour_end: 3, available_at_hour_end: 3, trips_started: 2, trips_ended: 0 },
      {
        hour: '2026-11-20T09',
        prow_at_hour_end: null,
        available_at_hour_end: null,
        trips_started: null,
        trips_ended: null,
      },
    ]);
    assert.deepEqual(m.prowTotal, [3, null]);
    assert.deepEqual(m.tripsStarted, [2, null]);
    assert.deepEqual(m.tripsEnded, [0, null], 'a real 0 stays 0');
    assert.deepEqual(m.prow.find((s) => s.state === 'available')?.values, [3, null]);
  });

  it('accepts only well-formed Metrics view requests', () => {
    assert.deepEqual(
      parseWebviewMessage({
        type: 'metricsView',
        resultId: 'r',
        request: {
          op: 'compute',
          measures: ['trips.start_loc.count'],
          interval: 'PT1H',
          timeZone: 'Europe/Berlin',
          extra: 1,
        },
      }),
      {
        type: 'metricsView',
        resultId: 'r',
        request: { op: 'compute', measures: ['trips.start_loc.count'], interval: 'PT1H', timeZone: 'Europe/Berlin' },
      },
    );
    assert.equal(
      parseMetricsViewRequest({ op: 'compute', measures: ['a b'], interval: 'PT1H', timeZone: 'UTC' }),
      undefined,
    );
    assert.equal(
      parseMetricsViewRequest({ op: 'compute', measures: [], interval: 'PT1H', timeZone: 'UTC' }),
      undefined,
    );
    assert.equal(parseMetricsViewRequest({ op: 'export', format: 'xlsx', interval: 0, measure: 0 }), undefined);
    assert.deepEqual(parseMetricsViewRequest({ op: 'export', format: 'geojson', interval: 2, measure: 1 }), {
      op: 'export',
      format: 'geojson',
      interval: 2,
      measure: 1,
    });
    assert.deepEqual(parseMetricsViewRequest({ op: 'chooseGeographies', path: '/etc/passwd' }), {
      op: 'chooseGeographies',
    });
  });
});

describe("the notebook's map of a cell per geography", () => {
  const shapes = [OLD_TOWN, NORTH].map((g) => ({ id: g.geography_id, name: g.name, polygons: g.polygons }));
  it('shades by the first numeric column, the last row of each geography, null and -1 kept', () => {
    const answer = parseSqlAnswer({
      columns: [
        { name: 'interval_start', type: 'VARCHAR' },
        { name: 'geography_id', type: 'VARCHAR' },
        { name: 'trips.start_loc.count', type: 'BIGINT' },
      ],
      rows: [
        ['08:00', 'g-old', 12],
        ['09:00', 'g-old', -1],
        ['09:00', 'g-north', null],
      ],
      total: 3,
      shapes,
    });
    assert.ok(answer);
    const map = answerMap(answer);
    assert.equal(map?.measure, 'trips.start_loc.count');
    assert.equal(map?.count, true);
    assert.equal(map?.values.get('g-old'), -1);
    assert.equal(map?.values.get('g-north'), null);
    assert.equal(map?.repeated, 1);
  });

  it('draws no map without polygons, a geography_id column or a number', () => {
    const columns = [
      { name: 'geography_id', type: 'VARCHAR' },
      { name: 'name', type: 'VARCHAR' },
    ];
    assert.equal(answerMap({ columns, rows: [['g-old', 'x']], total: 1, shapes }), undefined);
    assert.equal(
      answerMap({
        columns: [
          { name: 'geography_id', type: 'VARCHAR' },
          { name: 'n', type: 'BIGINT' },
        ],
        rows: [['g-old', 1]],
        total: 1,
      }),
      undefined,
    );
    assert.equal(
      parseSqlAnswer({ columns: [], rows: [], total: 0, shapes: [{ id: 1 }] })?.shapes,
      undefined,
      'malformed shapes are dropped',
    );
  });
});
