// What of a run's stored seconds its numbers are taken from (docs/measurement.md): the seconds
// of its analysis window (after its warm-up, stated or detected), successful responses for latency
// first, runs whose measurement is broken left out of verdicts, and what a closed loop hides
// (coordinated omission).
import { bucketIndex, bucketValue, emptyHistogram, type Histogram, type HistogramPart, mergeInto, quantile } from "../histograms/histogram";
import { dropsOverTolerance, type ValidityFlag } from "./validity-flags";
import { durationSeconds } from "../workloads/duration";
import type { WorkloadSpec } from "../workloads/workload-spec";
import { analysisStartMs, decideWarmup, MSER_MIN_BATCHES, MSER_RULE, type Warmup } from "../windows/analysis-window";
import type { RunSummary } from "./run-summary";

/**
 * The cells after the warm-up: those of seconds at least `warmupSeconds` after the second the load
 * started in (the same second 0 the rollups and comparisons count from). 0 keeps every cell.
 */
export function afterWarmup<C extends { ts: Date }>(cells: readonly C[], loadStart: Date, warmupSeconds: number): C[] {
  if (!(warmupSeconds > 0)) return [...cells];
  const from = analysisStartMs(loadStart, warmupSeconds);
  return cells.filter((c) => c.ts.getTime() >= from);
}

/**
 * A run's warm-up from its cells: the stated one (a study's warmupSeconds, when > 0), else MSER-5's on the
 * per-second mean latency of its successful responses (windows/analysis-window.ts). Decided once, when the
 * run is analysed or imported, and kept in its summary (warmupSeconds, warmupDetection).
 */
export const warmupOfCells = (
  cells: readonly (HistogramPart & { ts: Date; failures: number })[],
  loadStart: Date,
  statedSeconds: number | null | undefined,
  loadEndMs?: number,
): Warmup => decideWarmup({ statedSeconds, seconds: successCells(cells), loadStart, ...(loadEndMs === undefined ? {} : { loadEndMs }) });

/**
 * The warm-up every reader cuts a run at, as decided when it was analysed: its study's stated one, else the
 * one its summary keeps (detected), else none (a run analysed before detection existed keeps its numbers).
 */
export const decidedWarmupSeconds = (
  studyWarmupSeconds: number | null | undefined,
  summary: Pick<RunSummary, "warmupSeconds"> | null,
): number => (studyWarmupSeconds && studyWarmupSeconds > 0 ? studyWarmupSeconds : (summary?.warmupSeconds ?? 0));

/** What a summary keeps of the warm-up: its seconds (when any) and, when MSER-5 decided, how. */
export const warmupSummaryFields = (w: Warmup): Pick<RunSummary, "warmupSeconds" | "warmupDetection"> => ({
  ...(w.seconds > 0 ? { warmupSeconds: w.seconds } : {}),
  ...(w.detection ? { warmupDetection: w.detection } : {}),
});

/** A detected warm-up is flagged (it changes every figure of the run); a stated one, or a detected cut of 0, is not. */
export const warmupFlags = (w: Warmup): ValidityFlag[] =>
  w.detection && w.seconds > 0
    ? [
        {
          code: "warm-up-detected",
          message: `warm-up detected: the first ${w.seconds} s of load are left out of this run's figures, verdicts, tables and cost (${MSER_RULE}); a study's stated warm-up replaces it`,
        },
      ]
    : [];

/**
 * Cells of successful responses only (k6's expected_response): opsbench's output and the k6 import keep
 * successes and failures in separate cells, so a cell with no failure holds only successes. A cell that
 * mixes both (stored before the split, with a script's own response callback) is left out.
 */
export const successCells = <C extends { failures: number }>(cells: readonly C[]): C[] => cells.filter((c) => c.failures === 0);

/**
 * Flags that make a run's numbers unfit for a verdict: the measurement itself is incomplete or was
 * limited by the load generator, not by the target. Runs with one of them are left out of verdicts
 * unless the comparison asks for them (includeFlagged); they are still listed and charted.
 * Caveats that do not break the measurement (too-few-repetitions, closed-loop, port-forward,
 * generator-clock-skew) do not exclude a run.
 */
export const VERDICT_EXCLUDING_FLAGS: readonly string[] = [
  "partial",
  "lost-generator",
  "dropped-iterations",
  "load-generator-cpu",
  "over-limits",
  "baseline-not-reached",
  "no-successful-request",
];

/**
 * The flags of a run that keep it out of verdicts (empty: it is judged). Dropped iterations do so only over
 * DROPPED_ITERATIONS_TOLERANCE of the planned iterations; a dropped-iterations flag without a share (stored
 * before shares, on a run whose summary has no load totals) still excludes, as it always did.
 */
export const verdictExcludingFlags = (flags: readonly ValidityFlag[]): ValidityFlag[] =>
  flags.filter(
    (f) =>
      VERDICT_EXCLUDING_FLAGS.includes(f.code) &&
      !(f.code === "dropped-iterations" && f.share !== undefined && !dropsOverTolerance(f.share)),
  );

/** The workload kinds k6 runs as a closed loop: a VU sends its next request only after the previous answer. */
export const CLOSED_LOOP_KINDS: readonly WorkloadSpec["kind"][] = ["ramping-vus", "constant-vus", "shared-iterations"];

/** A closed-loop run's coordinated-omission flag: shown on the run and in comparisons; it does not exclude the run from verdicts. */
export function closedLoopFlag(kind: string, correctedWith: number | null): ValidityFlag {
  return {
    code: "closed-loop",
    message: `closed loop (${kind}): a VU waits for each answer before the next request, so a target that stalls is sent fewer requests and its latency tail is understated (coordinated omission)${
      correctedWith === null
        ? "; the pacing is not constant, so no corrected latency is given"
        : `; the corrected latency assumes a request every ${round(correctedWith)} ms per VU`
    }`,
  };
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * HdrHistogram's correction for coordinated omission (recordValueWithExpectedInterval): every recorded
 * latency v longer than the expected interval I between a VU's requests stands also for the requests the
 * VU would have sent while it waited, with latencies v - I, v - 2I, ... down to I. Done on buckets: each
 * bucket's reported value with its count.
 */
export function correctedHistogram(h: Histogram, expectedIntervalMs: number): Histogram {
  const out = emptyHistogram(h.alpha);
  mergeInto(out, { count: h.count, sum: h.sum, min: h.min, max: h.max, buckets: [...h.buckets.entries()] });
  if (!(expectedIntervalMs > 0)) return out;
  for (const [i, c] of h.buckets) {
    const v = bucketValue(i, h.alpha);
    for (let missing = v - expectedIntervalMs; missing >= expectedIntervalMs; missing -= expectedIntervalMs) {
      mergeInto(out, { count: c, sum: missing * c, min: missing, max: missing, buckets: [[bucketIndex(missing, h.alpha), c]] });
    }
  }
  return out;
}

/** The constant think time of a generated closed-loop workload in ms (0 without one), or null when it is random or unknown. */
export function constantPacingMs(spec: WorkloadSpec): number | null {
  if (spec.kind === "script") return null;
  if (spec.thinkTime === undefined) return 0;
  return typeof spec.thinkTime === "string" ? durationSeconds(spec.thinkTime) * 1000 : null;
}

export interface CoordinatedOmission {
  closedLoop: true;
  /** The expected interval between one VU's requests (ms), when the pacing is known; null otherwise. */
  expectedIntervalMs: number | null;
  /** Successful responses' latency corrected for coordinated omission (null when the pacing is not known). */
  correctedLatencyMs: { p50: number; p90: number; p95: number; p99: number; max: number } | null;
}

/**
 * A closed-loop run's coordinated omission: null for an open-model run (arrival rates) or a user's script
 * (whose executors opsbench does not read). The pacing is known when the think time is constant and
 * greater than zero: a VU then means to start a request every (think time + median latency) x iterations
 * / requests ms (its requests per iteration, then the pause); without a pause there is no intended
 * schedule to correct against, and with a random one no single interval.
 */
export function coordinatedOmission(
  spec: WorkloadSpec,
  /** A run's result cells (latency-summary.ts ResultCell): their latencies, and failures to keep successes apart. */
  cells: readonly (HistogramPart & { failures: number })[],
  requestsPerIteration: number | null,
): CoordinatedOmission | null {
  if (!CLOSED_LOOP_KINDS.includes(spec.kind)) return null;
  const pause = constantPacingMs(spec);
  const h = emptyHistogram();
  for (const c of successCells(cells)) mergeInto(h, c);
  if (pause === null || pause <= 0 || h.count === 0 || !(requestsPerIteration && requestsPerIteration > 0)) {
    return { closedLoop: true, expectedIntervalMs: null, correctedLatencyMs: null };
  }
  const interval = quantile(h, 0.5) + pause / requestsPerIteration;
  const corrected = correctedHistogram(h, interval);
  return {
    closedLoop: true,
    expectedIntervalMs: round(interval),
    correctedLatencyMs: {
      p50: round(quantile(corrected, 0.5)),
      p90: round(quantile(corrected, 0.9)),
      p95: round(quantile(corrected, 0.95)),
      p99: round(quantile(corrected, 0.99)),
      max: round(corrected.max),
    },
  };
}

/** The load window's seconds after the warm-up: from the later of its start and (load start second + warm-up) to its end. */
export function measuredSeconds(window: { startMs: number; endMs: number }, loadStart: Date, warmupSeconds: number): number {
  const cut = warmupSeconds > 0 ? analysisStartMs(loadStart, warmupSeconds) : -Infinity;
  return Math.max(0, (window.endMs - Math.max(window.startMs, cut)) / 1000);
}

/** What a run page says of its analysis window: the warm-up left out, stated or detected (and by what), or null when neither. */
export function describeWarmup(s: Pick<RunSummary, "warmupSeconds" | "warmupDetection">): string | null {
  const leftOut = (seconds: number) =>
    `the first ${seconds} s of load are left out of these figures, the verdicts, the tables, the cost and the zoom`;
  const d = s.warmupDetection;
  if (!d) return s.warmupSeconds ? `warm-up (stated by the study): ${leftOut(s.warmupSeconds)}` : null;
  if (d.batches < MSER_MIN_BATCHES)
    return `no warm-up detected: ${d.batches} batch${d.batches === 1 ? "" : "es"} of 5 s with successful responses, fewer than the ${MSER_MIN_BATCHES} MSER-5 needs; every second of load counts`;
  const how = `${MSER_RULE}, over ${d.batches} batches`;
  return s.warmupSeconds
    ? `warm-up detected: ${leftOut(s.warmupSeconds)} (${how}); a study's stated warm-up replaces it`
    : `no warm-up detected (${how}): every second of load counts`;
}
