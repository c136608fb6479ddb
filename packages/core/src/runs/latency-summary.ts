import { bucketValue, emptyHistogram, mergeInto, quantile, type Histogram, type HistogramPart } from "../histograms/histogram";
import { successCells } from "./measured-cells";
import { k6SummarySchema, type LoadTotals, type RunSummary, type ThresholdOutcome } from "./run-summary";
import { studyMaxThroughput } from "./throughput";

/** One stored aggregate: a second x request name x status class. */
export interface ResultCell extends HistogramPart {
  ts: Date;
  name: string;
  class: string;
  failures: number;
}

/** Summarises merged cells; `durationSeconds` is the load window's length. */
export function summarize(cells: Iterable<ResultCell>, durationSeconds: number): RunSummary {
  cells = [...cells];
  const h = emptyHistogram();
  let failures = 0;
  let ok2xx = 0;
  const byClass: Record<string, number> = {};
  for (const c of cells) {
    mergeInto(h, c);
    failures += c.failures;
    byClass[c.class] = (byClass[c.class] ?? 0) + c.count;
    if (c.class === "2xx") ok2xx += c.count;
  }
  const requests = h.count;
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  const latencyOf = (x: Histogram) => ({
    min: x.count ? round(x.min) : 0,
    avg: x.count ? round(x.sum / x.count) : 0,
    p50: round(quantile(x, 0.5)),
    p90: round(quantile(x, 0.9)),
    p95: round(quantile(x, 0.95)),
    p99: round(quantile(x, 0.99)),
    max: x.count ? round(x.max) : 0,
  });
  const ok = emptyHistogram();
  for (const c of successCells(cells as ResultCell[])) mergeInto(ok, c);
  return {
    requests,
    failures,
    goodput: requests === 0 ? 0 : round((100 * ok2xx) / requests),
    successRatio: requests === 0 ? 0 : round((100 * ok2xx) / requests),
    expectedResponseRatio: requests === 0 ? 0 : round((100 * (requests - failures)) / requests),
    rps: durationSeconds > 0 ? round(requests / durationSeconds) : 0,
    durationSeconds: round(durationSeconds),
    latencyMs: latencyOf(h),
    successLatencyMs: ok.count ? latencyOf(ok) : null,
    byClass,
    // Study 004's definition: successful (2xx) responses only.
    maxThroughput: studyMaxThroughput(cells as ResultCell[]),
  };
}

/** Totals of k6's per-second load metrics. */
export function loadTotals(
  seconds: Iterable<{ vus: number; iterations: number; droppedIterations: number; bytesSent: number; bytesReceived: number }>,
): LoadTotals {
  const t: LoadTotals = { maxVUs: 0, iterations: 0, droppedIterations: 0, bytesSent: 0, bytesReceived: 0 };
  for (const s of seconds) {
    t.maxVUs = Math.max(t.maxVUs, s.vus);
    t.iterations += s.iterations;
    t.droppedIterations += s.droppedIterations;
    t.bytesSent += s.bytesSent;
    t.bytesReceived += s.bytesReceived;
  }
  return t;
}

/**
 * Per-second load rows of several load generators (execution segments) merged into one row per
 * second: VUs, iterations, dropped iterations and bytes add up across generators.
 */
export function mergeLoadSeconds(rows: Iterable<LoadSecondRow>): LoadSecondRow[] {
  const bySecond = new Map<number, LoadSecondRow>();
  for (const r of rows) {
    const m = bySecond.get(r.ts.getTime());
    if (!m) {
      const { ts, vus, iterations, droppedIterations, bytesSent, bytesReceived } = r;
      bySecond.set(ts.getTime(), { ts, vus, iterations, droppedIterations, bytesSent, bytesReceived });
    } else {
      m.vus += r.vus;
      m.iterations += r.iterations;
      m.droppedIterations += r.droppedIterations;
      m.bytesSent += r.bytesSent;
      m.bytesReceived += r.bytesReceived;
    }
  }
  return [...bySecond.values()].sort((a, b) => a.ts.getTime() - b.ts.getTime());
}

/** One per-second load row (load_seconds), as the summary reads it. */
export interface LoadSecondRow {
  ts: Date;
  vus: number;
  iterations: number;
  droppedIterations: number;
  bytesSent: number;
  bytesReceived: number;
}

/** Threshold outcomes from k6's --summary-export (there, `true` means the threshold was crossed). */
export function thresholdOutcomes(k6Summary: unknown): ThresholdOutcome[] {
  const parsed = k6SummarySchema.safeParse(k6Summary);
  const metrics = (parsed.success ? parsed.data.metrics : undefined) ?? {};
  return Object.entries(metrics).flatMap(([metric, m]) =>
    Object.entries(m.thresholds ?? {}).map(([expression, crossed]) => ({ metric, expression, ok: !crossed })),
  );
}

export interface TimeBucket {
  /** Seconds from the start of the load window to the bucket's start. */
  offsetSeconds: number;
  requests: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  goodput: number | null;
}

/** A bucket without a request (a second or bucket the load saw nothing in): no latency, no goodput. */
export const emptyBucket = (offsetSeconds: number): TimeBucket => ({
  offsetSeconds,
  requests: 0,
  p50Ms: null,
  p95Ms: null,
  p99Ms: null,
  goodput: null,
});

/** Requests, p50/p95/p99 of successful responses and goodput per fixed bucket (10 s by default, as study 000 plotted). */
export function bucketize(cells: Iterable<ResultCell>, start: Date, bucketSeconds = 10): TimeBucket[] {
  const groups = new Map<number, ResultCell[]>();
  for (const c of cells) {
    const k = Math.floor((c.ts.getTime() - start.getTime()) / 1000 / bucketSeconds);
    const list = groups.get(k) ?? [];
    list.push(c);
    groups.set(k, list);
  }
  if (groups.size === 0) return [];
  const last = Math.max(...groups.keys());
  const out: TimeBucket[] = [];
  for (let k = Math.min(0, ...groups.keys()); k <= last; k++) {
    const group = groups.get(k) ?? [];
    const s = summarize(group, bucketSeconds);
    // Latency of successful responses (a target answering fast errors must not look faster); null without any.
    const ok = s.successLatencyMs;
    out.push({
      offsetSeconds: k * bucketSeconds,
      requests: s.requests,
      p50Ms: ok ? ok.p50 : null,
      p95Ms: ok ? ok.p95 : null,
      p99Ms: ok ? ok.p99 : null,
      goodput: s.requests ? s.goodput : null,
    });
  }
  return out;
}

/** The cumulative distribution of latencies, at most `maxPoints` points: [latency ms, share of requests <= it]. */
export function latencyCdf(cells: Iterable<ResultCell>, maxPoints = 200): Array<{ ms: number; cumulative: number }> {
  const h = emptyHistogram();
  for (const c of cells) mergeInto(h, c);
  if (h.count === 0) return [];
  const sorted = [...h.buckets.entries()].sort((a, b) => a[0] - b[0]);
  // Every step-th bucket and the last: ceil((n - 1) / step) + 1 points, never more than maxPoints (a chart draws at most that many).
  const step = Math.max(1, Math.ceil((sorted.length - 1) / (maxPoints - 1)));
  const out: Array<{ ms: number; cumulative: number }> = [];
  let seen = 0;
  sorted.forEach(([i, c], n) => {
    seen += c;
    if (n % step === 0 || n === sorted.length - 1)
      out.push({ ms: Math.min(h.max, Math.max(h.min, bucketValue(i, h.alpha))), cumulative: seen / h.count });
  });
  return out;
}
