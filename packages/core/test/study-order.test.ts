import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/statistics/seeded-random";
import { planRunOrder, shuffled } from "../src/studies/study-order";
import { studyInput } from "../src/studies/study-spec";
import { studyProgress } from "../src/studies/study-progress";
import { analysisFlags, baselineNotReachedFlag, mergeFlags, readFlags } from "../src/runs/validity-flags";

describe("study run order", () => {
  it("interleaved-random: every round runs every cell once, in an order replayed exactly from the seed", () => {
    const plan = planRunOrder({ cells: 4, repetitions: 3, order: "interleaved-random", seed: 42 });
    expect(plan).toHaveLength(12);
    expect(plan.map((p) => p.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (let round = 1; round <= 3; round++) {
      const inRound = plan.filter((p) => p.round === round);
      expect(inRound.map((p) => p.cell).sort()).toEqual([0, 1, 2, 3]);
      expect(inRound.every((p) => p.repetition === round)).toBe(true);
    }
    expect(planRunOrder({ cells: 4, repetitions: 3, order: "interleaved-random", seed: 42 })).toEqual(plan);
    expect(planRunOrder({ cells: 4, repetitions: 3, order: "interleaved-random", seed: 43 })).not.toEqual(plan);
  });

  it("draws a fresh order each round: over many seeds, rounds differ as often as independent shuffles would", () => {
    let differ = 0;
    const seeds = 2400;
    for (let seed = 0; seed < seeds; seed++) {
      const plan = planRunOrder({ cells: 4, repetitions: 2, order: "interleaved-random", seed });
      if (
        plan
          .slice(0, 4)
          .map((p) => p.cell)
          .join() !==
        plan
          .slice(4)
          .map((p) => p.cell)
          .join()
      )
        differ++;
    }
    // Two independent shuffles of 4 agree with probability 1/24: expect 2300 of 2400 to differ (SD ~10).
    expect(differ).toBeGreaterThan(2240);
    expect(differ).toBeLessThan(2360);
  });

  it("shuffles uniformly: each of the 24 orders of 4 items about equally often", () => {
    const random = seededRandom(7);
    const counts = new Map<string, number>();
    const n = 24_000;
    for (let i = 0; i < n; i++) {
      const k = shuffled([0, 1, 2, 3], random).join("");
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(counts.size).toBe(24);
    // Chi-square with 23 degrees of freedom; its 99.9% point is 49.7.
    const chi2 = [...counts.values()].reduce((a, c) => a + (c - 1000) ** 2 / 1000, 0);
    expect(chi2).toBeLessThan(49.7);
  });

  it("sequential: each cell's repetitions in a block, no rounds", () => {
    const plan = planRunOrder({ cells: 2, repetitions: 3, order: "sequential", seed: null });
    expect(plan.map((p) => [p.cell, p.repetition, p.round])).toEqual([
      [0, 1, null],
      [0, 2, null],
      [0, 3, null],
      [1, 1, null],
      [1, 2, null],
      [1, 3, null],
    ]);
  });

  it("refuses an interleaved plan without a valid seed", () => {
    expect(() => planRunOrder({ cells: 2, repetitions: 2, order: "interleaved-random", seed: null })).toThrow(/seed/);
    expect(() => planRunOrder({ cells: 0, repetitions: 2, order: "sequential", seed: null })).toThrow(/cell/);
  });
});

describe("study input", () => {
  it("fills the defaults: 3 repetitions, interleaved-random, 60 s cool-down", () => {
    const s = studyInput.parse({ name: "s", targets: ["a"], workloads: ["w"] });
    expect(s).toMatchObject({ repetitions: 3, order: "interleaved-random", cooldownSeconds: 60, baselineWaitSeconds: 120 });
    expect(s.seed).toBeUndefined();
  });

  it("names the field that is wrong", () => {
    const paths = (input: unknown) => {
      const r = studyInput.safeParse(input);
      return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
    };
    expect(paths({ name: "s", targets: [], workloads: ["w"] })).toEqual(["targets"]);
    expect(paths({ name: "s", targets: ["a"], workloads: ["w"], repetitions: 0 })).toEqual(["repetitions"]);
    expect(paths({ name: "s", targets: ["a"], workloads: ["w"], order: "random" })).toEqual(["order"]);
    expect(paths({ name: "s", targets: ["a", "a"], workloads: ["w"] })).toEqual(["targets.1"]);
    expect(paths({ name: "s", targets: ["a"], workloads: ["w"], cooldown: 5 })).toEqual([""]);
    expect(paths({ name: "s", targets: ["a"], workloads: ["w"], repetitions: 100, seed: -1 })).toEqual(["seed"]);
    const big = { name: "s", targets: ["a", "b", "c"], workloads: ["w", "x", "y"], repetitions: 60 };
    expect(paths(big)).toEqual(["repetitions"]);
  });

  it("takes full target and workload definitions as well as names", () => {
    const s = studyInput.parse({
      name: "s",
      targets: ["existing", { name: "fresh", kind: "local-service", spec: { app: "cpu-loop/node-http" } }],
      workloads: [
        { name: "w", spec: { kind: "ramping-vus", stages: [{ duration: "1s", target: 1 }], requests: [{ name: "r", path: "/" }] } },
      ],
    });
    expect(s.targets[1]).toMatchObject({ name: "fresh", spec: { app: "cpu-loop/node-http", startTimeoutMs: 10_000 } });
  });
});

describe("study progress and ETA", () => {
  const t0 = new Date("2026-11-21T12:00:00Z");
  const at = (s: number) => new Date(t0.getTime() + s * 1000);

  it("before the first run: all runs' planned time plus overhead, and one cool-down between each pair", () => {
    const runs = Array.from({ length: 4 }, () => ({ status: "QUEUED", plannedSeconds: 30, startedAt: null, finishedAt: null }));
    const p = studyProgress(runs, { cooldownSeconds: 60, studyFinal: false, now: t0 });
    expect(p).toMatchObject({ total: 4, finished: 0, overheadSeconds: 10 });
    expect(p.etaSeconds).toBe(4 * 40 + 3 * 60);
  });

  it("measures the overhead from finished runs and counts only what is left of the current one", () => {
    const runs = [
      { status: "SUCCEEDED", plannedSeconds: 30, startedAt: at(0), finishedAt: at(36) },
      { status: "FAILED", plannedSeconds: 30, startedAt: at(100), finishedAt: at(101) },
      { status: "RUNNING", plannedSeconds: 30, startedAt: at(200), finishedAt: null },
      { status: "QUEUED", plannedSeconds: 30, startedAt: null, finishedAt: null },
    ];
    const p = studyProgress(runs, { cooldownSeconds: 60, studyFinal: false, now: at(220) });
    expect(p).toMatchObject({ total: 4, finished: 2, succeeded: 1, failed: 1, aborted: 0, overheadSeconds: 6 });
    expect(p.etaSeconds).toBe(36 - 20 + 36 + 60);
    expect(studyProgress(runs, { cooldownSeconds: 60, studyFinal: true, now: at(220) }).etaSeconds).toBeNull();
  });
});

describe("validity flags", () => {
  it("flags dropped iterations and too few repetitions when analysing", () => {
    const load = { maxVUs: 1, iterations: 10, droppedIterations: 0, bytesSent: 0, bytesReceived: 0 };
    expect(analysisFlags({ load }, 3)).toEqual([]);
    expect(analysisFlags({ load: { ...load, droppedIterations: 4 } }, 5).map((f) => f.code)).toEqual(["dropped-iterations"]);
    const two = analysisFlags({ load }, 2);
    expect(two.map((f) => f.code)).toEqual(["too-few-repetitions"]);
    expect(two[0]!.message).toContain("2 repetitions");
  });

  it("keeps one flag per code and reads stored flags defensively", () => {
    const first = baselineNotReachedFlag(5);
    const merged = mergeFlags([first, { code: "dropped-iterations", message: "x" }], [baselineNotReachedFlag(9)]);
    expect(merged.map((f) => f.code)).toEqual(["dropped-iterations", "baseline-not-reached"]);
    expect(merged[1]!.message).toContain("9 s");
    expect(readFlags([{ code: "a", message: "b" }])).toEqual([{ code: "a", message: "b" }]);
    expect(readFlags("nonsense")).toEqual([]);
  });
});
