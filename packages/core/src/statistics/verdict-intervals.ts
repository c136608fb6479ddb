// The intervals behind a verdict (verdict-method.ts): Student's/Welch's t or a percentile bootstrap between
// repetitions, a moving-block bootstrap of each single run's whole-run value (a mean, a share, a percentile).
import { seededRandom } from "./seeded-random";
import { mean, studentTQuantile } from "./repetition-stats";
import { blockBootstrapVariance } from "./block-bootstrap";
import { welchStandardError } from "./welch";
import { BOOTSTRAP_MIN_RUNS, MIN_BLOCKS, MIN_EFFECTIVE_SECONDS, type VerdictMethod, type VerdictSample } from "./verdict-types";

export interface Interval {
  method: VerdictMethod;
  /** On the test scale: b - a, or log(b / a). */
  estimate: number;
  standardError: number;
  df: number;
  /** The interval, when not e +- t se (the bootstrap's percentiles), on the test scale. */
  low?: number;
  high?: number;
  seed?: number;
  resamples?: number;
  blockLengths?: [number, number];
  /** The baseline's value, on the natural scale. */
  baselineValue: number;
}

function percentile(sorted: Float64Array, p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  return lo + (sorted[Math.ceil(i)]! - lo) * (i - Math.floor(i));
}

/**
 * Percentile bootstrap of mean(b) - mean(a), resampling each group with replacement from `seed`. Each resampled
 * mean's deviation is expanded by sqrt(n / (n - 1)): the plain bootstrap's variance of a mean is (n - 1)/n of the
 * unbiased one, which at 30 runs a side called 6.6-6.9% of identical pairs "significant".
 */
function bootstrapInterval(a: readonly number[], b: readonly number[], level: number, seed: number, resamples: number) {
  const rand = seededRandom(seed);
  const resampleMean = (xs: readonly number[]) => {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(rand() * xs.length)]!;
    const m = mean(xs);
    return m + (sum / xs.length - m) * Math.sqrt(xs.length / (xs.length - 1));
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = resampleMean(b) - resampleMean(a);
  diffs.sort();
  return { estimate: mean(b) - mean(a), low: percentile(diffs, (1 - level) / 2), high: percentile(diffs, 1 - (1 - level) / 2) };
}

const Z_975 = 1.959963984540054;

/** Repetitions: Student's t on the run values (df 2n - 2 at equal n, Welch's otherwise), or the bootstrap from 30 a side. */
export function runsInterval(
  a: readonly number[],
  b: readonly number[],
  ratio: boolean,
  o: { level: number; seed: number; resamples: number },
): Interval {
  const [x, y] = ratio ? [a.map(Math.log), b.map(Math.log)] : [a, b];
  const { standardError, df: welchDf } = welchStandardError(x, y);
  const estimate = mean(y) - mean(x);
  const baselineValue = mean(a);
  if (a.length >= BOOTSTRAP_MIN_RUNS && b.length >= BOOTSTRAP_MIN_RUNS) {
    const boot = bootstrapInterval(x, y, o.level, o.seed, o.resamples);
    // The bootstrap's own spread, for the p-value and the detectable difference (normal approximation).
    const se = (boot.high - boot.low) / (2 * studentTQuantile(1 - (1 - o.level) / 2, 1e6));
    return {
      method: "bootstrap",
      estimate,
      standardError: se,
      df: 1e6,
      low: boot.low,
      high: boot.high,
      seed: o.seed,
      resamples: o.resamples,
      baselineValue,
    };
  }
  const df = a.length === b.length ? 2 * a.length - 2 : welchDf;
  return { method: "welch-t", estimate, standardError, df, baselineValue };
}

/** What one run's series says of its whole-run value: the estimate, its variance (moving-block bootstrap) and the blocks behind it. */
interface SeriesSide {
  estimate: number;
  variance: number;
  blocks: number;
  blockLength: number;
  seconds: number;
}

/** Why a series (of values, or of a share's linearised terms) cannot be judged, or null when it can. */
function seriesProblem(xs: readonly number[], v: ReturnType<typeof blockBootstrapVariance>): string | null {
  const m = mean(xs);
  const variance = xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length;
  const effective = v.variance > 0 ? variance / v.variance : xs.length;
  if (v.blocks < MIN_BLOCKS) return `${xs.length} s hold only ${v.blocks} blocks of ${v.blockLength} s (need ${MIN_BLOCKS})`;
  if (effective < MIN_EFFECTIVE_SECONDS)
    return `the seconds are so dependent (lag-1 autocorrelation ${v.lag1Autocorrelation.toFixed(2)}) that ${xs.length} s count as ${effective.toFixed(0)} independent ones (need ${MIN_EFFECTIVE_SECONDS})`;
  return null;
}

function seriesOf(xs: readonly number[], scale = 1): SeriesSide | string {
  if (xs.length < 30) return "a single run a side needs at least 30 s of per-second data";
  const v = blockBootstrapVariance(xs);
  const problem = seriesProblem(xs, v);
  if (problem) return problem;
  return { estimate: 0, variance: v.variance * scale ** 2, blocks: v.blocks, blockLength: v.blockLength, seconds: xs.length };
}

/**
 * A whole-run share R = sum(num) / sum(den) and its variance: the ratio estimator linearised per second
 * (z = num - R den), the mean of z's variance by the moving-block bootstrap, over mean(den)^2.
 */
function shareSide(num: readonly number[], den: readonly number[]): (SeriesSide & { share: number }) | string {
  const total = den.reduce((s, d) => s + d, 0);
  if (!(total > 0)) return "no completed requests in the load window";
  const share = num.reduce((s, n) => s + n, 0) / total;
  const z = num.map((n, i) => n - share * den[i]!);
  const side = seriesOf(z, 1 / (total / den.length));
  return typeof side === "string" ? side : { ...side, estimate: share, share };
}

/** One run's series as the estimate of its whole-run value. */
function sideOf(sample: Exclude<VerdictSample, { kind: "runs" }>): SeriesSide | string {
  switch (sample.kind) {
    case "seconds": {
      const s = seriesOf(sample.values);
      return typeof s === "string" ? s : { ...s, estimate: mean(sample.values) };
    }
    case "share-seconds": {
      const s = shareSide(sample.numerators, sample.denominators);
      const k = sample.scale ?? 1;
      return typeof s === "string" ? s : { ...s, estimate: k * s.share, variance: k * k * s.variance };
    }
    case "quantile-seconds": {
      // The whole-run quantile from the merged histogram; its spread by Woodruff's interval: the share above it
      // varies by se, so the quantile varies as the quantile function over p +- z se does.
      const s = shareSide(sample.above, sample.counts);
      if (typeof s === "string") return s;
      const se = Math.sqrt(s.variance);
      const q = sample.quantile(sample.p);
      const width = sample.quantile(Math.min(1, sample.p + Z_975 * se)) - sample.quantile(Math.max(0, sample.p - Z_975 * se));
      return { ...s, estimate: q, variance: (width / (2 * Z_975)) ** 2 };
    }
  }
}

/** Single runs: the difference of their whole-run values, widened by a stated run-to-run CV when there is one. */
export function secondsInterval(
  a: Exclude<VerdictSample, { kind: "runs" }>,
  b: Exclude<VerdictSample, { kind: "runs" }>,
  ratio: boolean,
  cv: number | null,
): Interval | string {
  const sa = sideOf(a);
  if (typeof sa === "string") return sa;
  const sb = sideOf(b);
  if (typeof sb === "string") return sb;
  if (ratio && !(sa.estimate > 0 && sb.estimate > 0)) return "a ratio needs values > 0";
  // On the ratio scale, the delta method: var(log x) ~ var(x) / x^2.
  const [va, vb] = ratio ? [sa.variance / sa.estimate ** 2, sb.variance / sb.estimate ** 2] : [sa.variance, sb.variance];
  // The stated run-to-run variance is known, not estimated: it widens the interval and adds no uncertainty to the df.
  const between = cv === null ? 0 : ratio ? 2 * Math.log(1 + cv) ** 2 : (cv * sa.estimate) ** 2 + (cv * sb.estimate) ** 2;
  const se2 = va + vb + between;
  const within = va ** 2 / (sa.blocks - 1) + vb ** 2 / (sb.blocks - 1);
  const df = within === 0 ? sa.blocks + sb.blocks - 2 : Math.min(1e6, se2 ** 2 / within);
  return {
    method: "moving-block-bootstrap",
    estimate: ratio ? Math.log(sb.estimate / sa.estimate) : sb.estimate - sa.estimate,
    standardError: Math.sqrt(se2),
    df,
    blockLengths: [sa.blockLength, sb.blockLength],
    baselineValue: sa.estimate,
  };
}
