// What a finished run contributes to any comparison, computed once (when it is analysed or
// imported) and stored: its cells re-bucketed from its load start (the whole run, 10 s and
// 1 min, per request name and status class, histograms added), the per-second values a
// single run is judged on, and its own maximum throughput. Comparisons then merge these
// few rows instead of every second of every run; histograms add exactly, so the results
// are the ones the per-second cells give.
import { z } from "zod";
import { emptyHistogram, mergeInto, toPart } from "../histograms/histogram";
import { CHART_POINT_BUDGET } from "../charts/downsample";
import { bucketize, latencyCdf, summarize, type ResultCell, type TimeBucket } from "../runs/latency-summary";
import { meanMaxThroughput } from "../statistics/repetition-stats";
import { averagedSeries } from "../statistics/merged-repetitions";
import { latencyByRequestName } from "./request-latency";
import { studyMaxThroughput } from "../runs/throughput";
import { maxThroughputSchema, type MaxThroughput } from "../runs/throughput";
import { STORED_QUANTILE_KEYS } from "../metrics/metric-catalog";
import {
  alignToLoadStart,
  COMPARISON_BUCKET_SECONDS,
  requestsAboveQuantiles,
  verdictWindows,
  type RequestsAboveQuantiles,
} from "./comparison-samples";

/** Bucket lengths stored per run: 0 is the whole run. */
export const ROLLUP_BUCKETS = [0, 10, 60] as const;
export type RollupBucketSeconds = (typeof ROLLUP_BUCKETS)[number];
const EPOCH = new Date(0);

const nullableNumbers = z.array(z.number().nullable());
/** Time buckets stored as columns, to keep the JSON small. */
const timeBucketColumnsSchema = z.object({
  offsetSeconds: z.array(z.number()),
  requests: z.array(z.number()),
  p50Ms: nullableNumbers,
  p95Ms: nullableNumbers,
  p99Ms: nullableNumbers,
  goodput: nullableNumbers,
});
type TimeBucketColumns = z.infer<typeof timeBucketColumnsSchema>;

/** The stored per-second values (run_rollups.windows). */
export const runRollupWindowsSchema = timeBucketColumnsSchema.extend({
  /** The run's own maximum throughput (study 004's definition), from its seconds. */
  maxThroughput: maxThroughputSchema.nullable(),
  /**
   * The run's 10 s series (a one-run group's series in a comparison), so a comparison need
   * not read and merge its 10 s cells (8,640 of them a day); absent in rollups stored before.
   */
  tenSecondSeries: timeBucketColumnsSchema.optional(),
  /**
   * Per second of the windows, the responses a single run's percentile verdict counts (`counted`: successful ones,
   * as the verdict's point value) and of those the ones above the run's whole-run p50, p95 and p99: what the verdict
   * resamples (the whole-run percentile, never a mean of per-second ones). Required: a rollup stored before it (or
   * before `counted`, when it counted every response, or before a stored quantile was added: STORED_QUANTILES) no longer
   * parses and is made again.
   */
  above: z.object(
    Object.fromEntries([...STORED_QUANTILE_KEYS, "counted"].map((k) => [k, z.array(z.number())])) as Record<
      keyof RequestsAboveQuantiles,
      z.ZodArray<z.ZodNumber>
    >,
  ),
});
export type RunRollupWindows = z.infer<typeof runRollupWindowsSchema>;

/** The whole-run series a run page draws (run_rollups.page_series): stored so a 24 h run's page reads one row, not 5,760 cells. */
export const runPageSeriesSchema = timeBucketColumnsSchema.extend({ bucketSeconds: z.number().int().positive() });
export type RunPageSeries = z.infer<typeof runPageSeriesSchema>;

/** A run page's bucket length: 10 s, or 1 min when 10 s buckets would be too many to draw. */
export const pageBucketSeconds = (loadSeconds: number): 10 | 60 => (loadSeconds / 10 <= CHART_POINT_BUDGET * 2 ? 10 : 60);

/** The page series from the rollup's cells of that bucket length (pageBucketSeconds). */
export function runPageSeries(rollupCells: readonly ResultCell[], bucketSeconds: number): RunPageSeries {
  return { bucketSeconds, ...toColumns(bucketize(rollupCells, EPOCH, bucketSeconds)) };
}

export interface RunRollup {
  /** The second the load started in: offset 0. */
  loadStart: Date;
  windows: RunRollupWindows;
  /** Cells per bucket length; a cell's ts is epoch + its bucket's offset (seconds since the load start). */
  cells: Record<RollupBucketSeconds, ResultCell[]>;
}

/** Cells on the common clock merged into buckets of `bucketSeconds` (0: one bucket for the whole run) per name and class. */
export function rebucket(aligned: readonly ResultCell[], bucketSeconds: number): ResultCell[] {
  const merged = new Map<string, { offset: number; name: string; class: string; failures: number; h: ReturnType<typeof emptyHistogram> }>();
  for (const c of aligned) {
    const offset = bucketSeconds === 0 ? 0 : Math.floor(c.ts.getTime() / 1000 / bucketSeconds) * bucketSeconds;
    // Successful and failed responses stay in separate cells (successCells), as the stored seconds keep them.
    const key = `${offset}\u0000${c.name}\u0000${c.class}\u0000${c.failures === 0 ? "ok" : c.failures === c.count ? "failed" : "mixed"}`;
    let m = merged.get(key);
    if (!m) {
      m = { offset, name: c.name, class: c.class, failures: 0, h: emptyHistogram() };
      merged.set(key, m);
    }
    mergeInto(m.h, c);
    m.failures += c.failures;
  }
  return [...merged.values()]
    .sort(
      (a, b) => a.offset - b.offset || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.class < b.class ? -1 : a.class > b.class ? 1 : 0),
    )
    .map((m) => ({ ts: new Date(m.offset * 1000), name: m.name, class: m.class, failures: m.failures, ...toPart(m.h) }));
}

const column = <K extends keyof TimeBucket>(buckets: readonly TimeBucket[], key: K) => buckets.map((b) => b[key]);
const toColumns = (buckets: readonly TimeBucket[]): TimeBucketColumns => ({
  offsetSeconds: column(buckets, "offsetSeconds"),
  requests: column(buckets, "requests"),
  p50Ms: column(buckets, "p50Ms"),
  p95Ms: column(buckets, "p95Ms"),
  p99Ms: column(buckets, "p99Ms"),
  goodput: column(buckets, "goodput"),
});

/** A run's rollup from its stored per-second cells, its load start and (when known) its load window's length. */
export function runRollup(cells: readonly ResultCell[], loadStart: Date, loadSeconds?: number): RunRollup {
  const aligned = alignToLoadStart(cells, loadStart);
  const windows = verdictWindows(aligned, loadSeconds);
  const tens = rebucket(aligned, 10);
  return {
    loadStart: new Date(Math.floor(loadStart.getTime() / 1000) * 1000),
    windows: {
      ...toColumns(windows),
      maxThroughput: studyMaxThroughput(aligned),
      tenSecondSeries: tenSecondSeriesOf(tens, loadSeconds),
      above: requestsAboveQuantiles(aligned, windows),
    },
    cells: { 0: rebucket(aligned, 0), 10: tens, 60: rebucket(aligned, 60) },
  };
}

/** A run's series in a comparison (its 10 s cells as a group of one averages them), as stored columns. */
export const tenSecondSeriesOf = (tens: readonly ResultCell[], loadSeconds?: number) =>
  toColumns(averagedSeries([{ cells: tens, start: EPOCH, ...(loadSeconds ? { loadSeconds } : {}) }], COMPARISON_BUCKET_SECONDS));

/** Stored columns (the per-second values, the verdicts' windows; or a page series) back as time buckets. */
export function windowsOfRollup(w: TimeBucketColumns): TimeBucket[] {
  return w.offsetSeconds.map((offsetSeconds, i) => ({
    offsetSeconds,
    requests: w.requests[i]!,
    p50Ms: w.p50Ms[i] ?? null,
    p95Ms: w.p95Ms[i] ?? null,
    p99Ms: w.p99Ms[i] ?? null,
    goodput: w.goodput[i] ?? null,
  }));
}

export type { MaxThroughput };

/** One run of a compared group, as its rollup gives it. */
export interface RolledUpRun {
  /** Whole-run cells (per name and class). */
  whole: readonly ResultCell[];
  /** 10 s cells from the load start (may be left empty when `series` is given and the run is alone in its group). */
  tens: readonly ResultCell[];
  /** The run's own 10 s series as stored with its rollup (windows.tenSecondSeries), when there. */
  series?: readonly TimeBucket[];
  /** Its per-second values (verdicts of a single run). */
  windows: readonly TimeBucket[];
  maxThroughput: MaxThroughput | null;
  /** Its load window's length (s): the buckets it reached in a merged series; unknown: the buckets with its cells. */
  loadSeconds?: number;
  /** Its per-second requests above its whole-run percentiles (a single run's percentile verdicts). */
  above?: RunRollupWindows["above"];
}

/**
 * What a comparison shows of a group, from its runs' rollups: the same numbers
 * summarizeAligned gives from every second (histograms add exactly), from a few rows a run.
 */
export function summarizeRollups(runs: readonly RolledUpRun[], totalSeconds: number) {
  const whole = runs.flatMap((r) => r.whole);
  const seconds = totalSeconds || 1;
  return {
    merged: whole.length ? { ...summarize(whole, seconds), maxThroughput: meanMaxThroughput(runs.map((r) => r.maxThroughput)) } : null,
    series: !whole.length
      ? []
      : runs.length === 1 && runs[0]!.series
        ? [...runs[0]!.series]
        : averagedSeries(
            runs.map((r) => ({ cells: r.tens, start: EPOCH, ...(r.loadSeconds ? { loadSeconds: r.loadSeconds } : {}) })),
            COMPARISON_BUCKET_SECONDS,
          ),
    distribution: latencyCdf(whole),
    byRequest: latencyByRequestName(whole, seconds),
  };
}
