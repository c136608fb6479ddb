// The reconciler against the real Postgres and Redis, one pass at a time: rows whose
// jobs vanished are enqueued again, a study with no runs (the old demo's "0 cells")
// ends FAILED, an in-flight run nobody executes ends FAILED with its recorded
// processes stopped (never a process that reused a recorded pid), and a leftover
// load network is swept only when a final run of this database recorded it.
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, readWorkerHeartbeats, type RunQueue, type StudyQueue } from "@opsbench/jobs";
import { processStartTicks } from "@opsbench/host";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl } from "../../../tests/helpers";
import { createLogger } from "../src/logger";
import { reconcile, type ReconcilerDeps } from "../src/reconciler";
import { RunnerClient } from "../src/runner-client";

let db: Db;
let redis: Redis;
let runQueue: RunQueue;
let studyQueue: StudyQueue;
let scope: WorkspaceScope;
let deps: ReconcilerDeps;
const unrelated: ChildProcess[] = [];
const log = createLogger("silent");

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 3 });
  runQueue = createRunQueue(testRedisUrl());
  studyQueue = createStudyQueue(testRedisUrl());
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("rec-taewa"));
  await scope.workloads.put(shortRamp("rec-ramp"));
  deps = {
    db,
    redis,
    log,
    // No runner answers here: ending an interrupted run asks it to stop the run's k6, and goes on when it cannot.
    k6: {
      runner: new RunnerClient(path.join(os.tmpdir(), "opsbench-no-runner", "runner.sock")),
      version: "v0",
      deadline: { graceSeconds: 1, maxSeconds: 1 },
      blockHosts: [],
    },
    benchappsDir: "benchapps",
    workDir: os.tmpdir(),
    runQueue,
    studyQueue,
    executing: { runs: new Set(), studies: new Set() },
    queueRedis: redis,
    workerId: `reconciler-test:${process.pid}`,
    readHeartbeats: () => readWorkerHeartbeats(redis),
  };
});

afterAll(async () => {
  for (const c of unrelated) c.kill("SIGKILL");
  await runQueue.obliterate({ force: true });
  await studyQueue.obliterate({ force: true });
  await Promise.all([runQueue.close(), studyQueue.close()]);
  redis.disconnect();
  await db.$disconnect();
});

describe("reconciler", () => {
  it("enqueues again a queued run whose job vanished, and leaves a run whose job waits alone", async () => {
    const lost = await scope.runs.create({ targetName: "rec-taewa", workloadName: "rec-ramp" });
    const report = await reconcile(deps);
    expect(report.requeuedRuns).toContain(lost.id);
    expect(await runQueue.getJobState(lost.id)).toBe("waiting");
    // Its job waits now: a second pass does nothing to it.
    expect((await reconcile(deps)).requeuedRuns).not.toContain(lost.id);
    await runQueue.remove(lost.id);
    await scope.runs.failBeforeStart(lost.id, "test over");
  });

  it("ends a study with no runs FAILED, and enqueues again a queued study whose job vanished", async () => {
    const empty = await db.study.create({ data: { workspaceId: await defaultWorkspaceId(db), name: "demo" } });
    const created = await scope.studies.create({
      name: "rec-study",
      targets: ["rec-taewa"],
      workloads: ["rec-ramp"],
      repetitions: 1,
      order: "sequential",
      cooldownSeconds: 0,
      baselineWaitSeconds: 5,
    });
    const report = await reconcile(deps);
    expect(report.failedStudies).toContain(empty.id);
    const row = await db.study.findUniqueOrThrow({ where: { id: empty.id } });
    expect(row.status).toBe("FAILED");
    expect(row.error).toMatch(/no runs/);
    expect(report.requeuedStudies).toContain(created.study.id);
    expect(await studyQueue.getJobState(created.study.id)).toBe("waiting");
    // Its runs wait for the study: not enqueued on their own, not failed.
    expect(report.requeuedRuns).not.toContain(created.runs[0]!.id);
    expect((await db.run.findUniqueOrThrow({ where: { id: created.runs[0]!.id } })).status).toBe("QUEUED");
    await studyQueue.remove(created.study.id);
    await scope.studies.failBeforeStart(created.study.id, "test over");
  });

  it("ends an in-flight run nobody executes FAILED, stopping its recorded processes but not a reused pid", async () => {
    const run = await scope.runs.create({ targetName: "rec-taewa", workloadName: "rec-ramp" });
    const ours = spawn("sleep", ["120"], { detached: true, stdio: "ignore" });
    const other = spawn("sleep", ["120"], { detached: true, stdio: "ignore" });
    unrelated.push(ours, other);
    const oursStart = processStartTicks(ours.pid!)!;
    const otherStart = processStartTicks(other.pid!)!;
    await db.run.update({ where: { id: run.id }, data: { status: "RUNNING", startedAt: new Date() } });
    await db.runStep.create({
      data: {
        runId: run.id,
        name: "PROVISION",
        status: "SUCCEEDED",
        detail: {
          state: {
            id: "rec1",
            // The load balancer's pid is now an unrelated process (another start time); the replica is still ours.
            lb: { pid: other.pid!, startTicks: otherStart - 5, port: 1, adminPort: 1 },
            replicas: [{ id: 0, pids: [ours.pid!], starts: [oursStart], endpoints: [], cgroups: [], namespaces: [] }],
          },
        },
      },
    });
    await db.runStep.create({ data: { runId: run.id, name: "LOAD", status: "RUNNING" } });
    await db.resultSecond.create({
      data: {
        runId: run.id,
        ts: new Date(),
        name: "x",
        class: "2xx",
        requests: 3,
        failures: 0,
        sumMs: 3,
        minMs: 1,
        maxMs: 1,
        buckets: Buffer.alloc(0),
      },
    });
    const report = await reconcile(deps);
    expect(report.failed).toContain(run.id);
    const row = await db.run.findUniqueOrThrow({ where: { id: run.id }, include: { steps: true } });
    expect(row.status).toBe("FAILED");
    expect(row.error).toMatch(/^interrupted: the worker stopped while this run was in progress \(found by the reconciler/);
    expect((row.flags as Array<{ code: string }>).map((f) => f.code)).toContain("partial");
    expect(row.steps.find((s) => s.name === "LOAD")?.status).toBe("FAILED");
    expect(row.steps.filter((s) => s.status === "RUNNING")).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(ours.exitCode !== null || ours.signalCode !== null).toBe(true);
    expect(processStartTicks(other.pid!)).toBe(otherStart);
  });
});
