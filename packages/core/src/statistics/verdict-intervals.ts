// The intervals behind a verdict (verdict-method.ts): Student's/Welch's t or a percentile bootstrap between
// repetitions, a moving-block bootstrap of each single run's whole-run value (a mean, a share, a percentile).
import { seededRandom } from "./seeded-random";
import { mean, sampleStandardDeviation, studentTQuantile } from "./repetition-stats";
import { blockBootstrapVariance } from "./block-bootstrap";
import { welchStandardError } from "./welch";
import {
  BOOTSTRAP_MIN_RUNS,
  MIN_BLOCKS,
  MIN_EFFECTIVE_SECONDS,
  type VerdictMethod,
  type VerdictSample,
  type VerdictScale,
} from "./verdict-types";

type RunsSample = Extract<VerdictSample, { kind: "runs" }>;
type SeriesSample = Exclude<VerdictSample, { kind: "runs" }>;

/** The fewest seconds a single run's series is judged over. */
const MIN_SERIES_SECONDS = 30;

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
  /**
   * The baseline's value, on the natural scale; on the log-odds scale its share in its unit with half a failure added
   * ((f + 0.5) / (N + 1)), so that a baseline without failures still has odds an odds ratio can scale (the gate's pp).
   */
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

/** log(p / (1 - p)) of a share of `total` with `failures`, half a failure added either way so that 0 and 1 stay finite. */
const empiricalLogit = (failures: number, total: number) => Math.log((failures + 0.5) / (total - failures + 0.5));

/** A run value on the test scale: itself, its log (ratio), or its share's empirical log-odds. */
function onTestScale(s: RunsSample, scale: VerdictScale): number[] | string {
  if (scale === "difference") return [...s.values];
  if (scale === "ratio") return s.values.some((v) => !(v > 0)) ? "a ratio needs values > 0" : s.values.map(Math.log);
  const outOf = s.scale ?? 1;
  return s.values.map((v, i) => {
    const total = s.denominators?.[i] ?? 0;
    return total > 0 ? empiricalLogit((v / outOf) * total, total) : Math.log(v / outOf / (1 - v / outOf));
  });
}

/**
 * Repetitions: Welch's t on the run values (on the test scale), or the bootstrap from 30 a side. Welch's df even at
 * equal n: Student's 2n - 2 called 7.5-9.7% of identical pairs "significant" when one side's runs spread 3 to 5 times
 * as much at 2-3 runs a side (serverless against a VM); Welch holds 3.5-6%, and is conservative (2.3%) only at 2 runs
 * a side with equal spreads. One run against 2+ runs: the other side's run-to-run spread stands for both
 * (se = s sqrt(1/n + 1), df n - 1), what a CI gate with a baseline's repetitions asks.
 */
export function runsInterval(
  a: RunsSample,
  b: RunsSample,
  scale: VerdictScale,
  o: { level: number; seed: number; resamples: number },
): Interval | string {
  const x = onTestScale(a, scale);
  const y = onTestScale(b, scale);
  if (typeof x === "string") return x;
  if (typeof y === "string") return y;
  if (x.some((v) => !Number.isFinite(v)) || y.some((v) => !Number.isFinite(v)))
    return "a share's log-odds needs each run's requests, or shares strictly between 0 and 100%";
  const estimate = mean(y) - mean(x);
  const outOf = a.scale ?? 1;
  const correctedShare = (v: number, i: number) => {
    const total = a.denominators?.[i] ?? 0;
    return total > 0 ? (outOf * ((v / outOf) * total + 0.5)) / (total + 1) : v;
  };
  const baselineValue = scale === "log-odds" ? mean(a.values.map(correctedShare)) : mean(a.values);
  if (x.length === 1 || y.length === 1) {
    const many = x.length === 1 ? y : x;
    const se = sampleStandardDeviation(many) * Math.sqrt(1 / many.length + 1);
    return { method: "single-run-t", estimate, standardError: se, df: many.length - 1, baselineValue };
  }
  const { standardError, df } = welchStandardError(x, y);
  if (x.length >= BOOTSTRAP_MIN_RUNS && y.length >= BOOTSTRAP_MIN_RUNS) {
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
  // No seconds at all is a whole-run value (all responses' percentiles) or a run stored without its per-second terms,
  // not a short run: said as such, so a 119 s run is never told it lacks 30 s.
  if (xs.length === 0)
    return "a single run has no per-second series of this metric (a whole-run value): 2 or more runs a side give it an interval";
  if (xs.length < MIN_SERIES_SECONDS)
    return `the load window holds ${xs.length} s of per-second data; a single run a side needs at least ${MIN_SERIES_SECONDS} s`;
  const v = blockBootstrapVariance(xs);
  const problem = seriesProblem(xs, v);
  if (problem) return problem;
  return { estimate: 0, variance: v.variance * scale ** 2, blocks: v.blocks, blockLength: v.blockLength, seconds: xs.length };
}

/**
 * A whole-run share R = sum(num) / sum(den) and its variance: the ratio estimator linearised per second
 * (z = num - R den), the mean of z's variance by the moving-block bootstrap, over mean(den)^2.
 */
function shareSide(
  num: readonly number[],
  den: readonly number[],
): (SeriesSide & { share: number; failures: number; total: number }) | string {
  const total = den.reduce((s, d) => s + d, 0);
  if (!(total > 0)) return "no completed requests in the load window";
  const share = num.reduce((s, n) => s + n, 0) / total;
  const z = num.map((n, i) => n - share * den[i]!);
  const side = seriesOf(z, 1 / (total / den.length));
  return typeof side === "string" ? side : { ...side, estimate: share, share, failures: share * total, total };
}

/**
 * A share's whole-run log-odds and its variance by the delta method, var(p) / (p(1 - p))^2, with var(p) at least the
 * binomial p(1 - p)/N: a run without failures says little of how rare they are, so its log-odds is not exact.
 */
function logOddsSide(
  sample: Extract<VerdictSample, { kind: "share-seconds" }>,
): (SeriesSide & { failures: number; total: number }) | string {
  const s = shareSide(sample.numerators, sample.denominators);
  if (typeof s === "string") return s;
  const p = (s.failures + 0.5) / (s.total + 1);
  const spread = p * (1 - p);
  return { ...s, estimate: empiricalLogit(s.failures, s.total), variance: Math.max(s.variance, spread / s.total) / spread ** 2 };
}

/** One run's series as the estimate of its whole-run value. */
function sideOf(sample: SeriesSample): SeriesSide | string {
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

/** Single runs: the difference of their whole-run values (on the test scale), widened by a stated run-to-run CV when there is one. */
export function secondsInterval(a: SeriesSample, b: SeriesSample, scale: VerdictScale, cv: number | null): Interval | string {
  if (scale === "log-odds") {
    if (a.kind !== "share-seconds" || b.kind !== "share-seconds") return "the log-odds scale is for shares";
    const la = logOddsSide(a);
    if (typeof la === "string") return la;
    const lb = logOddsSide(b);
    if (typeof lb === "string") return lb;
    const between = cv === null ? 0 : 2 * Math.log(1 + cv) ** 2;
    // Half a failure added, as the odds are (a baseline without failures still has odds to scale).
    const baselineShare = (a.scale ?? 1) * ((la.failures + 0.5) / (la.total + 1));
    return seriesInterval(la, lb, la.variance, lb.variance, between, lb.estimate - la.estimate, baselineShare);
  }
  const sa = sideOf(a);
  if (typeof sa === "string") return sa;
  const sb = sideOf(b);
  if (typeof sb === "string") return sb;
  const ratio = scale === "ratio";
  if (ratio && !(sa.estimate > 0 && sb.estimate > 0)) return "a ratio needs values > 0";
  // On the ratio scale, the delta method: var(log x) ~ var(x) / x^2.
  const [va, vb] = ratio ? [sa.variance / sa.estimate ** 2, sb.variance / sb.estimate ** 2] : [sa.variance, sb.variance];
  const between = cv === null ? 0 : ratio ? 2 * Math.log(1 + cv) ** 2 : (cv * sa.estimate) ** 2 + (cv * sb.estimate) ** 2;
  const estimate = ratio ? Math.log(sb.estimate / sa.estimate) : sb.estimate - sa.estimate;
  return seriesInterval(sa, sb, va, vb, between, estimate, sa.estimate);
}

/**
 * The interval of two single runs' difference: their variances (test scale) and the stated run-to-run variance, which
 * is known, not estimated, so it widens the interval and adds no uncertainty to the df.
 */
function seriesInterval(
  sa: SeriesSide,
  sb: SeriesSide,
  va: number,
  vb: number,
  between: number,
  estimate: number,
  baselineValue: number,
): Interval {
  const se2 = va + vb + between;
  const within = va ** 2 / (sa.blocks - 1) + vb ** 2 / (sb.blocks - 1);
  const df = within === 0 ? sa.blocks + sb.blocks - 2 : Math.min(1e6, se2 ** 2 / within);
  return {
    method: "moving-block-bootstrap",
    estimate,
    standardError: Math.sqrt(se2),
    df,
    blockLengths: [sa.blockLength, sb.blockLength],
    baselineValue,
  };
}

/** One run's whole-run value with its interval (the trend page's point and error bar). */
export interface RunValueInterval {
  low: number;
  high: number;
  method: "moving-block-bootstrap" | "woodruff";
  /** Non-overlapping blocks behind it (its df + 1). */
  blocks: number;
}

/**
 * The interval of a single run's whole-run value from its own per-second series, the way a verdict of two single runs
 * judges each side (sideOf): a mean or a share +- t(blocks - 1) x its moving-block bootstrap standard error, a
 * quantile by Woodruff's interval (the quantile function over p +- z se of the share above it, so it stays on the
 * run's own histogram and is as asymmetric as the tail). A share's interval is kept within [0, its scale]. A string
 * says why a run has none (too short, too dependent, no seconds): never an interval made up.
 */
export function runValueInterval(sample: SeriesSample, level = 0.95): RunValueInterval | string {
  if (sample.kind === "quantile-seconds") {
    const s = shareSide(sample.above, sample.counts);
    if (typeof s === "string") return s;
    const z = studentTQuantile(1 - (1 - level) / 2, 1e6);
    const se = Math.sqrt(s.variance);
    return {
      low: sample.quantile(Math.max(0, sample.p - z * se)),
      high: sample.quantile(Math.min(1, sample.p + z * se)),
      method: "woodruff",
      blocks: s.blocks,
    };
  }
  const side = sideOf(sample);
  if (typeof side === "string") return side;
  const half = studentTQuantile(1 - (1 - level) / 2, Math.max(1, side.blocks - 1)) * Math.sqrt(side.variance);
  const scale = sample.kind === "share-seconds" ? (sample.scale ?? 1) : null;
  return {
    low: scale === null ? side.estimate - half : Math.max(0, side.estimate - half),
    high: scale === null ? side.estimate + half : Math.min(scale, side.estimate + half),
    method: "moving-block-bootstrap",
    blocks: side.blocks,
  };
}
