import { describe, expect, it } from "vitest";
import {
  bucketIndex,
  bucketValue,
  emptyHistogram,
  HISTOGRAM_ALPHA,
  mergeHistograms,
  quantile,
  recordValue,
} from "../src/histograms/histogram";

/** k6's own percentile: sort, rank p*(n-1), linear interpolation (metrics/sink.go). */
function k6Percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const i = p * (s.length - 1);
  const lo = s[Math.floor(i)]!;
  const hi = s[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

function seededRandom(seed: number) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return (x + 0.5) / 2 ** 32;
  };
}

/** Log-normal latencies: a long right tail, like real response times. */
function latencies(n: number, seed: number, medianMs = 5, sigma = 1.2): number[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
    return Math.min(60_000, Math.max(0.05, medianMs * Math.exp(sigma * z)));
  });
}

const histogramOf = (values: number[]) => {
  const h = emptyHistogram();
  for (const v of values) recordValue(h, v);
  return h;
};

describe("latency histogram", () => {
  it("reports any single value from 0.05 ms to 60 s within alpha", () => {
    for (let v = 0.05; v <= 60_000; v *= 1.37) {
      const reported = bucketValue(bucketIndex(v));
      expect(Math.abs(reported - v) / v).toBeLessThanOrEqual(HISTOGRAM_ALPHA + 1e-12);
    }
  });

  it("gives k6's percentiles within 1% on long-tailed data", () => {
    for (const seed of [1, 2, 3]) {
      const values = latencies(50_000, seed);
      const h = histogramOf(values);
      for (const p of [0.5, 0.9, 0.95, 0.99, 0.999]) {
        const exact = k6Percentile(values, p);
        expect(Math.abs(quantile(h, p) - exact) / exact, `seed ${seed} p${p * 100}`).toBeLessThanOrEqual(0.01);
      }
    }
  });

  it("merges exactly: merge(A, B) equals the histogram of A's and B's samples together", () => {
    const a = latencies(10_000, 11, 2);
    const b = latencies(7_000, 12, 40, 0.5);
    const merged = mergeHistograms(histogramOf(a), histogramOf(b));
    const together = histogramOf([...a, ...b]);
    expect([...merged.buckets.entries()].sort((x, y) => x[0] - y[0])).toEqual([...together.buckets.entries()].sort((x, y) => x[0] - y[0]));
    expect(merged.count).toBe(together.count);
    expect(merged.min).toBe(together.min);
    expect(merged.max).toBe(together.max);
    expect(merged.sum).toBeCloseTo(together.sum, 6);
    for (const p of [0.5, 0.95, 0.99]) expect(quantile(merged, p)).toBe(quantile(together, p));
  });

  it("keeps exact min and max and handles tiny inputs", () => {
    expect(quantile(emptyHistogram(), 0.95)).toBe(0);
    const one = histogramOf([3.3]);
    expect(quantile(one, 0.5)).toBe(3.3);
    const h = histogramOf([1, 2, 3, 4, 1000]);
    expect(quantile(h, 0)).toBe(1);
    expect(quantile(h, 1)).toBe(1000);
  });

  it("keeps the sign of negative values (a script's own Trend): quantiles within alpha, not clamped to 0.001", () => {
    const rand = seededRandom(9);
    const values = Array.from({ length: 20_000 }, () => (rand() - 0.7) * 400); // -280..120, 70% negative
    const h = histogramOf(values);
    for (const p of [0.01, 0.25, 0.5, 0.69, 0.75, 0.95, 0.99]) {
      const want = k6Percentile(values, p);
      // Near zero the relative error is meaningless; allow alpha of the value or 0.01 absolute.
      expect(Math.abs(quantile(h, p) - want)).toBeLessThanOrEqual(Math.max(HISTOGRAM_ALPHA * Math.abs(want) * 1.01, 0.01));
    }
    expect(quantile(histogramOf([-5, -4, -3]), 0.5)).toBeCloseTo(-4, 1);
    for (const v of [-0.002, -1, -1234.5])
      expect(Math.abs(bucketValue(bucketIndex(v)) - v) / -v).toBeLessThanOrEqual(HISTOGRAM_ALPHA + 1e-12);
    // Bucket order is value order, so merged negative and positive parts stay sorted.
    expect(bucketIndex(-1000)).toBeLessThan(bucketIndex(-1));
    expect(bucketIndex(-0.001)).toBeLessThan(bucketIndex(0));
    const merged = mergeHistograms(histogramOf([-10, -20]), histogramOf([5, 30]));
    expect(quantile(merged, 0)).toBe(-20);
    expect(quantile(merged, 1 / 3)).toBeCloseTo(-10, 0);
    expect(quantile(merged, 2 / 3)).toBeCloseTo(5, 0);
  });
});
