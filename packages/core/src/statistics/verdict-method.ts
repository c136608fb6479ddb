// One way to say whether two groups differ, used by every page, the CLI and the
// exports. The method depends on what the samples are:
// - repetitions (one value per run), 2..29 a side: Welch's t-interval of the
//   difference of means, or of the ratio on the log scale;
// - repetitions, 30 or more a side: a seeded percentile bootstrap (at 10 a side
//   it still called 9% of identical pairs "significant");
// - one run a side: a moving-block bootstrap over each run's per-second series,
//   or no verdict when the series is too dependent to say anything;
// - run-level values on one side and seconds on the other: no verdict.
// The interval never treats seconds as independent samples.
import { seededRandom } from "../seeded-random";
import { mean, studentTQuantile } from "../statistics";
import { blockBootstrapVariance, type BlockBootstrapVariance } from "./block-bootstrap";
import { welchDifference, welchRatio } from "./welch";

/** One value per repetition, or the per-second series of a single run. */
export type VerdictSample = { kind: "runs"; values: readonly number[] } | { kind: "seconds"; values: readonly number[] };

export type VerdictMethod = "welch-t" | "bootstrap" | "moving-block-bootstrap" | "none";

export type VerdictOutcome = "candidate-better" | "baseline-better" | "equivalent" | "no-significant-difference" | "no-verdict";

/** Below this many repetitions a side the bootstrap's percentile interval is too narrow; Welch is used. */
export const BOOTSTRAP_MIN_RUNS = 30;
/** A single run's series must hold at least this many independent-equivalent seconds (n x var / long-run var) to be judged. */
export const MIN_EFFECTIVE_SECONDS = 20;
/** ...and at least this many blocks of the chosen length. */
export const MIN_BLOCKS = 8;
export const DEFAULT_EQUIVALENCE_MARGIN = 0.05;

export interface VerdictOptions {
  lowerIsBetter: boolean;
  unit?: string;
  /** "difference" (b - a) or "ratio" (b / a, on the log scale). */
  scale?: "difference" | "ratio";
  /** Practical-equivalence margin, relative to the baseline (0.05: differences within +-5% do not count). */
  margin?: number;
  level?: number;
  /** Seed and resamples of the bootstrap (large groups only). */
  seed?: number;
  resamples?: number;
}

export interface GroupVerdict {
  metric: string;
  baseline: string;
  candidate: string;
  method: VerdictMethod;
  /** The method in words, as the page shows it. */
  methodLabel: string;
  basis: "runs" | "seconds" | "mixed";
  /** Runs (or seconds of the one run) a side. */
  samples: [number, number];
  scale: "difference" | "ratio";
  /** b - a, or b / a on the ratio scale; null without a verdict. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  level: number;
  margin: number;
  /** |mean| of the baseline's samples: what a margin on the difference scale is relative to (null without a verdict). */
  baselineMean: number | null;
  outcome: VerdictOutcome;
  /** True when one side is better beyond the interval and the margin. */
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
  estimate: number;
  low: number;
  high: number;
  seed?: number;
  resamples?: number;
  blockLengths?: [number, number];
}

function percentile(sorted: Float64Array, p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  return lo + (sorted[Math.ceil(i)]! - lo) * (i - Math.floor(i));
}

/** Percentile bootstrap of mean(b) - mean(a), resampling each group with replacement from `seed`. */
function bootstrapInterval(a: readonly number[], b: readonly number[], level: number, seed: number, resamples: number) {
  const rand = seededRandom(seed);
  const resampleMean = (xs: readonly number[]) => {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(rand() * xs.length)]!;
    return sum / xs.length;
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = resampleMean(b) - resampleMean(a);
  diffs.sort();
  return { estimate: mean(b) - mean(a), low: percentile(diffs, (1 - level) / 2), high: percentile(diffs, 1 - (1 - level) / 2) };
}

function runsInterval(
  a: readonly number[],
  b: readonly number[],
  ratio: boolean,
  o: Required<Pick<VerdictOptions, "level" | "seed" | "resamples">>,
) {
  if (a.length >= BOOTSTRAP_MIN_RUNS && b.length >= BOOTSTRAP_MIN_RUNS) {
    const boot = ratio
      ? bootstrapInterval(a.map(Math.log), b.map(Math.log), o.level, o.seed, o.resamples)
      : bootstrapInterval(a, b, o.level, o.seed, o.resamples);
    const t = ratio ? { estimate: Math.exp(boot.estimate), low: Math.exp(boot.low), high: Math.exp(boot.high) } : boot;
    return { method: "bootstrap" as const, ...t, seed: o.seed, resamples: o.resamples };
  }
  const w = ratio ? welchRatio(a, b, o.level) : welchDifference(a, b, o.level);
  return { method: "welch-t" as const, estimate: w.estimate, low: w.low, high: w.high };
}

/** Why a single run's series cannot be judged, or null when it can. */
function seriesProblem(xs: readonly number[], v: BlockBootstrapVariance): string | null {
  const m = mean(xs);
  const variance = xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length;
  const effective = v.variance > 0 ? variance / v.variance : xs.length;
  if (v.blocks < MIN_BLOCKS) return `${xs.length} s hold only ${v.blocks} blocks of ${v.blockLength} s (need ${MIN_BLOCKS})`;
  if (effective < MIN_EFFECTIVE_SECONDS)
    return `the seconds are so dependent (lag-1 autocorrelation ${v.lag1Autocorrelation.toFixed(2)}) that ${xs.length} s count as ${effective.toFixed(0)} independent ones (need ${MIN_EFFECTIVE_SECONDS})`;
  return null;
}

function secondsInterval(a: readonly number[], b: readonly number[], ratio: boolean, level: number): Interval | string {
  if (a.length < 30 || b.length < 30) return "a single run a side needs at least 30 s of per-second data";
  const va = blockBootstrapVariance(a);
  const vb = blockBootstrapVariance(b);
  const problem = seriesProblem(a, va) ?? seriesProblem(b, vb);
  if (problem) return problem;
  const ma = mean(a);
  const mb = mean(b);
  // On the ratio scale, the delta method: var(log mean) ~ var(mean) / mean^2.
  const [sa, sb] = ratio ? [va.variance / ma ** 2, vb.variance / mb ** 2] : [va.variance, vb.variance];
  if (ratio && !(ma > 0 && mb > 0)) return "a ratio needs means > 0";
  const se2 = sa + sb;
  const df = se2 === 0 ? va.blocks + vb.blocks - 2 : se2 ** 2 / (sa ** 2 / (va.blocks - 1) + sb ** 2 / (vb.blocks - 1));
  const half = studentTQuantile(1 - (1 - level) / 2, df) * Math.sqrt(se2);
  const d = ratio ? Math.log(mb / ma) : mb - ma;
  const t = ratio
    ? { estimate: mb / ma, low: Math.exp(d - half), high: Math.exp(d + half) }
    : { estimate: d, low: d - half, high: d + half };
  return { method: "moving-block-bootstrap", ...t, blockLengths: [va.blockLength, vb.blockLength] };
}

const METHOD_LABELS: Record<VerdictMethod, string> = {
  "welch-t": "Welch's t-interval",
  bootstrap: "percentile bootstrap",
  "moving-block-bootstrap": "moving-block bootstrap over per-second series",
  none: "no method applies",
};

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

/**
 * The verdict on one metric between a baseline and a candidate group: the
 * interval of the difference (or ratio), and "no significant difference" when
 * it covers zero (one), "equivalent" when it lies inside the margin.
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
  const a = baseline.sample.values;
  const b = candidate.sample.values;
  const kind = baseline.sample.kind === candidate.sample.kind ? baseline.sample.kind : "mixed";
  const unitOf = kind === "seconds" ? "s" : "runs";
  const samples: [number, number] = [a.length, b.length];
  const base = {
    metric,
    baseline: baseline.label,
    candidate: candidate.label,
    basis: kind === "mixed" ? ("mixed" as const) : kind,
    samples,
    scale,
    level,
    margin,
  };
  const noVerdict = (reason: string): GroupVerdict => ({
    ...base,
    method: "none",
    methodLabel: METHOD_LABELS.none,
    estimate: null,
    low: null,
    high: null,
    outcome: "no-verdict",
    significant: false,
    seed: null,
    resamples: null,
    blockLengths: null,
    baselineMean: null,
    reason,
    text: `no verdict on ${metric} (${a.length} vs ${b.length} ${unitOf}): ${reason}`,
  });

  let interval: Interval | string;
  if (kind === "mixed")
    interval = "one side has repetitions and the other a single run's seconds; run-level and per-second values are never compared";
  else if (ratio && [...a, ...b].some((v) => !(v > 0)) && kind === "runs") interval = "a ratio needs values > 0";
  else if (kind === "runs")
    interval =
      a.length < 2 || b.length < 2
        ? "needs at least 2 runs a side (or a single run a side, judged over its seconds)"
        : runsInterval(a, b, ratio, { level, seed: opts.seed ?? 1, resamples: opts.resamples ?? 4000 });
  else interval = secondsInterval(a, b, ratio, level);
  if (typeof interval === "string") return noVerdict(interval);

  return withMargin(
    {
      ...base,
      method: interval.method,
      methodLabel: METHOD_LABELS[interval.method],
      estimate: interval.estimate,
      low: interval.low,
      high: interval.high,
      baselineMean: Math.abs(mean(a)),
      outcome: "no-significant-difference",
      significant: false,
      seed: interval.seed ?? null,
      resamples: interval.resamples ?? null,
      blockLengths: interval.blockLengths ?? null,
      reason: null,
      text: "",
    },
    margin,
    opts,
  );
}

/**
 * The verdict under another practical-equivalence margin: the interval stays, the
 * outcome and the text are decided again (so a page can let the user set the
 * margin without recomputing any interval). A "no verdict" only takes the margin.
 */
export function withMargin(v: GroupVerdict, margin: number, opts: Pick<VerdictOptions, "lowerIsBetter" | "unit">): GroupVerdict {
  if (!(margin >= 0 && Number.isFinite(margin))) throw new RangeError(`margin must be a number >= 0, not ${margin}`);
  const { estimate, low, high, baselineMean } = v;
  if (v.method === "none" || estimate === null || low === null || high === null || baselineMean === null) return { ...v, margin };
  const ratio = v.scale === "ratio";
  const neutral = ratio ? 1 : 0;
  const [bandLow, bandHigh] = ratio ? [1 / (1 + margin), 1 + margin] : [-margin * baselineMean, margin * baselineMean];
  const coversNeutral = low <= neutral && high >= neutral;
  const insideMargin = low >= bandLow && high <= bandHigh;
  const candidateHigher = low > neutral;
  const outcome: VerdictOutcome = coversNeutral
    ? "no-significant-difference"
    : insideMargin
      ? "equivalent"
      : candidateHigher !== opts.lowerIsBetter
        ? "candidate-better"
        : "baseline-better";
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const [na, nb] = v.samples;
  const n = v.basis === "seconds" ? `1 run a side (${na} vs ${nb} s)` : `n = ${na} vs ${nb} runs`;
  const est = ratio ? `${v.candidate} / ${v.baseline} = ${fmt(estimate)}` : `${v.candidate} - ${v.baseline} = ${fmt(estimate)}${unit}`;
  const range = ratio ? `${fmt(low)} to ${fmt(high)}` : `${fmt(low)} to ${fmt(high)}${unit}`;
  const blocks = v.blockLengths ? `, blocks of ${v.blockLengths[0]} and ${v.blockLengths[1]} s` : "";
  const seeded = v.seed !== null ? `, seed ${v.seed}, ${v.resamples} resamples` : "";
  const detail = `${est}, ${Math.round(v.level * 100)}% CI ${range}; ${METHOD_LABELS[v.method]}${blocks}${seeded}, ${n}, margin +-${fmt(margin * 100)}%`;
  const head =
    outcome === "no-significant-difference"
      ? `no significant difference in ${v.metric}`
      : outcome === "equivalent"
        ? `no practical difference in ${v.metric} (within the margin)`
        : `${outcome === "candidate-better" ? v.candidate : v.baseline} is better on ${v.metric}`;
  return {
    ...v,
    margin,
    outcome,
    significant: outcome === "candidate-better" || outcome === "baseline-better",
    text: `${head} (${detail})`,
  };
}
