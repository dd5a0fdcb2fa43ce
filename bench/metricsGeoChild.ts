// One side of the metrics-per-geography benchmark (metricsGeo.ts), alone in its process so that its time and peak RSS
// are its own: `mobility-api metrics <folder> --measures <every core and dockless metric> --interval PT1H
// --dimensions geography_id --geographies <file>` without printing. Started over IPC; never run by hand.
import { omfMetricsOptions } from '../src/cli/commands/omfMetricsCommand';
import { AnalysisSession } from '../src/core/analysis/analysisEngine';
import { readHarvestSource } from '../src/core/analysis/harvestSource';
import { GeographyIndex, readGeographies } from '../src/core/geography';
import { runOmfMetrics } from '../src/core/metrics';

export interface MetricsGeoChildRequest {
  side: 'metrics';
  folder: string;
  geographies: string;
  measures: string;
}

export interface MetricsGeoChildReply {
  ms: number;
  maxRssKb: number;
  /** The geography assignment alone, as the session measured it when it opened. */
  assignmentMs: number;
  assigned: { trips: number; events: number; telemetry: number };
  rows: number;
  columns: number;
}

async function measure(request: MetricsGeoChildRequest): Promise<Omit<MetricsGeoChildReply, 'maxRssKb'>> {
  await import('@duckdb/node-api');
  const start = performance.now();
  const options = omfMetricsOptions({
    measures: request.measures,
    interval: 'PT1H',
    dimensions: 'geography_id',
    geographies: request.geographies,
  });
  const source = await readHarvestSource(request.folder);
  const index = new GeographyIndex(await readGeographies(request.geographies));
  const session = await AnalysisSession.open(source, { geographies: index });
  try {
    const report = await runOmfMetrics(session, options);
    const assignment = session.geographyAssignment;
    return {
      ms: performance.now() - start,
      assignmentMs: assignment?.durationMs ?? NaN,
      assigned: assignment?.rows ?? { trips: 0, events: 0, telemetry: 0 },
      rows: report.response.rows.length,
      columns: report.response.columns.length,
    };
  } finally {
    session.close();
  }
}

process.once('message', (request: MetricsGeoChildRequest) => {
  measure(request).then(
    (result) =>
      process.send?.({ ...result, maxRssKb: process.resourceUsage().maxRSS } satisfies MetricsGeoChildReply, () =>
        process.exit(0),
      ),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
});
