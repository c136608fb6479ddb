// Presets end to end: a time-scaled Spike of study 000 through the real worker
// against a local-service target (two Taewa replicas behind the balancer).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { iotSpike, plannedSeconds } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { openTestStack, taewaTarget, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

describe("study 000's Spike, time-scaled, through the worker", () => {
  it("runs 18 s (timeScale 0.01): 10 VUs, a jump to 100, back to 10; every request counted", async () => {
    // Think time keeps 100 VUs light on a shared two-core machine (~1,000 req/s for 1.2 s).
    const spec = iotSpike({ timeScale: 0.01, thinkTime: "100ms", requests: [{ name: "taewa", path: "/?n=200" }] });
    expect(plannedSeconds(spec)).toBe(18);
    await stack.scope.targets.put(taewaTarget("spike-taewa"));
    await stack.scope.workloads.put({ name: "iot-spike-x0.01", spec });
    const run = await startRun(stack.scope, stack.queue, { targetName: "spike-taewa", workloadName: "iot-spike-x0.01" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.k6ExitCode).toBe(0);

    const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.workloadSpec).toEqual(spec);
    const k6 = row.k6Summary as { metrics: Record<string, Record<string, number>> };
    expect(view.summary!.requests).toBe(k6.metrics.http_reqs!.count);
    expect(view.summary!.failures).toBe(0);
    // k6 planned for the spike's 100 VUs.
    expect(k6.metrics.vus_max!.max).toBe(100);

    // The VUs k6 reported each second: the plateau at 10, and the spike well above it.
    const load = await stack.db.loadSecond.findMany({ where: { runId: run.id }, orderBy: { ts: "asc" } });
    const vus = load.map((s) => s.vus);
    expect(Math.max(...vus)).toBeGreaterThan(50);
    expect(Math.max(...vus)).toBeLessThanOrEqual(100);
    expect(vus.filter((v) => v === 10).length).toBeGreaterThanOrEqual(8);
    // The spike comes after a plateau and is followed by one.
    const peak = vus.indexOf(Math.max(...vus));
    expect(vus.slice(0, peak).includes(10)).toBe(true);
    expect(vus.slice(peak + 1).includes(10)).toBe(true);
  });
});
