// Which samples feed which verdict when groups of runs are compared: one value per
// succeeded repetition when a group has two or more, else its single run's
// per-second series (judged with a moving-block bootstrap, never as independent
// samples). Each group is judged against the first. Repetitions merge on a common
// clock: latency histograms add, rates are averaged, maximum throughput is each
// run's own, then summarised (never a sum of runs).
import { bucketize, latencyCdf, summarize, type ResultCell, type TimeBucket } from "../latency-summary";
import { successFirstLatency, type RunSummary } from "../run-summary";
import { meanMaxThroughput } from "../statistics";
import { averagedSeries } from "../statistics/merged-repetitions";
import { studyMaxThroughput } from "../statistics/study-definitions";
import { withMargin, type VerdictOptions } from "../statistics/verdict-method";
import { verdict, type ComparedGroup, type MetricVerdict } from "./verdict";

/** Single runs are judged over their per-second series. */
export const VERDICT_WINDOW_SECONDS = 1;
/** Buckets of a compared group's series. */
export const COMPARISON_BUCKET_SECONDS = 10;
const EPOCH = new Date(0);

/**
 * The metrics verdicts are given for, and which way is better. Latency is judged on successful responses
 * first (a target answering fast errors must not look faster), then on all responses (run-level values only).
 */
export const COMPARED_METRICS: ReadonlyArray<{
  key: string;
  unit: string;
  lowerIsBetter: boolean;
  ofRun: (s: RunSummary) => number;
  ofWindow: (b: TimeBucket) => number | null;
}> = [
  { key: "p50", unit: "ms", lowerIsBetter: true, ofRun: (s) => successFirstLatency(s).p50, ofWindow: (b) => b.p50Ms },
  { key: "p95", unit: "ms", lowerIsBetter: true, ofRun: (s) => successFirstLatency(s).p95, ofWindow: (b) => b.p95Ms },
  { key: "p99", unit: "ms", lowerIsBetter: true, ofRun: (s) => successFirstLatency(s).p99, ofWindow: (b) => b.p99Ms },
  { key: "req/s", unit: "req/s", lowerIsBetter: false, ofRun: (s) => s.rps, ofWindow: (b) => b.requests / VERDICT_WINDOW_SECONDS },
  { key: "goodput", unit: "%", lowerIsBetter: false, ofRun: (s) => s.goodput, ofWindow: (b) => b.goodput },
  { key: "p95 (all responses)", unit: "ms", lowerIsBetter: true, ofRun: (s) => s.latencyMs.p95, ofWindow: () => null },
  { key: "p99 (all responses)", unit: "ms", lowerIsBetter: true, ofRun: (s) => s.latencyMs.p99, ofWindow: () => null },
];
export type ComparedMetric = (typeof COMPARED_METRICS)[number];

/** A run's cells shifted onto a common clock: second 0 = the second its load started in. */
export function alignToLoadStart(cells: readonly ResultCell[], loadStart: Date): ResultCell[] {
  const startSecond = Math.floor(loadStart.getTime() / 1000) * 1000;
  return cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - startSecond) }));
}

/**
 * What a comparison shows of a group, from each run's aligned cells: latency from
 * the added histograms (never averaged percentiles), req/s over the summed load
 * windows (the mean rate), requests per bucket averaged across the runs, and the
 * maximum throughput of each run summarised (mean and interval).
 */
export function summarizeAligned(runs: ReadonlyArray<readonly ResultCell[]>, totalSeconds: number) {
  const aligned = runs.flat();
  const names = [...new Set(aligned.map((c) => c.name))].sort();
  const seconds = totalSeconds || 1;
  return {
    merged: aligned.length
      ? { ...summarize(aligned, seconds), maxThroughput: meanMaxThroughput(runs.map((r) => studyMaxThroughput(r))) }
      : null,
    series: aligned.length
      ? averagedSeries(
          runs.map((cells) => ({ cells, start: EPOCH })),
          COMPARISON_BUCKET_SECONDS,
        )
      : [],
    distribution: latencyCdf(aligned),
    byRequest: names.map((name) => {
      const s = summarize(
        aligned.filter((c) => c.name === name),
        seconds,
      );
      const l = successFirstLatency(s);
      return { name, requests: s.requests, p50: l.p50, p95: l.p95, p99: l.p99 };
    }),
  };
}

/** The per-second series a single run is judged on: whole seconds inside the load only (the first and last may be partial). */
export function verdictWindows(aligned: readonly ResultCell[]): TimeBucket[] {
  if (aligned.length === 0) return [];
  return bucketize(aligned, EPOCH, VERDICT_WINDOW_SECONDS)
    .slice(1, -1)
    .filter((b) => b.requests > 0);
}

/** A group as the verdicts see it: its label, its runs' summaries (null until analysed) and its load's windows. */
export interface VerdictGroup {
  label: string;
  summaries: ReadonlyArray<RunSummary | null>;
  windows: readonly TimeBucket[];
}

/** Values of a metric per repetition, or per second of the load when a group has fewer than two analysed runs. */
export function comparisonSamples(g: VerdictGroup, m: ComparedMetric): ComparedGroup {
  const done = g.summaries.filter((s): s is RunSummary => s !== null);
  if (done.length >= 2) return { label: g.label, values: done.map(m.ofRun), basis: "repetitions" };
  const values = g.windows.map(m.ofWindow).filter((v): v is number => v !== null);
  return { label: g.label, values, basis: "time-windows" };
}

/** Each group against the first, per metric; where no method applies, a "no verdict" entry that says why. */
export function comparisonVerdicts(groups: readonly VerdictGroup[], opts: Pick<VerdictOptions, "margin" | "seed"> = {}): MetricVerdict[] {
  const [baseline, ...others] = groups;
  if (!baseline) return [];
  return others.flatMap((other) =>
    COMPARED_METRICS.map((m) =>
      verdict(m.key, comparisonSamples(baseline, m), comparisonSamples(other, m), {
        lowerIsBetter: m.lowerIsBetter,
        unit: m.unit,
        ...opts,
      }),
    ),
  );
}

/**
 * The verdicts under the margin the user set (relative, 0.05 = 5%): each interval
 * stays as computed, the outcome and its text are decided again.
 */
export function applyMargin(verdicts: readonly MetricVerdict[], margin: number): MetricVerdict[] {
  return verdicts.map((v) => {
    const m = COMPARED_METRICS.find((c) => c.key === v.metric);
    return m ? withMargin(v, margin, { lowerIsBetter: m.lowerIsBetter, unit: m.unit }) : v;
  });
}
