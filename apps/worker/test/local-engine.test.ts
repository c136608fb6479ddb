// The local engine's bar (issue 5), time-scaled: a CPU-heavy spike against
// local-service (HPA-like, 1..4 replicas, 50% CPU) shows replicas rising during
// the spike, and against local-function (concurrency 10, max 4, idle 5 s) shows
// cold starts; both on the run's timeline (infra_points). Real worker, real k6.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readInfraPointDetail, type TargetInput, type WorkloadInput } from "@opsbench/core";
import { startRun } from "@opsbench/jobs";
import { isAlive, openTestStack, waitForFinal } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

/**
 * Study 000's Spike (10 VUs, 100 VUs for two minutes, back to 10), scaled to
 * seconds and to two cores: 1 VU, a spike of 8, back to 1. Each request costs
 * ~30 ms of CPU and a VU thinks 200 ms between requests, so outside the spike
 * one replica idles at ~13% of a core and during it the replicas are what is loaded.
 */
const spike = (name: string): WorkloadInput => ({
  name,
  spec: {
    kind: "ramping-vus",
    startVUs: 1,
    stages: [
      { duration: "4s", target: 1 },
      { duration: "1s", target: 8 },
      { duration: "7s", target: 8 },
      { duration: "1s", target: 1 },
      { duration: "3s", target: 1 },
    ],
    gracefulRampDown: "2s",
    requestTimeout: "20s",
    thinkTime: "200ms",
    requests: [{ name: "taewa heavy", method: "GET", path: "/?n=2000000", headers: {} }],
    thresholds: {},
  },
});

async function runAndLoad(target: TargetInput, workload: WorkloadInput) {
  await stack.scope.targets.put(target);
  await stack.scope.workloads.put(workload);
  const run = await startRun(stack.scope, stack.queue, { targetName: target.name, workloadName: workload.name });
  const view = await waitForFinal(stack.db, run.id);
  const rows = await stack.db.infraPoint.findMany({ where: { runId: run.id }, orderBy: { ts: "asc" } });
  const points = rows.map((p) => ({ ...p, detail: readInfraPointDetail(p.detail) }));
  const events = await stack.db.runEvent.findMany({ where: { runId: run.id }, orderBy: { ts: "asc" } });
  const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id }, include: { steps: true } });
  const state = (row.steps.find((s) => s.name === "PROVISION")!.detail as { state: Record<string, unknown> }).state;
  return { view, points, events, state, row };
}

describe("local engine: DevOps vs NoOps on one machine (time-scaled spike)", () => {
  it("local-service (HPA-like, 1..4 replicas at 50% CPU): replicas rise during the spike, on the run's timeline", async () => {
    const target: TargetInput = {
      name: "engine-hpa",
      kind: "local-service",
      spec: {
        app: "cpu-loop/node-http",
        minReplicas: 1,
        maxReplicas: 4,
        env: {},
        startTimeoutMs: 10_000,
        autoscaler: { targetCpuPercent: 50, syncPeriodMs: 1000, scaleDownStabilizationMs: 5000 },
        // As study 000's pods: utilisation is measured against a request of half a core.
        resources: { cpuRequest: 0.5 },
      },
    };
    const { view, points, events, state } = await runAndLoad(target, spike("engine-spike"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(points.length).toBeGreaterThan(8);
    // Judged against the CPU the autoscaler was shown, not against wall-clock phases: on a busy machine the 10 VUs
    // before the spike may already ask for a second replica. Every rise must come from a decision that saw the
    // average above the target by more than the tolerance (50% x 1.1), and a point above one replica must follow one.
    const ups = points
      .flatMap((p) =>
        ((p.detail?.scalingEvents as Array<{ from: number; to: number; averageCpuPercent?: number | null }> | undefined) ?? []).map(
          (e) => ({ ...e, ts: p.ts.getTime() }),
        ),
      )
      .filter((e) => e.to > e.from);
    expect(ups.length).toBeGreaterThan(0);
    for (const e of ups) expect(e.averageCpuPercent, `a rise ${e.from} -> ${e.to}`).toBeGreaterThan(55);
    const firstUp = Math.min(...ups.map((e) => e.ts));
    expect(points.filter((p) => p.ts.getTime() < firstUp).every((p) => p.replicas === 1)).toBe(true);
    // The spike adds replicas, within the maximum.
    const peak = Math.max(...points.map((p) => p.replicas));
    expect(peak).toBeGreaterThanOrEqual(2);
    expect(peak).toBeLessThanOrEqual(4);
    // The rise is on the timeline with its cause, and the points carry per-replica CPU.
    expect(events.some((e) => /^autoscaler: \d -> \d replicas/.test(e.message))).toBe(true);
    const busiest = points.find((p) => p.replicas === peak)!;
    expect((busiest.detail!.perReplicaCpu as Array<number | null>).length).toBe(peak);
    expect(busiest.detail!.targetCpuPercent).toBe(50);
    // Everything the autoscaler started is gone after teardown.
    const pids = [(state.lb as { pid: number }).pid, ...points.flatMap((p) => (p.detail?.pids as number[]) ?? [])];
    expect([...new Set(pids)].filter(isAlive)).toEqual([]);
    console.log(`local-service spike: replicas per second ${points.map((p) => p.replicas).join(",")}`);
  });

  it("local-function (concurrency 10, max 4, idle 5 s): cold starts during the spike, on the run's timeline", async () => {
    const target: TargetInput = {
      name: "engine-fn",
      kind: "local-function",
      spec: { app: "cpu-loop/node-http", concurrency: 10, maxInstances: 4, idleTimeoutMs: 5000, env: {}, startTimeoutMs: 10_000 },
    };
    const { view, points, state } = await runAndLoad(target, spike("engine-spike"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(points.length).toBeGreaterThan(8);
    const details = points.map(
      (p) => p.detail as { coldStarts: number; coldStartMs: number[]; billedMs: number; requests: number; pids: number[] },
    );
    const coldStarts = details.reduce((a, d) => a + d.coldStarts, 0);
    expect(coldStarts).toBeGreaterThan(0);
    expect(details.flatMap((d) => d.coldStartMs)).toHaveLength(coldStarts);
    expect(details.flatMap((d) => d.coldStartMs).every((ms) => ms > 0)).toBe(true);
    expect(Math.max(...points.map((p) => p.replicas))).toBeGreaterThanOrEqual(1);
    expect(details.reduce((a, d) => a + d.billedMs, 0)).toBeGreaterThan(0);
    // Every request k6 made went through the proxy (the last second may fall after the last point).
    expect(details.reduce((a, d) => a + d.requests, 0)).toBeGreaterThanOrEqual(view.summary!.requests * 0.8);
    const pids = [(state.proxy as { pid: number }).pid, ...details.flatMap((d) => d.pids)];
    expect([...new Set(pids)].filter(isAlive)).toEqual([]);
    console.log(
      `local-function spike: instances per second ${points.map((p) => p.replicas).join(",")}; cold starts ${details.flatMap((d) => d.coldStartMs).join(", ")} ms`,
    );
  });
});
