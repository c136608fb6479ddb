// The baseline side of `opsbench compare --baseline-runs N` (issue 34): the baseline run and the N-1 runs marked as
// its target and workload's baseline before it (the baseline history), else the pair's runs before it. The runs are
// made here with known times and statuses; which runs each answer holds is read off that plan.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
const runs: Record<string, string> = {};
const T0 = Date.UTC(2026, 10, 29, 7, 0, 0);

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  const target = await stack.scope.targets.put(taewaTarget("bl-taewa", { replicas: 1 }));
  const workload = await stack.scope.workloads.put(shortRamp("bl-short", { vus: 1, holdSeconds: 1 }));
  const { workspaceId } = stack.scope;
  // r1..r6 a minute apart; r3 failed.
  for (const [i, key] of ["r1", "r2", "r3", "r4", "r5", "r6"].entries()) {
    const run = await stack.db.run.create({
      data: {
        workspaceId,
        targetId: target.id,
        workloadId: workload.id,
        status: key === "r3" ? "FAILED" : "SUCCEEDED",
        createdAt: new Date(T0 + i * 60_000),
      },
    });
    runs[key] = run.id;
  }
  // The default branch's job marked r1, then r2, then r5 (r4 was a pull request's run, never marked).
  for (const key of ["r1", "r2", "r5"]) await stack.scope.runs.setBaseline(runs[key]!, null);
});
afterAll(() => stack?.close());

const ids = (...keys: string[]) => keys.map((k) => runs[k]);

describe("the baseline side of --baseline-runs", () => {
  it("a marked baseline: it and the runs marked before it, newest first; a pull request's run in between is not one", async () => {
    const side = await stack.scope.runs.baselineRuns(runs.r5!, 3);
    expect(side.runIds).toEqual(ids("r5", "r2", "r1"));
    expect(side.series).toBe("the runs marked as target bl-taewa x workload bl-short's baseline");
    // Fewer marked than asked: those found; the candidate is left out when it is one of them.
    expect((await stack.scope.runs.baselineRuns(runs.r5!, 10)).runIds).toEqual(ids("r5", "r2", "r1"));
    expect((await stack.scope.runs.baselineRuns(runs.r5!, 3, runs.r2)).runIds).toEqual(ids("r5", "r1"));
    // An earlier baseline's history ends at it.
    expect((await stack.scope.runs.baselineRuns(runs.r2!, 3)).runIds).toEqual(ids("r2", "r1"));
  });

  it("a run never marked: the pair's succeeded runs before it", async () => {
    const side = await stack.scope.runs.baselineRuns(runs.r4!, 3);
    expect(side.runIds).toEqual(ids("r4", "r2", "r1")); // r3 failed
    expect(side.series).toBe("the runs of target bl-taewa x workload bl-short");
    await expect(stack.scope.runs.baselineRuns(runs.r3!, 3)).rejects.toThrow(/FAILED: only a succeeded run can be a baseline/);
  });
});
