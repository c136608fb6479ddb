import { describe, expect, it } from "vitest";
import {
  billedDurationMs,
  functionSettings,
  hpaRecommendation,
  HpaAutoscaler,
  localFunctionSpec,
  localServiceSpec,
  serviceSettings,
  stabilize,
  targetInput,
} from "../src";

const rule = { targetCpuPercent: 50, tolerance: 0.1 };

describe("the HPA rule: desired = ceil(current x current CPU / target)", () => {
  it("scales up and down by the utilisation ratio of the ready replicas", () => {
    expect(hpaRecommendation(1, { readyCpuPercent: [100], unready: 0 }, rule)).toBe(2);
    expect(hpaRecommendation(2, { readyCpuPercent: [90, 90], unready: 0 }, rule)).toBe(4); // ceil(2 x 1.8) = 4
    expect(hpaRecommendation(3, { readyCpuPercent: [60, 70, 80], unready: 0 }, rule)).toBe(5); // ceil(3 x 1.4) = 5
    expect(hpaRecommendation(4, { readyCpuPercent: [10, 10, 10, 10], unready: 0 }, rule)).toBe(1); // ceil(4 x 0.2)
    expect(hpaRecommendation(4, { readyCpuPercent: [0, 0, 0, 0], unready: 0 }, rule)).toBe(0);
  });

  it("changes nothing within the 10% tolerance, and does at its edge", () => {
    expect(hpaRecommendation(2, { readyCpuPercent: [54, 55], unready: 0 }, rule)).toBe(2); // ratio 1.09
    expect(hpaRecommendation(2, { readyCpuPercent: [46, 45], unready: 0 }, rule)).toBe(2); // ratio 0.91
    expect(hpaRecommendation(2, { readyCpuPercent: [56, 56], unready: 0 }, rule)).toBe(3); // ratio 1.12 -> ceil(2.24)
    expect(hpaRecommendation(10, { readyCpuPercent: Array(10).fill(44), unready: 0 }, rule)).toBe(9); // ratio 0.88 -> ceil(8.8)
    expect(hpaRecommendation(2, { readyCpuPercent: [56, 56], unready: 0 }, { ...rule, tolerance: 0.2 })).toBe(2);
  });

  it("counts replicas that are not ready yet as idle when scaling up (no over-shoot), and skips a cycle without metrics", () => {
    // Ready: 1 at 100%; 1 starting. Dampened ratio = 100 / 2 / 50 = 1.0 -> within tolerance -> keep 2.
    expect(hpaRecommendation(2, { readyCpuPercent: [100], unready: 1 }, rule)).toBe(2);
    // Ready: 1 at 200%; 1 starting: dampened 2.0 -> ceil(2 x 2) = 4.
    expect(hpaRecommendation(2, { readyCpuPercent: [200], unready: 1 }, rule)).toBe(4);
    expect(hpaRecommendation(3, { readyCpuPercent: [], unready: 3 }, rule)).toBe(3);
  });
});

describe("stabilization: scale up at once, scale down to the highest recommendation of the window", () => {
  it("keeps the highest recent recommendation when scaling down", () => {
    const history = [
      { at: 0, replicas: 4 },
      { at: 10_000, replicas: 2 },
      { at: 20_000, replicas: 1 },
    ];
    const w = { scaleUpMs: 0, scaleDownMs: 15_000 };
    expect(stabilize(4, 1, history, 20_000, w)).toBe(2); // 4 fell out of the window, 2 did not
    expect(stabilize(4, 1, history, 30_000, w)).toBe(1);
    expect(stabilize(1, 3, [...history, { at: 20_000, replicas: 3 }], 20_000, w)).toBe(3); // up: at once
  });

  it("runs sync periods end to end: up at once, down only after the window, clamped to min/max", () => {
    const hpa = new HpaAutoscaler({ ...rule, minReplicas: 1, maxReplicas: 4, scaleUpStabilizationMs: 0, scaleDownStabilizationMs: 3000 });
    let replicas = 1;
    const step = (at: number, cpu: number) => {
      const d = hpa.decide(replicas, { readyCpuPercent: Array(replicas).fill(cpu), unready: 0 }, at);
      replicas = d.desired;
      return d;
    };
    expect(step(0, 100)).toMatchObject({ desired: 2, reason: "scale-up" });
    expect(step(1000, 100)).toMatchObject({ desired: 4, reason: "scale-up" });
    expect(step(2000, 100)).toMatchObject({ desired: 4, recommendation: 8, reason: "at-limit" });
    expect(step(3000, 10)).toMatchObject({ desired: 4, recommendation: 1, reason: "stabilized" });
    expect(step(4000, 10)).toMatchObject({ desired: 4, reason: "stabilized" });
    expect(step(4900, 10)).toMatchObject({ desired: 4, reason: "stabilized" }); // 8 (at 2000) is still in the window
    expect(step(6000, 10)).toMatchObject({ desired: 1, reason: "scale-down" });
    expect(step(7000, 0)).toMatchObject({ desired: 1, recommendation: 0 });
    expect(step(8000, 48)).toMatchObject({ desired: 1, reason: "within-tolerance" });
    expect(step(12_000, 0)).toMatchObject({ desired: 1, recommendation: 0, reason: "at-limit" });
    hpa.clear();
    expect(step(13_000, 100)).toMatchObject({ desired: 2, reason: "scale-up" });
  });
});

describe("local target specs", () => {
  it("keeps `replicas` as a fixed size and fills the HPA's defaults", () => {
    expect(serviceSettings(localServiceSpec.parse({ app: "cpu-loop/node-http", replicas: 3 }))).toMatchObject({
      minReplicas: 3,
      maxReplicas: 3,
      autoscaler: null,
      balancing: "per-request",
      placement: "co-located",
    });
    const s = serviceSettings(
      localServiceSpec.parse({ app: "cpu-loop/node-http", minReplicas: 1, maxReplicas: 4, autoscaler: { targetCpuPercent: 50 } }),
    );
    expect(s.autoscaler).toEqual({
      targetCpuPercent: 50,
      syncPeriodMs: 15_000,
      tolerance: 0.1,
      scaleDownStabilizationMs: 300_000,
      scaleUpStabilizationMs: 0,
    });
    expect(s.resources.cpuRequest).toBe(1);
  });

  it("refuses contradictory sizes with the field named", () => {
    const both = localServiceSpec.safeParse({ app: "cpu-loop/node-http", replicas: 2, maxReplicas: 4 });
    expect(both.success).toBe(false);
    expect(both.error!.issues[0]!.path).toEqual(["replicas"]);
    const inverted = localServiceSpec.safeParse({ app: "cpu-loop/node-http", minReplicas: 4, maxReplicas: 2 });
    expect(inverted.error!.issues[0]!.message).toMatch(/minReplicas \(4\) is above maxReplicas \(2\)/);
    const placement = targetInput.safeParse({
      name: "x",
      kind: "local-service",
      spec: { app: "cpu-loop/node-http", placement: "scattered" },
    });
    expect(placement.error!.issues[0]!.path).toEqual(["spec", "placement"]);
  });

  it("takes each function platform's defaults, and explicit values over them", () => {
    const lambda = functionSettings(localFunctionSpec.parse({ app: "cpu-loop/node-http", platform: "lambda" }));
    expect(lambda).toMatchObject({ concurrency: 1, queueTimeoutMs: 0, billing: { mode: "per-request", granularityMs: 1 } });
    const run = functionSettings(
      localFunctionSpec.parse({ app: "cpu-loop/node-http", concurrency: 10, maxInstances: 4, idleTimeoutMs: 10_000 }),
    );
    expect(run).toMatchObject({
      platform: "cloud-run",
      concurrency: 10,
      maxInstances: 4,
      minInstances: 0,
      idleTimeoutMs: 10_000,
      billing: { mode: "per-instance", granularityMs: 100 },
    });
    expect(
      targetInput.safeParse({ name: "f", kind: "local-function", spec: { app: "cpu-loop/node-http", concurrency: 0 } }).error!.issues[0]!
        .path,
    ).toEqual(["spec", "concurrency"]);
  });

  it("rounds billed durations up to the granularity, never below the minimum", () => {
    const lambda = { granularityMs: 1, minimumMs: 1 };
    const hundred = { granularityMs: 100, minimumMs: 100 };
    expect(billedDurationMs(0.2, lambda)).toBe(1);
    expect(billedDurationMs(12.01, lambda)).toBe(13);
    expect(billedDurationMs(12, lambda)).toBe(12);
    expect(billedDurationMs(3, hundred)).toBe(100);
    expect(billedDurationMs(100, hundred)).toBe(100);
    expect(billedDurationMs(100.5, hundred)).toBe(200);
    expect(billedDurationMs(250, { granularityMs: 100, minimumMs: 0 })).toBe(300);
  });
});
