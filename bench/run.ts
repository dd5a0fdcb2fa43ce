// `npm run bench`: every figure of the "Benchmarks" issue. Each figure compares our code with the plain
// alternative (or the physical limit) measured in the same run, in alternating rounds, so that noise on
// a shared machine cancels out. The last figures need the production build, Chromium and (for
// activation) the offline VS Code of scripts/vscode-env.mjs, installed on first use as the test layers install it.
// A missed target is reported, never a failure; a step that cannot run is one: the other steps still run and their
// figures are written, then the run names the steps that failed, why, and exits 1 (never a quiet "skipped").
import { cpus } from 'node:os';
import { join } from 'node:path';
import { activationFigure, activationVariantFigures } from './activation';
import { agentRequestFigures } from './agentRequests';
import { agentFigures } from './agents';
import { analysisFigures } from './analysis';
import { metricsGeoFigures } from './metricsGeo';
import { bundleFigures, productionBuild } from './bundles';
import { contractFigure } from './contract';
import type { ProductionBuild } from './bundles';
import { fleetFigures } from './fleet';
import { grpcCallMemoryFigure } from './grpcCallMemory';
import { grpcStreamFigure, grpcVsRestFigures } from './grpcStream';
import { grpcUnaryFigure } from './grpcUnary';
import { harvestFigures } from './harvest';
import type { ReportedFigure } from './figures';
import { printFigure, writeResults } from './figures';
import { keyImportFigure, mintingFigures, singleKeyFigure } from './minting';
import { requestOverheadFigure } from './requests';
import { resultsPanelFigures } from './resultsPanel';
import { sandboxThroughputFigure } from './throughput';
import { validationFigure } from './validate';

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`Benchmarks on ${cpus().length} CPU(s), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`);
  const figures: ReportedFigure[] = [];
  let production: ProductionBuild | undefined;
  // Built once, when the first figure that needs it runs: the bundles a user installs.
  const built = () => (production ??= productionBuild());
  // BENCH_ONLY=activation,bundles runs only the named steps.
  const named: [string, () => Promise<ReportedFigure | ReportedFigure[]>][] = [
    ['minting', () => mintingFigures('ES256')],
    ['minting', () => mintingFigures('RS256')],
    ['singleKey', singleKeyFigure],
    ['keyImport', () => keyImportFigure('ES256')],
    ['keyImport', () => keyImportFigure('RS256')],
    ['requests', requestOverheadFigure],
    ['contract', contractFigure],
    ['agents', agentFigures],
    ['agents', agentRequestFigures],
    ['fleet', fleetFigures],
    ['grpcUnary', grpcUnaryFigure],
    ['grpcStream', grpcStreamFigure],
    ['grpcVsRest', grpcVsRestFigures],
    ['grpcCallMemory', grpcCallMemoryFigure],
    ['throughput', sandboxThroughputFigure],
    ['harvest', harvestFigures],
    ['analysis', analysisFigures],
    ['metricsGeo', metricsGeoFigures],
    ['validate', validationFigure],
    ['bundles', () => bundleFigures(built())],
    ['resultsPanel', () => resultsPanelFigures(built())],
    ['activation', () => activationFigure(built())],
    ['activationVariants', () => activationVariantFigures(built())],
  ];
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !named.some(([step]) => step === name));
  if (unknown.length)
    throw new Error(
      `BENCH_ONLY names no step ${unknown.join(', ')}; the steps are ${[...new Set(named.map(([step]) => step))].join(', ')}.`,
    );
  const steps = named.filter(([step]) => !only.length || only.includes(step));
  const failed: string[] = [];
  try {
    for (const [name, step] of steps) {
      let result: ReportedFigure | ReportedFigure[];
      try {
        result = await step();
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        console.error(`FAILED: the ${name} step could not run: ${reason}`);
        failed.push(`${name}: ${reason.split('\n')[0]}`);
        continue;
      }
      for (const figure of Array.isArray(result) ? result : [result]) {
        printFigure(figure);
        figures.push(figure);
      }
    }
  } finally {
    production?.remove();
  }
  // dist/bench/run.js -> bench/results.json
  const path = join(__dirname, '..', '..', 'bench', 'results.json');
  writeResults(path, figures);
  const missed = figures.filter((f) => !f.met).length;
  console.log(
    `${figures.length} figures, ${figures.length - missed} met, ${missed} missed; written to ${path} in ${Math.round((performance.now() - started) / 1000)} s.`,
  );
  if (failed.length) {
    console.error(
      `${failed.length} step(s) could not run, so their figures are missing:\n${failed.map((f) => `  ${f}`).join('\n')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
