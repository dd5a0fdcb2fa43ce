import { writeFileSync } from 'node:fs';

/** One benchmark result as written to `bench/results.json`. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The target in words, e.g. `>= 0.9 x bare jose`. */
  target: string;
  met: boolean;
}

/** A figure with the raw measurements it was computed from, printed beside it (not stored). */
export interface ReportedFigure extends Figure {
  raw: string;
}

/** Rounds to three significant digits, so that lines stay readable and noise is not dressed up as precision. */
export function round3(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  return Number(value.toPrecision(3));
}

/** Prints `name: value unit (target ..., met|missed)` followed by the raw figures. */
export function printFigure(figure: ReportedFigure): void {
  console.log(
    `${figure.name}: ${round3(figure.value)} ${figure.unit} (target ${figure.target}, ${figure.met ? 'met' : 'missed'})`,
  );
  console.log(`    ${figure.raw}`);
}

/** Writes the figures without their raw text. */
export function writeResults(path: string, figures: readonly ReportedFigure[]): void {
  const list: Figure[] = figures.map(({ name, value, unit, target, met }) => ({
    name,
    value: round3(value),
    unit,
    target,
    met,
  }));
  writeFileSync(path, `${JSON.stringify(list, null, 2)}\n`);
}
