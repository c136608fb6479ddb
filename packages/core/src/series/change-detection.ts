// Change detection over a series of runs (issue 36, "performance over time"): where a metric's level changed, as
// its runs arrive one by one (each new run re-runs the detection on the series so far).
//
// The method, published: a penalised Gaussian likelihood for changes in mean, the cost PELT minimises (Killick,
// Fearnhead & Eckley 2012, "Optimal detection of changepoints with a linear computational cost", JASA 107:1590),
// solved exactly by optimal partitioning (Jackson et al. 2005, the search PELT prunes; at a series' lengths, tens to
// a few hundred runs, the unpruned O(n^2) search takes well under a millisecond, and needs no argument that pruning
// stays exact under a minimum segment length). Details (docs/statistics.md, "Change detection over a series"):
// - on the log scale, so a 10% step is the same change at 5 ms as at 500 ms (values must be > 0);
// - each run's own 95% interval enters as its variance: the run's variance is its interval's own (the half-width
//   on the log scale / 1.96, squared) plus the between-run variance estimated from the series. A run with a wide
//   interval weighs less in its segment's level, and cannot alone make a change; runs with wide intervals raise the
//   noise a change must stand out of;
// - the between-run variance comes from successive differences (von Neumann's mean square successive difference,
//   less each pair's own variances), which a step barely moves, so it is estimated on the whole series without
//   knowing the changes;
// - the penalty per change is a z-threshold squared, raised to Student's t at the noise estimate's degrees of
//   freedom, so a short series (a noisy estimate of its noise) needs more evidence; each segment also costs
//   gamma x ln(its length), the form of Zhang & Siegmund's modified BIC (2007, Biometrics 63:22), so a change among
//   the newest runs (a short segment after it) needs less evidence than one in the middle of a long series, which
//   is re-tested with every new run;
// - a change needs minSegment runs on each side (a single odd run is not a change), and a change whose size is
//   under the runs' own resolution (their median interval half-width) is not reported: the runs cannot tell it.
import { studentTQuantile } from "../statistics/student-t";

/** One run of a series: its estimate of the metric and that run's own 95% interval, in the metric's unit. */
export interface SeriesPoint {
  value: number;
  low: number;
  high: number;
}

export interface DetectedChange {
  /** The index of the first point after the change. */
  index: number;
  /** The level before and after (the segments' estimates), and after / before - 1. */
  before: number;
  after: number;
  relative: number;
}

export interface ChangeDetectionOptions {
  /**
   * The evidence a change must show: the z (in the runs' noise) a single change's split must exceed, raised to
   * Student's t at the noise estimate's degrees of freedom. The penalty per change is its square. Default
   * CHANGE_DETECTION_DEFAULTS.threshold (tuned by `npm run bench:changes`).
   */
  threshold?: number;
  /** The fewest runs on either side of a change. Default 2. */
  minSegment?: number;
  /**
   * The smallest |after / before - 1| reported. Default: the runs' median interval half-width (relative), i.e. what
   * one run can resolve on its own.
   */
  minRelativeChange?: number;
  /**
   * gamma: each segment's cost has gamma x ln(its length) added, the form of Zhang & Siegmund's modified BIC (2007),
   * so splitting n runs into n1 + n2 costs gamma x ln(n1 n2 / n) more: a change with few runs after it (the newest
   * runs) needs less evidence than one in the middle of a long series. Without it, an old stretch of a stationary
   * series, re-tested as every new run arrives, crosses the threshold sooner or later. Default
   * CHANGE_DETECTION_DEFAULTS.lengthPenalty.
   */
  lengthPenalty?: number;
}

/** Tuned by `npm run bench:changes` (docs/statistics.md, "Change detection over a series"). */
export const CHANGE_DETECTION_DEFAULTS = { threshold: 1.75, minSegment: 2, lengthPenalty: 2 } as const;

/** The z of a two-sided 95% interval: a run's half-width / Z95 is its standard error. */
const Z95 = 1.959963984540054;

/** The standard normal CDF (erfc by Numerical Recipes' Chebyshev fit, |error| < 1.2e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

function checkPoints(points: readonly SeriesPoint[]): void {
  points.forEach((p, i) => {
    for (const key of ["value", "low", "high"] as const)
      if (!Number.isFinite(p[key]))
        throw new RangeError(`detectChanges: point ${i} has ${key} ${p[key]}; every value and interval end must be a finite number`);
    if (p.value <= 0)
      throw new RangeError(
        `detectChanges: point ${i} has value ${p.value}; change detection works on the log scale (a 10% step is the same at any level) and needs values > 0`,
      );
    if (p.low > p.value || p.high < p.value)
      throw new RangeError(`detectChanges: point ${i} has value ${p.value} outside its interval [${p.low}, ${p.high}]`);
  });
}

/** A run's own standard error on the log scale, from its 95% interval; the upper half alone when the low end is 0 or below. */
function ownStandardError(p: SeriesPoint): number {
  const half = p.low > 0 ? (Math.log(p.high) - Math.log(p.low)) / 2 : Math.log(p.high) - Math.log(p.value);
  return half / Z95;
}

/**
 * The changes of level in `points` (oldest first), each with the segments' levels around it. Fewer than
 * 2 x minSegment points: none. Throws a RangeError naming the point for a value <= 0, a non-finite number, or a
 * value outside its own interval.
 */
export function detectChanges(points: readonly SeriesPoint[], options: ChangeDetectionOptions = {}): DetectedChange[] {
  checkPoints(points);
  const threshold = options.threshold ?? CHANGE_DETECTION_DEFAULTS.threshold;
  const minSegment = options.minSegment ?? CHANGE_DETECTION_DEFAULTS.minSegment;
  const lengthPenalty = options.lengthPenalty ?? CHANGE_DETECTION_DEFAULTS.lengthPenalty;
  if (!(threshold > 0)) throw new RangeError(`detectChanges: threshold must be > 0, not ${threshold}`);
  if (!(lengthPenalty >= 0)) throw new RangeError(`detectChanges: lengthPenalty must be >= 0, not ${lengthPenalty}`);
  if (!(Number.isInteger(minSegment) && minSegment >= 1))
    throw new RangeError(`detectChanges: minSegment must be a whole number >= 1, not ${minSegment}`);
  const n = points.length;
  if (n < 2 * minSegment || n < 4) return [];

  // Centred on the first run: the segment costs below subtract sums of squares, which loses digits far from 0.
  const origin = Math.log(points[0]!.value);
  const y = points.map((p) => Math.log(p.value) - origin);
  const own = points.map((p) => ownStandardError(p) ** 2);

  // Between-run variance: E[(y[i+1] - y[i])^2] = 2 tau^2 + own[i] + own[i+1] on a flat stretch. Each difference's
  // share is cut at 0: unbiased terms would let one run with a wide interval (own variance far above the scatter)
  // subtract the whole series' scatter and leave tau^2 = 0, so that every other run's noise looked like its
  // interval alone. The cut adds ~1% to tau^2 when the intervals are a fifth of the scatter (the bench's case).
  let sum = 0;
  for (let i = 1; i < n; i++) sum += Math.max(0, (y[i]! - y[i - 1]!) ** 2 - own[i]! - own[i - 1]!);
  const between = sum / (2 * (n - 1));
  // A floor so that constant values with zero-width intervals (a variance of 0) give weights, not 1/0: far below
  // any measurement's noise (1e-6 relative), and far enough from 0 that the weights keep the costs' digits.
  const variance = own.map((v) => Math.max(v + between, 1e-12));
  const resolution =
    options.minRelativeChange ?? median(points.map((p) => (p.low > 0 ? (p.high - p.low) / 2 : p.high - p.value) / p.value));

  // The evidence threshold at the noise estimate's degrees of freedom (n - 1 differences).
  const t = studentTQuantile(normalCdf(threshold), n - 1);
  const penalty = t * t;

  let changes = segment(y, variance, penalty, minSegment, lengthPenalty);
  // Drop changes under the runs' resolution (and a change of nothing, when the runs have no interval), smallest first (each drop merges two segments and changes the
  // neighbours' sizes).
  for (;;) {
    const found = describe(y, origin, variance, changes);
    let smallest = -1;
    found.forEach((c, i) => {
      if (Math.abs(c.relative) <= resolution && (smallest < 0 || Math.abs(c.relative) < Math.abs(found[smallest]!.relative))) smallest = i;
    });
    if (smallest < 0) return found;
    changes = changes.filter((_, i) => i !== smallest);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Optimal partitioning of y (weights 1/variance) under `penalty` per change: the first index of each new segment. */
function segment(y: readonly number[], variance: readonly number[], penalty: number, minSegment: number, gamma: number): number[] {
  const n = y.length;
  // Prefix sums of w, w y, w y^2: a segment's cost (its weighted sum of squares about its weighted mean) in O(1).
  const w0 = new Float64Array(n + 1);
  const w1 = new Float64Array(n + 1);
  const w2 = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const w = 1 / variance[i]!;
    w0[i + 1] = w0[i]! + w;
    w1[i + 1] = w1[i]! + w * y[i]!;
    w2[i + 1] = w2[i]! + w * y[i]! * y[i]!;
  }
  const cost = (a: number, b: number) => {
    const s0 = w0[b]! - w0[a]!;
    const s1 = w1[b]! - w1[a]!;
    return Math.max(0, w2[b]! - w2[a]! - (s1 * s1) / s0) + gamma * Math.log(b - a);
  };
  // best[t]: the least penalised cost of y[0..t); from[t]: where its last segment starts.
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(n + 1);
  best[0] = -penalty;
  for (let t = minSegment; t <= n; t++) {
    for (let s = 0; s <= t - minSegment; s++) {
      if (s > 0 && s < minSegment) continue;
      const c = best[s]! + cost(s, t) + penalty;
      if (c < best[t]!) {
        best[t] = c;
        from[t] = s;
      }
    }
  }
  const starts: number[] = [];
  for (let t = n; t > 0; t = from[t]!) if (from[t]! > 0) starts.unshift(from[t]!);
  return starts;
}

/** Each change with its neighbouring segments' levels (weighted means of the logs, back on the metric's scale). */
function describe(y: readonly number[], origin: number, variance: readonly number[], starts: readonly number[]): DetectedChange[] {
  const bounds = [0, ...starts, y.length];
  const levels: number[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    let s0 = 0;
    let s1 = 0;
    for (let i = bounds[k]!; i < bounds[k + 1]!; i++) {
      s0 += 1 / variance[i]!;
      s1 += y[i]! / variance[i]!;
    }
    levels.push(Math.exp(origin + s1 / s0));
  }
  return starts.map((index, k) => {
    const before = levels[k]!;
    const after = levels[k + 1]!;
    return { index, before, after, relative: after / before - 1 };
  });
}
