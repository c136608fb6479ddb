// The interval rule of the study figures (issue 35, finding 2), against values worked out by hand: closed forms
// of the log and logit intervals of values chosen so their logs are evenly spaced.
import { describe, expect, it } from "vitest";
import { domainInterval, intervalNote } from "../src/statistics/domain-interval";
import { describeSample } from "../src/statistics/repetition-stats";

// Student's t(0.975, 2): 3 repetitions (closed form (2p - 1) / sqrt(2p(1 - p)) at p = 0.975).
const T2 = (2 * 0.975 - 1) / Math.sqrt(2 * 0.975 * 0.025);

describe("intervals in their domain", () => {
  it("below 3 runs: the value, then the runs' range (the issue's req/s 55.9 and 70.5 gave [-29.5, 155.9])", () => {
    expect(domainInterval([], "positive")).toBeNull();
    expect(domainInterval([42], "positive")).toEqual({ kind: "value", level: null, low: 42, high: 42 });
    expect(domainInterval([70.5, 55.9], "positive")).toEqual({ kind: "min-max", level: null, low: 55.9, high: 70.5 });
    // What the old t-interval of the two said: 63.2 +- 12.706 x 7.3 (below zero).
    const old = 63.2 - 12.706 * (14.6 / 2);
    expect(old).toBeLessThan(0);
    // The goodput of the issue (up to 100.35%) and the scaling duration ([-346, 406] s): the range of two runs.
    expect(domainInterval([99.2, 100], "share")).toMatchObject({ kind: "min-max", low: 99.2, high: 100 });
    expect(describeSample([30, 0], "positive")).toMatchObject({ ci95: null, interval: { kind: "min-max", low: 0, high: 30 } });
    expect(intervalNote({ kind: "min-max" }, 2)).toBe("min-max of the runs; n = 2: not informative");
  });

  it("a positive quantity from 3 runs: the logs' t-interval, exp'd (100, 200, 400: 200 x 2^(+-t/sqrt 3))", () => {
    // Logs ln 100, ln 200, ln 400: mean ln 200, SD ln 2; back-transformed 200 x 2^(+-t/sqrt(3)).
    const i = domainInterval([100, 200, 400], "positive")!;
    expect(i.kind).toBe("t-log");
    expect(i.level).toBe(0.95);
    expect(i.low).toBeCloseTo(200 * 2 ** (-T2 / Math.sqrt(3)), 9);
    expect(i.high).toBeCloseTo(200 * 2 ** (T2 / Math.sqrt(3)), 9);
    // Runs far apart (1, 10, 100 replicas): the plain t-interval would go below zero; this one stays above.
    const far = domainInterval([1, 10, 100], "positive")!;
    expect(37 - (T2 * Math.sqrt(((1 - 37) ** 2 + (10 - 37) ** 2 + (100 - 37) ** 2) / 2)) / Math.sqrt(3)).toBeLessThan(0);
    expect(far.low).toBeCloseTo(10 * 10 ** (-T2 / Math.sqrt(3)), 9);
    expect(far.low).toBeGreaterThan(0);
  });

  it("a share from 3 runs: the logits' t-interval, back-transformed (odds 1/4, 1, 4: 100 / (1 + 4^(-+t/sqrt 3)))", () => {
    // 20%, 50%, 80%: logits -ln 4, 0, ln 4; mean 0, SD ln 4.
    const i = domainInterval([20, 50, 80], "share")!;
    expect(i.kind).toBe("t-logit");
    expect(i.low).toBeCloseTo(100 / (1 + 4 ** (T2 / Math.sqrt(3))), 9);
    expect(i.high).toBeCloseTo(100 / (1 + 4 ** (-T2 / Math.sqrt(3))), 9);
    // A goodput near 100 never passes it: 99, 99.9, 99.99.
    const g = domainInterval([99, 99.9, 99.99], "share")!;
    expect(g.high).toBeLessThan(100);
    expect(g.low).toBeGreaterThan(0);
  });

  it("a value on the domain's edge (a 0, a 100%): the plain t-interval cut there", () => {
    // 0, 2, 4 failures: mean 2, SD 2, half-width t x 2 / sqrt(3) = 4.97 -> [0, 6.97].
    const zero = domainInterval([0, 2, 4], "positive")!;
    expect(zero).toMatchObject({ kind: "t-clamped", level: 0.95, low: 0 });
    expect(zero.high).toBeCloseTo(2 + (T2 * 2) / Math.sqrt(3), 9);
    // Goodput 100, 100, 97: mean 99, SD sqrt(3); the upper end stops at 100.
    const full = domainInterval([100, 100, 97], "share")!;
    expect(full).toMatchObject({ kind: "t-clamped", high: 100 });
    expect(full.low).toBeCloseTo(99 - (T2 * Math.sqrt(3)) / Math.sqrt(3), 9);
  });

  it("an unbounded quantity keeps the plain t-interval (10, 12, 14: 12 +- t x 2 / sqrt 3)", () => {
    const i = domainInterval([10, 12, 14], "real")!;
    expect(i.kind).toBe("t");
    expect(i.low).toBeCloseTo(12 - (T2 * 2) / Math.sqrt(3), 9);
    expect(i.high).toBeCloseTo(12 + (T2 * 2) / Math.sqrt(3), 9);
  });
});
