// Which samples feed which verdict when groups of runs are compared: one value per
// succeeded repetition when a group has two or more, else its single run's
// per-second series (judged with a moving-block bootstrap, never as independent
// samples). Each group is judged against the first. Repetitions merge on a common
// clock: latency histograms add, rates are averaged, maximum throughput is each
// run's own, then summarised (never a sum of runs).
import { bucketValue, emptyHistogram, mergeInto, quantile } from "../histograms/histogram";
import { bucketize, emptyBucket, latencyCdf, summarize, type ResultCell, type TimeBucket } from "../runs/latency-summary";
import { successCells } from "../runs/measured-cells";
import type { RunSummary } from "../runs/run-summary";
import { meanMaxThroughput } from "../statistics/repetition-stats";
import { averagedSeries } from "../statistics/merged-repetitions";
import { latencyByRequestName } from "./request-latency";
import { studyMaxThroughput } from "../runs/throughput";
import { applyFamily, compareGroups, withMargin, type VerdictOptions, type VerdictSample } from "../statistics/verdict-method";
import {
  DEFAULT_FAILURE_MARGIN,
  DEFAULT_PRIMARY_METRIC,
  METRIC_CATALOG,
  STORED_QUANTILE_KEYS,
  STORED_QUANTILES,
  VERDICT_WINDOW_SECONDS,
  type MetricCatalog,
  type RunMetric,
  type StoredQuantileKey,
} from "../metrics/metric-catalog";
import type { MetricVerdict } from "./verdict";

export { VERDICT_WINDOW_SECONDS };

/** Buckets of a compared group's series. */
export const COMPARISON_BUCKET_SECONDS = 10;
const EPOCH = new Date(0);

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
    byRequest: latencyByRequestName(aligned, seconds),
  };
}

/**
 * The per-second series a single run is judged on: the whole seconds inside the load window (the first and last may
 * be partial). A second with no completed request inside the window counts, as zero requests: a stall is data.
 * `loadSeconds` is the load window's length; without it the window ends at the last second with cells.
 */
export function verdictWindows(aligned: readonly ResultCell[], loadSeconds?: number): TimeBucket[] {
  if (aligned.length === 0) return [];
  const buckets = bucketize(aligned, EPOCH, VERDICT_WINDOW_SECONDS);
  const end = loadSeconds && loadSeconds > 0 ? Math.floor(loadSeconds) : buckets.length;
  const out: TimeBucket[] = [];
  for (let s = 1; s < end; s++) out.push(buckets[s] ?? emptyBucket(s));
  return out;
}

/**
 * The successful responses' cells when there are any (the latency verdicts' point values are successful responses
 * first: successFirstLatency), else every cell (a run whose every response failed, or stored before the split).
 */
const latencyCells = (cells: readonly ResultCell[]): readonly ResultCell[] => {
  const ok = successCells(cells);
  return ok.length ? ok : cells;
};

/**
 * Per second of `windows`, the responses a single run's percentile verdict counts (successful ones first, as its
 * point value: latencyCells) and, of those, the ones above the run's whole-run p50, p95 and p99.
 */
export type RequestsAboveQuantiles = Record<StoredQuantileKey | "counted", number[]>;

export function requestsAboveQuantiles(aligned: readonly ResultCell[], windows: readonly TimeBucket[]): RequestsAboveQuantiles {
  const cells = latencyCells(aligned);
  const whole = emptyHistogram();
  for (const c of cells) mergeInto(whole, c);
  const keys = STORED_QUANTILE_KEYS;
  const cut = Object.fromEntries(keys.map((k) => [k, quantile(whole, STORED_QUANTILES[k])])) as Record<StoredQuantileKey, number>;
  const bySecond = new Map<number, Record<StoredQuantileKey | "counted", number>>();
  const zeros = () => Object.fromEntries([...keys, "counted"].map((k) => [k, 0])) as Record<StoredQuantileKey | "counted", number>;
  for (const c of cells) {
    const s = Math.floor(c.ts.getTime() / 1000);
    const row = bySecond.get(s) ?? zeros();
    bySecond.set(s, row);
    row.counted += c.count;
    for (const [i, n] of c.buckets) {
      const v = Math.min(c.max, Math.max(c.min, bucketValue(i, whole.alpha)));
      for (const k of keys) if (v > cut[k]) row[k] += n;
    }
  }
  const perWindow = (k: StoredQuantileKey | "counted") => windows.map((w) => bySecond.get(w.offsetSeconds)?.[k] ?? 0);
  return Object.fromEntries([...keys, "counted"].map((k) => [k, perWindow(k as StoredQuantileKey | "counted")])) as RequestsAboveQuantiles;
}

/** A group as the verdicts see it: its label, its runs' summaries (null until analysed) and its load's windows. */
export interface VerdictGroup {
  label: string;
  summaries: ReadonlyArray<RunSummary | null>;
  windows: readonly TimeBucket[];
  /**
   * A single run's whole-run cells and, per window, its requests above the whole-run percentiles: what a percentile
   * verdict of a single run needs (without them a single run gets no percentile verdict).
   */
  quantiles?: { whole: readonly ResultCell[]; above: RequestsAboveQuantiles };
  /** The family key studies pair targets within (the workload); see comparisonVerdicts. */
  workload?: string | null;
}

const analysed = (g: VerdictGroup) => g.summaries.filter((s): s is RunSummary => s !== null);

/**
 * Values of a metric per repetition, or a single run's per-second series when a group has fewer than two analysed
 * runs. `asRuns`: a single run judged as one run value (against a group of repetitions: their spread stands for both).
 */
export function comparisonSamples(g: VerdictGroup, m: RunMetric, asRuns = false): { label: string; sample: VerdictSample } {
  const done = analysed(g);
  if (done.length >= 2 || (asRuns && done.length === 1)) {
    const values = done.map(m.ofRun);
    const total = m.ofRunTotal;
    return {
      label: g.label,
      sample: total ? { kind: "runs", values, denominators: done.map(total), scale: 100 } : { kind: "runs", values },
    };
  }
  if (m.kind === "share") {
    const denominators = g.windows.map((w) => w.requests);
    const numerators = g.windows.map((w) => (w.goodput === null ? 0 : Math.round(w.requests * (1 - w.goodput / 100))));
    return { label: g.label, sample: { kind: "share-seconds", numerators, denominators, scale: 100 } };
  }
  if (m.kind === "quantile" && m.quantile) {
    const q = g.quantiles;
    if (!q) return { label: g.label, sample: { kind: "seconds", values: [] } };
    const whole = emptyHistogram();
    for (const c of latencyCells(q.whole)) mergeInto(whole, c);
    return {
      label: g.label,
      sample: {
        kind: "quantile-seconds",
        p: STORED_QUANTILES[m.quantile],
        counts: q.above.counted,
        above: q.above[m.quantile],
        quantile: (p) => quantile(whole, p),
      },
    };
  }
  return { label: g.label, sample: { kind: "seconds", values: g.windows.map(m.ofWindow).filter((v): v is number => v !== null) } };
}

export interface VerdictFamilyOptions extends Pick<VerdictOptions, "margin" | "seed" | "runToRunCv" | "effect"> {
  /**
   * "first": every group against the first (a comparison of chosen groups); "within-workload": within each workload,
   * every target against the workload's first (a study: verdicts never cross workloads).
   */
  pairing?: "first" | "within-workload";
  /** The metrics judged: the built-in catalog unless given (tests extend it). */
  catalog?: MetricCatalog;
  /** The metric judged in the family (default p95); the others are descriptive. */
  primaryMetric?: string;
  /** The failure share's margin on its odds (0.5: within +-50% of the baseline's odds is the same). */
  failureMargin?: number;
}

/** The primary metric of a comparison: the one asked for, or p95; one that is descriptive only or unknown is refused. */
export function primaryMetricOf(key: string | undefined, catalog: MetricCatalog = METRIC_CATALOG): RunMetric {
  const want = key ?? DEFAULT_PRIMARY_METRIC;
  const m = catalog.find((c) => c.key === want);
  const choices = catalog.filter((c) => !c.descriptiveOnly).map((c) => c.key);
  if (!m) throw new RangeError(`primary metric "${want}" is not a compared metric (one of: ${choices.join(", ")})`);
  if (m.descriptiveOnly) throw new RangeError(`primary metric "${want}" is descriptive only (one of: ${choices.join(", ")})`);
  return m;
}

/** Which group each group is judged against: [baseline, candidate] index pairs. */
export function verdictPairs(groups: readonly VerdictGroup[], pairing: VerdictFamilyOptions["pairing"] = "first"): Array<[number, number]> {
  if (pairing === "first") return groups.slice(1).map((_, i) => [0, i + 1]);
  const firstOf = new Map<string, number>();
  const pairs: Array<[number, number]> = [];
  groups.forEach((g, i) => {
    const key = g.workload ?? "";
    const first = firstOf.get(key);
    if (first === undefined) firstOf.set(key, i);
    else pairs.push([first, i]);
  });
  return pairs;
}

const metricOptsOf = (catalog: MetricCatalog) => (v: MetricVerdict) => {
  const m = catalog.find((c) => c.key === v.metric);
  return { lowerIsBetter: m?.lowerIsBetter ?? true, unit: m?.unit };
};

/** The family a comparison's verdicts form, in words: its primary metric over its pairs. */
export function familyName(pairs: number, pairing: VerdictFamilyOptions["pairing"] = "first", primary = DEFAULT_PRIMARY_METRIC): string {
  const what = pairing === "within-workload" ? "targets within each workload" : "each group against the first";
  return `${primary} (primary metric), ${what}: ${pairs} pair${pairs === 1 ? "" : "s"}`;
}

/** The verdict options a metric is judged with: its scale and margin (the failure margin for a share on log-odds). */
function metricVerdictOptions(m: RunMetric, primary: RunMetric, o: Pick<VerdictFamilyOptions, "margin" | "failureMargin">) {
  return {
    lowerIsBetter: m.lowerIsBetter,
    unit: m.unit,
    role: m === primary ? ("primary" as const) : ("descriptive" as const),
    ...(m.scale === "log-odds"
      ? { scale: "log-odds" as const, margin: o.failureMargin ?? DEFAULT_FAILURE_MARGIN }
      : o.margin === undefined
        ? {}
        : { margin: o.margin }),
  };
}

/**
 * The verdicts of a comparison, per pair and metric (see verdictPairs); where no method applies, a "no verdict" entry
 * that says why. They are one family: Holm's correction over every verdict between configurations.
 */
export function comparisonVerdicts(groups: readonly VerdictGroup[], opts: VerdictFamilyOptions = {}): MetricVerdict[] {
  const { pairing, catalog = METRIC_CATALOG, primaryMetric, margin, failureMargin, ...verdictOpts } = opts;
  const primary = primaryMetricOf(primaryMetric, catalog);
  const pairs = verdictPairs(groups, pairing);
  const verdicts = pairs.flatMap(([bi, ci]) => {
    const [a, b] = [groups[bi]!, groups[ci]!];
    // One run against repetitions: the run is one value, the repetitions' spread stands for both sides.
    const sizes = [analysed(a).length, analysed(b).length].sort();
    const asRuns = sizes[0] === 1 && sizes[1]! >= 2;
    return catalog.map((m) =>
      compareGroups(m.key, comparisonSamples(a, m, asRuns), comparisonSamples(b, m, asRuns), {
        ...verdictOpts,
        ...metricVerdictOptions(m, primary, { margin, failureMargin }),
      }),
    );
  });
  return applyFamily(verdicts, familyName(pairs.length, pairing, primary.key), metricOptsOf(catalog));
}

/**
 * The verdicts under the margins the user set (relative, 0.05 = 5%; the failure share's on its odds): each interval
 * stays as computed, the outcomes, Holm's correction and the texts are decided again.
 */
export function applyMargin(
  verdicts: readonly MetricVerdict[],
  margins: { margin?: number; failureMargin?: number },
  catalog: MetricCatalog = METRIC_CATALOG,
): MetricVerdict[] {
  const metricOpts = metricOptsOf(catalog);
  const marginOf = (v: MetricVerdict) => (v.scale === "log-odds" ? margins.failureMargin : margins.margin) ?? v.margin;
  const decided = verdicts.map((v) => withMargin(v, marginOf(v), metricOpts(v)));
  const family = verdicts.find((v) => v.family)?.family;
  return family ? applyFamily(decided, family, metricOpts) : decided;
}
