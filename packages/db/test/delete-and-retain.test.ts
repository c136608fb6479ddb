// Deleting runs, studies, targets and workloads (packages/db deletion-scope.ts, packages/jobs
// delete-resources.ts) and the retention sweep (retention.ts), against the file's own database,
// queue and worker: what is deleted leaves no row behind, what is used is refused, a run under
// way is aborted and torn down first, and a pruned run keeps its summary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, pruneExpiredSeries, type Db } from "@opsbench/db";
import { createStudyQueue, deleteRun, deleteStudy, enqueueRun, startRun } from "@opsbench/jobs";
import { studyInput } from "@opsbench/core";
import { isAlive, openTestStack, shortRamp, taewaTarget, testRedisUrl, waitForFinal } from "../../../tests/helpers";
import { orphans } from "../../../tests/orphan-rows";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
beforeAll(async () => {
  stack = await openTestStack();
  studyQueue = createStudyQueue(testRedisUrl());
  await stack.scope.targets.put(taewaTarget("del-taewa", { replicas: 1 }));
  await stack.scope.workloads.put(shortRamp("del-short", { vus: 2, holdSeconds: 1, path: "/?n=200" }));
});
afterAll(async () => {
  await studyQueue.close();
  await stack.close();
});

/** Rows of every table that hangs off runs (by FK) and still names one of these runs. */
async function rowsOfRuns(db: Db, runIds: string[]) {
  const where = { runId: { in: runIds } };
  const counts = await Promise.all([
    db.run.count({ where: { id: { in: runIds } } }),
    db.runStep.count({ where }),
    db.resultSecond.count({ where }),
    db.loadSecond.count({ where }),
    db.metricSecond.count({ where }),
    db.infraPoint.count({ where }),
    db.runEvent.count({ where }),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

const shareOf = (subject: { runIds?: string[]; studyId?: string }) =>
  stack.db.shareLink.create({
    data: { workspaceId: stack.scope.workspaceId, tokenHash: `del-${Math.random()}`, kind: subject.studyId ? "study" : "run", subject },
  });

describe("delete and retain", () => {
  it("deletes a finished run with its series, steps, events and share links; a second delete is not found", async () => {
    const run = await startRun(stack.scope, stack.queue, { targetName: "del-taewa", workloadName: "del-short" });
    expect((await waitForFinal(stack.db, run.id)).status).toBe("SUCCEEDED");
    const link = await shareOf({ runIds: [run.id] });
    expect(await rowsOfRuns(stack.db, [run.id])).toBeGreaterThan(5);

    expect(await deleteRun(stack.scope, stack.queue, run.id)).toEqual({ shareLinks: 1 });
    expect(await rowsOfRuns(stack.db, [run.id])).toBe(0);
    expect(await stack.db.shareLink.count({ where: { id: link.id } })).toBe(0);
    expect(await orphans(stack.db)).toBe(0);
    await expect(deleteRun(stack.scope, stack.queue, run.id)).rejects.toThrow(/not found/);
  });

  it("deletes a queued run with its queue job, and a run under way after aborting it (its target torn down)", async () => {
    // Queued: made and enqueued with a delay, so no worker takes it first.
    const queued = await stack.scope.runs.create({ targetName: "del-taewa", workloadName: "del-short" });
    await stack.queue.add("execute", { runId: queued.id }, { jobId: queued.id, delay: 60_000 });
    expect(await stack.queue.getJob(queued.id)).toBeTruthy();
    await deleteRun(stack.scope, stack.queue, queued.id);
    expect(await stack.queue.getJob(queued.id)).toBeFalsy();
    expect(await rowsOfRuns(stack.db, [queued.id])).toBe(0);

    await stack.scope.workloads.put(shortRamp("del-long", { vus: 2, holdSeconds: 60, path: "/?n=200" }));
    const running = await stack.scope.runs.create({ targetName: "del-taewa", workloadName: "del-long" });
    await enqueueRun(stack.queue, { runId: running.id });
    let pids: number[] = [];
    for (let i = 0; i < 300 && pids.length === 0; i++) {
      const row = await stack.db.run.findUniqueOrThrow({ where: { id: running.id }, include: { steps: true } });
      if (row.status === "RUNNING") {
        const state = (row.steps.find((s) => s.name === "PROVISION")?.detail as { state?: { replicas?: Array<{ pid: number }> } })?.state;
        pids = (state?.replicas ?? []).map((r) => r.pid);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(pids.length).toBe(1);
    const started = Date.now();
    await deleteRun(stack.scope, stack.queue, running.id);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await rowsOfRuns(stack.db, [running.id])).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await orphans(stack.db)).toBe(0);
  });

  it("deletes a study with its runs and share links; refuses a target or workload runs use, deletes it once unused", async () => {
    const { study, runs } = await stack.scope.studies.create(
      studyInput.parse({ name: "del-study", targets: ["del-taewa"], workloads: ["del-short"], repetitions: 2, cooldownSeconds: 0 }),
    );
    const link = await shareOf({ studyId: study.id });
    const runLink = await shareOf({ runIds: [runs[0]!.id] });

    const inUse = await stack.scope.deletion.deleteTarget("del-taewa").catch((e: unknown) => e);
    expect(inUse).toBeInstanceOf(ConflictError);
    expect((inUse as Error).message).toMatch(/target "del-taewa" is used by \d+ run\(s\): delete those runs \(or their studies\) first/);
    await expect(stack.scope.deletion.deleteWorkload("del-short")).rejects.toThrow(/workload "del-short" is used by/);

    // Never enqueued: QUEUED until the delete aborts it.
    expect(await deleteStudy(stack.scope, studyQueue, study.id)).toEqual({ shareLinks: 2, runs: 2 });
    expect(await stack.db.study.count({ where: { id: study.id } })).toBe(0);
    expect(
      await rowsOfRuns(
        stack.db,
        runs.map((r) => r.id),
      ),
    ).toBe(0);
    expect(await stack.db.shareLink.count({ where: { id: { in: [link.id, runLink.id] } } })).toBe(0);

    // Every run of the target gone: now it may go, by name or by id.
    await stack.db.run.deleteMany({ where: { target: { name: "del-taewa" } } });
    expect(await stack.scope.deletion.deleteTarget("del-taewa")).toMatchObject({ name: "del-taewa" });
    const workload = await stack.scope.workloads.byName("del-short");
    expect(await stack.scope.deletion.deleteWorkload(workload.id)).toMatchObject({ name: "del-short" });
    await expect(stack.scope.deletion.deleteTarget("del-taewa")).rejects.toThrow(/not found/);
    expect(await orphans(stack.db)).toBe(0);
  });

  it("prunes the raw series of runs finished longer ago than the workspace's retention; their summaries stay", async () => {
    const { workspaceId } = stack.scope;
    const made = async (finishedDaysAgo: number) => {
      const run = await stack.db.run.create({
        data: {
          workspaceId,
          status: "SUCCEEDED",
          source: "k6-import",
          name: `retention ${finishedDaysAgo}`,
          finishedAt: new Date(Date.now() - finishedDaysAgo * 86_400_000),
          summary: { requests: 1 },
        },
      });
      const ts = new Date(Math.floor(Date.now() / 1000) * 1000);
      await stack.db.resultSecond.create({
        data: {
          runId: run.id,
          ts,
          name: "a",
          class: "2xx",
          requests: 1,
          failures: 0,
          sumMs: 1,
          minMs: 1,
          maxMs: 1,
          buckets: Buffer.alloc(0),
        },
      });
      await stack.db.loadSecond.create({
        data: { runId: run.id, ts, vus: 1, vusMax: 1, bytesSent: 1, bytesReceived: 1, iterations: 1, droppedIterations: 0 },
      });
      await stack.db.infraPoint.create({ data: { runId: run.id, ts, replicas: 1 } });
      await stack.db.runEvent.create({ data: { runId: run.id, level: "info", message: "kept" } });
      return run.id;
    };
    const old = await made(10);
    const recent = await made(1);
    expect(await pruneExpiredSeries(stack.db)).toEqual([]); // no retention set: kept forever

    expect(await stack.scope.retention.set(7)).toEqual({ seriesRetentionDays: 7 });
    expect(await pruneExpiredSeries(stack.db)).toEqual([old]);
    expect(await pruneExpiredSeries(stack.db)).toEqual([]); // once
    const count = (runId: string) =>
      Promise.all([
        stack.db.resultSecond.count({ where: { runId } }),
        stack.db.loadSecond.count({ where: { runId } }),
        stack.db.infraPoint.count({ where: { runId } }),
      ]);
    expect(await count(old)).toEqual([0, 0, 0]);
    expect(await count(recent)).toEqual([1, 1, 1]);
    const view = await stack.scope.runs.view(old);
    expect(view.seriesPrunedAt).not.toBeNull();
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: old } })).summary).toEqual({ requests: 1 });
    expect(view.events.map((e) => e.message)).toEqual(["kept"]);
    expect((await stack.scope.runs.view(recent)).seriesPrunedAt).toBeNull();
    await stack.scope.retention.set(null);
  });
});
