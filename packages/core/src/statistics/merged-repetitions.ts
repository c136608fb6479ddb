// Repetitions of one cell merged on a common clock (second 0 = each run's load
// start): latency histograms add (exact percentiles of all requests), but rates
// are averaged across the runs, never summed: three runs at 100 req/s are a
// cell at 100 req/s, not 300. Maximum throughput comes from each run and is
// then summarised across the runs (mean and its interval inside (0, inf): domain-interval.ts).
import { bucketize, emptyBucket, type ResultCell, type TimeBucket } from "../runs/latency-summary";
import { describeSample, type SampleStats } from "./repetition-stats";
import type { MaxThroughput } from "../runs/throughput";
import { studyMaxThroughput } from "../runs/throughput";

export interface RepetitionCells {
  cells: readonly ResultCell[];
  /** The run's load start: its second 0. */
  start: Date;
  /** The load window's length (s): the run reaches every bucket that starts inside it, with or without completions. */
  loadSeconds?: number;
}

const EPOCH = new Date(0);

/** Every run's cells moved onto the common clock (ts = epoch + seconds since the run's load start, whole seconds). */
export function alignRepetitions(runs: readonly RepetitionCells[]): ResultCell[] {
  return runs.flatMap((r) => {
    const startSecond = Math.floor(r.start.getTime() / 1000) * 1000;
    return r.cells.map((c) => ({ ...c, ts: new Date(c.ts.getTime() - startSecond) }));
  });
}

/**
 * Requests, percentiles and goodput per bucket of the merged repetitions:
 * percentiles and goodput from the summed histograms and counts; requests as
 * the mean per run that reached that bucket. A run reaches a bucket that starts
 * inside its load window, completions or not (one repetition's outage shows as
 * its zeros in the mean), and every bucket its cells fall in (the answers to
 * requests still in flight when its load stopped, or a second its window does
 * not cover because it started late in its first second): a bucket's requests
 * are never a sum of runs. Buckets inside a window but without any cells are zeros.
 */
export function averagedSeries(runs: readonly RepetitionCells[], bucketSeconds = 10): TimeBucket[] {
  // How many runs reached each bucket (no histograms merged twice: a 24 h run has 8,640 buckets).
  const reached = new Map<number, number>();
  let lastInside = -1;
  for (const r of runs) {
    const startSecond = Math.floor(r.start.getTime() / 1000) * 1000;
    const seen = new Set<number>();
    if (r.loadSeconds && r.loadSeconds > 0) {
      for (let offset = 0; offset < r.loadSeconds; offset += bucketSeconds) seen.add(offset);
      lastInside = Math.max(lastInside, Math.ceil(r.loadSeconds / bucketSeconds) * bucketSeconds - bucketSeconds);
    }
    for (const c of r.cells) if (c.count > 0) seen.add(Math.floor((c.ts.getTime() - startSecond) / 1000 / bucketSeconds) * bucketSeconds);
    for (const offset of seen) reached.set(offset, (reached.get(offset) ?? 0) + 1);
  }
  const buckets = bucketize(alignRepetitions(runs), EPOCH, bucketSeconds);
  for (let offset = (buckets.at(-1)?.offsetSeconds ?? -bucketSeconds) + bucketSeconds; offset <= lastInside; offset += bucketSeconds)
    buckets.push(emptyBucket(offset));
  return buckets.map((b) => ({
    ...b,
    requests: b.requests / Math.max(1, reached.get(b.offsetSeconds) ?? 1),
  }));
}

export interface MaxThroughputAcrossRuns {
  /** Each run's own maximum (study 004's definition), in run order; null where a run had none. */
  perRun: Array<MaxThroughput | null>;
  /** Mean, SD and interval of the runs' maxima (req/s, a positive quantity). */
  stats: SampleStats;
}

/** Maximum throughput per run, then summarised across runs. */
export function maxThroughputAcrossRuns(
  runs: readonly RepetitionCells[],
  opts: { requestName?: string; windowSeconds?: number } = {},
): MaxThroughputAcrossRuns {
  const perRun = runs.map((r) => studyMaxThroughput(r.cells, opts));
  return {
    perRun,
    stats: describeSample(
      perRun.filter((m): m is MaxThroughput => m !== null).map((m) => m.rps),
      "positive",
    ),
  };
}
