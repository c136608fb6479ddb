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
  /** Merged repetitions: rps is the mean of each run's maximum; n, SD and 95% interval of those maxima. */
  acrossRuns: z.object({ n: z.number(), sd: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() }).optional(),
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
