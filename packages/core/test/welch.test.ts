import { describe, expect, it } from "vitest";
import { welchDifference, welchRatio } from "../src/statistics/welch";

describe("Welch's t-interval", () => {
  it("matches the interval worked by hand for 3 vs 4 runs", () => {
    // a: mean 12, s^2 = 4 -> s^2/n = 4/3; b: mean 23, s^2 = 20/3 -> s^2/n = 5/3.
    // se = sqrt(3) = 1.7321; df = 9 / ((4/3)^2 / 2 + (5/3)^2 / 3) = 4.959;
    // t(0.975, 4.959) = 2.577 (between 2.5706 at 5 df and 2.7764 at 4, interpolated in 1/df).
    const w = welchDifference([10, 12, 14], [20, 22, 24, 26]);
    expect(w.estimate).toBe(11);
    expect(w.standardError).toBeCloseTo(Math.sqrt(3), 10);
    expect(w.df).toBeCloseTo(4.959, 3);
    expect(w.low).toBeCloseTo(11 - 2.577 * Math.sqrt(3), 1);
    expect(w.high).toBeCloseTo(11 + 2.577 * Math.sqrt(3), 1);
  });

  it("gives a zero-width interval for constant groups and refuses single values", () => {
    expect(welchDifference([5, 5], [7, 7, 7])).toMatchObject({ estimate: 2, low: 2, high: 2 });
    expect(() => welchDifference([5], [7, 8])).toThrow(/two values/);
  });

  it("on the ratio scale is the interval of the log difference, exponentiated", () => {
    const a = [100, 110, 90];
    const b = [200, 220, 180];
    const r = welchRatio(a, b);
    // Every b is exactly 2 a: the log difference is ln 2 with the same spread a side.
    expect(r.estimate).toBeCloseTo(2, 12);
    const d = welchDifference(a.map(Math.log), b.map(Math.log));
    expect(r.low).toBeCloseTo(Math.exp(d.low), 12);
    expect(r.high).toBeCloseTo(Math.exp(d.high), 12);
    expect(r.low).toBeLessThan(2);
    expect(() => welchRatio([0, 1], [1, 2])).toThrow(/> 0/);
  });
});
