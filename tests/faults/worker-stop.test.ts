// Fault injection (real Postgres, Redis, worker, k6): SIGTERM mid-run, and a target
// replica killed mid-run. SIGTERM: the worker exits within its grace period, the run
// is ABORTED with its results kept (flagged partial), no process left. A replica
// killed: its errors are counted by class, the run completes, the event is on the
// run's timeline.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, startRun, type RunQueue } from "@opsbench/jobs";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl, waitForFinal } from "../helpers";
import {
  expectAllSettled,
  killWorker,
  pidAlive,
  processesOfRun,
  recordedPids,
  startWorker,
  waitForLoad,
  type WorkerProcess,
} from "./fault-kit";

const GRACE_SECONDS = 40;
let db: Db;
let queue: RunQueue;
let scope: WorkspaceScope;
const workers: WorkerProcess[] = [];
const runIds: string[] = [];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  queue = createRunQueue(testRedisUrl());
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("stop-taewa"));
  await scope.workloads.put(shortRamp("stop-long", { holdSeconds: 16, vus: 8 }));
});

afterAll(async () => {
  for (const w of workers) await killWorker(w, "SIGTERM");
  await queue.close();
  await db.$disconnect();
});

describe("faults during a run", () => {
  it("SIGTERM mid-run: the worker exits within its grace period, the run is ABORTED with its results kept", async () => {
    const w = await startWorker("term", { OPSBENCH_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) });
    workers.push(w);
    const run = await startRun(scope, queue, { targetName: "stop-taewa", workloadName: "stop-long" });
    runIds.push(run.id);
    await waitForLoad(db, run.id, 3, w);
    const pids = await recordedPids(db, run.id);
    const sentAt = Date.now();
    const exit = await killWorker(w, "SIGTERM");
    const exitMs = exit.at - sentAt;
    console.log(`[faults] SIGTERM -> worker exit: ${exitMs} ms (grace ${GRACE_SECONDS} s)`);
    expect(exit.code).toBe(0);
    expect(exitMs).toBeLessThan(GRACE_SECONDS * 1000);
    // Final before the worker exited: nothing waits for a later reconciler.
    const view = await waitForFinal(db, run.id, 1000);
    expect(view.status).toBe("ABORTED");
    expect(await db.resultSecond.count({ where: { runId: run.id } })).toBeGreaterThan(0);
    expect(view.flags.map((f) => f.code)).toContain("partial");
    const steps = await db.runStep.findMany({ where: { runId: run.id } });
    expect(steps.find((s) => s.name === "LOAD")?.status).toBe("FAILED");
    expect(steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
    for (const pid of [pids.k6!, ...pids.target]) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    expect(processesOfRun(run.id)).toEqual([]);
    await expectAllSettled(db, runIds);
  });

  it("a replica killed mid-run: errors counted by class, the run completes, the event is on the timeline", async () => {
    const w = await startWorker("replica");
    workers.push(w);
    const run = await startRun(scope, queue, { targetName: "stop-taewa", workloadName: "stop-long" });
    runIds.push(run.id);
    await waitForLoad(db, run.id, 4, w);
    const state = (await db.runStep.findFirstOrThrow({ where: { runId: run.id, name: "PROVISION" } })).detail as {
      state: { replicas: Array<{ id: number; pids: number[] }> };
    };
    const victim = state.state.replicas[0]!;
    process.kill(-victim.pids[0]!, "SIGKILL");
    const view = await waitForFinal(db, run.id, 90_000);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const events = await db.runEvent.findMany({ where: { runId: run.id } });
    expect(events.map((e) => e.message).join("\n")).toMatch(new RegExp(`replica r${victim.id} exited unexpectedly`));
    // Errors by class: every request is in one class, failed ones apart from the 2xx.
    const byClass = await db.resultSecond.groupBy({ by: ["class"], where: { runId: run.id }, _sum: { requests: true, failures: true } });
    const k6 = (await db.run.findUniqueOrThrow({ where: { id: run.id } })).k6Summary as { metrics: Record<string, { count?: number }> };
    const total = byClass.reduce((a, c) => a + (c._sum.requests ?? 0), 0);
    expect(total).toBe(k6.metrics.http_reqs!.count);
    const failed = byClass.filter((c) => (c._sum.failures ?? 0) > 0);
    console.log(
      `[faults] replica killed: requests by class ${JSON.stringify(byClass.map((c) => [c.class, c._sum.requests, c._sum.failures]))}`,
    );
    // The kill does not always catch a request in flight on that replica: with opsbench-engine, 18 failed (all 502)
    // alone, none twice in the loaded whole suite (open: docs/faults.md). Whatever failed is counted outside 2xx.
    expect(failed.every((c) => c.class !== "2xx")).toBe(true);
    expect(view.summary!.failures).toBe(failed.reduce((a, c) => a + (c._sum.failures ?? 0), 0));
    await killWorker(w, "SIGTERM");
    await expectAllSettled(db, runIds);
  });
});
