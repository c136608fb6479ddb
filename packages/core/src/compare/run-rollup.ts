// What a finished run contributes to any comparison, computed once (when it is analysed or
// imported) and stored: its cells re-bucketed from its load start (the whole run, 10 s and
// 1 min, per request name and status class, histograms added), the per-second values a
// single run is judged on, and its own maximum throughput. Comparisons then merge these
// few rows instead of every second of every run; histograms add exactly, so the results
// are the ones the per-second cells give.
import { z } from "zod";
import { emptyHistogram, mergeInto, toPart } from "../histogram";
import { latencyCdf, summarize, type ResultCell, type TimeBucket } from "../latency-summary";
import { meanMaxThroughput } from "../statistics";
import { averagedSeries } from "../statistics/merged-repetitions";
import { studyMaxThroughput } from "../statistics/study-definitions";
import { maxThroughputSchema, type MaxThroughput } from "../throughput";
import { alignToLoadStart, COMPARISON_BUCKET_SECONDS, verdictWindows } from "./comparison-samples";

/** Bucket lengths stored per run: 0 is the whole run. */
export const ROLLUP_BUCKETS = [0, 10, 60] as const;
export type RollupBucketSeconds = (typeof ROLLUP_BUCKETS)[number];

const nullableNumbers = z.array(z.number().nullable());
/** The stored per-second values (run_rollups.windows), as columns to keep the JSON small. */
export const runRollupWindowsSchema = z.object({
  offsetSeconds: z.array(z.number()),
  requests: z.array(z.number()),
  p50Ms: nullableNumbers,
  p95Ms: nullableNumbers,
  p99Ms: nullableNumbers,
  goodput: nullableNumbers,
  /** The run's own maximum throughput (study 004's definition), from its seconds. */
  maxThroughput: maxThroughputSchema.nullable(),
});
export type RunRollupWindows = z.infer<typeof runRollupWindowsSchema>;

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
    const key = `${offset}\u0000${c.name}\u0000${c.class}`;
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

/** A run's rollup from its stored per-second cells and its load start. */
export function runRollup(cells: readonly ResultCell[], loadStart: Date): RunRollup {
  const aligned = alignToLoadStart(cells, loadStart);
  const windows = verdictWindows(aligned);
  return {
    loadStart: new Date(Math.floor(loadStart.getTime() / 1000) * 1000),
    windows: {
      offsetSeconds: column(windows, "offsetSeconds"),
      requests: column(windows, "requests"),
      p50Ms: column(windows, "p50Ms"),
      p95Ms: column(windows, "p95Ms"),
      p99Ms: column(windows, "p99Ms"),
      goodput: column(windows, "goodput"),
      maxThroughput: studyMaxThroughput(aligned),
    },
    cells: { 0: rebucket(aligned, 0), 10: rebucket(aligned, 10), 60: rebucket(aligned, 60) },
  };
}

/** The stored per-second values back as the verdicts' windows. */
export function windowsOfRollup(w: RunRollupWindows): TimeBucket[] {
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
  /** 10 s cells from the load start. */
  tens: readonly ResultCell[];
  /** Its per-second values (verdicts of a single run). */
  windows: readonly TimeBucket[];
  maxThroughput: MaxThroughput | null;
}

/**
 * What a comparison shows of a group, from its runs' rollups: the same numbers
 * summarizeAligned gives from every second (histograms add exactly), from a few rows a run.
 */
export function summarizeRollups(runs: readonly RolledUpRun[], totalSeconds: number) {
  const whole = runs.flatMap((r) => r.whole);
  const names = [...new Set(whole.map((c) => c.name))].sort();
  const seconds = totalSeconds || 1;
  return {
    merged: whole.length ? { ...summarize(whole, seconds), maxThroughput: meanMaxThroughput(runs.map((r) => r.maxThroughput)) } : null,
    series: whole.length
      ? averagedSeries(
          runs.map((r) => ({ cells: r.tens, start: EPOCH })),
          COMPARISON_BUCKET_SECONDS,
        )
      : [],
    distribution: latencyCdf(whole),
    byRequest: names.map((name) => {
      const s = summarize(
        whole.filter((c) => c.name === name),
        seconds,
      );
      return { name, requests: s.requests, p50: s.latencyMs.p50, p95: s.latencyMs.p95, p99: s.latencyMs.p99 };
    }),
  };
}

const EPOCH = new Date(0);
