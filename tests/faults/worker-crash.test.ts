// Fault injection: the worker SIGKILLed mid-load (real Postgres, Redis, worker, k6).
// After a restart the run is FAILED with the reason, its results up to the crash are
// kept and flagged partial, no k6 or target process remains (the runner stops k6 as soon as
// the dead worker's connection drops), and the next queued run
// completes. Killed again while it recovers: the same outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, startRun, type RunQueue } from "@opsbench/jobs";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl, waitForFinal } from "../helpers";
import {
  expectAllSettled,
  killWorker,
  loadNetworkExists,
  pidAlive,
  processesOfRun,
  recordedPids,
  spawnWorker,
  startUpPass,
  startWorker,
  waitFor,
  waitForLoad,
  type WorkerProcess,
} from "./fault-kit";

let db: Db;
let queue: RunQueue;
let scope: WorkspaceScope;
const workers: WorkerProcess[] = [];
const runIds: string[] = [];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  queue = createRunQueue(testRedisUrl());
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("crash-taewa"));
  // About 20 s of load: the crash comes long before its end.
  await scope.workloads.put(shortRamp("crash-long", { holdSeconds: 18 }));
  await scope.workloads.put(shortRamp("crash-short", { holdSeconds: 4 }));
});

afterAll(async () => {
  for (const w of workers) await killWorker(w, "SIGTERM");
  await queue.close();
  await db.$disconnect();
});

const start = async (name: string) => {
  const w = await startWorker(name);
  workers.push(w);
  return w;
};

/** Starts a long run (and a short one queued behind it), crashes the worker mid-load; returns what the crash left running. */
async function crashMidLoad() {
  const a = await start("a");
  const long = await startRun(scope, queue, { targetName: "crash-taewa", workloadName: "crash-long" });
  const next = await startRun(scope, queue, { targetName: "crash-taewa", workloadName: "crash-short" });
  runIds.push(long.id, next.id);
  await waitForLoad(db, long.id, 3, a);
  const pids = await recordedPids(db, long.id);
  await killWorker(a);
  // The fault is real: the target's processes outlive the worker. k6 runs on the runner, which
  // sees the dead worker's connection drop and stops k6 and removes its network at once.
  expect(pids.k6).not.toBeNull();
  expect(pids.target.length).toBe(3); // load balancer and two replicas
  expect(pids.target.every(pidAlive)).toBe(true);
  await waitFor(
    "the runner to stop the dead worker's k6",
    () => !pidAlive(pids.k6!) && !(pids.network && loadNetworkExists(pids.network)),
    40_000,
  );
  const before = await db.resultSecond.count({ where: { runId: long.id } });
  return { long, next, pids, before };
}

/** The run was ended by the restarted worker's start-up pass: FAILED already when that pass is done, not a lock expiry later. */
async function expectInterrupted(runId: string, rowsBefore: number) {
  const view = await waitForFinal(db, runId, 1000);
  expect(view.status).toBe("FAILED");
  expect(view.error).toMatch(/^interrupted: the worker stopped while this run was in progress/);
  // Results up to the crash are kept (later seconds may have landed before k6 was stopped), flagged partial.
  expect(await db.resultSecond.count({ where: { runId } })).toBeGreaterThanOrEqual(rowsBefore);
  expect(rowsBefore).toBeGreaterThan(0);
  expect(view.flags.map((f) => f.code)).toContain("partial");
  // No step is left RUNNING on a final run; LOAD says how it ended.
  const steps = await db.runStep.findMany({ where: { runId } });
  expect(steps.filter((s) => s.status === "RUNNING")).toEqual([]);
  expect(steps.find((s) => s.name === "LOAD")?.status).toBe("FAILED");
  expect(steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
  return view;
}

describe("worker SIGKILLed mid-load", () => {
  it("after a restart: the run is FAILED and partial, nothing of it runs, the next queued run completes", async () => {
    const { long, next, pids, before } = await crashMidLoad();
    const restartedAt = Date.now();
    const b = await start("b");
    await expectInterrupted(long.id, before);
    const pass = startUpPass(b);
    expect(pass.failed).toBe(1);
    console.log(
      `[faults] restart -> FAILED: ${Date.now() - restartedAt} ms (incl. the worker's start-up; the reconciler pass: ${pass.ms} ms)`,
    );
    for (const pid of [pids.k6!, ...pids.target]) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    if (pids.network) expect(loadNetworkExists(pids.network)).toBe(false);
    expect(processesOfRun(long.id)).toEqual([]);
    const second = await waitForFinal(db, next.id, 90_000);
    expect(second.error).toBeNull();
    expect(second.status).toBe("SUCCEEDED");
    expect(second.flags.map((f) => f.code)).not.toContain("partial");
    await expectAllSettled(db, runIds);
  });

  it("killed again while it recovers: the same outcome", async () => {
    for (const w of workers.splice(0)) await killWorker(w, "SIGTERM");
    const { long, next, pids, before } = await crashMidLoad();
    // The second worker dies in the middle of ending the interrupted run.
    const b = await startWorkerUntilRecovering();
    expect(["PROVISIONING", "RUNNING", "ANALYZING"]).toContain((await db.run.findUniqueOrThrow({ where: { id: long.id } })).status);
    const restartedAt = Date.now();
    const c = await start("c");
    await expectInterrupted(long.id, before);
    expect(startUpPass(c).failed).toBe(1);
    console.log(
      `[faults] second restart -> FAILED: ${Date.now() - restartedAt} ms (b was killed ${b.killedAfterMs} ms into its recovery; c's pass: ${startUpPass(c).ms} ms)`,
    );
    for (const pid of [pids.k6!, ...pids.target]) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    expect((await waitForFinal(db, next.id, 90_000)).status).toBe("SUCCEEDED");
    await expectAllSettled(db, runIds);
  });
});

/** Starts worker b and SIGKILLs it as soon as its reconciler starts ending the interrupted run. */
async function startWorkerUntilRecovering(): Promise<{ killedAfterMs: number }> {
  const b = spawnWorker("b");
  workers.push(b);
  const sawAt = await waitFor(
    "b to start ending the interrupted run",
    () => b.output().includes("ending an interrupted run") && Date.now(),
    60_000,
    5,
    b,
  );
  await killWorker(b);
  return { killedAfterMs: Date.now() - sawAt };
}
