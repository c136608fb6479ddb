// The interval a figure across repetitions is shown with, kept inside its quantity's domain (issue 35: two
// repetitions of req/s far apart gave [-29.5, 155.9], a goodput interval reached 100.35%). One rule for the study
// page, its tables, their exports and `opsbench study show` (docs/studies.md, "Intervals"):
// - 1 run: the value itself ("value"), no interval;
// - 2 runs: the two runs' range ("min-max"): a t-interval of 2 values (t = 12.7) says nothing, and is said so;
// - 3 runs or more, the 95% t-interval on the scale where the domain has no edge, back-transformed:
//   positive quantities on the log scale ("t-log": mean of the logs +- t x se of the logs, exp'd: the interval of
//   the geometric mean, inside (0, inf)); shares (percent) on the logit scale ("t-logit", inside (0, 100));
//   anything else the plain t-interval ("t");
// - a value on the domain's edge (a count or a duration of 0, a goodput of 100%), whose log or logit is infinite:
//   the plain t-interval cut at the edge ("t-clamped"), so the interval still never leaves the domain.
import type { QuantityDomain } from "../metrics/metric-catalog";
import { mean, sampleStandardDeviation, studentTQuantile } from "./student-t";

/** Fewer succeeded runs than this: no t-interval (the runs' range, or the single value). */
export const MIN_RUNS_FOR_INTERVAL = 3;

/** How an interval was made: the column `interval` of the exports says it. */
export const INTERVAL_KINDS = ["value", "min-max", "t", "t-log", "t-logit", "t-clamped"] as const;
export type IntervalKind = (typeof INTERVAL_KINDS)[number];

/** A figure's interval as the page, the tables, the exports and the CLI show it. */
export interface DomainInterval {
  kind: IntervalKind;
  /** The confidence level of a t-interval (0.95); null for a value or a range (not a confidence interval). */
  level: number | null;
  low: number;
  high: number;
}

/** The edges of each domain: the interval is never outside them. */
export const DOMAIN_BOUNDS: Record<QuantityDomain, { low: number; high: number }> = {
  positive: { low: 0, high: Number.POSITIVE_INFINITY },
  share: { low: 0, high: 100 },
  real: { low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY },
};

/** The function a domain's interval is made on, and back (the log for positive quantities, the logit for shares in %). */
const TRANSFORMS: Record<QuantityDomain, { to: (x: number) => number; from: (y: number) => number; kind: IntervalKind }> = {
  positive: { to: Math.log, from: Math.exp, kind: "t-log" },
  share: {
    to: (x) => Math.log(x / (100 - x)),
    from: (y) => 100 / (1 + Math.exp(-y)),
    kind: "t-logit",
  },
  real: { to: (x) => x, from: (y) => y, kind: "t" },
};

/** mean +- t(1 - (1 - level) / 2, n - 1) x SD / sqrt(n) of `ys`. */
function tInterval(ys: readonly number[], level: number): { low: number; high: number } {
  const m = mean(ys);
  const half = (studentTQuantile(1 - (1 - level) / 2, ys.length - 1) * sampleStandardDeviation(ys)) / Math.sqrt(ys.length);
  return { low: m - half, high: m + half };
}

/**
 * The interval of `xs` (each repetition's value of one figure) inside `domain`, by the rule above; null for no
 * values. Values are taken as they are: a share is in percent.
 */
export function domainInterval(xs: readonly number[], domain: QuantityDomain, level = 0.95): DomainInterval | null {
  if (xs.length === 0) return null;
  if (xs.length === 1) return { kind: "value", level: null, low: xs[0]!, high: xs[0]! };
  if (xs.length < MIN_RUNS_FOR_INTERVAL) return { kind: "min-max", level: null, low: Math.min(...xs), high: Math.max(...xs) };
  const bounds = DOMAIN_BOUNDS[domain];
  const t = TRANSFORMS[domain];
  if (xs.every((x) => x > bounds.low && x < bounds.high)) {
    const i = tInterval(xs.map(t.to), level);
    return { kind: t.kind, level, low: t.from(i.low), high: t.from(i.high) };
  }
  const i = tInterval(xs, level);
  return { kind: "t-clamped", level, low: Math.max(bounds.low, i.low), high: Math.min(bounds.high, i.high) };
}

/** How an interval reads in a sentence or a table's footnote ("n = 2: not informative" for a range of two runs). */
export function intervalNote(interval: Pick<DomainInterval, "kind">, n: number): string {
  switch (interval.kind) {
    case "value":
      return "1 run: no interval";
    case "min-max":
      return `min-max of the runs; n = ${n}: not informative`;
    case "t":
      return "95% t-interval";
    case "t-log":
      return "95% t-interval on the log scale";
    case "t-logit":
      return "95% t-interval on the logit scale";
    case "t-clamped":
      return "95% t-interval cut at the domain's edge";
  }
}
