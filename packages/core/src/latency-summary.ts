import { emptyHistogram, mergeInto, quantile, type HistogramPart } from "./histogram";

/** One stored aggregate: a second x request name x status class. */
export interface ResultCell extends HistogramPart {
  ts: Date;
  name: string;
  class: string;
  failures: number;
}

export interface LatencyMs {
  min: number;
  avg: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export interface RunSummary {
  requests: number;
  failures: number;
  /** Share of responses with a 2xx status, in percent (the IoT study's goodput). */
  goodput: number;
  /** Mean completed requests per second over the load window. */
  rps: number;
  durationSeconds: number;
  latencyMs: LatencyMs;
  byClass: Record<string, number>;
}

/** Summarises merged cells; `durationSeconds` is the load window's length. */
export function summarize(cells: Iterable<ResultCell>, durationSeconds: number): RunSummary {
  const h = emptyHistogram();
  let failures = 0;
  let ok = 0;
  const byClass: Record<string, number> = {};
  for (const c of cells) {
    mergeInto(h, c);
    failures += c.failures;
    byClass[c.class] = (byClass[c.class] ?? 0) + c.count;
    if (c.class === "2xx") ok += c.count;
  }
  const requests = h.count;
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return {
    requests,
    failures,
    goodput: requests === 0 ? 0 : round((100 * ok) / requests),
    rps: durationSeconds > 0 ? round(requests / durationSeconds) : 0,
    durationSeconds: round(durationSeconds),
    latencyMs: {
      min: requests ? round(h.min) : 0,
      avg: requests ? round(h.sum / requests) : 0,
      p50: round(quantile(h, 0.5)),
      p90: round(quantile(h, 0.9)),
      p95: round(quantile(h, 0.95)),
      p99: round(quantile(h, 0.99)),
      max: requests ? round(h.max) : 0,
    },
    byClass,
  };
}

export interface TimeBucket {
  /** Seconds from the start of the load window to the bucket's start. */
  offsetSeconds: number;
  requests: number;
  p95Ms: number | null;
  goodput: number | null;
}

/** Requests, p95 and goodput per fixed bucket (10 s by default, as study 000 plotted). */
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
    out.push({
      offsetSeconds: k * bucketSeconds,
      requests: s.requests,
      p95Ms: s.requests ? s.latencyMs.p95 : null,
      goodput: s.requests ? s.goodput : null,
    });
  }
  return out;
}
