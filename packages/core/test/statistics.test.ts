import { describe, expect, it } from "vitest";
import { summarize } from "../src/runs/latency-summary";
import {
  describeSample,
  mean,
  meanConfidenceInterval,
  mergeRepetitions,
  sampleStandardDeviation,
  studentTCdf,
  studentTQuantile,
} from "../src/statistics/repetition-stats";
import { resultCell } from "./result-cell";

const relClose = (actual: number, expected: number, rel: number) =>
  expect(Math.abs(actual - expected) / Math.abs(expected)).toBeLessThanOrEqual(rel);

describe("Student t quantiles", () => {
  it("equal the closed forms for 1, 2 and 4 degrees of freedom", () => {
    for (const p of [0.9, 0.95, 0.975, 0.995]) {
      // df = 1 is the Cauchy distribution: tan(pi (p - 1/2)).
      relClose(studentTQuantile(p, 1), Math.tan(Math.PI * (p - 0.5)), 1e-10);
      // df = 2: (2p - 1) / sqrt(2 p (1 - p)).
      relClose(studentTQuantile(p, 2), (2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 1e-10);
      // df = 4: 2 sqrt(q - 1), q = cos(arccos(sqrt(a)) / 3) / sqrt(a), a = 4 p (1 - p).
      const a = 4 * p * (1 - p);
      const q = Math.cos(Math.acos(Math.sqrt(a)) / 3) / Math.sqrt(a);
      relClose(studentTQuantile(p, 4), 2 * Math.sqrt(q - 1), 1e-10);
    }
  });

  it("match the printed t-table (two-sided 95% and 99%) to its 3 decimals, and tend to the normal 1.95996", () => {
    const table95: Array<[number, number]> = [
      [1, 12.706],
      [2, 4.303],
      [3, 3.182],
      [4, 2.776],
      [5, 2.571],
      [6, 2.447],
      [7, 2.365],
      [8, 2.306],
      [9, 2.262],
      [10, 2.228],
      [15, 2.131],
      [20, 2.086],
      [25, 2.06],
      [29, 2.045],
      [30, 2.042],
      [40, 2.021],
      [60, 2.0],
      [120, 1.98],
    ];
    for (const [df, t] of table95) expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 3);
    const table99: Array<[number, number]> = [
      [1, 63.657],
      [2, 9.925],
      [3, 5.841],
      [5, 4.032],
      [10, 3.169],
      [30, 2.75],
    ];
    for (const [df, t] of table99) expect(studentTQuantile(0.995, df)).toBeCloseTo(t, 3);
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.959964, 5);
    // Small samples need far more than 1.96: with 3 repetitions, 2.2 times as much.
    expect(studentTQuantile(0.975, 2) / 1.96).toBeGreaterThan(2.19);
  });

  it("are symmetric and invert the CDF", () => {
    expect(studentTQuantile(0.025, 5)).toBeCloseTo(-studentTQuantile(0.975, 5), 12);
    expect(studentTQuantile(0.5, 7)).toBe(0);
    for (const df of [1, 3, 8, 50]) for (const p of [0.6, 0.9, 0.99]) expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 10);
    expect(() => studentTQuantile(1, 3)).toThrow(RangeError);
  });
});

describe("mean, SD and the 95% confidence interval of a mean", () => {
  it("match a hand computation: 10, 12, 14", () => {
    // mean 12; squared deviations 4 + 0 + 4 = 8, / (3 - 1) = 4, SD 2;
    // half width = t(0.975, 2) * 2 / sqrt(3) = 4.302653 * 1.154701 = 4.968275.
    expect(mean([10, 12, 14])).toBe(12);
    expect(sampleStandardDeviation([10, 12, 14])).toBe(2);
    const ci = meanConfidenceInterval([10, 12, 14]);
    expect(ci.halfWidth).toBeCloseTo(4.968275, 5);
    expect(ci.low).toBeCloseTo(7.031725, 5);
    expect(ci.high).toBeCloseTo(16.968275, 5);
  });

  it("match a hand computation: 100, 110, 105, 95 req/s", () => {
    // mean 102.5; squared deviations 6.25 + 56.25 + 6.25 + 56.25 = 125, / 3, SD 6.454972;
    // half width = 3.182446 * 6.454972 / 2 = 10.271301.
    const xs = [100, 110, 105, 95];
    const s = describeSample(xs, "real");
    expect(s.n).toBe(4);
    expect(s.mean).toBe(102.5);
    expect(s.sd).toBeCloseTo(Math.sqrt(125 / 3), 12);
    expect(s.ci95!.halfWidth).toBeCloseTo(10.271301, 5);
    expect(s.ci95!.level).toBe(0.95);
    // Wider than a normal-approximation interval would claim.
    expect(s.ci95!.halfWidth).toBeGreaterThan((1.96 * s.sd!) / 2);
  });

  it("gives no SD or interval for fewer than two values (one value is its own 'interval'), and is zero-width for identical values", () => {
    expect(describeSample([], "real")).toEqual({ n: 0, mean: null, sd: null, ci95: null, interval: null });
    expect(describeSample([7], "real")).toEqual({
      n: 1,
      mean: 7,
      sd: null,
      ci95: null,
      interval: { kind: "value", level: null, low: 7, high: 7 },
    });
    const same = describeSample([5, 5, 5], "real");
    expect(same.sd).toBe(0);
    expect(same.ci95).toMatchObject({ low: 5, high: 5, halfWidth: 0 });
    expect(() => sampleStandardDeviation([1])).toThrow(RangeError);
  });
});

describe("merged result of a study cell", () => {
  it("merges the repetitions' histograms (percentiles of all requests together), never averages percentiles", () => {
    // Repetition A: 90 fast requests; repetition B (an hour later): 10 slow ones.
    const a = { cells: [resultCell(0, Array(45).fill(1)), resultCell(1, Array(45).fill(1))], durationSeconds: 2 };
    const b = { cells: [resultCell(3600, Array(9).fill(100)), resultCell(3601, [100], "5xx", 1)], durationSeconds: 2 };
    const merged = mergeRepetitions([a, b])!;
    const together = summarize([...a.cells, ...b.cells], 4);
    expect(merged.requests).toBe(100);
    expect(merged.failures).toBe(1);
    expect(merged.goodput).toBe(99);
    expect(merged.rps).toBe(25);
    expect(merged.latencyMs).toEqual(together.latencyMs);
    expect(merged.latencyMs.p50).toBeCloseTo(1, 1);
    const averaged = (summarize(a.cells, 2).latencyMs.p50 + summarize(b.cells, 2).latencyMs.p50) / 2;
    expect(averaged).toBeGreaterThan(50); // what averaging percentiles would have claimed
    // Each repetition's own maximum (windows never span the hour between them), successful responses only:
    // A 45 req/s; B (9 in its first second, its 5xx second counts 0) 4.5; merged: their mean.
    expect(merged.maxThroughput!.rps).toBe(24.75);
    expect(merged.maxThroughput!.acrossRuns).toMatchObject({ n: 2 });
    expect(mergeRepetitions([])).toBeNull();
  });

  it("three identical runs at 100 req/s merge to 100 req/s and a maximum throughput of 100, not 300", () => {
    const run = (start: number) => ({
      cells: Array.from({ length: 30 }, (_, s) => resultCell(start + s, Array(100).fill(5))),
      durationSeconds: 30,
    });
    const merged = mergeRepetitions([run(0), run(1000), run(2000)])!;
    expect(merged.rps).toBe(100);
    expect(merged.maxThroughput!.rps).toBe(100);
    expect(merged.maxThroughput!.acrossRuns).toMatchObject({ n: 3, sd: 0, interval: "t-log" });
    expect(merged.maxThroughput!.acrossRuns!.low).toBeCloseTo(100, 10);
    expect(merged.maxThroughput!.acrossRuns!.high).toBeCloseTo(100, 10);
  });
});
