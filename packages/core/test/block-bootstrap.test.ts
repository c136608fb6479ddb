import { describe, expect, it } from "vitest";
import { autocovariances, blockBootstrapVariance, chooseBlockLength } from "../src/statistics/block-bootstrap";
import { seededRandom } from "../src/statistics/seeded-random";

function ar1(n: number, rho: number, seed: number): number[] {
  const rand = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  let x = normal();
  return Array.from({ length: n }, () => {
    x = rho * x + Math.sqrt(1 - rho * rho) * normal();
    return 50 + x;
  });
}

describe("moving-block bootstrap", () => {
  it("computes autocovariances with the 1/n convention", () => {
    // mean 2.5; deviations -1.5 -0.5 0.5 1.5.
    expect(autocovariances([1, 2, 3, 4], 2)).toEqual([5 / 4, (0.75 - 0.25 + 0.75) / 4, (-0.75 - 0.75) / 4]);
  });

  it("chooses blocks of one second for independent seconds and longer ones for dependent seconds", () => {
    expect(chooseBlockLength(ar1(2000, 0, 1)).blockLength).toBeLessThanOrEqual(2);
    const dependent = chooseBlockLength(ar1(2000, 0.8, 2));
    expect(dependent.lag1Autocorrelation).toBeGreaterThan(0.7);
    expect(dependent.blockLength).toBeGreaterThanOrEqual(8);
  });

  it("estimates the variance of the mean of an AR(1) series: (1 + rho) / (1 - rho) / n, not 1 / n", () => {
    // Stationary variance 1, rho 0.8: the long-run variance is 1.8 / 0.2 = 9.
    const n = 5000;
    const v = blockBootstrapVariance(ar1(n, 0.8, 3));
    expect(v.variance * n).toBeGreaterThan(9 * 0.75);
    expect(v.variance * n).toBeLessThan(9 * 1.25);
  });

  it("with blocks of one is the plain variance of the mean (plus the dependence term)", () => {
    const xs = ar1(400, 0, 4);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const plugIn = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
    const dependence = Math.max(0, chooseBlockLength(xs).dependence);
    expect(blockBootstrapVariance(xs, 1).variance).toBeCloseTo(plugIn / xs.length + dependence / xs.length, 12);
  });
});
