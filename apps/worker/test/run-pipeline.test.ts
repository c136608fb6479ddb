import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWindowSummary } from "@opsbench/db";
import { startRun } from "@opsbench/jobs";
import { enqueueRun } from "@opsbench/jobs";
import { isAlive, openTestStack, shortRamp, taewaTarget, waitForFinal } from "../../../tests/helpers";
import { loadEnv as loadRunnerEnv } from "../../runner/src/env";
import { k6Version } from "../../runner/src/k6-process";

let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

const pidsOf = (detail: unknown): number[] => {
  const state = (detail as { state?: { lb?: { pid: number }; replicas?: Array<{ pid: number }> } } | null)?.state;
  return [...(state?.lb ? [state.lb.pid] : []), ...(state?.replicas ?? []).map((r) => r.pid)];
};

describe("run pipeline (real worker, real k6, local-service)", () => {
  it("runs a benchmark end to end: counts equal k6's own, percentiles within 1%, everything torn down", async () => {
    await stack.scope.targets.put(taewaTarget("pipeline-taewa"));
    // 20 s of load (2 s ramp + 18 s hold): req/s is checked against k6's own rate.
    await stack.scope.workloads.put(shortRamp("pipeline-ramp", { holdSeconds: 18 }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "pipeline-taewa", workloadName: "pipeline-ramp" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    // The version of the engine that ran it (`opsbench-engine version`), recorded with the run.
    expect(view.k6Version).toBe(k6Version(loadRunnerEnv({}).OPSBENCH_ENGINE));
    expect(view.k6ExitCode).toBe(0);
    expect(view.steps.map((s) => [s.name, s.status])).toEqual([
      ["PROVISION", "SUCCEEDED"],
      ["BASELINE", "SUCCEEDED"],
      ["LOAD", "SUCCEEDED"],
      ["COLLECT", "SKIPPED"],
      ["ANALYZE", "SUCCEEDED"],
      ["TEARDOWN", "SUCCEEDED"],
    ]);

    const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id }, include: { steps: true } });
    const k6 = row.k6Summary as { metrics: Record<string, Record<string, number>> };
    const s = view.summary!;
    expect(s.requests).toBeGreaterThan(100);
    expect(s.requests).toBe(k6.metrics.http_reqs!.count);
    expect(s.failures).toBe(0);
    expect(s.goodput).toBe(100);
    // req/s over the load on k6's clock, not the worker's wall clock around the k6 process.
    expect(s.durationSource).toBe("k6-samples");
    expect(Math.abs(s.rps - k6.metrics.http_reqs!.rate!) / k6.metrics.http_reqs!.rate!).toBeLessThanOrEqual(0.01);
    const d = k6.metrics.http_req_duration!;
    const pairs: Array<[string, number, number]> = [
      ["p50", s.latencyMs.p50, d.med!],
      ["p90", s.latencyMs.p90, d["p(90)"]!],
      ["p95", s.latencyMs.p95, d["p(95)"]!],
      ["p99", s.latencyMs.p99, d["p(99)"]!],
      ["avg", s.latencyMs.avg, d.avg!],
    ];
    for (const [name, ours, theirs] of pairs)
      expect(Math.abs(ours - theirs) / theirs, `${name}: ours ${ours} ms, the engine's ${theirs} ms`).toBeLessThanOrEqual(0.01);
    expect(s.latencyMs.min).toBeCloseTo(d.min!, 3);
    expect(s.latencyMs.max).toBeCloseTo(d.max!, 3);
    expect(view.series.points.length).toBeGreaterThanOrEqual(1);
    expect(view.series.points[0]!.offsetSeconds).toBe(0); // no bucket before the load started
    expect(view.series.points.reduce((a, p) => a + p.requests, 0)).toBe(s.requests);

    // Any window is merged from the stored seconds: two halves add up to the whole.
    const end = Math.ceil(s.durationSeconds) + 2;
    const firstHalf = (await loadWindowSummary(stack.db, run.id, 0, 4))!;
    const secondHalf = (await loadWindowSummary(stack.db, run.id, 4, end))!;
    expect(firstHalf.requests).toBeGreaterThan(0);
    expect(firstHalf.requests + secondHalf.requests).toBe(s.requests);
    // The page's first bucket (1 s for a short finished run, else 10 s or more) holds what that window holds.
    expect((await loadWindowSummary(stack.db, run.id, 0, view.series.bucketSeconds))!.requests).toBe(view.series.points[0]!.requests);
    // The best 10 s window cannot hold more requests than the run, and runs at least at about the run's mean rate.
    const best = s.maxThroughput!;
    expect(best.rps * best.windowSeconds).toBeLessThanOrEqual(s.requests + 1);
    expect(best.rps).toBeGreaterThan(s.rps * 0.9);
    expect(s.load!.iterations).toBe(s.requests);
    expect(s.successRatio).toBe(100);

    const infra = await stack.db.infraPoint.findMany({ where: { runId: run.id } });
    expect(infra.length).toBeGreaterThan(2);
    expect(infra.every((p) => p.replicas === 2)).toBe(true);
    const pids = pidsOf(row.steps.find((x) => x.name === "PROVISION")!.detail);
    expect(pids).toHaveLength(3);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it("fails a run whose benchapp cannot start, with the reason, and leaves no process behind", async () => {
    // The iot app exits at start-up without its database's URL.
    await stack.scope.targets.put(taewaTarget("pipeline-broken", { app: "iot", replicas: 3 }));
    // 20 s of load (2 s ramp + 18 s hold): req/s is checked against k6's own rate.
    await stack.scope.workloads.put(shortRamp("pipeline-ramp", { holdSeconds: 18 }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "pipeline-broken", workloadName: "pipeline-ramp" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/benchapp exited during start-up.*IOT_DATABASE_URL is required/);
    expect(view.steps.find((s) => s.name === "PROVISION")?.status).toBe("FAILED");
    expect(view.steps.find((s) => s.name === "LOAD")).toBeUndefined();
    expect(view.steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
    const row = await stack.db.run.findUniqueOrThrow({ where: { id: run.id }, include: { steps: true } });
    const pids = pidsOf(row.steps.find((x) => x.name === "PROVISION")!.detail);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await stack.db.resultSecond.count({ where: { runId: run.id } })).toBe(0);
  });

  it("validates the target spec again in the worker: a bad spec in the row fails the run without deploying", async () => {
    const target = await stack.scope.targets.put(taewaTarget("pipeline-valid"));
    const workload = await stack.scope.workloads.put(shortRamp("pipeline-ramp"));
    const run = await stack.db.run.create({
      data: {
        workspaceId: stack.scope.workspaceId,
        targetId: target.id,
        workloadId: workload.id,
        targetSpec: { kind: "local-service", spec: { app: "cpu-loop/node-http", replicas: 0 } },
        workloadSpec: workload.spec as object,
      },
    });
    await enqueueRun(stack.queue, { runId: run.id });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/invalid target spec: replicas/);
    // The spec is judged before deploy (pipeline/before-deploy.ts): no PROVISION step was begun.
    expect(view.steps.find((s) => s.name === "PROVISION")).toBeUndefined();
  });

  it("delivers a job once: enqueuing the same run twice runs it once", async () => {
    await stack.scope.targets.put(taewaTarget("pipeline-taewa"));
    await stack.scope.workloads.put(shortRamp("pipeline-tiny", { holdSeconds: 1, vus: 1 }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "pipeline-taewa", workloadName: "pipeline-tiny" });
    await enqueueRun(stack.queue, { runId: run.id });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.status).toBe("SUCCEEDED");
    expect(await stack.db.runStep.count({ where: { runId: run.id, name: "PROVISION" } })).toBe(1);
    const counts = await stack.queue.getJobCounts("completed", "failed", "waiting", "active");
    expect(counts.waiting + counts.active).toBe(0);
  });
});
