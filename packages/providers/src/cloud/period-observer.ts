// Platform metrics (CloudWatch, Cloud Monitoring) come per period (60 s) and late.
// A period is recorded once, when it has ended, the platform's delay has passed and
// its primary metric has a value; after the load the window's last periods are
// fetched again until they are complete or the wait runs out (then what there is
// is kept). Points keep the platform's resolution: one point per period, stamped at the
// middle of its period (a 60 s datapoint CloudWatch dates 12:00:00 covers 12:00:00-12:01:00,
// so it is stored at 12:00:30): a chart then draws it beside the seconds it measured, not 30 s early.
import type { PlatformMetricsSettings } from "@opsbench/core";
import type { InfraPoint, ObserveWindow } from "../provider";

export type PeriodValues = Record<string, number | null>;

export interface PeriodSource {
  periodSeconds: number;
  /** Metric whose value marks a period as reported (e.g. GroupInServiceInstances). */
  primary: string;
  /** Values per period start (ms) between start and end. */
  fetch(start: Date, end: Date): Promise<Map<number, PeriodValues>>;
  /** The point for one period, `ts` the middle of the period (periodMiddle); `totals` are the sums so far of the additive metrics. */
  toPoint(ts: Date, values: PeriodValues): InfraPoint;
}

/** Where a period's point is stamped: the middle of the period that starts at `periodStartMs`. */
export const periodMiddle = (periodStartMs: number, periodSeconds: number) => new Date(periodStartMs + (periodSeconds * 1000) / 2);

export const settings = (s: PlatformMetricsSettings | undefined) => ({
  settleMs: (s?.settleSeconds ?? 60) * 1000,
  waitMs: (s?.waitSeconds ?? 300) * 1000,
  pollMs: (s?.pollSeconds ?? 20) * 1000,
});

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

export async function* observePeriods(
  source: PeriodSource,
  window: ObserveWindow,
  metrics: PlatformMetricsSettings | undefined,
  log: (msg: string, data?: Record<string, unknown>) => void,
): AsyncIterable<InfraPoint> {
  const { settleMs, waitMs, pollMs } = settings(metrics);
  const periodMs = source.periodSeconds * 1000;
  const start = Math.floor(Date.now() / periodMs) * periodMs;
  const recorded = new Set<number>();
  let windowEnd: number | null = null;
  for (;;) {
    if (window.signal.aborted && windowEnd === null) windowEnd = Date.now();
    const now = Date.now();
    const last = windowEnd ?? now;
    let values = new Map<number, PeriodValues>();
    try {
      values = await source.fetch(new Date(start), new Date(Math.floor(last / periodMs) * periodMs + periodMs));
    } catch (err) {
      log("platform metrics fetch failed", { error: err instanceof Error ? err.message : String(err) });
    }
    const giveUp = windowEnd !== null && now >= windowEnd + waitMs;
    for (let p = start; p <= last; p += periodMs) {
      if (recorded.has(p)) continue;
      const v = values.get(p);
      const ended = Math.min(p + periodMs, windowEnd ?? Number.POSITIVE_INFINITY) + settleMs <= now;
      const reported = v !== undefined && v[source.primary] != null;
      if ((ended && reported) || (giveUp && v !== undefined)) {
        recorded.add(p);
        yield source.toPoint(periodMiddle(p, source.periodSeconds), v!);
      }
    }
    if (windowEnd !== null) {
      const missing = Math.floor(windowEnd / periodMs) - start / periodMs + 1 - recorded.size;
      if (missing <= 0 || giveUp) {
        if (missing > 0) log("platform metrics incomplete after waiting", { missingPeriods: missing });
        return;
      }
    }
    // During the load the window's signal wakes the loop; afterwards it only polls.
    await sleep(pollMs, windowEnd === null ? window.signal : undefined);
  }
}

/** Running sums of additive per-period metrics (instance-seconds, billed seconds), for the cost engine. */
export function runningTotals<K extends string>(keys: readonly K[]) {
  const sums = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  return (add: Partial<Record<K, number | null>>): Record<K, number> => {
    for (const k of keys) sums[k] += add[k] ?? 0;
    return { ...sums };
  };
}
