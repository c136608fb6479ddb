// MSER-5 (White 1997), the warm-up rule of a run's analysis window, against statistics computed by hand here:
// for each truncation point d, sum_{i>d}(x_i - mean_{>d})^2 / (n-d)^2 written out from the series.
import { describe, expect, it } from "vitest";
import { decideWarmup, describeWarmup, detectWarmup, mserTruncation, warmupFlags } from "../src";

const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);

describe("MSER truncation", () => {
  it("picks the d with the smallest statistic, computed by hand", () => {
    // x = 10 8 2 2 3 1 2 2 (n = 8, d in 0..4):
    // d=0: mean 3.75, squares of deviations 39.0625+18.0625+4*3.0625+0.5625+7.5625 = 77.5, /64 = 1.2109
    // d=1: 8 2 2 3 1 2 2, sum 20, sum of squares 90, 90 - 400/7 = 32.857, /49 = 0.6706
    // d=2: 2 2 3 1 2 2, mean 2, deviations 0 0 1 1 0 0 = 2, /36 = 0.0556
    // d=3: 2 3 1 2 2, mean 2, 2 / 25 = 0.08
    // d=4: 3 1 2 2, mean 2, 2 / 16 = 0.125
    expect(mserTruncation([10, 8, 2, 2, 3, 1, 2, 2])).toBe(2);
  });

  it("looks only in the first half: a late shift is not a warm-up", () => {
    // x = 9 9 9 9 9 1 1 1: d=5 would give 0, but d <= 4; d=0: 120/64 = 1.875, d=1: 109.71/49 = 2.239,
    // d=2: 96/36 = 2.667, d=3: 76.8/25 = 3.072, d=4: 48/16 = 3: the smallest is d=0.
    expect(mserTruncation([9, 9, 9, 9, 9, 1, 1, 1])).toBe(0);
  });

  it("takes the smallest d on a tie (a steady series is not cut)", () => {
    expect(mserTruncation([5, 5, 5, 5, 5, 5])).toBe(0);
    expect(mserTruncation([])).toBe(0);
  });
});

/** One second of successful responses: `count` of them at `ms` each. */
const second = (s: number, ms: number, count = 4) => ({ ts: new Date(T0 + s * 1000), count, sum: ms * count, failures: 0 });

describe("MSER-5 on a run's seconds", () => {
  it("cuts at the start of the first batch kept: 10 slow seconds then steady give 10 s", () => {
    const seconds = Array.from({ length: 60 }, (_, s) => second(s, s < 10 ? 100 : 10));
    const w = detectWarmup(seconds, new Date(T0));
    // Batches 100 100 then ten of 10: d=2 leaves no deviation (statistic 0).
    expect(w).toEqual({ seconds: 10, detection: { rule: "MSER-5", batches: 12, truncatedBatches: 2 } });
    expect(warmupFlags(w)).toEqual([expect.objectContaining({ code: "warm-up-detected" })]);
    expect(warmupFlags(w)[0]!.message).toContain("first 10 s");
    expect(describeWarmup({ warmupSeconds: 10, warmupDetection: w.detection! })).toContain("warm-up detected: the first 10 s");
  });

  it("weights a batch by its requests and keeps an empty batch's place in time", () => {
    // Seconds 0-4 slow, 5-9 no success at all (an outage), 10-64 steady: points are batches 0, 2..12 (12 points),
    // d=1 leaves only steady ones, and the cut is batch 2's start (10 s), not batch 1's.
    const seconds = Array.from({ length: 65 }, (_, s) => s).flatMap((s) => (s >= 5 && s < 10 ? [] : [second(s, s < 5 ? 200 : 20)]));
    expect(detectWarmup(seconds, new Date(T0))).toEqual({ seconds: 10, detection: { rule: "MSER-5", batches: 12, truncatedBatches: 1 } });
  });

  it("detects nothing with fewer than 12 whole batches (a minute), and a stated warm-up is not detected", () => {
    const short = Array.from({ length: 59 }, (_, s) => second(s, s < 5 ? 100 : 10));
    const tooShort = detectWarmup(short, new Date(T0));
    expect(tooShort).toEqual({ seconds: 0, detection: { rule: "MSER-5", batches: 11, truncatedBatches: 0 } });
    expect(describeWarmup({ warmupDetection: tooShort.detection })).toContain("fewer than the 12 MSER-5 needs");
    const steady = Array.from({ length: 60 }, (_, s) => second(s, 10));
    const none = detectWarmup(steady, new Date(T0));
    expect(none.seconds).toBe(0);
    expect(warmupFlags(none)).toEqual([]);
    expect(describeWarmup({ warmupDetection: none.detection })).toMatch(/^no warm-up detected/);
    const stated = decideWarmup({ statedSeconds: 15, seconds: steady, loadStart: new Date(T0) });
    expect(stated).toEqual({ seconds: 15, detection: null });
    expect(warmupFlags(stated)).toEqual([]);
    expect(describeWarmup({ warmupSeconds: 15 })).toMatch(/^warm-up \(stated by the study\)/);
  });
});

describe("a faster start is not a warm-up", () => {
  it("keeps every second of a run whose latency steps up in its middle (the load rising by design), and cuts a slower start", () => {
    const start = new Date(Date.UTC(2026, 10, 29, 10, 0, 0));
    const second = (s: number, ms: number) => ({ ts: new Date(start.getTime() + s * 1000), count: 10, sum: 10 * ms });
    // 120 s: 5 ms, then 20 ms from 60 s on (a little noise so spreads are not 0). MSER-5 alone cuts the first
    // 60 s: what is left is steadier; but a faster start is no warm-up.
    const stepUp = Array.from({ length: 120 }, (_, s) => second(s, (s >= 60 ? 20 : 5) + (s % 3) * 0.1));
    expect(mserTruncation(Array.from({ length: 24 }, (_, b) => (b >= 12 ? 20.1 : 5.1)))).toBe(12);
    expect(detectWarmup(stepUp, start, start.getTime() + 120_000).seconds).toBe(0);
    // The same run slower for its first 20 s: that is cut.
    const slowStart = Array.from({ length: 120 }, (_, s) => second(s, (s < 20 ? 40 : 5) + (s % 3) * 0.1));
    expect(detectWarmup(slowStart, start, start.getTime() + 120_000).seconds).toBe(20);
  });
});
