// Statistics across repetitions: mean, sample SD and the 95% confidence
// interval of a mean (Student t, exact quantiles: a normal 1.96 would make the
// intervals of 3 repetitions less than half as wide as they should be).
// A cell's merged result comes from merging its repetitions' histograms,
// never from averaging their percentiles.
import type { MaxThroughput } from "../runs/throughput";
import { studyMaxThroughput } from "../runs/throughput";
import { summarize, type ResultCell } from "../runs/latency-summary";
import type { RunSummary } from "../runs/run-summary";

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError("mean of no values");
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (n - 1 in the denominator); needs at least two values. */
export function sampleStandardDeviation(xs: readonly number[]): number {
  if (xs.length < 2) throw new RangeError("a sample standard deviation needs at least two values");
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** ln Gamma(x) for x > 0 (Lanczos, g = 7, n = 9; ~15 significant digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** P(T <= t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be > 0, not ${df}`);
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t with `df` degrees of freedom (numerically exact, by bisection on the CDF). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1), not ${p}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface ConfidenceInterval {
  level: number;
  low: number;
  high: number;
  halfWidth: number;
}

/** The two-sided confidence interval of the mean (Student t); needs at least two values. */
export function meanConfidenceInterval(xs: readonly number[], level = 0.95): ConfidenceInterval {
  if (xs.length < 2) throw new RangeError("a confidence interval needs at least two values");
  const m = mean(xs);
  const halfWidth = (studentTQuantile(1 - (1 - level) / 2, xs.length - 1) * sampleStandardDeviation(xs)) / Math.sqrt(xs.length);
  return { level, low: m - halfWidth, high: m + halfWidth, halfWidth };
}

/** What a set of repetitions says about one metric. SD and CI need two values or more (null otherwise). */
export interface SampleStats {
  n: number;
  mean: number | null;
  sd: number | null;
  ci95: ConfidenceInterval | null;
}

export function describeSample(xs: readonly number[]): SampleStats {
  return {
    n: xs.length,
    mean: xs.length ? mean(xs) : null,
    sd: xs.length >= 2 ? sampleStandardDeviation(xs) : null,
    ci95: xs.length >= 2 ? meanConfidenceInterval(xs, 0.95) : null,
  };
}

/** One repetition's stored aggregates and the length of its load window. */
export interface Repetition {
  cells: readonly ResultCell[];
  durationSeconds: number;
}

/**
 * The merged result of a study cell: every repetition's histograms merged into
 * one (exact percentiles of all requests together), req/s over the summed load
 * windows (the mean rate, never a sum of rates), and the maximum throughput
 * of each repetition summarised across them (mean and interval; study 004's
 * definition, successful responses only). Windows never span two repetitions.
 */
export function mergeRepetitions(reps: readonly Repetition[]): RunSummary | null {
  if (reps.length === 0) return null;
  const all = reps.flatMap((r) => r.cells);
  const duration = reps.reduce((a, r) => a + r.durationSeconds, 0);
  const merged = summarize(all, duration);
  return { ...merged, maxThroughput: meanMaxThroughput(reps.map((r) => studyMaxThroughput(r.cells))) };
}

/** The runs' maximum throughputs summarised: rps is their mean, with n, SD and the 95% interval. */
export function meanMaxThroughput(perRun: ReadonlyArray<MaxThroughput | null | undefined>): MaxThroughput | null {
  const runs = perRun.filter((m): m is MaxThroughput => !!m);
  if (runs.length === 0) return null;
  const s = describeSample(runs.map((m) => m.rps));
  return {
    rps: Math.round(s.mean! * 100) / 100,
    windowStartOffset: runs[0]!.windowStartOffset,
    windowSeconds: Math.min(...runs.map((m) => m.windowSeconds)),
    acrossRuns: { n: s.n, sd: s.sd, low: s.ci95?.low ?? null, high: s.ci95?.high ?? null },
  };
}
