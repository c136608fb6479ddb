import { describe, expect, it } from "vitest";
import { applyMargin } from "../src/compare/comparison-samples";
import { compareGroups, withMargin, type VerdictSample } from "../src/statistics/verdict-method";
import { seededRandom } from "../src/statistics/seeded-random";

const runs = (values: number[]): VerdictSample => ({ kind: "runs", values });
const seconds = (values: number[]): VerdictSample => ({ kind: "seconds", values });

function noise(n: number, level: number, sd: number, seed: number, rho = 0): number[] {
  const rand = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  let x = 0;
  return Array.from({ length: n }, () => {
    x = rho * x + Math.sqrt(1 - rho * rho) * normal();
    return level + sd * x;
  });
}

describe("the comparison's verdict", () => {
  it("uses Welch's interval for small groups of unequal n and says n, the method, the interval and the margin", () => {
    const v = compareGroups(
      "req/s",
      { label: "A", sample: runs([10, 12, 14]) },
      { label: "B", sample: runs([20, 22, 24, 26]) },
      { lowerIsBetter: false, unit: "req/s" },
    );
    expect(v.method).toBe("welch-t");
    expect(v.outcome).toBe("candidate-better");
    expect(v.significant).toBe(true);
    expect(v.estimate).toBe(11);
    expect(v.low).toBeCloseTo(6.54, 1);
    expect(v.text).toMatch(
      /^B is better on req\/s beyond the margin \(B - A = 11\.00 req\/s, 95% CI 6\.5\d to 15\.4\d req\/s; Welch's t over run values, n = 3 vs 4 runs, margin \+-5\.00%\)$/,
    );
  });

  it("says 'inconclusive' when the interval reaches past the margin on either side, 'equivalent' when it lies inside it", () => {
    const same = compareGroups(
      "p95",
      { label: "A", sample: runs([10, 12, 11]) },
      { label: "B", sample: runs([11, 10, 12]) },
      { lowerIsBetter: true },
    );
    expect(same.outcome).toBe("inconclusive");
    expect(same.text).toMatch(
      /^inconclusive on p95: the rule finds a true difference of about \d+(\.\d+)?% 80% of the time; a true 10\.00% difference \d+% of the time/,
    );
    // 1% apart with tiny spread: significant in the statistical sense, not beyond the 5% margin.
    const a = [100, 100.1, 99.9, 100, 100.05];
    const close = compareGroups(
      "p95",
      { label: "A", sample: runs(a) },
      { label: "B", sample: runs(a.map((x) => x + 1)) },
      { lowerIsBetter: true },
    );
    expect(close.low).toBeGreaterThan(0);
    expect(close.outcome).toBe("equivalent");
    expect(close.significant).toBe(false);
    const strict = compareGroups(
      "p95",
      { label: "A", sample: runs(a) },
      { label: "B", sample: runs(a.map((x) => x + 1)) },
      { lowerIsBetter: true, margin: 0 },
    );
    expect(strict.outcome).toBe("baseline-better");
  });

  it("gives no verdict on one run a side of run values or on run-level values against seconds; one run against runs is judged", () => {
    expect(
      compareGroups("p95", { label: "A", sample: runs([10]) }, { label: "B", sample: runs([11]) }, { lowerIsBetter: true }),
    ).toMatchObject({
      outcome: "no-verdict",
      method: "none",
      significant: false,
      low: null,
    });
    // One run against two: the two runs' spread (s = 0.707) stands for both: se = s sqrt(1/2 + 1), t(0.975, 1) = 12.706.
    const one = compareGroups("p95", { label: "A", sample: runs([10]) }, { label: "B", sample: runs([11, 12]) }, { lowerIsBetter: true });
    expect(one.method).toBe("single-run-t");
    expect(one.estimate).toBe(1.5);
    expect(one.high! - one.estimate!).toBeCloseTo(12.7062 * Math.SQRT1_2 * Math.sqrt(1.5), 3);
    const mixed = compareGroups(
      "p95",
      { label: "A", sample: runs([10, 11]) },
      { label: "B", sample: seconds(noise(300, 10, 1, 1)) },
      { lowerIsBetter: true },
    );
    expect(mixed.outcome).toBe("no-verdict");
    expect(mixed.basis).toBe("mixed");
    expect(mixed.text).toMatch(/never compared/);
  });

  it("uses a seeded, reproducible bootstrap from 30 runs a side", () => {
    const a = runs(noise(30, 100, 5, 2));
    const b = runs(noise(30, 100, 5, 3));
    const v = compareGroups("req/s", { label: "A", sample: a }, { label: "B", sample: b }, { lowerIsBetter: false, seed: 7 });
    expect(v.method).toBe("bootstrap");
    expect(v.seed).toBe(7);
    expect(v.resamples).toBe(4000);
    expect(compareGroups("req/s", { label: "A", sample: a }, { label: "B", sample: b }, { lowerIsBetter: false, seed: 7 })).toEqual(v);
    expect(v.text).toContain("seed 7, 4000 resamples, n = 30 vs 30 runs");
  });

  it("judges single runs over their seconds with a moving-block bootstrap, or not at all when the seconds are too dependent", () => {
    const a = noise(300, 100, 10, 4, 0.5);
    const b = noise(300, 120, 10, 5, 0.5);
    const v = compareGroups("req/s", { label: "A", sample: seconds(a) }, { label: "B", sample: seconds(b) }, { lowerIsBetter: false });
    expect(v.method).toBe("moving-block-bootstrap");
    expect(v.outcome).toBe("candidate-better");
    expect(v.blockLengths![0]).toBeGreaterThan(1);
    expect(v.text).toContain("1 run a side (300 vs 300 s)");
    const sticky = compareGroups(
      "req/s",
      { label: "A", sample: seconds(noise(300, 100, 10, 6, 0.97)) },
      { label: "B", sample: seconds(noise(300, 130, 10, 7, 0.97)) },
      { lowerIsBetter: false },
    );
    expect(sticky.outcome).toBe("no-verdict");
    expect(sticky.reason).toMatch(/autocorrelation|blocks/);
  });

  it("on the ratio scale reports b / a and judges it against 1", () => {
    const v = compareGroups(
      "p95",
      { label: "A", sample: runs([100, 110, 90]) },
      { label: "B", sample: runs([200, 220, 180]) },
      { lowerIsBetter: true, scale: "ratio" },
    );
    expect(v.estimate).toBeCloseTo(2, 10);
    expect(v.outcome).toBe("baseline-better");
    expect(v.text).toContain("B / A = 2.00");
  });
});

describe("the margin the user sets", () => {
  // A: ~100, B: ~103 with little spread: the interval lies clear of zero, a few percent above it.
  const a = runs([100, 100.2, 99.8, 100.1, 99.9]);
  const b = runs([103, 103.2, 102.8, 103.1, 102.9]);
  const opts = { lowerIsBetter: false, unit: "req/s" };

  it("decides the same interval again: equivalent inside a 5% margin, better outside a 1% one, and says which margin", () => {
    const at5 = compareGroups("req/s", { label: "A", sample: a }, { label: "B", sample: b }, { ...opts, margin: 0.05 });
    expect(at5.outcome).toBe("equivalent");
    expect(at5.baselineMean).toBeCloseTo(100, 6);
    const at1 = withMargin(at5, 0.01, opts);
    expect([at1.low, at1.high, at1.estimate]).toEqual([at5.low, at5.high, at5.estimate]);
    expect(at1.outcome).toBe("candidate-better");
    expect(at1.significant).toBe(true);
    expect(at1.margin).toBe(0.01);
    expect(at1.text).toMatch(/^B is better on req\/s beyond the margin \(.*margin \+-1\.00%\)$/);
    // Deciding again is the same as computing with that margin from the start.
    expect(at1).toEqual(compareGroups("req/s", { label: "A", sample: a }, { label: "B", sample: b }, { ...opts, margin: 0.01 }));
    expect(withMargin(at1, 0.05, opts)).toEqual(at5);
  });

  it("applies to a comparison's verdicts by metric, and refuses a negative margin", () => {
    const p95 = compareGroups("p95", { label: "A", sample: a }, { label: "B", sample: b }, { lowerIsBetter: true, unit: "ms" });
    const [decided] = applyMargin([p95], { margin: 0.02 });
    // Lower is better for p95: B's higher latency makes A the better one once 3% is beyond the margin.
    expect(decided!.outcome).toBe("baseline-better");
    expect(() => withMargin(p95, -0.01, opts)).toThrow(/margin must be a number >= 0/);
  });
});
