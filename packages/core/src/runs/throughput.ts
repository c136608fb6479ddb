import { z } from "zod";

/** Requests completed in one second of a run. */
export interface SecondCount {
  ts: Date;
  requests: number;
}

export const maxThroughputSchema = z.object({
  /** Highest moving average of completed requests per second. */
  rps: z.number(),
  /** Seconds from the first second with data to the start of that window. */
  windowStartOffset: z.number(),
  windowSeconds: z.number(),
  /**
   * Merged repetitions: rps is the mean of each run's maximum; n, SD and the interval of those maxima, and how it was
   * made (statistics/domain-interval.ts: "min-max" below 3 runs, "t-log" from 3).
   */
  acrossRuns: z
    .object({
      n: z.number(),
      sd: z.number().nullable(),
      low: z.number().nullable(),
      high: z.number().nullable(),
      interval: z.string().optional(),
    })
    .optional(),
});
export type MaxThroughput = z.infer<typeof maxThroughputSchema>;

/**
 * Maximum throughput as study 004 defined it: the highest moving average of
 * completed req/s over `windowSeconds` (10 s). Seconds without requests count
 * as zero. Runs shorter than the window average over what they have.
 */
export function maxThroughput(seconds: Iterable<SecondCount>, windowSeconds = 10): MaxThroughput | null {
  const perSecond = new Map<number, number>();
  for (const s of seconds) {
    const k = Math.floor(s.ts.getTime() / 1000);
    perSecond.set(k, (perSecond.get(k) ?? 0) + s.requests);
  }
  if (perSecond.size === 0) return null;
  const first = Math.min(...perSecond.keys());
  const last = Math.max(...perSecond.keys());
  const series = Array.from({ length: last - first + 1 }, (_, i) => perSecond.get(first + i) ?? 0);
  const w = Math.min(windowSeconds, series.length);
  let sum = series.slice(0, w).reduce((a, b) => a + b, 0);
  let best = sum;
  let bestStart = 0;
  for (let i = w; i < series.length; i++) {
    sum += series[i]! - series[i - w]!;
    if (sum > best) {
      best = sum;
      bestStart = i - w + 1;
    }
  }
  return { rps: Math.round((best / w) * 100) / 100, windowStartOffset: bestStart, windowSeconds: w };
}

/** A stored per-second row of one request name and status class. */
export interface ClassSecond {
  ts: Date;
  name: string;
  class: string;
  count: number;
}

/**
 * Study 004's maximum throughput: the highest 10 s moving average of
 * *successful* responses per second, of one request name (the shop counted
 * completed checkouts only) or of all names. 5xx, timeouts and errors do not count.
 */
export function studyMaxThroughput(
  rows: Iterable<ClassSecond>,
  opts: { requestName?: string; windowSeconds?: number } = {},
): MaxThroughput | null {
  const ok: Array<{ ts: Date; requests: number }> = [];
  let any = false;
  for (const r of rows) {
    if (opts.requestName !== undefined && r.name !== opts.requestName) continue;
    any = true;
    // Seconds with only failures still count, as zeros: they are part of the window.
    ok.push({ ts: r.ts, requests: r.class === "2xx" ? r.count : 0 });
  }
  return any ? maxThroughput(ok, opts.windowSeconds ?? 10) : null;
}
