// Checks and a script's own k6 metrics, merged from their per-second rows
// (k6-output-format.ts, "metric" lines): totals for the run page and a 10 s
// series per name, the way k6's own end-of-test summary reports them.
import { emptyHistogram, mergeInto, quantile, type Buckets } from "../histograms/histogram";

/**
 * The kinds of a check's or a script's own metric, per second: check (k6's "checks" split by check name), counter
 * (sum), rate (pass of n non-zero), trend (histogram as in "http" lines, unit "ms" for times), gauge (last, min, max).
 */
export const METRIC_KINDS = ["check", "counter", "rate", "trend", "gauge"] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

export interface MetricCell {
  ts: Date;
  kind: MetricKind;
  name: string;
  unit: string;
  count: number;
  passes: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  /** Trends only. */
  buckets: Buckets | null;
}

export interface CheckSummary {
  name: string;
  passes: number;
  fails: number;
  /** Passes in percent of all. */
  passRate: number;
  /** Per bucket of the run's series. */
  points: Array<{ offsetSeconds: number; passes: number; fails: number }>;
}

interface Common {
  name: string;
  /** "ms" (time), "B" (data) or "" (a plain number). */
  unit: string;
  /** One value per bucket: counter sum, rate in percent, trend p95, gauge last. */
  points: Array<{ offsetSeconds: number; value: number }>;
}
export type CustomMetricSummary =
  | (Common & { kind: "counter"; total: number; perSecond: number })
  | (Common & { kind: "rate"; passes: number; total: number; rate: number })
  | (Common & { kind: "trend"; count: number; avg: number; min: number; med: number; p90: number; p95: number; p99: number; max: number })
  | (Common & { kind: "gauge"; last: number; min: number; max: number });

const round = (v: number) => Math.round(v * 1e4) / 1e4;

function trendStats(cells: MetricCell[]) {
  const h = emptyHistogram();
  for (const c of cells) mergeInto(h, { count: c.count, sum: c.sum, min: c.min, max: c.max, buckets: c.buckets ?? [] });
  return {
    count: h.count,
    avg: h.count ? round(h.sum / h.count) : 0,
    min: h.count ? round(h.min) : 0,
    med: round(quantile(h, 0.5)),
    p90: round(quantile(h, 0.9)),
    p95: round(quantile(h, 0.95)),
    p99: round(quantile(h, 0.99)),
    max: h.count ? round(h.max) : 0,
  };
}

const latest = (cells: MetricCell[]) => cells.reduce((a, b) => (b.ts >= a.ts ? b : a));

/** One value for a group of cells of one kind (a bucket, or the whole run). */
function bucketValue(kind: MetricKind, cells: MetricCell[]): number {
  switch (kind) {
    case "counter":
      return round(cells.reduce((a, c) => a + c.sum, 0));
    case "rate":
    case "check": {
      const n = cells.reduce((a, c) => a + c.count, 0);
      return n ? round((100 * cells.reduce((a, c) => a + c.passes, 0)) / n) : 0;
    }
    case "trend":
      return trendStats(cells).p95;
    case "gauge":
      return latest(cells).last;
  }
}

function groupBy<T>(items: T[], key: (t: T) => string | number): Map<string | number, T[]> {
  const m = new Map<string | number, T[]>();
  for (const i of items) {
    const k = key(i);
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  }
  return m;
}

/**
 * Summaries of checks and custom metrics over the given cells. `start` aligns
 * the series' buckets with the load's start (as the latency series);
 * `durationSeconds` is the window a counter's per-second rate is taken over.
 */
export function summarizeMetrics(
  cells: MetricCell[],
  start: Date | null,
  durationSeconds: number,
  bucketSeconds = 10,
): { checks: CheckSummary[]; customMetrics: CustomMetricSummary[] } {
  const origin = start?.getTime() ?? (cells.length ? Math.min(...cells.map((c) => c.ts.getTime())) : 0);
  const offset = (c: MetricCell) => Math.floor((c.ts.getTime() - origin) / 1000 / bucketSeconds) * bucketSeconds;
  const checks: CheckSummary[] = [];
  const customMetrics: CustomMetricSummary[] = [];
  const byName = groupBy(cells, (c) => `${c.kind}\u0000${c.name}`);
  for (const group of [...byName.values()].sort((a, b) => a[0]!.name.localeCompare(b[0]!.name))) {
    const { kind, name, unit } = group[0]!;
    const buckets = [...groupBy(group, offset).entries()].sort((a, b) => Number(a[0]) - Number(b[0]));
    if (kind === "check") {
      const passes = group.reduce((a, c) => a + c.passes, 0);
      const total = group.reduce((a, c) => a + c.count, 0);
      checks.push({
        name,
        passes,
        fails: total - passes,
        passRate: total ? round((100 * passes) / total) : 0,
        points: buckets.map(([o, cs]) => {
          const p = cs.reduce((a, c) => a + c.passes, 0);
          return { offsetSeconds: Number(o), passes: p, fails: cs.reduce((a, c) => a + c.count, 0) - p };
        }),
      });
      continue;
    }
    const points = buckets.map(([o, cs]) => ({ offsetSeconds: Number(o), value: bucketValue(kind, cs) }));
    switch (kind) {
      case "counter": {
        const total = round(group.reduce((a, c) => a + c.sum, 0));
        customMetrics.push({ kind, name, unit, points, total, perSecond: durationSeconds > 0 ? round(total / durationSeconds) : 0 });
        break;
      }
      case "rate": {
        const passes = group.reduce((a, c) => a + c.passes, 0);
        const total = group.reduce((a, c) => a + c.count, 0);
        customMetrics.push({ kind, name, unit, points, passes, total, rate: total ? round((100 * passes) / total) : 0 });
        break;
      }
      case "trend":
        customMetrics.push({ kind, name, unit, points, ...trendStats(group) });
        break;
      case "gauge":
        customMetrics.push({
          kind,
          name,
          unit,
          points,
          last: latest(group).last,
          min: Math.min(...group.map((c) => c.min)),
          max: Math.max(...group.map((c) => c.max)),
        });
        break;
    }
  }
  return { checks, customMetrics };
}
