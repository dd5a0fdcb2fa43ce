// `npm run bench`: every figure of the "Benchmarks" issue that needs no VS Code. Each figure compares
// our code with the plain alternative (or the physical limit) measured in the same run, in
// alternating rounds, so that noise on a shared machine cancels out. A missed target is reported,
// never a failure: the process fails only on errors.
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fleetFigures } from './fleet';
import type { ReportedFigure } from './figures';
import { printFigure, writeResults } from './figures';
import { keyImportFigure, mintingFigures, singleKeyFigure } from './minting';
import { requestOverheadFigure } from './requests';
import { sandboxThroughputFigure } from './throughput';

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`Benchmarks on ${cpus().length} CPU(s), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`);
  const figures: ReportedFigure[] = [];
  const steps: (() => Promise<ReportedFigure | ReportedFigure[]>)[] = [
    () => mintingFigures('ES256'),
    () => mintingFigures('RS256'),
    singleKeyFigure,
    () => keyImportFigure('ES256'),
    () => keyImportFigure('RS256'),
    requestOverheadFigure,
    fleetFigures,
    sandboxThroughputFigure,
  ];
  for (const step of steps) {
    const result = await step();
    for (const figure of Array.isArray(result) ? result : [result]) {
      printFigure(figure);
      figures.push(figure);
    }
  }
  // dist/bench/run.js -> bench/results.json
  const path = join(__dirname, '..', '..', 'bench', 'results.json');
  writeResults(path, figures);
  const missed = figures.filter((f) => !f.met).length;
  console.log(`${figures.length} figures, ${figures.length - missed} met, ${missed} missed; written to ${path} in ${Math.round((performance.now() - started) / 1000)} s.`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
