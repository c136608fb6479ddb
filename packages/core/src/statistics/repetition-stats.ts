// Statistics across repetitions: mean, sample SD and the interval of a figure
// inside its domain (domain-interval.ts), and the plain 95% t-interval of a mean
// (Student t, exact quantiles: student-t.ts).
// A cell's merged result comes from merging its repetitions' histograms,
// never from averaging their percentiles.
import type { MaxThroughput } from "../runs/throughput";
import { studyMaxThroughput } from "../runs/throughput";
import { summarize, type ResultCell } from "../runs/latency-summary";
import type { RunSummary } from "../runs/run-summary";
import type { QuantityDomain } from "../metrics/metric-catalog";
import { type DomainInterval, domainInterval } from "./domain-interval";
import { mean, sampleStandardDeviation, studentTQuantile } from "./student-t";

export { mean, regularizedIncompleteBeta, sampleStandardDeviation, studentTCdf, studentTQuantile } from "./student-t";

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

/**
 * What a set of repetitions says about one metric: n, mean, SD (two values or more) and its interval inside the
 * quantity's domain (domain-interval.ts: the value, the runs' range below 3 runs, a 95% t-interval on the domain's
 * scale from 3). `ci95` is that interval when it is a 95% confidence interval (3 runs or more), else null; its
 * halfWidth is half its width (a log or logit interval is not symmetric about the mean).
 */
export interface SampleStats {
  n: number;
  mean: number | null;
  sd: number | null;
  ci95: ConfidenceInterval | null;
  interval: DomainInterval | null;
}

export function describeSample(xs: readonly number[], domain: QuantityDomain): SampleStats {
  const interval = domainInterval(xs, domain, 0.95);
  return {
    n: xs.length,
    mean: xs.length ? mean(xs) : null,
    sd: xs.length >= 2 ? sampleStandardDeviation(xs) : null,
    ci95:
      interval?.level != null
        ? { level: interval.level, low: interval.low, high: interval.high, halfWidth: (interval.high - interval.low) / 2 }
        : null,
    interval,
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

/** The runs' maximum throughputs summarised: rps is their mean, with n, SD and their interval (domain-interval.ts: positive). */
export function meanMaxThroughput(perRun: ReadonlyArray<MaxThroughput | null | undefined>): MaxThroughput | null {
  const runs = perRun.filter((m): m is MaxThroughput => !!m);
  if (runs.length === 0) return null;
  const s = describeSample(
    runs.map((m) => m.rps),
    "positive",
  );
  return {
    rps: Math.round(s.mean! * 100) / 100,
    windowStartOffset: runs[0]!.windowStartOffset,
    windowSeconds: Math.min(...runs.map((m) => m.windowSeconds)),
    acrossRuns: { n: s.n, sd: s.sd, low: s.interval?.low ?? null, high: s.interval?.high ?? null, interval: s.interval?.kind },
  };
}
