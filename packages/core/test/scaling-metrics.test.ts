// Study 002's scaling duration and study 004's throughput per vCPU: the expected figures are worked out by hand.
import { describe, expect, it } from "vitest";
import {
  ec2Vcpus,
  meanVcpus,
  scalingDuration,
  STUDY_TABLES,
  studyTableCells,
  type StudyTableRun,
  throughputPerVcpu,
  vcpuPerReplica,
} from "../src";

const at = (s: number) => new Date(1_000_000 + s * 1000);
const start = at(0);
const end = at(100);
// 1 replica, 2 at 20 s, 4 at 45 s, back to 3 at 80 s (a point before the window says 1 at the start).
const points = [
  { ts: at(-5), replicas: 1 },
  { ts: at(20), replicas: 2 },
  { ts: at(45), replicas: 4 },
  { ts: at(60), replicas: 4 },
  { ts: at(80), replicas: 3 },
  { ts: at(130), replicas: 9 },
];

describe("scaling duration", () => {
  it("is the time from the load's start until the replicas first reached the window's most", () => {
    expect(scalingDuration(points, start, end)).toEqual({ seconds: 45, fromReplicas: 1, maxReplicas: 4 });
    // Already at its most from the start: it did not scale (0 s).
    expect(
      scalingDuration(
        [
          { ts: at(0), replicas: 3 },
          { ts: at(50), replicas: 2 },
        ],
        start,
        end,
      ),
    ).toEqual({
      seconds: 0,
      fromReplicas: 3,
      maxReplicas: 3,
    });
    expect(scalingDuration([], start, end)).toBeNull();
  });
});

describe("throughput per vCPU", () => {
  it("divides req/s by the time-weighted mean of replicas x vCPUs per replica", () => {
    // 1 x 20 + 2 x 25 + 4 x 35 + 3 x 20 = 270 replica-seconds over 100 s = 2.7 replicas; at 0.5 vCPU, 1.35 vCPU.
    expect(meanVcpus(points, start, end, 0.5)).toBeCloseTo(1.35, 12);
    expect(throughputPerVcpu(270, 1.35)).toBeCloseTo(200, 12);
    expect(meanVcpus(points, start, end, null)).toBeNull();
    expect(throughputPerVcpu(10, 0)).toBeNull();
  });

  it("takes vCPUs per replica from each kind's spec", () => {
    expect(vcpuPerReplica("kubernetes", { resources: { cpuRequest: "700m", cpuLimit: "1" } })).toBe(1);
    expect(vcpuPerReplica("kubernetes", { resources: { cpuRequest: "500m" } })).toBe(0.5);
    expect(vcpuPerReplica("kubernetes", { image: "x" })).toBeNull();
    expect(vcpuPerReplica("local-service", { resources: { cpuRequest: 0.25 } })).toBe(0.25);
    expect(vcpuPerReplica("local-service", {})).toBe(1);
    expect(vcpuPerReplica("gcp-cloud-run", { cpu: "2" })).toBe(2);
    expect(vcpuPerReplica("aws-asg", { instanceType: "t3.medium" })).toBe(2);
    expect(vcpuPerReplica("aws-lambda", { memoryMb: 1769 })).toBe(1);
    expect(vcpuPerReplica("endpoint", { url: "http://x" })).toBeNull();
    expect([ec2Vcpus("t2.micro"), ec2Vcpus("c5.2xlarge"), ec2Vcpus("m5.xlarge"), ec2Vcpus("m6i.metal")]).toEqual([1, 8, 4, null]);
  });

  it("the scaling table: each figure the mean over a cell's repetitions", () => {
    const run = (rps: number, seconds: number, meanVcpus: number): StudyTableRun =>
      ({
        runId: `${rps}`,
        summary: {
          rps,
          requests: 0,
          failures: 0,
          goodput: 100,
          successRatio: 100,
          latencyMs: { avg: 1, min: 1, p50: 1, p90: 1, p95: 1, p99: 1, max: 1 },
        },
        maxThroughputRps: null,
        cpuPercent: null,
        scaling: { seconds, maxReplicas: 4 },
        meanVcpus,
      }) as never;
    const [cell] = studyTableCells([{ target: "t", workload: "w", runs: [run(100, 40, 2), run(300, 50, 3)] }]);
    expect(STUDY_TABLES.scaling.metrics).toEqual(["rps", "scalingSeconds", "maxReplicas", "meanVcpus", "rpsPerVcpu"]);
    // Throughput per vCPU 50 and 100: mean 75; scaling 45 s; vCPUs 2.5.
    expect(cell!.stats.rpsPerVcpu!.mean).toBeCloseTo(75, 12);
    expect(cell!.stats.scalingSeconds!.mean).toBeCloseTo(45, 12);
    expect(cell!.stats.meanVcpus!.mean).toBeCloseTo(2.5, 12);
  });
});
