import { describe, expect, it } from "vitest";
import { verdict } from "../src/compare/verdict";
import { welchDifference } from "../src/statistics/welch";

describe("the comparison's verdict (compare/verdict.ts, by statistics/verdict-method.ts)", () => {
  it("uses Welch's t between equal-sized repetitions: the same interval as computed directly", () => {
    const a = [20, 21, 22];
    const b = [10, 11, 12];
    const v = verdict(
      "p95",
      { label: "A", values: a, basis: "repetitions" },
      { label: "B", values: b, basis: "repetitions" },
      { lowerIsBetter: true, unit: "ms" },
    );
    const w = welchDifference(a, b);
    expect([v.estimate, v.low, v.high]).toEqual([w.estimate, w.low, w.high]);
    expect(v.method).toBe("welch-t");
    expect(v.basis).toBe("runs");
    expect(v.significant).toBe(true);
    expect(v.text).toMatch(/^B is better on p95 beyond the margin .*Welch's t over run values.*, n = 3 vs 3 runs, margin \+-5\.00%\)$/);
  });

  it("says 'inconclusive' when the interval spans zero and reaches past the margin", () => {
    const same = verdict(
      "p95",
      { label: "A", values: [10, 12, 11], basis: "repetitions" },
      { label: "B", values: [11, 10, 12], basis: "repetitions" },
      { lowerIsBetter: true, unit: "ms" },
    );
    expect(same.significant).toBe(false);
    expect(same.outcome).toBe("inconclusive");
    expect(same.text).toMatch(/^inconclusive on p95/);
  });

  it("never compares one side's repetitions with the other's seconds", () => {
    const mixed = verdict(
      "rps",
      { label: "A", values: [100, 101], basis: "repetitions" },
      { label: "B", values: Array.from({ length: 60 }, (_, i) => 90 + (i % 5)), basis: "time-windows" },
      { lowerIsBetter: false },
    );
    expect(mixed).toMatchObject({ outcome: "no-verdict", basis: "mixed", significant: false, low: null, high: null });
    expect(mixed.text).toContain("never compared");
  });
});
