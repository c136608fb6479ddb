import { describe, expect, it } from "vitest";
import { emptyHistogram, k6OutputLine, quantile, recordValue, summarizeMetrics, toPart, type MetricCell } from "../src/index";

const t0 = new Date("2026-11-21T10:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const cell = (s: number, kind: MetricCell["kind"], name: string, v: Partial<MetricCell>): MetricCell => ({
  ts: at(s),
  kind,
  name,
  unit: "",
  count: 0,
  passes: 0,
  sum: 0,
  min: 0,
  max: 0,
  last: 0,
  buckets: null,
  ...v,
});

describe("checks and custom metrics from per-second rows", () => {
  it("merges checks by name and custom metrics by kind, with 10 s series", () => {
    // A trend over two seconds: its percentiles come from the merged buckets.
    const values = [Array.from({ length: 100 }, (_, i) => i + 1), Array.from({ length: 100 }, (_, i) => 101 + i)];
    const trendCells = values.map((vs, s) => {
      const h = emptyHistogram();
      for (const v of vs) recordValue(h, v);
      const p = toPart(h);
      return cell(s * 12, "trend", "db_time", { unit: "ms", count: p.count, sum: p.sum, min: p.min, max: p.max, buckets: p.buckets });
    });
    const all = emptyHistogram();
    for (const v of values.flat()) recordValue(all, v);

    const { checks, customMetrics } = summarizeMetrics(
      [
        cell(0, "check", "status 200", { count: 10, passes: 9 }),
        cell(11, "check", "status 200", { count: 10, passes: 10 }),
        cell(1, "check", "body ok", { count: 4, passes: 0 }),
        cell(0, "counter", "orders", { count: 2, sum: 5 }),
        cell(15, "counter", "orders", { count: 1, sum: 7 }),
        cell(0, "rate", "cache_hits", { count: 4, passes: 3 }),
        cell(3, "gauge", "queue", { last: 2, min: 1, max: 9 }),
        cell(2, "gauge", "queue", { last: 5, min: 5, max: 5 }),
        ...trendCells,
      ],
      t0,
      20,
    );
    expect(checks).toEqual([
      { name: "body ok", passes: 0, fails: 4, passRate: 0, points: [{ offsetSeconds: 0, passes: 0, fails: 4 }] },
      {
        name: "status 200",
        passes: 19,
        fails: 1,
        passRate: 95,
        points: [
          { offsetSeconds: 0, passes: 9, fails: 1 },
          { offsetSeconds: 10, passes: 10, fails: 0 },
        ],
      },
    ]);
    const by = Object.fromEntries(customMetrics.map((m) => [m.name, m]));
    expect(by.orders).toEqual({
      kind: "counter",
      name: "orders",
      unit: "",
      total: 12,
      perSecond: 0.6,
      points: [
        { offsetSeconds: 0, value: 5 },
        { offsetSeconds: 10, value: 7 },
      ],
    });
    expect(by.cache_hits).toMatchObject({ kind: "rate", passes: 3, total: 4, rate: 75 });
    // The gauge's last value is the latest second's, not the last row read.
    expect(by.queue).toMatchObject({ kind: "gauge", last: 2, min: 1, max: 9 });
    expect(by.db_time).toMatchObject({ kind: "trend", unit: "ms", count: 200, avg: 100.5, min: 1, max: 200 });
    const trend = by.db_time as Extract<(typeof customMetrics)[number], { kind: "trend" }>;
    expect(trend.p95).toBeCloseTo(quantile(all, 0.95), 3);
    expect(Math.abs(trend.p95 - 190.05) / 190.05).toBeLessThan(0.01);
    expect(trend.points.map((p) => p.offsetSeconds)).toEqual([0, 10]);
  });

  it("is empty for a run without checks or metrics", () => {
    expect(summarizeMetrics([], null, 0)).toEqual({ checks: [], customMetrics: [] });
  });

  it("reads the output's metric lines (format 4) and still older meta lines (format 3)", () => {
    const line = { t: "metric", s: 1, kind: "trend", name: "x", unit: "ms", n: 1, pass: 1, sum: 2, min: 2, max: 2, last: 2, b: "vAIK" };
    expect(k6OutputLine.parse(line)).toEqual(line);
    expect(k6OutputLine.safeParse({ ...line, kind: "histogram" }).success).toBe(false);
    expect(k6OutputLine.safeParse({ t: "meta", version: 3, alpha: 0.008, minValueMs: 0.001 }).success).toBe(true);
    expect(k6OutputLine.safeParse({ t: "meta", version: 4, alpha: 0.008, minValueMs: 0.001 }).success).toBe(true);
  });
});
