import { describe, expect, it } from "vitest";
import { verdictExcludingFlags } from "../src/runs/measured-cells";
import {
  analysisFlags,
  DROPPED_ITERATIONS_TOLERANCE,
  droppedIterationsFlag,
  droppedIterationsShare,
  flagsOfRun,
  mergeFlags,
} from "../src/runs/validity-flags";

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

describe("dropped iterations: a share with a stated tolerance (issue 34, finding 6)", () => {
  const totals = (iterations: number, droppedIterations: number) => ({ iterations, droppedIterations });

  it("is the share of planned iterations, dropped / (ran + dropped), said in the flag with the tolerance", () => {
    expect(droppedIterationsShare(totals(4800, 12))).toBe(12 / 4812);
    expect(droppedIterationsShare(totals(0, 0))).toBe(0);
    expect(droppedIterationsShare(totals(0, 7))).toBe(1);
    const flag = droppedIterationsFlag(totals(4800, 12));
    expect(flag.share).toBe(12 / 4812);
    expect(flag.message).toMatch(/^12 of 4,812 iterations dropped \(0\.25%\)/);
    expect(flag.message).toContain(`within the ${DROPPED_ITERATIONS_TOLERANCE * 100}% tolerance`);
    expect(droppedIterationsFlag(totals(2000, 100)).message).toMatch(/^100 of 2,100 iterations dropped \(4\.76%\).*over the 1% tolerance/);
  });

  it("judges a run at exactly the tolerance and leaves it out just above", () => {
    expect(DROPPED_ITERATIONS_TOLERANCE).toBe(0.01);
    const at = droppedIterationsFlag(totals(990, 10)); // 10 / 1,000 = 1%
    const above = droppedIterationsFlag(totals(989, 11)); // 11 / 1,000 = 1.1%
    expect(verdictExcludingFlags([at])).toEqual([]);
    expect(verdictExcludingFlags([above])).toEqual([above]);
    // Just above: a share that rounds to the tolerance at two decimals is written with enough to show the side.
    const hair = droppedIterationsFlag(totals(99_899, 1_010)); // 1,010 / 100,909 = 1.00090...%
    expect(verdictExcludingFlags([hair])).toEqual([hair]);
    expect(hair.message).toContain("(1.001%)");
    expect(at.message).toContain("(1.00%)");
  });

  it("keeps a flag stored without a share excluding, unless the summary's load totals give its share", () => {
    const old = { code: "dropped-iterations", message: "12 iterations dropped: the load generator could not keep the planned rate" };
    expect(verdictExcludingFlags([old])).toEqual([old]);
    // A live run analysed before shares: its summary has the totals, the flag is recomputed from them.
    const recomputed = flagsOfRun({ flags: [old], summary: load({ droppedIterations: 1 }) });
    expect(recomputed).toEqual([droppedIterationsFlag(totals(100, 1))]);
    expect(verdictExcludingFlags(recomputed)).toEqual([]);
    // No totals to recompute from: the stored flag stays, and excludes.
    expect(flagsOfRun({ flags: [old], summary: null })).toEqual([old]);
    // A share stored with the flag is kept as it is.
    const stored = droppedIterationsFlag(totals(90, 10));
    expect(flagsOfRun({ flags: [stored], summary: load({ droppedIterations: 1 }) })).toEqual([stored]);
  });
});
