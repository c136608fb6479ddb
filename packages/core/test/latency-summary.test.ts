import { describe, expect, it } from "vitest";
import { bucketize, latencyCdf, summarize } from "../src/runs/latency-summary";
import { resultCell } from "./result-cell";

const cell = (second: number, cls: string, values: number[], failures = 0) => resultCell(second, values, cls, failures);

describe("run summary", () => {
  it("counts requests, failures and goodput (% 2xx) across cells", () => {
    const s = summarize([cell(0, "2xx", [1, 2, 3]), cell(1, "5xx", [10], 1), cell(1, "2xx", [4, 5, 6])], 2);
    expect(s.requests).toBe(7);
    expect(s.failures).toBe(1);
    expect(s.goodput).toBeCloseTo((600 / 7) * 1, 3);
    expect(s.rps).toBe(3.5);
    expect(s.latencyMs.min).toBe(1);
    expect(s.latencyMs.max).toBe(10);
    expect(s.latencyMs.avg).toBeCloseTo(31 / 7, 3);
    expect(s.byClass).toEqual({ "2xx": 6, "5xx": 1 });
    expect(s.successRatio).toBeCloseTo((600 / 7) * 1, 3);
    // Study 004's maximum throughput counts successful responses only: 3 a second, not 3.5.
    expect(s.maxThroughput).toEqual({ rps: 3, windowStartOffset: 0, windowSeconds: 2 });
  });

  it("keeps study 001's success ratio (2xx share) apart from k6's expected_response ratio", () => {
    // A 404 the script expects (not failed): 2xx share 75%, expected-response ratio 100%.
    const s = summarize([cell(0, "2xx", [1, 2, 3]), cell(0, "4xx", [4])], 1);
    expect(s.successRatio).toBe(75);
    expect(s.expectedResponseRatio).toBe(100);
  });

  it("buckets into 10 s windows from the load start, with empty windows kept", () => {
    const start = new Date(1_700_000_000_000);
    const points = bucketize([cell(0, "2xx", [1]), cell(9, "2xx", [2, 2]), cell(25, "5xx", [3], 1)], start, 10);
    expect(points.map((p) => [p.offsetSeconds, p.requests])).toEqual([
      [0, 3],
      [10, 0],
      [20, 1],
    ]);
    expect(points[1]!.p95Ms).toBeNull();
    expect(points[0]!.goodput).toBe(100);
    expect(points[2]!.goodput).toBe(0);
  });
});

describe("latency distribution (CDF)", () => {
  it("never gives more points than asked for, whatever the number of buckets, and keeps the first and the last", () => {
    // 1.05^k ms lands each value in a bucket of its own (the histogram's buckets are 2% wide).
    for (const buckets of [1, 2, 199, 200, 201, 399, 400, 401, 402, 1000]) {
      const values = Array.from({ length: buckets }, (_, k) => 1.05 ** k);
      const cdf = latencyCdf([cell(0, "2xx", values)]);
      expect(cdf.length, `${buckets} buckets`).toBeLessThanOrEqual(200);
      if (buckets <= 200) expect(cdf.length).toBe(buckets);
      expect(cdf.at(-1)!.cumulative).toBe(1);
      expect(cdf[0]!.ms).toBeCloseTo(1, 1);
    }
  });
});
