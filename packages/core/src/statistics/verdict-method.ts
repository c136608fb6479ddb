// One way to say whether two groups differ, used by every page, the CLI and the
// exports. The method depends on what the samples are:
// - repetitions (one value per run), 2..29 a side: Student's t between the
//   run values (Welch's unequal-variance interval when n differ; with equal n the
//   statistic is the same and the df are 2n - 2: Welch's df there called 2.4% of
//   identical pairs at 2 runs a side "significant" instead of 5%);
// - repetitions, 30 or more a side: a seeded percentile bootstrap;
// - one run a side: what the two runs showed, over their per-second series (a
//   moving-block bootstrap of the whole-run value: a mean, a share, or a whole-run
//   percentile from the merged histogram), labelled "within-run" and never
//   `significant`, unless a run-to-run coefficient of variation is stated: then
//   the interval is widened by it and the verdict is one between configurations;
// - run-level values on one side and seconds on the other: no verdict.
// Three outcomes: better beyond the margin (the whole interval beyond +-margin),
// equivalent (the whole interval inside it), inconclusive (with the smallest
// difference these runs could have detected, and the runs a side the margin
// needs). A comparison's verdicts are one family: Holm's correction decides which
// stay significant (applyFamily).
import { seededRandom } from "./seeded-random";
import { mean, studentTCdf, studentTQuantile } from "./repetition-stats";
import { blockBootstrapVariance } from "./block-bootstrap";
import { welchStandardError } from "./welch";

/**
 * One value per repetition; or one run's per-second series: its values (a mean),
 * a share (numerator / denominator per second, e.g. failures / requests), or the
 * whole-run p-quantile with, per second, the requests and those above the
 * whole-run quantile (`quantile` reads the merged histogram of the whole run).
 */
export type VerdictSample =
  | { kind: "runs"; values: readonly number[] }
  | { kind: "seconds"; values: readonly number[] }
  | { kind: "share-seconds"; numerators: readonly number[]; denominators: readonly number[]; scale?: number }
  | { kind: "quantile-seconds"; p: number; counts: readonly number[]; above: readonly number[]; quantile: (p: number) => number };

export type VerdictMethod = "welch-t" | "bootstrap" | "moving-block-bootstrap" | "none";

export type VerdictOutcome = "candidate-better" | "baseline-better" | "equivalent" | "inconclusive" | "no-verdict";

/** Between configurations (repetitions, or single runs widened by a stated run-to-run CV), or only what two single runs showed. */
export type VerdictScope = "between-configurations" | "within-run";

/**
 * The version of how verdicts are decided (this module, compare/comparison-samples.ts and the metric catalog): part
 * of a stored comparison's cache key, so comparisons stored by older verdict code are computed again. Bump it with
 * any change to a method, an interval, a margin, the outcomes, their texts or the compared metrics.
 */
export const VERDICT_VERSION = 1;

/** Below this many repetitions a side the bootstrap's percentile interval is too narrow; Student/Welch is used. */
export const BOOTSTRAP_MIN_RUNS = 30;
/** A single run's series must hold at least this many independent-equivalent seconds (n x var / long-run var) to be judged. */
export const MIN_EFFECTIVE_SECONDS = 20;
/** ...and at least this many blocks of the chosen length. */
export const MIN_BLOCKS = 8;
export const DEFAULT_EQUIVALENCE_MARGIN = 0.05;
/** The power "the smallest difference these runs could have detected" and "runs a side needed" are stated at. */
export const DETECTION_POWER = 0.8;

export interface VerdictOptions {
  lowerIsBetter: boolean;
  unit?: string;
  /** "difference" (b - a) or "ratio" (b / a, on the log scale). */
  scale?: "difference" | "ratio";
  /** Practical-equivalence margin, relative to the baseline (0.05: differences within +-5% do not count). */
  margin?: number;
  /** "points": the margin is absolute, in the metric's own unit (percentage points of a share), not relative. */
  marginUnit?: "relative" | "points";
  level?: number;
  /** Seed and resamples of the bootstrap (large groups only). */
  seed?: number;
  resamples?: number;
  /**
   * The run-to-run coefficient of variation of a run's value, stated by the user (0.05 = 5%). With it a single run a
   * side is judged between configurations (the interval widened by it); without it, single runs are "within-run".
   */
  runToRunCv?: number;
}

export interface GroupVerdict {
  metric: string;
  baseline: string;
  candidate: string;
  method: VerdictMethod;
  /** The method in words, as the page shows it. */
  methodLabel: string;
  basis: "runs" | "seconds" | "mixed";
  /** "within-run": one run a side and no stated run-to-run variance; says what the two runs showed and is never significant. */
  scope: VerdictScope;
  /** The stated run-to-run CV the interval was widened by (single runs only), or null. */
  runToRunCv: number | null;
  /** Runs (or seconds of the one run) a side. */
  samples: [number, number];
  scale: "difference" | "ratio";
  /** b - a, or b / a on the ratio scale; null without a verdict. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  level: number;
  /** The margin: relative to the baseline (0.05), or absolute in the metric's unit when marginUnit is "points". */
  margin: number;
  marginUnit: "relative" | "points";
  /** |value| of the baseline: what a relative margin on the difference scale is relative to (null without a verdict). */
  baselineMean: number | null;
  /** Standard error and degrees of freedom of the estimate (of log b/a on the ratio scale). */
  standardError: number | null;
  df: number | null;
  /** Two-sided p of "no difference beyond the margin" (with margin 0: of no difference); null without a test. */
  pValue: number | null;
  /** The same after Holm's correction over the verdict's family (applyFamily); equals pValue until then. */
  adjustedPValue: number | null;
  /** The family the correction ran over, in words, and its size (verdicts tested). */
  family: string | null;
  familySize: number;
  /**
   * The smallest difference these samples could have detected (80% power, the verdict's level), in the margin's unit:
   * relative (0.15 = 15%) or points. Null without an interval.
   */
  detectable: number | null;
  /** Runs a side that would detect a difference of the margin with 80% power (null: margin 0, or within-run). */
  runsNeeded: number | null;
  outcome: VerdictOutcome;
  /** True only between configurations, beyond the margin, and significant after Holm's correction. */
  significant: boolean;
  seed: number | null;
  resamples: number | null;
  /** Seconds per block, a side (moving-block bootstrap only). */
  blockLengths: [number, number] | null;
  /** Why there is no verdict. */
  reason: string | null;
  text: string;
}

interface Interval {
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
function runsInterval(
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
function secondsInterval(
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

const METHOD_LABELS: Record<VerdictMethod, string> = {
  "welch-t": "Student's t over run values (Welch's when n differ)",
  bootstrap: "percentile bootstrap",
  "moving-block-bootstrap": "moving-block bootstrap over per-second series",
  none: "no method applies",
};

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
const pct = (v: number) => `${fmt(v * 100)}%`;

const sampleSize = (s: VerdictSample) =>
  s.kind === "runs" || s.kind === "seconds" ? s.values.length : s.kind === "share-seconds" ? s.denominators.length : s.counts.length;

/**
 * The verdict on one metric between a baseline and a candidate group: the interval of the difference (or ratio)
 * and its outcome under the margin (withMargin). A single verdict's family is itself until applyFamily runs.
 */
export function compareGroups(
  metric: string,
  baseline: { label: string; sample: VerdictSample },
  candidate: { label: string; sample: VerdictSample },
  opts: VerdictOptions,
): GroupVerdict {
  const level = opts.level ?? 0.95;
  const margin = opts.margin ?? DEFAULT_EQUIVALENCE_MARGIN;
  const scale = opts.scale ?? "difference";
  const ratio = scale === "ratio";
  const runsSide = (s: VerdictSample) => s.kind === "runs";
  const kind: GroupVerdict["basis"] =
    runsSide(baseline.sample) === runsSide(candidate.sample) ? (runsSide(baseline.sample) ? "runs" : "seconds") : "mixed";
  const unitOf = kind === "seconds" ? "s" : "runs";
  const samples: [number, number] = [sampleSize(baseline.sample), sampleSize(candidate.sample)];
  const cv = kind === "seconds" && opts.runToRunCv !== undefined ? opts.runToRunCv : null;
  if (cv !== null && !(cv >= 0 && cv < 1)) throw new RangeError(`runToRunCv must be a fraction in [0, 1), not ${cv}`);
  const base = {
    metric,
    baseline: baseline.label,
    candidate: candidate.label,
    basis: kind,
    scope: (kind === "seconds" && cv === null ? "within-run" : "between-configurations") as VerdictScope,
    runToRunCv: cv,
    samples,
    scale,
    level,
    margin,
    marginUnit: opts.marginUnit ?? ("relative" as const),
    family: null,
    familySize: 1,
  };
  const noVerdict = (reason: string): GroupVerdict => ({
    ...base,
    method: "none",
    methodLabel: METHOD_LABELS.none,
    estimate: null,
    low: null,
    high: null,
    standardError: null,
    df: null,
    pValue: null,
    adjustedPValue: null,
    detectable: null,
    runsNeeded: null,
    outcome: "no-verdict",
    significant: false,
    seed: null,
    resamples: null,
    blockLengths: null,
    baselineMean: null,
    reason,
    text: `no verdict on ${metric} (${samples[0]} vs ${samples[1]} ${unitOf}): ${reason}`,
  });

  let interval: Interval | string;
  const a = baseline.sample;
  const b = candidate.sample;
  if (kind === "mixed")
    interval = "one side has repetitions and the other a single run's seconds; run-level and per-second values are never compared";
  else if (a.kind === "runs" && b.kind === "runs") {
    if (a.values.length < 2 || b.values.length < 2)
      interval = "needs at least 2 runs a side (or a single run a side, judged over its seconds)";
    else if (ratio && [...a.values, ...b.values].some((v) => !(v > 0))) interval = "a ratio needs values > 0";
    else interval = runsInterval(a.values, b.values, ratio, { level, seed: opts.seed ?? 1, resamples: opts.resamples ?? 4000 });
  } else
    interval = secondsInterval(a as Exclude<VerdictSample, { kind: "runs" }>, b as Exclude<VerdictSample, { kind: "runs" }>, ratio, cv);
  if (typeof interval === "string") return noVerdict(interval);

  const t = studentTQuantile(1 - (1 - level) / 2, interval.df);
  const lowT = interval.low ?? interval.estimate - t * interval.standardError;
  const highT = interval.high ?? interval.estimate + t * interval.standardError;
  const natural = (x: number) => (ratio ? Math.exp(x) : x);
  const verdict: GroupVerdict = {
    ...base,
    method: interval.method,
    methodLabel: METHOD_LABELS[interval.method],
    estimate: natural(interval.estimate),
    low: natural(lowT),
    high: natural(highT),
    standardError: interval.standardError,
    df: interval.df,
    pValue: null,
    adjustedPValue: null,
    detectable: null,
    runsNeeded: null,
    baselineMean: Math.abs(interval.baselineValue),
    outcome: "inconclusive",
    significant: false,
    seed: interval.seed ?? null,
    resamples: interval.resamples ?? null,
    blockLengths: interval.blockLengths ?? null,
    reason: null,
    text: "",
  };
  return withMargin(verdict, margin, opts);
}

/**
 * The per-run variance behind a verdict's standard error (on the test scale), what "runs a side needed" scales:
 * se^2 / (1/na + 1/nb) between repetitions, se^2 / 2 for single runs widened by a stated CV; unknown within-run.
 */
function perRunVarianceOf(v: GroupVerdict): number | null {
  if (v.scope === "within-run" || v.standardError === null) return null;
  const [na, nb] = v.basis === "runs" ? v.samples : [1, 1];
  return v.standardError ** 2 / (1 / na + 1 / nb);
}

/** The margin on the test scale (log for ratios): a relative margin of the baseline, or points. */
function bandOf(v: GroupVerdict, margin: number): number {
  if (v.scale === "ratio") return Math.log(1 + margin);
  return v.marginUnit === "points" ? margin : margin * (v.baselineMean ?? 0);
}

/** The smallest |difference| on the test scale that these samples detect with DETECTION_POWER (two-sided, at the level). */
function detectableOnScale(v: GroupVerdict): number {
  const df = v.df ?? 1e6;
  return (studentTQuantile(1 - (1 - v.level) / 2, df) + studentTQuantile(DETECTION_POWER, df)) * (v.standardError ?? 0);
}

/** Runs a side for which a difference of `band` (test scale) is detected with DETECTION_POWER, given a per-run variance. */
function runsNeededFor(band: number, perRunVariance: number, level: number): number | null {
  if (!(band > 0)) return null;
  if (perRunVariance === 0) return 2;
  let n = 2;
  for (let i = 0; i < 30; i++) {
    const df = 2 * n - 2;
    const k = studentTQuantile(1 - (1 - level) / 2, df) + studentTQuantile(DETECTION_POWER, df);
    const next = Math.max(2, Math.ceil((2 * perRunVariance * k * k) / (band * band)));
    if (next === n || next > 10_000) return Math.min(next, 10_000);
    n = next;
  }
  return n;
}

/**
 * The verdict under another practical-equivalence margin: the interval stays, the outcome, the p-value, the detectable
 * difference and the text are decided again (so a page can let the user set the margin without recomputing any
 * interval). A "no verdict" only takes the margin. A margin in points (failure share) is not changed by a relative one.
 */
export function withMargin(v: GroupVerdict, margin: number, opts: Pick<VerdictOptions, "lowerIsBetter" | "unit">): GroupVerdict {
  if (!(margin >= 0 && Number.isFinite(margin))) throw new RangeError(`margin must be a number >= 0, not ${margin}`);
  const { estimate, low, high, baselineMean, standardError, df } = v;
  if (v.method === "none" || estimate === null || low === null || high === null || baselineMean === null || standardError === null)
    return { ...v, margin };
  const ratio = v.scale === "ratio";
  const band = bandOf(v, margin);
  const onScale = (x: number) => (ratio ? Math.log(x) : x);
  const [l, h, e] = [onScale(low), onScale(high), onScale(estimate)];
  const insideMargin = l >= -band && h <= band;
  const beyond = l > band || h < -band;
  const candidateHigher = e > 0;
  const better: VerdictOutcome = candidateHigher !== opts.lowerIsBetter ? "candidate-better" : "baseline-better";
  const outcome: VerdictOutcome = insideMargin ? "equivalent" : beyond ? better : "inconclusive";
  // The test of "no difference beyond the margin" in the estimate's direction, two-sided: p < 1 - level exactly when
  // the t-interval lies beyond the margin.
  const tStat = standardError > 0 ? (Math.abs(e) - band) / standardError : Math.abs(e) > band ? Infinity : 0;
  const pValue = Math.min(1, 2 * (1 - studentTCdf(tStat, df ?? 1e6)));
  const detect = detectableOnScale(v);
  const relative = (x: number) => (ratio ? Math.exp(x) - 1 : v.marginUnit === "points" ? x : baselineMean > 0 ? x / baselineMean : 0);
  const perRun = perRunVarianceOf(v);
  const runsNeeded = perRun === null ? null : runsNeededFor(band, perRun, v.level);
  const decided: GroupVerdict = {
    ...v,
    margin,
    outcome,
    pValue,
    adjustedPValue: pValue,
    family: null,
    familySize: 1,
    detectable: relative(detect),
    runsNeeded,
    significant: v.scope === "between-configurations" && (outcome === "candidate-better" || outcome === "baseline-better"),
  };
  return { ...decided, text: verdictText(decided, opts) };
}

function marginSaid(v: GroupVerdict): string {
  return v.marginUnit === "points" ? `+-${fmt(v.margin)} points` : `+-${fmt(v.margin * 100)}%`;
}

/** The verdict in words: the outcome, then the numbers it rests on. */
export function verdictText(v: GroupVerdict, opts: Pick<VerdictOptions, "unit" | "lowerIsBetter">): string {
  if (v.estimate === null || v.low === null || v.high === null) return v.text;
  const ratio = v.scale === "ratio";
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const [na, nb] = v.samples;
  const n = v.basis === "seconds" ? `1 run a side (${na} vs ${nb} s)` : `n = ${na} vs ${nb} runs`;
  const est = ratio ? `${v.candidate} / ${v.baseline} = ${fmt(v.estimate)}` : `${v.candidate} - ${v.baseline} = ${fmt(v.estimate)}${unit}`;
  const range = ratio ? `${fmt(v.low)} to ${fmt(v.high)}` : `${fmt(v.low)} to ${fmt(v.high)}${unit}`;
  const blocks = v.blockLengths ? `, blocks of ${v.blockLengths[0]} and ${v.blockLengths[1]} s` : "";
  const seeded = v.seed !== null ? `, seed ${v.seed}, ${v.resamples} resamples` : "";
  const cv = v.runToRunCv !== null ? `, widened by a stated run-to-run CV of ${pct(v.runToRunCv)}` : "";
  const holm =
    v.familySize > 1 && v.adjustedPValue !== null ? `, Holm-adjusted p ${fmt(v.adjustedPValue)} over ${v.familySize} verdicts` : "";
  const detail = `${est}, ${Math.round(v.level * 100)}% CI ${range}; ${METHOD_LABELS[v.method]}${blocks}${seeded}${cv}, ${n}, margin ${marginSaid(v)}${holm}`;
  const detectable = v.detectable === null ? "" : v.marginUnit === "points" ? `${fmt(v.detectable)} points` : pct(v.detectable);
  const needed =
    v.runsNeeded === null
      ? v.scope === "within-run"
        ? "repeat each configuration (or state a run-to-run CV) to judge configurations"
        : "a margin of 0 cannot be detected"
      : `about ${v.runsNeeded} runs a side would detect a difference of the margin`;
  const candidateHigher = v.estimate > (ratio ? 1 : 0);
  const winner = candidateHigher !== opts.lowerIsBetter ? v.candidate : v.baseline;
  const band = bandOf(v, v.margin);
  const [l, h] = ratio ? [Math.log(v.low), Math.log(v.high)] : [v.low, v.high];
  const beyondAlone = l > band || h < -band;
  let head: string;
  switch (v.outcome) {
    case "equivalent":
      head = `equivalent on ${v.metric}: the interval lies within the margin`;
      break;
    case "candidate-better":
    case "baseline-better":
      head =
        v.scope === "within-run"
          ? `within-run: ${winner}'s run was better on ${v.metric} beyond the margin (two single runs; not a verdict between configurations)`
          : `${winner} is better on ${v.metric} beyond the margin`;
      break;
    default:
      head =
        beyondAlone && v.scope === "between-configurations"
          ? `inconclusive on ${v.metric}: ${winner} is better beyond the margin alone, but not after Holm's correction`
          : `inconclusive on ${v.metric}: these samples could detect about ${detectable}; ${needed}`;
  }
  const prefix = v.scope === "within-run" && !head.startsWith("within-run") ? "within-run, " : "";
  return `${prefix}${head} (${detail})`;
}

/**
 * Holm's step-down correction over a family of verdicts (those between configurations with an interval): each keeps
 * its interval; `significant` stays only where the Holm-adjusted p is below 1 - level. Within-run verdicts and "no
 * verdict" entries are not tested and not counted.
 */
export function applyFamily(
  verdicts: readonly GroupVerdict[],
  family: string,
  opts: (v: GroupVerdict) => Pick<VerdictOptions, "unit" | "lowerIsBetter">,
): GroupVerdict[] {
  const tested = verdicts
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => v.scope === "between-configurations" && v.pValue !== null)
    .sort((x, y) => x.v.pValue! - y.v.pValue!);
  const m = tested.length;
  const adjusted = new Map<number, number>();
  let running = 0;
  tested.forEach(({ v, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * v.pValue!));
    adjusted.set(i, running);
  });
  return verdicts.map((v, i) => {
    const adj = adjusted.get(i);
    if (adj === undefined) return { ...v, family, familySize: m };
    const beyond = v.outcome === "candidate-better" || v.outcome === "baseline-better";
    const kept = beyond && adj < 1 - v.level;
    // Beyond the margin alone but not after the correction: inconclusive (the text says which way it leaned).
    const out: GroupVerdict = {
      ...v,
      family,
      familySize: m,
      adjustedPValue: adj,
      significant: kept,
      outcome: beyond && !kept ? "inconclusive" : v.outcome,
    };
    return { ...out, text: verdictText(out, opts(v)) };
  });
}

export interface FamilySummary {
  family: string | null;
  /** Verdicts tested (between configurations, with an interval). */
  tested: number;
  /** Significant after Holm's correction. */
  significant: number;
  /** Beyond the margin at the verdict's own level, before the correction. */
  uncorrected: number;
  /** m x alpha: how many would be "significant" by chance alone, uncorrected, if nothing differed. */
  expectedByChance: number;
  withinRun: number;
  text: string;
}

/** "k of m significant, about m x alpha expected by chance": what a family of verdicts says as a whole. */
export function familySummary(verdicts: readonly GroupVerdict[]): FamilySummary {
  const tested = verdicts.filter((v) => v.scope === "between-configurations" && v.pValue !== null);
  const alpha = 1 - (tested[0]?.level ?? 0.95);
  const significant = tested.filter((v) => v.significant).length;
  const uncorrected = tested.filter((v) => v.outcome === "candidate-better" || v.outcome === "baseline-better").length;
  const withinRun = verdicts.filter((v) => v.scope === "within-run" && v.method !== "none").length;
  const m = tested.length;
  const family = verdicts.find((v) => v.family)?.family ?? null;
  const parts = [
    m
      ? `${significant} of ${m} significant after Holm's correction (${uncorrected} before it; about ${fmt(m * alpha)} would be by chance alone if nothing differed)`
      : "no verdict between configurations",
  ];
  if (withinRun) parts.push(`${withinRun} within-run (single runs; never significant)`);
  return {
    family,
    tested: m,
    significant,
    uncorrected,
    expectedByChance: m * alpha,
    withinRun,
    text: `${family ? `${family}: ` : ""}${parts.join("; ")}`,
  };
}
