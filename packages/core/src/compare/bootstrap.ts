import { seededRandom } from "../seeded-random";

export interface DifferenceInterval {
  /** mean(b) - mean(a) of the observed samples. */
  difference: number;
  /** 95% (or `level`) percentile-bootstrap interval of the difference. */
  low: number;
  high: number;
  level: number;
  resamples: number;
  seed: number;
  /** False when the interval spans zero: "no significant difference". */
  significant: boolean;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

function percentile(sorted: number[], p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  const hi = sorted[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

/**
 * Percentile-bootstrap confidence interval of mean(b) - mean(a): both groups are
 * resampled with replacement `resamples` times from a recorded seed. The samples
 * are repetitions of a study cell, or time windows of single runs (the caller says which).
 */
export function bootstrapDifference(
  a: number[],
  b: number[],
  opts: { resamples?: number; level?: number; seed?: number } = {},
): DifferenceInterval {
  if (a.length === 0 || b.length === 0) throw new Error("bootstrapDifference needs at least one sample in each group");
  const resamples = opts.resamples ?? 4000;
  const level = opts.level ?? 0.95;
  const seed = opts.seed ?? 1;
  const rand = seededRandom(seed);
  const resampleMean = (xs: number[]) => {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(rand() * xs.length)]!;
    return sum / xs.length;
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = resampleMean(b) - resampleMean(a);
  const sorted = Array.from(diffs).sort((x, y) => x - y);
  const low = percentile(sorted, (1 - level) / 2);
  const high = percentile(sorted, 1 - (1 - level) / 2);
  return { difference: mean(b) - mean(a), low, high, level, resamples, seed, significant: low > 0 || high < 0 };
}
