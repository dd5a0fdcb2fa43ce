/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The p-th percentile (nearest rank) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * Runs the sides in a rotating order (A B C, B C A, C A B, ...) for `rounds` rounds after `warmup`
 * unrecorded rounds, so that a noisy neighbour on a shared machine hits every side alike. Each
 * side returns one measurement per round; the result keeps them paired by round.
 */
export async function interleave(
  rounds: number,
  warmup: number,
  sides: readonly (() => Promise<number>)[],
): Promise<number[][]> {
  const results: number[][] = sides.map(() => []);
  for (let round = 0; round < warmup + rounds; round++) {
    const values: number[] = [];
    for (let k = 0; k < sides.length; k++) {
      const index = (round + k) % sides.length;
      values[index] = await sides[index]();
    }
    if (round >= warmup) values.forEach((value, index) => results[index].push(value));
  }
  return results;
}

/** {@link interleave} for two sides. */
export async function alternate(
  rounds: number,
  warmup: number,
  sideA: () => Promise<number>,
  sideB: () => Promise<number>,
): Promise<{ a: number[]; b: number[] }> {
  const [a = [], b = []] = await interleave(rounds, warmup, [sideA, sideB]);
  return { a, b };
}

/** The median of the per-round ratios a/b: each ratio compares two measurements taken side by side. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / b[i]));
}

/** Milliseconds since an arbitrary origin. */
export function nowMs(): number {
  return performance.now();
}

/**
 * A 90% bootstrap interval of median(b) − median(a): `draws` resamples of each list (with replacement, a fixed-seed
 * generator so that a run can be repeated). An interval above 0 says b is larger beyond the noise of the two lists.
 */
export function bootstrapMedianDifference(
  a: readonly number[],
  b: readonly number[],
  draws = 2000,
): { low: number; high: number } {
  if (!a.length || !b.length) throw new Error('bootstrap of an empty list');
  let seed = 0x2545f491;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const resample = (list: readonly number[]) => list.map(() => list[Math.floor(random() * list.length)]);
  const differences = Array.from({ length: draws }, () => median(resample(b)) - median(resample(a)));
  return { low: percentile(differences, 5), high: percentile(differences, 95) };
}
