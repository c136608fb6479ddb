// Costs as billed: Kubernetes by its nodes (the pods packed onto nodes over time), per pod as the named
// alternative for a shared cluster, and an ALB's capacity units. Every expected figure is worked out by hand
// in the comments, not by the code under test.
import { describe, expect, it } from "vitest";
import { lcuHours, nodeStaircase, parseCostModel, parseCostUsage, priceRun, priceUsage, podCpuOfSpec } from "../src";

const T3 = 0.0416 / 3600; // USD per t3.medium-second
const PODS = [
  { fromSecond: 0, count: 1 },
  { fromSecond: 60, count: 5 },
  { fromSecond: 300, count: 9 },
  { fromSecond: 600, count: 2 },
];

function price(model: unknown, usage: unknown) {
  const m = parseCostModel(model);
  if (!m.ok) throw new Error(JSON.stringify(m.issues));
  const u = parseCostUsage(m.value.model, usage);
  if (!u.ok) throw new Error(JSON.stringify(u.issues));
  return priceUsage(m.value.model, u.value);
}

const base = { kind: "reserved", unit: "USD", pricePerNodeSecond: T3 };

describe("Kubernetes priced by nodes", () => {
  it("packs pods onto nodes: 1, 5, 9, 2 pods at 4 per node need 1, 2, 3, 1 nodes", () => {
    expect(nodeStaircase(PODS, 900, { podsPerNode: 4, minNodes: 0, scaleDownDelaySeconds: 0 })).toEqual([
      { fromSecond: 0, count: 1 },
      { fromSecond: 60, count: 2 },
      { fromSecond: 300, count: 3 },
      { fromSecond: 600, count: 1 },
    ]);
    // A pool of at least 2 nodes: 2, 2, 3, 2 (the two first steps merge).
    expect(nodeStaircase(PODS, 900, { podsPerNode: 4, minNodes: 2, scaleDownDelaySeconds: 0 })).toEqual([
      { fromSecond: 0, count: 2 },
      { fromSecond: 300, count: 3 },
      { fromSecond: 600, count: 2 },
    ]);
    // A node no longer needed stays 120 s: 3 nodes until 720, then 1.
    expect(nodeStaircase(PODS, 900, { podsPerNode: 4, minNodes: 0, scaleDownDelaySeconds: 120 })).toEqual([
      { fromSecond: 0, count: 1 },
      { fromSecond: 60, count: 2 },
      { fromSecond: 300, count: 3 },
      { fromSecond: 720, count: 1 },
    ]);
  });

  it("prices the node staircase (1740 node-s), per pod as the shared-cluster alternative (4560 pod-s / 4), and the old per-pod-as-node (4560 node-s)", () => {
    // 1x60 + 2x240 + 3x300 + 1x300 = 1740 node-seconds.
    const byNodes = price({ ...base, podsPerNode: 4 }, { durationSeconds: 900, pods: PODS });
    expect(byNodes.lines[0]).toMatchObject({ key: "nodes", billed: 1740 });
    expect(byNodes.total).toBeCloseTo(1740 * T3, 12);
    expect(byNodes.notes.join(" ")).toMatch(/priced by nodes: 4 pods per node, at least 0 node\(s\); most nodes 3/);
    // 1x60 + 5x240 + 9x300 + 2x300 = 4560 pod-seconds, each a quarter of a node.
    const shared = price({ ...base, podsPerNode: 4, basis: "pods" }, { durationSeconds: 900, pods: PODS });
    expect(shared.lines[0]).toMatchObject({ key: "pods", billed: 4560, quantityUnit: "pod-s" });
    expect(shared.total).toBeCloseTo((4560 * T3) / 4, 12);
    const asBefore = price(base, { durationSeconds: 900, nodes: PODS });
    expect(asBefore.total).toBeCloseTo(4560 * T3, 12);
    // With a 120 s scale-down delay: 1x60 + 2x240 + 3x420 + 1x180 = 1980.
    expect(price({ ...base, podsPerNode: 4, scaleDownDelaySeconds: 120 }, { durationSeconds: 900, pods: PODS }).lines[0]!.billed).toBe(
      1980,
    );
  });

  it("takes pods per node from the node's vCPU and the pod's request; refuses pods without a packing", () => {
    // 1.93 allocatable vCPU / 0.7 = 2.76: 2 pods per node; 9 pods need 5 nodes.
    const r = price({ ...base, nodeVcpu: 1.93 }, { durationSeconds: 100, pods: [{ fromSecond: 0, count: 9 }], podCpu: 0.7 });
    expect(r.lines[0]!.billed).toBe(500);
    const m = parseCostModel(base);
    if (!m.ok) throw new Error("model");
    const bad = parseCostUsage(m.value.model, { durationSeconds: 100, pods: [{ fromSecond: 0, count: 1 }] });
    expect(bad.ok ? [] : bad.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "pods: pods are priced with a model that gives podsPerNode or nodeVcpu",
    ]);
    expect(podCpuOfSpec({ resources: { cpuRequest: "700m" } })).toBe(0.7);
    expect(podCpuOfSpec({ resources: { cpuRequest: "2" } })).toBe(2);
    expect(podCpuOfSpec({ resources: { cpuRequest: 0.5 } })).toBe(0.5);
    expect(podCpuOfSpec({ image: "x" })).toBeNull();
  });

  it("a kubernetes run under the EKS catalog's nodes version: ready pods 1 -> 6 -> 2 of 700m on t3.medium", () => {
    // 2 pods per node (1.93 / 0.7), at least 1 node, a node kept 600 s. Pods: 1 [0,120), 6 [120,600), 2 [600,900).
    // Nodes needed: 1, 3, 1; the drop at 600 is held until 1200 > 900: 1x120 + 3x780 = 2460 node-s.
    const r = priceRun(
      { catalog: "aws-eks-t3-medium-us-east-1", version: "2026-11-nodes" },
      {
        durationSeconds: 900,
        requests: 1000,
        failures: 0,
        meanLatencySeconds: 0.01,
        replicas: [
          { offsetSeconds: 0, replicas: 1 },
          { offsetSeconds: 120, replicas: 6 },
          { offsetSeconds: 600, replicas: 2 },
        ],
        podCpu: 0.7,
      },
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.cost.lines.find((l) => l.key === "nodes")!.billed).toBe(2460);
    // Plus the EKS control plane, $0.10 per hour for 900 s.
    expect(r.cost.total).toBeCloseTo(2460 * T3 + 0.1 / 4, 12);
    expect(r.cost.source).toBe("aws-eks-t3-medium-us-east-1@2026-11-nodes");

    // The same run with its pods held to 3 nodes (the spec's nodes, a study's nodes factor): 3 nodes throughout,
    // whatever the pods did: 3 x 900 = 2700 node-s.
    const held = priceRun(
      { catalog: "aws-eks-t3-medium-us-east-1", version: "2026-11-nodes" },
      {
        durationSeconds: 900,
        requests: 1000,
        failures: 0,
        meanLatencySeconds: 0.01,
        replicas: [
          { offsetSeconds: 0, replicas: 1 },
          { offsetSeconds: 120, replicas: 6 },
        ],
        podCpu: 0.7,
        heldNodes: 3,
      },
    );
    if (!held.ok) throw new Error(held.error);
    expect(held.cost.lines.find((l) => l.key === "nodes")!.billed).toBe(2700);
  });
});

describe("ALB capacity units", () => {
  it("bills the highest dimension per billed hour: 0.4 GB in 30 min is 0.4 LCU-h", () => {
    // new connections 9000 / 3600 s / 25 = 0.1; active 50 / 3000 = 0.0167; bytes 0.4 GB / 1 h = 0.4; rules 0.
    expect(lcuHours({ newConnections: 9000, peakActiveConnections: 50, processedGb: 0.4, ruleEvaluations: 0 }, 1800)).toEqual({
      hours: 1,
      lcuPerHour: 0.4,
      lcuHours: 0.4,
      dimension: "processed bytes",
    });
    // 90 min is billed as 2 hours: 3 GB over 2 h = 1.5 LCU per hour, 3 LCU-h.
    expect(lcuHours({ newConnections: 0, peakActiveConnections: 0, processedGb: 3, ruleEvaluations: 0 }, 5400).lcuHours).toBe(3);
    // 180000 new connections in 1 h: 50/s = 2 LCU.
    expect(lcuHours({ newConnections: 180_000, peakActiveConnections: 0, processedGb: 0, ruleEvaluations: 0 }, 600).dimension).toBe(
      "new connections",
    );
  });

  it("the ASG + ALB catalog: 2 t3.medium for 30 min, one ALB hour, 0.4 LCU-h", () => {
    const usage = {
      durationSeconds: 1800,
      nodes: [{ fromSecond: 0, count: 2 }],
      lcu: { newConnections: 9000, peakActiveConnections: 50, processedGb: 0.4 },
    };
    const r = price({ catalog: "aws-asg-t3-medium-alb-us-east-1" }, usage);
    expect(r.lines.map((l) => [l.key, l.billed])).toEqual([
      ["nodes", 3600],
      ["fee:0", 3600],
      ["lcu", 0.4],
      ["egress", 0],
    ]);
    // 2 x 0.0416 / 2 + 0.0225 + 0.4 x 0.008 = 0.0416 + 0.0225 + 0.0032 = 0.0673.
    expect(r.total).toBeCloseTo(0.0673, 12);
    // Measured LCU-hours (CloudWatch ConsumedLCUs) are priced as they are.
    const measured = price({ catalog: "aws-asg-t3-medium-alb-us-east-1" }, { ...usage, lcu: undefined, lcuHours: 0.025 });
    expect(measured.lines.find((l) => l.key === "lcu")!.amount).toBeCloseTo(0.0002, 12);
  });

  it("a run prices LCUs from the platform's ConsumedLCUs, else from k6's bytes and VUs (said so)", () => {
    const facts = {
      durationSeconds: 1800,
      requests: 100,
      failures: 0,
      meanLatencySeconds: 0.01,
      replicas: [{ offsetSeconds: 0, replicas: 2 }],
    };
    const measured = priceRun({ catalog: "aws-asg-t3-medium-alb-us-east-1" }, { ...facts, lcuHours: 0.5 });
    if (!measured.ok) throw new Error(measured.error);
    expect(measured.cost.lines.find((l) => l.key === "lcu")!.billed).toBe(0.5);
    // 2e8 bytes = 0.2 GB in one billed hour (0.2 LCU); 100 VUs: 100/3000 = 0.033 active, 100/3600/25 new.
    const fromK6 = priceRun({ catalog: "aws-asg-t3-medium-alb-us-east-1" }, { ...facts, traffic: { bytes: 2e8, peakConnections: 100 } });
    if (!fromK6.ok) throw new Error(fromK6.error);
    expect(fromK6.cost.lines.find((l) => l.key === "lcu")!.billed).toBeCloseTo(0.2, 12);
    expect(fromK6.cost.assumptions).toEqual([
      "no LCUs were reported: LCUs computed from the bytes k6 sent and received and its VUs (one connection each)",
    ]);
  });
});
