// The OMF metrics per geography (issue 40, "Measured"): every core and dockless metric per hour with 50 geographies
// over the analysis step's 7-day, 2,000-vehicle harvest (the same cache, BENCH_CACHE_DIR; BENCH_ANALYSIS_DAYS and
// BENCH_ANALYSIS_FLEET make it smaller), against `check` on the same harvest, each run a fresh process, alternating;
// the peak RSS of the metrics run, and the time of the geography assignment alone (trips' start and end points,
// events and telemetry assigned when the session opens). The 50 geographies are a 10 × 5 grid of rectangles over the
// square around the sandbox's fleet disc, the same every run.
import fs from 'node:fs';
import path from 'node:path';
import type { Credential } from '../src/core/auth/credential';
import { MEASURE_PATTERNS, eventTypes, vehicleStates } from '../src/core/metrics';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { FLEET_CENTRE, FLEET_RADIUS_METRES } from '../src/sandbox/world/worldGeography';
import { cachedHarvest, scale } from './analysis';
import type { AnalysisChildReply, AnalysisChildRequest } from './analysis';
import { askChildOnce, credentialFromPem, ecPem, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import type { MetricsGeoChildReply, MetricsGeoChildRequest } from './metricsGeoChild';
import { startSandboxProcess } from './sandboxProcess';
import { interleave, median, medianRatio } from './stats';

const ROUNDS = Number(process.env.BENCH_ANALYSIS_ROUNDS ?? 2);
const WARMUP = Number(process.env.BENCH_ANALYSIS_WARMUP ?? 0);
const COLUMNS = 10;
const ROWS = 5;

/** Every core and dockless metric by name: each state's four, each event type's count, both trip points' nine, the dockless ten. */
export function everyMeasure(): string[] {
  const states = vehicleStates().flatMap((s) =>
    ['avg', 'min', 'max', 'duration.sum'].map((stat) => `vehicles.${s}.${stat}`),
  );
  const events = eventTypes().map((t) => `events.${t}.count`);
  const trips = MEASURE_PATTERNS.filter((p) => p.startsWith('trips.')).flatMap((p) =>
    ['start_loc', 'end_loc'].map((loc) => p.replace('<start_loc|end_loc>', loc)),
  );
  return [...states, ...events, ...trips, ...MEASURE_PATTERNS.filter((p) => p.startsWith('dockless.'))];
}

/** A Geography document of COLUMNS × ROWS rectangles tiling the square around the fleet's disc. */
export function gridGeographies(): Record<string, unknown> {
  const dLat = FLEET_RADIUS_METRES / 111_320;
  const dLng = FLEET_RADIUS_METRES / (111_320 * Math.cos((FLEET_CENTRE.lat * Math.PI) / 180));
  const west = FLEET_CENTRE.lng - dLng;
  const south = FLEET_CENTRE.lat - dLat;
  const width = (2 * dLng) / COLUMNS;
  const height = (2 * dLat) / ROWS;
  const published = Date.UTC(2020, 0, 1);
  const geographies = [];
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLUMNS; c++) {
      const [x0, y0, x1, y1] = [west + c * width, south + r * height, west + (c + 1) * width, south + (r + 1) * height];
      geographies.push({
        geography_id: `00000000-0000-4000-8000-${String(r * COLUMNS + c).padStart(12, '0')}`,
        name: `grid ${r}-${c}`,
        published_date: published,
        geography_json: {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              properties: {},
              geometry: {
                type: 'Polygon',
                coordinates: [
                  [
                    [x0, y0],
                    [x1, y0],
                    [x1, y1],
                    [x0, y1],
                    [x0, y0],
                  ],
                ],
              },
            },
          ],
        },
      });
    }
  }
  return { version: '2.0.0', last_updated: published, geographies };
}

export async function metricsGeoFigures(): Promise<ReportedFigure[]> {
  const { days, fleet } = scale();
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
  let credential: Credential | undefined;
  const env = async (): Promise<{ mds: SandboxEnvironment; credential: Credential }> => {
    if (!sandbox || !credential) {
      credential = credentialFromPem('ES256', ecPem(), 'metrics-harvest');
      sandbox = await startSandboxProcess({
        options: { fleetSize: fleet, pageSize: 1000, verifyTokens: true },
        trust: [trustEntryOf(credential)],
      });
    }
    return { mds: sandbox.mds, credential };
  };
  let week;
  try {
    week = await cachedHarvest(days, fleet, env);
  } finally {
    await sandbox?.close();
  }
  const geographies = path.join(path.dirname(week.dir), `grid-${COLUMNS * ROWS}-geographies.json`);
  fs.writeFileSync(geographies, JSON.stringify(gridGeographies()));
  const measures = everyMeasure();
  let metricsReply: MetricsGeoChildReply | undefined;
  const metricsSide = async () => {
    metricsReply = await askChildOnce<MetricsGeoChildRequest, MetricsGeoChildReply>(
      'metricsGeoChild.js',
      { side: 'metrics', folder: week.dir, geographies, measures: measures.join(',') },
      'metrics child',
    );
    return metricsReply.ms;
  };
  const checkSide = async () =>
    (
      await askChildOnce<AnalysisChildRequest, AnalysisChildReply>(
        'analysisChild.js',
        { side: 'check', folder: week.dir },
        'analysis child',
      )
    ).ms;
  const [metricsMs = [], checkMs = []] = await interleave(ROUNDS, WARMUP, [metricsSide, checkSide]);
  const reply = metricsReply as MetricsGeoChildReply;
  const ratio = medianRatio(metricsMs, checkMs);
  const size = `${days} days (${week.from} to ${week.to}) of a ${fleet}-vehicle fleet, ${COLUMNS * ROWS} grid geographies`;
  const assigned = `${reply.assigned.trips} trip points, ${reply.assigned.events} events, ${reply.assigned.telemetry} telemetry points assigned`;
  return [
    {
      name: `metrics per geography: ${measures.length} core and dockless metrics per hour, ${COLUMNS * ROWS} geographies, ${days} days of a ${fleet}-vehicle fleet, vs check`,
      value: ratio,
      unit: 'x check',
      target: '<= 2 x check',
      met: ratio <= 2,
      raw: `${size}; metrics (readHarvestSource, geographies read and indexed, AnalysisSession.open with the assignment, runOmfMetrics: ${reply.rows} rows of ${reply.columns} columns) median ${round3(median(metricsMs))} ms; check median ${round3(median(checkMs))} ms; ${ROUNDS} rounds each in fresh processes, alternating, after ${WARMUP} warm-up round(s)`,
    },
    {
      name: `metrics per geography: peak RSS, ${COLUMNS * ROWS} geographies, ${days} days of a ${fleet}-vehicle fleet`,
      value: reply.maxRssKb / 1024,
      unit: 'MB',
      target: '<= 1024 MB',
      met: reply.maxRssKb / 1024 <= 1024,
      raw: `the last metrics run; ${assigned}`,
    },
    {
      name: `metrics per geography: the geography assignment alone (${COLUMNS * ROWS} geographies, ${days} days)`,
      value: reply.assignmentMs,
      unit: 'ms',
      target: 'printed (no target)',
      met: true,
      raw: `${assigned}, in the last metrics run (part of its ${round3(reply.ms)} ms)`,
    },
  ];
}
