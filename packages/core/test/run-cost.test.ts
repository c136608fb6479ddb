import { describe, expect, it } from "vitest";
import { priceRun, usageForRun } from "../src/cost/run-cost";
import { costModel } from "../src/cost/cost-model";

const gke = { kind: "reserved", unit: "EUR-cent", pricePerNodeSecond: 0.0087959, feePerSecond: 0.0024996 };

describe("pricing a run", () => {
  it("turns the replica timeline into the node staircase (the IoT study's GKE base run: 36.1643 ct)", () => {
    const facts = {
      durationSeconds: 1800,
      requests: 327_921,
      failures: 0,
      meanLatencySeconds: 0.02,
      replicas: [
        { offsetSeconds: -1, replicas: 2 },
        { offsetSeconds: 5, replicas: 2 },
      ],
    };
    expect(usageForRun(costModel.parse(gke), facts)).toMatchObject({
      durationSeconds: 1800,
      nodes: [{ fromSecond: 0, count: 2 }],
      requests: 327_921,
    });
    const r = priceRun(gke, facts);
    expect(r.ok && r.cost.total).toBeCloseTo(36.1643, 3);
    expect(r.ok && r.cost.source).toBe("inline");
    expect(r.ok && r.cost.estimated).toBe(false);
    expect(r.ok && r.cost.pricedSpan).toEqual({ seconds: 1800, source: "unknown", label: "load window (source not recorded)" });
  });

  it("flags a serverful run priced without replica data and says what it assumed, and names the priced span", () => {
    const r = priceRun(gke, {
      durationSeconds: 20,
      durationSource: "k6-samples",
      requests: 2000,
      failures: 0,
      meanLatencySeconds: 0.01,
      replicas: [],
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.cost.estimated).toBe(true);
    expect(r.cost.assumptions).toEqual(["no replica or instance data was recorded for this run: priced as one node throughout"]);
    expect(r.cost.notes[0]).toBe(r.cost.assumptions?.[0]);
    expect(r.cost.total).toBeCloseTo(20 * (0.0087959 + 0.0024996), 8);
    expect(r.cost.pricedSpan).toEqual({ seconds: 20, source: "k6-samples", label: "k6's clock, the test's start to its last sample" });
  });

  it("counts a scale-up as a step", () => {
    const facts = {
      durationSeconds: 100,
      requests: 1000,
      failures: 0,
      meanLatencySeconds: 0.01,
      replicas: [
        { offsetSeconds: 0, replicas: 1 },
        { offsetSeconds: 40, replicas: 3 },
        { offsetSeconds: 41, replicas: 3 },
      ],
    };
    const u = usageForRun(costModel.parse(gke), facts) as { nodes: unknown };
    expect(u.nodes).toEqual([
      { fromSecond: 0, count: 1 },
      { fromSecond: 40, count: 3 },
    ]);
    const r = priceRun(gke, facts);
    expect(r.ok && r.cost.total).toBeCloseTo((40 * 1 + 60 * 3) * 0.0087959 + 100 * 0.0024996, 6);
  });

  it("bills serverless by the platform's meter when there is one, else requests x mean response time", () => {
    const run = { kind: "pay-per-use", unit: "EUR-cent", pricePerRequest: 2.568e-5, pricePerVcpuSecond: 9.122e-4, vcpu: 1 };
    const byLatency = priceRun(run, { durationSeconds: 1800, requests: 325_239, failures: 0, meanLatencySeconds: 0.02594, replicas: [] });
    expect(byLatency.ok && byLatency.cost.total).toBeCloseTo(325_239 * 2.568e-5 + 325_239 * 0.02594 * 9.122e-4, 4);
    // Billed per request: no timeline needed, nothing assumed.
    expect(byLatency.ok && byLatency.cost.estimated).toBe(false);
    const metered = priceRun(run, {
      durationSeconds: 60,
      requests: 1000,
      failures: 0,
      meanLatencySeconds: 0.5,
      replicas: [],
      billedSeconds: 12,
    });
    expect(metered.ok && metered.cost.total).toBeCloseTo(1000 * 2.568e-5 + 12 * 9.122e-4, 8);
  });

  it("explains a model it cannot use", () => {
    const r = priceRun(
      { kind: "reserved", unit: "EUR-cent" },
      { durationSeconds: 1, requests: 1, failures: 0, meanLatencySeconds: 0, replicas: [] },
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^cost model: .*pricePerNodeSecond/);
  });
});
