// Issue 22, findings 6 and 7, on data whose right answers are closed-form: two runs a side, so the t-interval has
// df = 2, whose quantiles and tail are elementary (P(|T| > t) = 1 - t / sqrt(2 + t^2); the p-quantile is
// (2p - 1) sqrt(2 / (4p(1 - p)))). Nothing here calls the code under test to compute an expected value.
import { describe, expect, it } from "vitest";
import { comparisonVerdicts, type VerdictGroup } from "../src/compare/comparison-samples";
import { compareGroups, familySummary, type VerdictSample } from "../src/statistics/verdict-method";
import type { RunSummary } from "../src/runs/run-summary";

const t2Quantile = (p: number) => (2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p)));
const t2TwoSidedP = (t: number) => 1 - Math.abs(t) / Math.sqrt(2 + t * t);
const T975 = t2Quantile(0.975); // 4.3027
const T80 = t2Quantile(0.8); // 1.0607

/** Two runs a side at m - s and m + s: sample variance 2 s^2 each, so se = sqrt(2 s^2 / 2 + 2 s^2 / 2) = sqrt(2) s. */
const pair = (m: number, s: number): VerdictSample => ({ kind: "runs", values: [m - s, m + s] });
const latency = { lowerIsBetter: true, unit: "ms" } as const;

describe("three outcomes in words (finding 7)", () => {
  it("equivalent: the whole interval inside +-margin, even where it excludes zero", () => {
    // d = 1, se = 0.1414: [0.39, 1.61], inside +-5 (5% of 100).
    const v = compareGroups("p95", { label: "A", sample: pair(100, 0.1) }, { label: "B", sample: pair(101, 0.1) }, latency);
    expect(v.low).toBeCloseTo(1 - T975 * Math.SQRT2 * 0.1, 9);
    expect(v.high).toBeCloseTo(1 + T975 * Math.SQRT2 * 0.1, 9);
    expect(v.low).toBeGreaterThan(0);
    expect(v.outcome).toBe("equivalent");
    expect(v.significant).toBe(false);
    expect(v.text).toMatch(/^equivalent on p95: the interval lies within the margin/);
  });

  it("better beyond the margin: the whole interval past it", () => {
    // d = -10 ms (B faster), se = 0.1414: [-10.61, -9.39], all below -5.
    const v = compareGroups("p95", { label: "A", sample: pair(100, 0.1) }, { label: "B", sample: pair(90, 0.1) }, latency);
    expect(v.outcome).toBe("candidate-better");
    expect(v.significant).toBe(true);
    expect(v.text).toMatch(/^B is better on p95 beyond the margin/);
    // Excluding zero but reaching into the margin is not "better": d = -6, se = 1.414 -> [-12.1, 0.09]... choose s so it excludes 0.
    const near = compareGroups("p95", { label: "A", sample: pair(100, 0.5) }, { label: "B", sample: pair(94, 0.5) }, latency);
    const half = T975 * Math.SQRT2 * 0.5; // 3.04: [-9.04, -2.96], excludes 0, reaches inside -5
    expect(near.high).toBeCloseTo(-6 + half, 9);
    expect(near.high!).toBeLessThan(0);
    expect(near.high!).toBeGreaterThan(-5);
    expect(near.outcome).toBe("inconclusive");
    expect(near.significant).toBe(false);
  });

  it("inconclusive: says the difference the rule applied finds (the margin plus (t + t) se), its power and the runs it needs", () => {
    // d = 3, s = 2: se = 2.83, [-9.2, 15.2].
    const v = compareGroups("p95", { label: "A", sample: pair(100, 2) }, { label: "B", sample: pair(103, 2) }, latency);
    expect(v.outcome).toBe("inconclusive");
    const se = Math.SQRT2 * 2;
    // "Better" needs the whole interval beyond the 5 ms margin: found with 80% power from 5 + (t.975 + t.80) x se.
    expect(v.detectable).toBeCloseTo((5 + (T975 + T80) * se) / 100, 9);
    expect(v.detectable).toBeCloseTo(0.2017, 3);
    // The power for the stated 10% (10 ms): P(T2 > t.975 - (10 - 5) / se), T2's upper tail closed-form.
    const shift = T975 - 5 / se;
    expect(v.effect).toBe(0.1);
    expect(v.power).toBeCloseTo(t2TwoSidedP(shift) / 2, 9);
    // Runs a side for 80% on 10 ms past a 5 ms margin with a per-run variance of 8: at least the normal
    // approximation 2 x 8 x (1.95996 + 0.84162)^2 / 5^2 = 5.02, so 6 or more; the t quantiles (df n - 1) add a little.
    expect(v.runsNeeded).toBeGreaterThanOrEqual(6);
    expect(v.runsNeeded).toBeLessThanOrEqual(9);
    expect(v.text).toMatch(
      /^inconclusive on p95: the rule finds a true difference of about 20\.17% 80% of the time; a true 10\.00% difference \d+% of the time; about \d runs a side would find it 80% of the time/,
    );
    // The p-value of "no difference beyond the margin" with margin 0 is the ordinary two-sided p.
    const at0 = compareGroups("p95", { label: "A", sample: pair(100, 2) }, { label: "B", sample: pair(103, 2) }, { ...latency, margin: 0 });
    expect(at0.pValue).toBeCloseTo(t2TwoSidedP(3 / se), 9);
  });

  it("judges the failure share on its odds: 0.1% -> 1% is ten times as many failures, not 'equivalent' within a point", () => {
    const summary = (goodput: number): RunSummary =>
      ({ requests: 100_000, goodput, latencyMs: { p50: 1, p95: 1, p99: 1 }, rps: 10 }) as RunSummary;
    const group = (label: string, goodputs: number[]): VerdictGroup => ({ label, summaries: goodputs.map(summary), windows: [] });
    const [failures] = comparisonVerdicts([group("A", [99.9, 99.91, 99.89]), group("B", [99, 99.01, 98.99])]).filter(
      (v) => v.metric === "failure share",
    );
    // Each run's empirical log-odds, (f + 0.5) / (N - f + 0.5): the odds ratio is exp(mean(B) - mean(A)).
    const logit = (share: number) => Math.log((share * 100_000 + 0.5) / (100_000 - share * 100_000 + 0.5));
    const meanLogit = (shares: number[]) => shares.reduce((a, x) => a + logit(x), 0) / shares.length;
    const expected = Math.exp(meanLogit([0.01, 0.0099, 0.0101]) - meanLogit([0.001, 0.0009, 0.0011]));
    expect(failures!.scale).toBe("log-odds");
    expect(failures!.estimate).toBeCloseTo(expected, 6);
    expect(failures!.estimate).toBeGreaterThan(9);
    // The baseline's share with half a failure added per run, (f + 0.5) / (N + 1), so a baseline without failures has odds.
    expect(failures!.baselineMean).toBeCloseTo((100 * (100.5 + 90.5 + 110.5)) / 3 / 100_001, 9);
    expect(failures!.margin).toBe(0.5);
    expect(failures!.outcome).toBe("baseline-better");
    // A stricter SLO margin is the user's: 10% of the odds.
    const strict = comparisonVerdicts([group("A", [99.9, 99.91, 99.89]), group("B", [99.9, 99.9, 99.9])], { failureMargin: 0.1 }).find(
      (v) => v.metric === "failure share",
    )!;
    expect(strict.margin).toBe(0.1);
  });
});

describe("study families (finding 6)", () => {
  const summary = (p95: number): RunSummary =>
    ({ requests: 100, goodput: 100, latencyMs: { p50: p95, p95, p99: p95 }, rps: p95 }) as RunSummary;
  const cell = (label: string, workload: string, values: [number, number]): VerdictGroup => ({
    label,
    workload,
    summaries: values.map(summary),
    windows: [],
  });

  it("compares targets within each workload, never across, states the family and applies Holm's correction", () => {
    // Two workloads x three targets. Within "read": t1 vs t2 far apart, t1 vs t3 a little; "write" likewise.
    const groups = [
      cell("t1 x read", "read", [100, 102]),
      cell("t1 x write", "write", [500, 510]),
      cell("t2 x read", "read", [150, 152]),
      cell("t2 x write", "write", [505, 515]),
      cell("t3 x read", "read", [104, 106]),
      cell("t3 x write", "write", [700, 710]),
    ];
    const verdicts = comparisonVerdicts(groups, { pairing: "within-workload", margin: 0 });
    const pairs = new Set(verdicts.map((v) => `${v.baseline} > ${v.candidate}`));
    expect(pairs).toEqual(
      new Set(["t1 x read > t2 x read", "t1 x read > t3 x read", "t1 x write > t2 x write", "t1 x write > t3 x write"]),
    );
    expect(verdicts.every((v) => v.family === "p95 (primary metric), targets within each workload: 4 pairs")).toBe(true);
    // Only the primary metric is judged in the family; the rest are descriptive and never significant.
    expect(verdicts.filter((v) => v.role === "primary").every((v) => v.metric === "p95")).toBe(true);
    expect(verdicts.filter((v) => v.role === "descriptive").some((v) => v.significant)).toBe(false);

    // p95: each pair's two-sided p at df = 2 (se = sqrt(s_a^2/2 + s_b^2/2), sample variance of [x, x + 2k] = 2k^2).
    const se = (ka: number, kb: number) => Math.sqrt((2 * ka * ka) / 2 + (2 * kb * kb) / 2);
    const expectedP = new Map([
      ["t2 x read", t2TwoSidedP(50 / se(1, 1))],
      ["t3 x read", t2TwoSidedP(4 / se(1, 1))],
      ["t2 x write", t2TwoSidedP(5 / se(5, 5))],
      ["t3 x write", t2TwoSidedP(200 / se(5, 5))],
    ]);
    const p95 = verdicts.filter((v) => v.metric === "p95");
    for (const v of p95) expect(v.pValue).toBeCloseTo(expectedP.get(v.candidate)!, 9);

    // Holm over every tested verdict of the family, by hand: sort the p-values, multiply the i-th smallest by (m - i),
    // keep the running maximum.
    const tested = verdicts.filter((v) => v.pValue !== null && v.role === "primary");
    const m = tested.length;
    const sorted = [...tested].sort((a, b) => a.pValue! - b.pValue!);
    let running = 0;
    const holm = new Map<(typeof verdicts)[number], number>();
    sorted.forEach((v, i) => {
      running = Math.max(running, Math.min(1, (m - i) * v.pValue!));
      holm.set(v, running);
    });
    for (const v of tested) {
      expect(v.familySize).toBe(m);
      expect(v.adjustedPValue).toBeCloseTo(holm.get(v)!, 12);
      // Margin 0: beyond it means the interval excludes zero; significant only if Holm keeps it too.
      const beyond = v.low! > 0 || v.high! < 0;
      expect(v.significant).toBe(beyond && holm.get(v)! < 0.05);
      if (beyond && !v.significant) expect(v.outcome).toBe("inconclusive");
    }
    // t3 x read is 4 ms slower (p ~ 0.11 alone): not significant either way. And the summary line says k of m.
    const s = familySummary(verdicts);
    expect(s.tested).toBe(m);
    expect(s.significant).toBe(tested.filter((v) => v.significant).length);
    expect(s.text).toMatch(
      new RegExp(
        `^p95 \\(primary metric\\), targets within each workload: 4 pairs: ${s.significant} of ${m} significant after Holm's correction \\(${s.uncorrected} before it; about ${(m * 0.05).toPrecision(3)} would be by chance alone`,
      ),
    );
  });

  it("takes 'significant' back where Holm's correction does not keep it", () => {
    // Ten candidates each 3 ms slower with p just under 0.05 alone: after Holm over ten, none stays.
    const base = cell("base", "w", [100, 100.2]);
    const others = Array.from({ length: 10 }, (_, i) => cell(`c${i}`, "w", [100.7, 100.9]));
    const verdicts = comparisonVerdicts([base, ...others], { pairing: "within-workload", margin: 0 }).filter((v) => v.metric === "p95");
    // se = sqrt(0.02/2 + 0.02/2) = 0.1414, t = 0.7 / 0.1414 = 4.95 -> p = 1 - 4.95 / sqrt(2 + 24.5) = 0.0385.
    expect(verdicts[0]!.pValue).toBeCloseTo(t2TwoSidedP(0.7 / Math.sqrt(0.02)), 9);
    expect(verdicts[0]!.pValue!).toBeLessThan(0.05);
    expect(verdicts.every((v) => v.low! > 0 && v.outcome === "inconclusive" && !v.significant)).toBe(true);
    expect(verdicts[0]!.text).toMatch(/^inconclusive on p95: base is better beyond the margin alone, but not after Holm's correction/);
  });
});
