import { describe, expect, it } from "vitest";
import { evaluateGateRule, type GateVerdict, parseGateRule } from "../src/compare/gate-rules";

const verdict = (over: Partial<GateVerdict>): GateVerdict => ({
  metric: "p95",
  scale: "difference",
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

  it("says so when the engine gave no verdict (never a failure)", () => {
    const r = evaluateGateRule(parseGateRule("p95 > +10%"), [
      verdict({ estimate: null, low: null, high: null, text: "no verdict on p95" }),
    ]);
    expect(r.outcome).toBe("no-verdict");
    expect(r.message).toBe("no verdict on p95");
    expect(evaluateGateRule(parseGateRule("p50 > +10%"), [verdict({})]).outcome).toBe("no-verdict");
  });
});
