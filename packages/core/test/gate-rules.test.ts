import { describe, expect, it } from "vitest";
import { evaluateGateRule, type GateVerdict, parseGateRule, WITHIN_RUN_REASON } from "../src/compare/gate-rules";
import { seededRandom } from "../src/statistics/seeded-random";
import { compareGroups } from "../src/statistics/verdict-method";

const verdict = (over: Partial<GateVerdict>): GateVerdict => ({
  metric: "p95",
  scale: "difference",
  scope: "between-configurations",
  estimate: 20,
  low: 15,
  high: 25,
  level: 0.95,
  baselineMean: 100,
  text: "",
  ...over,
});

describe("gate rules (--fail-on)", () => {
  it("parses percent, percentage points and absolute limits, and names what is wrong", () => {
    expect(parseGateRule("p95 > +10%")).toMatchObject({ metric: "p95", op: ">", limit: 0.1, unit: "%" });
    expect(parseGateRule("goodput < -1pp")).toMatchObject({ metric: "goodput", op: "<", limit: -1, unit: "pp" });
    expect(parseGateRule("rps < -5%")).toMatchObject({ metric: "req/s", limit: -0.05 });
    expect(parseGateRule("p99 > 20ms")).toMatchObject({ metric: "p99", limit: 20, unit: "abs" });
    expect(() => parseGateRule("latency > 10%")).toThrow(/unknown metric "latency"/);
    expect(() => parseGateRule("p95 >> 10")).toThrow(/expected METRIC/);
    expect(() => parseGateRule("p95 > 1pp")).toThrow(/goodput/);
  });

  it("fails only when the whole interval is beyond the limit; inconclusive when it crosses it", () => {
    const rule = parseGateRule("p95 > +10%");
    expect(evaluateGateRule(rule, [verdict({})]).outcome).toBe("fail"); // +15%..+25%
    expect(evaluateGateRule(rule, [verdict({ estimate: 10, low: 5, high: 15 })]).outcome).toBe("inconclusive");
    expect(evaluateGateRule(rule, [verdict({ estimate: 0, low: -5, high: 5 })]).outcome).toBe("pass");
    // On the ratio scale: 1.2 (1.15..1.25) is +20%.
    expect(evaluateGateRule(rule, [verdict({ scale: "ratio", estimate: 1.2, low: 1.15, high: 1.25 })]).outcome).toBe("fail");
    const goodput = parseGateRule("goodput < -1pp");
    expect(evaluateGateRule(goodput, [verdict({ metric: "goodput", estimate: -3, low: -4, high: -2 })]).outcome).toBe("fail");
    expect(evaluateGateRule(goodput, [verdict({ metric: "goodput", estimate: -0.5, low: -0.8, high: -0.2 })]).outcome).toBe("pass");
    // The engine judges goodput as the failure share (points): goodput -3pp is failure share +3pp.
    const share = (estimate: number, low: number, high: number) => [verdict({ metric: "failure share", estimate, low, high })];
    const failed = evaluateGateRule(goodput, share(3, 2, 4));
    expect(failed.outcome).toBe("fail");
    expect(failed.change).toEqual({ estimate: -3, low: -4, high: -2 });
    expect(evaluateGateRule(goodput, share(0.5, 0.2, 0.8)).outcome).toBe("pass");
    expect(evaluateGateRule(goodput, share(0.5, -0.5, 1.5)).outcome).toBe("inconclusive");
    expect(() => parseGateRule("goodput < -1%")).toThrow(/percentage points/);
  });

  it("makes every rule on a within-run verdict inconclusive, saying how to get a verdict, whatever its interval", () => {
    const withinRun = { scope: "within-run" as const };
    for (const v of [verdict(withinRun), verdict({ ...withinRun, estimate: 0, low: -1, high: 1 })]) {
      const r = evaluateGateRule(parseGateRule("p95 > +10%"), [v]);
      expect(r.outcome).toBe("inconclusive");
      expect(r.message).toContain(WITHIN_RUN_REASON);
      expect(r.change).not.toBeNull(); // the change the two runs showed is still reported
    }
    expect(WITHIN_RUN_REASON).toBe("one run a side: state --run-cv or use --baseline-runs N");
  });

  it("reads a failure share's odds ratio in points or relative to the baseline's share; % for the share, never for goodput", () => {
    // The failure share has a plain alias ("failures") besides goodput (negated).
    const relative = parseGateRule("failures > +50%");
    expect(relative).toMatchObject({ metric: "failure share", unit: "%", limit: 0.5, negated: false });
    expect(() => parseGateRule("goodput < -1%")).toThrow(/percentage points/);
    // 0.1% -> 1.0% failures is an odds ratio of (0.01/0.99)/(0.001/0.999) = 10.09: +900% of the share, +0.9pp.
    const or = (p1: number, p0: number) => p1 / (1 - p1) / (p0 / (1 - p0));
    const odds = verdict({
      metric: "failure share",
      scale: "log-odds",
      baselineMean: 0.1,
      estimate: or(0.01, 0.001),
      low: or(0.008, 0.001),
      high: or(0.012, 0.001),
    });
    const r = evaluateGateRule(relative, [odds]);
    expect(r.outcome).toBe("fail");
    expect(r.change!.estimate).toBeCloseTo(9, 6);
    expect(r.change!.low).toBeCloseTo(7, 6);
    expect(r.change!.high).toBeCloseTo(11, 6);
    // Goodput in points, the odds mapped back to shares: -0.9pp (-1.1 to -0.7).
    const goodput = evaluateGateRule(parseGateRule("goodput < -1pp"), [odds]);
    expect(goodput.outcome).toBe("inconclusive");
    expect(goodput.change!.estimate).toBeCloseTo(-0.9, 6);
    expect(goodput.change!.low).toBeCloseTo(-1.1, 6);
    expect(goodput.change!.high).toBeCloseTo(-0.7, 6);
    expect(evaluateGateRule(parseGateRule("failures > +0.5pp"), [odds]).outcome).toBe("fail");
    // A baseline without failures has no odds to scale: no verdict in the rule's unit, never a pass.
    expect(evaluateGateRule(relative, [{ ...odds, baselineMean: 0 }]).outcome).toBe("no-verdict");
  });

  it("says so when the engine gave no verdict (never a failure)", () => {
    const r = evaluateGateRule(parseGateRule("p95 > +10%"), [
      verdict({ estimate: null, low: null, high: null, text: "no verdict on p95" }),
    ]);
    expect(r.outcome).toBe("no-verdict");
    expect(r.message).toBe("no verdict on p95");
    expect(evaluateGateRule(parseGateRule("p50 > +10%"), [verdict({})]).outcome).toBe("no-verdict");
  });
});

// A seeded simulation of builds comparing identical configurations: one run a side, p95-like per-second values of
// ~300 ms over 300 s, each run's level shifted by 10% x a standard normal (the run-to-run variance), each second by
// 5% more. The right answer is known: nothing changed, so a rule that fails is a false alarm.
describe("the gate on identical configurations with 10% run-to-run variance (issue 34)", () => {
  const BUILDS = 1000;
  const rand = seededRandom(34);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const run = () => {
    const level = 300 * (1 + 0.1 * normal());
    return Array.from({ length: 300 }, () => level * (1 + 0.05 * normal()));
  };
  const rule = parseGateRule("p95 > +10%");
  const outcomes = { stated: [] as string[], unstated: [] as string[], readAsRepetitions: [] as string[] };
  for (let b = 0; b < BUILDS; b++) {
    const baseline = { label: "baseline", sample: { kind: "seconds" as const, values: run() } };
    const candidate = { label: "candidate", sample: { kind: "seconds" as const, values: run() } };
    const stated = compareGroups("p95", baseline, candidate, { lowerIsBetter: true, runToRunCv: 0.1 });
    const unstated = compareGroups("p95", baseline, candidate, { lowerIsBetter: true });
    outcomes.stated.push(evaluateGateRule(rule, [stated]).outcome);
    outcomes.unstated.push(evaluateGateRule(rule, [unstated]).outcome);
    // What the gate did before: the within-run interval read as if it were between configurations.
    outcomes.readAsRepetitions.push(evaluateGateRule(rule, [{ ...unstated, scope: "between-configurations" }]).outcome);
  }
  const share = (xs: string[], o: string) => xs.filter((x) => x === o).length / xs.length;

  it("fails under 5% of builds with --run-cv 10", () => {
    expect(share(outcomes.stated, "fail")).toBeLessThan(0.05);
    // ...and the widened interval is not so wide that it never passes.
    expect(share(outcomes.stated, "pass")).toBeGreaterThan(0);
  });

  it("fails none without it (every rule inconclusive, one run a side)", () => {
    expect(share(outcomes.unstated, "inconclusive")).toBe(1);
  });

  it("would fail far more builds read as repetitions (the within-run interval ignores run-to-run variance)", () => {
    // P(difference of two runs > +10%) with the difference ~ N(0, 300 x 0.1 x sqrt(2)): about 24% less the interval.
    expect(share(outcomes.readAsRepetitions, "fail")).toBeGreaterThan(0.15);
  });
});
