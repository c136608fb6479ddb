// The worker prices a run under its target's cost model (serverful: replicas as
// nodes; serverless: the function proxy's billed time), so comparisons can show
// cost per 1,000 requests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRun } from "@opsbench/jobs";
import { cpuLoopTarget, GKE_NODE_PRICES } from "../../../tests/cpu-loop-targets";
import { openTestStack, shortRamp, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.workloads.put(shortRamp("cost-ramp", { holdSeconds: 3, vus: 2 }));
});
afterAll(() => stack?.close());

describe("run cost", () => {
  it("prices a serverful run as its replicas x price per node-second plus fees", async () => {
    await stack.scope.targets.put(cpuLoopTarget("cost-service", "local-service", { replicas: 2, costModel: GKE_NODE_PRICES }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "cost-service", workloadName: "cost-ramp" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("SUCCEEDED");
    const s = view.summary!;
    expect(s.cost).toBeDefined();
    expect(s.cost!.unit).toBe("EUR-cent");
    expect(s.cost!.total).toBeCloseTo((2 * 0.0087959 + 0.0024996) * s.durationSeconds, 4);
    expect(s.cost!.perThousandRequests).toBeCloseTo((s.cost!.total / s.requests) * 1000, 8);
  });

  it("prices a serverless run from the platform billed time", async () => {
    await stack.scope.targets.put(
      cpuLoopTarget("cost-function", "local-function", {
        platform: "lambda",
        concurrency: 4,
        maxInstances: 2,
        costModel: { kind: "pay-per-use", unit: "USD", pricePerRequest: 2e-7, pricePerVcpuSecond: 1.6667e-5, vcpu: 1 },
      }),
    );
    const run = await startRun(stack.scope, stack.queue, { targetName: "cost-function", workloadName: "cost-ramp" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    const cost = view.summary!.cost!;
    expect(cost.unit).toBe("USD");
    expect(cost.total).toBeGreaterThan(view.summary!.requests * 2e-7);
    expect(cost.lines.map((l) => l.key)).toEqual(expect.arrayContaining(["requests"]));
  });
});
