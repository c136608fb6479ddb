// The load window req/s is taken over, on k6's clock: from the test's start
// (the opsbench output's start, else the first sample) to the last sample (the
// output's "end" line, or an imported file's exact timestamps), else from the
// start of the first to the end of the last per-second row.
// Never the worker's wall clock around the k6 process: that adds init, setup,
// teardown and the summary, several percent of a short run.

export const LOAD_WINDOW_SOURCE_IDS = ["k6-samples", "k6-rows", "worker-clock"] as const;
export type LoadWindowSource = (typeof LOAD_WINDOW_SOURCE_IDS)[number];

export interface LoadWindow {
  startMs: number;
  endMs: number;
  seconds: number;
  source: LoadWindowSource;
}

export const LOAD_WINDOW_SOURCES: Record<LoadWindowSource, string> = {
  "k6-samples": "k6's clock, the test's start to its last sample",
  "k6-rows": "k6's per-second rows, start of the first to end of the last",
  "worker-clock": "the worker's clock around the k6 process (k6 reported no times)",
};

/**
 * The load window from what k6 reported. `firstSampleMs`/`lastSampleMs`: exact
 * times when known (the test's start, or its first sample; its last sample); `rowSeconds`: the per-second rows' times (whole
 * seconds); `wholeSecondSamples`: the sample times themselves were whole
 * seconds (k6's CSV output), so each stands for its whole second.
 */
export function k6LoadWindow(input: {
  firstSampleMs?: number | null;
  lastSampleMs?: number | null;
  wholeSecondSamples?: boolean;
  rowSeconds?: Iterable<Date>;
}): LoadWindow | null {
  const { firstSampleMs: first, lastSampleMs: last } = input;
  if (first != null && last != null && last > first) {
    const endMs = input.wholeSecondSamples ? last + 1000 : last;
    return { startMs: first, endMs, seconds: (endMs - first) / 1000, source: input.wholeSecondSamples ? "k6-rows" : "k6-samples" };
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of input.rowSeconds ?? []) {
    const s = Math.floor(t.getTime() / 1000) * 1000;
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  if (hi < lo) return null;
  return { startMs: lo, endMs: hi + 1000, seconds: (hi + 1000 - lo) / 1000, source: "k6-rows" };
}

/** The worker's wall clock, when k6 gave no times at all (no output rows). */
export function workerClockWindow(start: Date, end: Date): LoadWindow {
  return { startMs: start.getTime(), endMs: end.getTime(), seconds: (end.getTime() - start.getTime()) / 1000, source: "worker-clock" };
}
