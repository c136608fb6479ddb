import { describe, expect, it } from "vitest";
import { bootstrapDifference } from "../src/compare/bootstrap";
import { verdict } from "../src/compare/verdict";
import { seededRandom } from "../src/seeded-random";

/** Normal samples (Box-Muller) from an independent generator. */
function normal(n: number, mu: number, sigma: number, seed: number): number[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => mu + sigma * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Plug-in variance (divides by n), which is what the bootstrap estimates. */
const variance = (xs: number[]) => mean(xs.map((x) => (x - mean(xs)) ** 2));

describe("bootstrap confidence interval of a difference", () => {
  it("agrees with the normal-theory interval on large normal samples (independent computation)", () => {
    const a = normal(400, 10, 2, 7);
    const b = normal(400, 10.6, 3, 8);
    const ci = bootstrapDifference(a, b, { resamples: 8000, seed: 3 });
    const d = mean(b) - mean(a);
    const se = Math.sqrt(variance(a) / a.length + variance(b) / b.length);
    expect(ci.difference).toBeCloseTo(d, 10);
    // The percentile interval of the bootstrap approaches d +- 1.96 se; allow Monte Carlo error.
    expect(ci.low).toBeCloseTo(d - 1.96 * se, 1);
    expect(ci.high).toBeCloseTo(d + 1.96 * se, 1);
    expect(Math.abs(ci.low - (d - 1.96 * se)) / se).toBeLessThan(0.1);
    expect(Math.abs(ci.high - (d + 1.96 * se)) / se).toBeLessThan(0.1);
  });

  it("is exact for constant groups and reproducible from its seed", () => {
    expect(bootstrapDifference([5, 5, 5], [7, 7])).toMatchObject({ difference: 2, low: 2, high: 2, significant: true });
    const a = [1, 4, 2, 8, 5];
    const b = [3, 9, 4, 7, 6];
    expect(bootstrapDifference(a, b, { seed: 11 })).toEqual(bootstrapDifference(a, b, { seed: 11 }));
    const wide = normal(30, 0, 1, 5);
    const other = normal(30, 0.2, 1, 6);
    expect(bootstrapDifference(wide, other, { seed: 11 }).low).not.toBe(bootstrapDifference(wide, other, { seed: 12 }).low);
  });

  it("says 'no significant difference' when the interval spans zero, and names the winner otherwise", () => {
    const same = verdict(
      "p95",
      { label: "A", values: [10, 12, 11], basis: "repetitions" },
      { label: "B", values: [11, 10, 12], basis: "repetitions" },
      { lowerIsBetter: true, unit: "ms" },
    );
    expect(same.significant).toBe(false);
    expect(same.text).toMatch(/^no significant difference in p95/);
    const faster = verdict(
      "p95",
      { label: "A", values: [20, 21, 22], basis: "repetitions" },
      { label: "B", values: [10, 11, 12], basis: "repetitions" },
      { lowerIsBetter: true, unit: "ms" },
    );
    expect(faster.significant).toBe(true);
    expect(faster.text).toMatch(/^B is better on p95/);
    const windows = verdict(
      "rps",
      { label: "A", values: [100], basis: "repetitions" },
      { label: "B", values: [90, 95], basis: "time-windows" },
      { lowerIsBetter: false },
    );
    expect(windows.basis).toBe("time-windows");
    expect(windows.text).toContain("time windows of single runs");
  });
});
