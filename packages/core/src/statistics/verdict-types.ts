// What the verdict method takes and gives (verdict-method.ts): the samples, the options, the verdict and its
// outcomes, and the constants the methods are chosen by.
/**
 * One value per repetition; or one run's per-second series: its values (a mean),
 * a share (numerator / denominator per second, e.g. failures / requests), or the
 * whole-run p-quantile with, per second, the requests and those above the
 * whole-run quantile (`quantile` reads the merged histogram of the whole run).
 */
export type VerdictSample =
  | {
      kind: "runs";
      values: readonly number[];
      /** A share's runs (log-odds scale): each run's requests, so a run without failures has a finite log-odds. */
      denominators?: readonly number[];
      /** What a value is out of (100: percent). */
      scale?: number;
    }
  | { kind: "seconds"; values: readonly number[] }
  | { kind: "share-seconds"; numerators: readonly number[]; denominators: readonly number[]; scale?: number }
  | { kind: "quantile-seconds"; p: number; counts: readonly number[]; above: readonly number[]; quantile: (p: number) => number };

export type VerdictMethod = "welch-t" | "single-run-t" | "bootstrap" | "moving-block-bootstrap" | "none";

export type VerdictOutcome = "candidate-better" | "baseline-better" | "equivalent" | "inconclusive" | "no-verdict";

/**
 * "difference" (b - a), "ratio" (b / a, on the log scale) or "log-odds" (a share: the odds ratio, on the log scale,
 * which sees 0.1% -> 1% as the tenfold change it is where a difference in points sees 0.9 points).
 */
export type VerdictScale = "difference" | "ratio" | "log-odds";

/**
 * "primary": the comparison's chosen metric, judged in its family (Holm's correction over its pairs); "descriptive":
 * every other metric, shown with its interval and never `significant`.
 */
export type VerdictRole = "primary" | "descriptive";

/** Between configurations (repetitions, or single runs widened by a stated run-to-run CV), or only what two single runs showed. */
export type VerdictScope = "between-configurations" | "within-run";

/** Below this many repetitions a side the bootstrap's percentile interval is too narrow; Student/Welch is used. */
export const BOOTSTRAP_MIN_RUNS = 30;
/** A single run's series must hold at least this many independent-equivalent seconds (n x var / long-run var) to be judged. */
export const MIN_EFFECTIVE_SECONDS = 20;
/** ...and at least this many blocks of the chosen length. */
export const MIN_BLOCKS = 8;
export const DEFAULT_EQUIVALENCE_MARGIN = 0.05;
/** The difference "power" and "runs needed" are stated for, relative to the baseline, unless the user states another. */
export const DEFAULT_EFFECT = 0.1;
/** The power "the smallest difference these runs could have detected" and "runs a side needed" are stated at. */
export const DETECTION_POWER = 0.8;

export interface VerdictOptions {
  lowerIsBetter: boolean;
  unit?: string;
  scale?: VerdictScale;
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
  /** The difference to detect (relative, 0.1 = 10%; points for a margin in points): what power and runs needed are for. */
  effect?: number;
  /** Primary (judged in the family) or descriptive (never significant); default primary. */
  role?: VerdictRole;
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
  scale: VerdictScale;
  role: VerdictRole;
  /** b - a, or b / a on the ratio scale, or the odds ratio on the log-odds scale; null without a verdict. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  level: number;
  /** The margin: relative to the baseline (0.05), or absolute in the metric's unit when marginUnit is "points". */
  margin: number;
  marginUnit: "relative" | "points";
  /** |value| of the baseline: what a relative margin on the difference scale is relative to; a share's value on the log-odds scale (null without a verdict). */
  baselineMean: number | null;
  /** Standard error and degrees of freedom of the estimate (of log b/a on the ratio scale). */
  standardError: number | null;
  df: number | null;
  /**
   * Two-sided p of the verdict's claim: of "no difference beyond the margin" (with margin 0: of no difference), or,
   * where the interval leans inside the margin, of "not equivalent"; null without a test.
   */
  pValue: number | null;
  /** The same after Holm's correction over the verdict's family (applyFamily); equals pValue until then. */
  adjustedPValue: number | null;
  /** The family the correction ran over, in words, and its size (verdicts tested). */
  family: string | null;
  familySize: number;
  /**
   * The smallest true difference the rule applied (the margin, at the family's Holm level) calls better with 80%
   * power, given these samples' standard error, in the margin's unit: relative (0.2 = 20%) or points. Null without an
   * interval, or on a descriptive verdict.
   */
  detectable: number | null;
  /** The difference power and runs needed are stated for (relative, or points for a margin in points). */
  effect: number;
  /** The chance these samples' rule calls a true difference of `effect` better (null: within-run, descriptive, or no interval). */
  power: number | null;
  /** Runs a side for 80% power on `effect` under the rule (null: effect within the margin, within-run, descriptive, or past 1,000). */
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
