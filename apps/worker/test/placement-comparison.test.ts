// Study 003's question on one machine: what does isolation cost? The msd poll app
// runs co-located (client and poll service in one process, calls are function
// calls) and isolated (one process each, calls cross loopback HTTP); the
// comparison of the two shows isolated slower. The difference is structural (an
// extra HTTP hop per call), not a matter of noise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetInput, workloadInput } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { openTestStack, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack?.close());

describe("placement (study 003)", () => {
  it("runs msd poll co-located and isolated, and the comparison shows isolated slower", async () => {
    for (const placement of ["co-located", "isolated"] as const) {
      await stack.scope.targets.put(
        targetInput.parse({ name: `msd-${placement}`, kind: "local-service", spec: { app: "msd/poll", replicas: 1, placement } }),
      );
    }
    await stack.scope.workloads.put(
      workloadInput.parse({
        name: "msd-poll-short",
        spec: {
          kind: "constant-vus",
          vus: 2,
          duration: "4s",
          requests: [{ name: "poll 1024 B", method: "GET", path: "/call?size=1024", headers: {} }],
        },
      }),
    );
    const ids: Record<string, string> = {};
    for (const placement of ["co-located", "isolated"]) {
      const run = await startRun(stack.scope, stack.queue, { targetName: `msd-${placement}`, workloadName: "msd-poll-short" });
      const view = await waitForFinal(stack.db, run.id);
      expect(view.error).toBeNull();
      expect(view.summary!.requests).toBeGreaterThan(100);
      expect(view.summary!.goodput).toBe(100);
      ids[placement] = run.id;
    }
    const cmp = await stack.scope.compare([
      { label: "co-located", runIds: [ids["co-located"]!] },
      { label: "isolated", runIds: [ids.isolated!] },
    ]);
    const [colocated, isolated] = cmp.groups;
    console.log(
      `placement: co-located p50 ${colocated!.merged!.latencyMs.p50} ms, ${colocated!.merged!.rps} req/s; isolated p50 ${isolated!.merged!.latencyMs.p50} ms, ${isolated!.merged!.rps} req/s`,
    );
    expect(isolated!.merged!.latencyMs.p50).toBeGreaterThan(colocated!.merged!.latencyMs.p50);
    const p50 = cmp.verdicts.find((v) => v.metric === "p50")!;
    // One run a side: judged over each run's seconds (moving-block bootstrap), or no verdict if they are too dependent.
    expect(p50.basis).toBe("seconds");
    if (p50.outcome !== "no-verdict") expect(p50.estimate).toBeGreaterThan(0);
  });
});
