import { describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_LIMITS, generatorsBreach, loadTotals, mergeLoadSeconds, summaryFlags, workloadSpec } from "../src";

const row = (s: number, vus: number, iterations: number) => ({
  ts: new Date(s * 1000),
  vus,
  iterations,
  droppedIterations: 0,
  bytesSent: 10,
  bytesReceived: 20,
});

describe("load generators", () => {
  it("merges the segments' rows of one second: VUs and counts add, so the peak VUs is the sum", () => {
    const merged = mergeLoadSeconds([row(1, 3, 100), row(1, 2, 50), row(2, 3, 10)]);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({ vus: 5, iterations: 150, bytesSent: 20, bytesReceived: 40 });
    expect(loadTotals(merged)).toMatchObject({ maxVUs: 5, iterations: 160 });
  });

  it("flags the load generator's CPU per segment, naming the busy one", () => {
    const g = (segment: number, cpuPercent: number) => ({
      segment,
      count: 2,
      status: "FINISHED",
      worker: null,
      cpuPercent,
      requests: 1,
      lostAt: null,
      clockOffsetMs: { start: 0, end: 0 },
    });
    const load = { maxVUs: 1, iterations: 1, droppedIterations: 0, bytesSent: 0, bytesReceived: 0, generatorCpuPercent: 95 };
    const flags = summaryFlags({ load: { ...load, generators: [g(0, 40), g(1, 95)] } });
    expect(flags.map((f) => f.code)).toEqual(["load-generator-cpu"]);
    expect(flags[0]!.message).toContain("segment 2/2 95%");
    expect(summaryFlags({ load: { ...load, generators: [g(0, 40), g(1, 50)] } })).toEqual([]);
  });

  it("validates generators and holds it to the workspace's maxGenerators", () => {
    const spec = { kind: "constant-vus", vus: 2, duration: "5s", requests: [{ name: "a", path: "/" }] };
    expect(workloadSpec.safeParse({ ...spec, generators: 0 }).success).toBe(false);
    expect(workloadSpec.safeParse({ ...spec, generators: 1.5 }).success).toBe(false);
    expect(generatorsBreach({ generators: 4 }, DEFAULT_WORKSPACE_LIMITS)).toBeNull();
    expect(generatorsBreach({ generators: 5 }, DEFAULT_WORKSPACE_LIMITS)?.message).toContain("maxGenerators is 4");
  });
});
