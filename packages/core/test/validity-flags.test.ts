import { describe, expect, it } from "vitest";
import { analysisFlags, mergeFlags } from "../src/runs/validity-flags";

const load = (over: Partial<{ generatorCpuPercent: number | null; droppedIterations: number }>) => ({
  load: { maxVUs: 10, iterations: 100, droppedIterations: 0, bytesSent: 0, bytesReceived: 0, generatorCpuPercent: 20, ...over },
});

describe("validity flags", () => {
  it("flags a load generator above 80% of the machine's CPU, and not at or below", () => {
    expect(analysisFlags(load({ generatorCpuPercent: 80 }), 3)).toEqual([]);
    expect(analysisFlags(load({ generatorCpuPercent: null }), 3)).toEqual([]);
    const flags = analysisFlags(load({ generatorCpuPercent: 93.4 }), 3);
    expect(flags.map((f) => f.code)).toEqual(["load-generator-cpu"]);
    expect(flags[0]!.message).toContain("93%");
  });

  it("flags dropped iterations and too few repetitions, one flag per code", () => {
    const flags = analysisFlags(load({ droppedIterations: 5 }), 1);
    expect(flags.map((f) => f.code).sort()).toEqual(["dropped-iterations", "too-few-repetitions"]);
    expect(mergeFlags(flags, [{ code: "dropped-iterations", message: "newer" }]).filter((f) => f.code === "dropped-iterations")).toEqual([
      { code: "dropped-iterations", message: "newer" },
    ]);
  });
});
