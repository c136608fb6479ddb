// A run's analysis window (docs/measurement.md): from its load start plus its warm-up to its load end.
// The warm-up is the one stated (a study's warmupSeconds) or, when none is stated, the one MSER-5
// detects (White 1997; White, Cobb & Spratt 2000) in the per-second mean latency of successful
// responses. Latency, not req/s: under an arrival rate (open model) k6 sends the planned rate whatever
// the target does, so a slow start shows only in latency; under VUs (closed model) a slow start shows
// in both, as slower answers mean fewer requests. Successful responses only: an instant 503 is no
// sign that the target has warmed up.

/** MSER-5's batch: 5 seconds of the per-second series make one batch mean. */
export const MSER_BATCH_SECONDS = 5;

/**
 * Fewer whole batches with successful responses than this (a minute) and no warm-up is detected: d may reach n/2,
 * and on a short run that is a cut of half of it on the strength of a handful of points.
 */
export const MSER_MIN_BATCHES = 12;

/**
 * MSER-5's cut is kept only when the batches it cuts are slower than the ones it keeps by at least this many standard
 * errors (the kept batches' spread): on a steady run MSER-5 alone cut something in 30-43% of simulated runs (15-20 s
 * on average), which would flag a third of all runs for a warm-up they did not have. 4 is about Student's t at 1%
 * two-sided with 5 df, the fewest a detection has (12 batches, a cut of at most 6).
 */
export const WARMUP_MIN_STANDARD_ERRORS = 4;

/** The rule's words, as flags and the run page state it. */
export const MSER_RULE = `MSER-5 (White 1997) on the per-second mean latency of successful responses, in 5 s batches, kept when the cut batches are slower than the rest by ${WARMUP_MIN_STANDARD_ERRORS} standard errors or more`;

/**
 * Whether the batches before d are slower than the rest beyond the rest's noise (WARMUP_MIN_STANDARD_ERRORS). Only a
 * slower start is a warm-up: a faster one is the load rising by design (a ramp, the demo's spike in the middle), which
 * MSER-5 alone cut on a spike run, leaving out half of its requests.
 */
export function cutStandsOut(series: readonly number[], d: number): boolean {
  const kept = series.slice(d);
  if (d === 0 || kept.length < 2) return false;
  const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const keptMean = mean(kept);
  const sd = Math.sqrt(kept.reduce((a, x) => a + (x - keptMean) ** 2, 0) / (kept.length - 1));
  const gap = mean(series.slice(0, d)) - keptMean;
  const se = sd * Math.sqrt(1 / d + 1 / kept.length);
  return se === 0 ? gap > 0 : gap / se >= WARMUP_MIN_STANDARD_ERRORS;
}

/**
 * MSER's truncation point: the d in 0..floor(n/2) minimising sum_{i>d}(x_i - mean_{>d})^2 / (n-d)^2 over the
 * series x_1..x_n (batch means), the smallest d on a tie. 0: nothing to cut. Past the first half the
 * statistic rests on too few points to say anything (White 1997 restricts d the same way).
 */
export function mserTruncation(series: readonly number[]): number {
  const n = series.length;
  let best = 0;
  let bestStatistic = Infinity;
  // Suffix sums from the end, so each d costs O(1): sum and sum of squares of x_{d+1}..x_n.
  const sums = new Array<number>(n + 1).fill(0);
  const squares = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    sums[i] = sums[i + 1]! + series[i]!;
    squares[i] = squares[i + 1]! + series[i]! * series[i]!;
  }
  for (let d = 0; d <= Math.floor(n / 2) && d < n; d++) {
    const kept = n - d;
    const deviations = Math.max(0, squares[d]! - (sums[d]! * sums[d]!) / kept);
    const statistic = deviations / (kept * kept);
    // A relative tolerance: equal batch means give equal statistics up to rounding, and the smallest d wins a tie.
    if (d === 0 || statistic < bestStatistic - 1e-12 * Math.max(1, bestStatistic)) {
      best = d;
      bestStatistic = statistic;
    }
  }
  return best;
}

/** A second of the per-second series: its time and its successful responses (count and summed latency, ms). */
export interface SuccessSecond {
  ts: Date;
  count: number;
  sum: number;
}

export interface WarmupDetection {
  rule: "MSER-5";
  /** Whole 5 s batches of the load window with successful responses (the series' length). */
  batches: number;
  /** The truncation point in batches (the cut is this batch's start). */
  truncatedBatches: number;
}

/**
 * MSER-5 on a run's successful responses per second, from the second its load started in: each 5 s batch's
 * mean latency (the batch's summed latency over its successes) is a point; batches with no successful
 * response (an outage) are not points but keep their place in time, so a cut falls at the start of the
 * first batch kept. Only whole batches before `loadEndMs` count (a last partial batch is left out of the
 * detection, not of the window). Returns the cut in seconds from the load start's second (0: no warm-up).
 */
export function detectWarmup(
  seconds: readonly SuccessSecond[],
  loadStart: Date,
  loadEndMs?: number,
): { seconds: number; detection: WarmupDetection } {
  const from = Math.floor(loadStart.getTime() / 1000) * 1000;
  const lastMs = loadEndMs ?? Math.max(from, ...seconds.map((s) => Math.floor(s.ts.getTime() / 1000) * 1000 + 1000));
  const whole = Math.max(0, Math.floor((lastMs - from) / 1000 / MSER_BATCH_SECONDS));
  const count = new Array<number>(whole).fill(0);
  const sum = new Array<number>(whole).fill(0);
  for (const s of seconds) {
    const b = Math.floor((s.ts.getTime() - from) / 1000 / MSER_BATCH_SECONDS);
    if (b < 0 || b >= whole) continue;
    count[b]! += s.count;
    sum[b]! += s.sum;
  }
  const points: Array<{ batch: number; mean: number }> = [];
  for (let b = 0; b < whole; b++) if (count[b]! > 0) points.push({ batch: b, mean: sum[b]! / count[b]! });
  const means = points.map((p) => p.mean);
  const found = points.length >= MSER_MIN_BATCHES ? mserTruncation(means) : 0;
  const d = cutStandsOut(means, found) ? found : 0;
  return {
    seconds: d === 0 ? 0 : points[d]!.batch * MSER_BATCH_SECONDS,
    detection: { rule: "MSER-5", batches: points.length, truncatedBatches: d },
  };
}

/** A run's warm-up as decided: stated (a study's), detected (MSER-5, with how), or none. */
export interface Warmup {
  seconds: number;
  /** Present when MSER-5 found it (or looked and found none: seconds 0); absent for a stated one. */
  detection: WarmupDetection | null;
}

/**
 * The warm-up of a run: the stated one when there is one (> 0), else MSER-5's on its successful responses.
 * `seconds` are the run's per-second rows of successful responses (several rows of one second add up).
 */
export function decideWarmup(input: {
  statedSeconds: number | null | undefined;
  seconds: readonly SuccessSecond[];
  loadStart: Date;
  loadEndMs?: number;
}): Warmup {
  if (input.statedSeconds && input.statedSeconds > 0) return { seconds: input.statedSeconds, detection: null };
  return detectWarmup(input.seconds, input.loadStart, input.loadEndMs);
}

/** Where the analysis window starts: the second the load started in, plus the warm-up. */
export const analysisStartMs = (loadStart: Date, warmupSeconds: number): number =>
  Math.floor(loadStart.getTime() / 1000) * 1000 + Math.max(0, warmupSeconds) * 1000;
