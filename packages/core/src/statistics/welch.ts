// Welch's t-interval for the difference of two means with unequal variances,
// and the same on the log scale for a ratio. Between small groups of
// repetitions (2..29 a side) it holds its nominal level where a percentile
// bootstrap does not (at 2 runs a side the bootstrap called 32% of identical
// pairs "significant"; Welch stays at or below 5% for normal data).
import { mean, sampleStandardDeviation, studentTQuantile } from "./repetition-stats";

export interface WelchInterval {
  /** mean(b) - mean(a), or on the ratio scale mean(b) / mean(a) (geometric means). */
  estimate: number;
  low: number;
  high: number;
  level: number;
  /** Welch-Satterthwaite degrees of freedom. */
  df: number;
  /** Standard error of the difference (of the log difference for ratios). */
  standardError: number;
}

/** The standard error and Welch-Satterthwaite degrees of freedom of mean(b) - mean(a). */
export function welchStandardError(a: readonly number[], b: readonly number[]): { standardError: number; df: number } {
  if (a.length < 2 || b.length < 2) throw new RangeError("Welch's interval needs at least two values a side");
  const va = sampleStandardDeviation(a) ** 2 / a.length;
  const vb = sampleStandardDeviation(b) ** 2 / b.length;
  const standardError = Math.sqrt(va + vb);
  // Both sides constant: no spread to estimate; any df gives a zero-width interval.
  const df = va + vb === 0 ? a.length + b.length - 2 : (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return { standardError, df };
}

/** Welch's interval of mean(b) - mean(a). */
export function welchDifference(a: readonly number[], b: readonly number[], level = 0.95): WelchInterval {
  const { standardError, df } = welchStandardError(a, b);
  const estimate = mean(b) - mean(a);
  const half = studentTQuantile(1 - (1 - level) / 2, df) * standardError;
  return { estimate, low: estimate - half, high: estimate + half, level, df, standardError };
}

/**
 * Welch's interval on the log scale, returned as a ratio b / a of geometric
 * means: for throughput and latency, where a change is multiplicative and the
 * spread grows with the level. Every value must be > 0.
 */
export function welchRatio(a: readonly number[], b: readonly number[], level = 0.95): WelchInterval {
  if ([...a, ...b].some((v) => !(v > 0))) throw new RangeError("a ratio interval needs values > 0");
  const d = welchDifference(a.map(Math.log), b.map(Math.log), level);
  return { ...d, estimate: Math.exp(d.estimate), low: Math.exp(d.low), high: Math.exp(d.high) };
}
