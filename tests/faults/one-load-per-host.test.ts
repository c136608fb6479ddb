// Issue 19: every worker on a host shares one load lock (in Redis), and the installation's periodic work runs
// once per tick, not once per worker. Two real worker processes on the file's database and Redis prefix (as
// `docker compose up --scale worker=2` with one host identity): two studies and a single run, spread over both
// workers, have load windows that never overlap; a scheduler tick of the reconciler, reaper and retention sweep
// is taken by one worker only. (A killed holder's lease: apps/worker/test/load-lock.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createMaintenanceQueue, createRunQueue, createStudyQueue, MAINTENANCE_JOBS, startRun, startStudy } from "@opsbench/jobs";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl, waitForFinal } from "../helpers";
import { expectAllSettled, killWorker, startWorker, waitFor, type WorkerProcess } from "./fault-kit";

let db: Db;
let scope: WorkspaceScope;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("host-taewa", { replicas: 1 }));
  await scope.workloads.put(shortRamp("host-ramp", { vus: 3, holdSeconds: 3 }));
});

afterAll(async () => {
  for (const w of workers) await killWorker(w, "SIGTERM");
  await db.$disconnect();
});

/** Log lines of a worker that parse as JSON. */
const lines = (w: WorkerProcess) =>
  w
    .output()
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

describe("two workers on one host", () => {
  it("two studies and a single run, spread over both workers, load the host one at a time", async () => {
    // The same host identity for both, as containers of one machine would be given (OPSBENCH_LOAD_HOST).
    const env = { OPSBENCH_LOAD_HOST: "one-machine" };
    workers.push(await startWorker("host-w1", env), await startWorker("host-w2", env));
    const studyQueue = createStudyQueue(testRedisUrl());
    const runQueue = createRunQueue(testRedisUrl());
    try {
      const study = (name: string) =>
        startStudy(scope, studyQueue, {
          name,
          targets: ["host-taewa"],
          workloads: ["host-ramp"],
          repetitions: 2,
          order: "sequential",
          cooldownSeconds: 0,
          baselineWaitSeconds: 10,
        });
      const [a, b] = [await study("host-study-a"), await study("host-study-b")];
      const single = await startRun(scope, runQueue, { targetName: "host-taewa", workloadName: "host-ramp" });
      const runIds = [...a.runs, ...b.runs].map((r) => r.id).concat(single.id);
      const views = [];
      for (const id of runIds) views.push(await waitForFinal(db, id, 240_000));
      expect(views.map((v) => v.status)).toEqual(runIds.map(() => "SUCCEEDED"));
      // A study ends a moment after its last run (its worker marks it then): seen still RUNNING right after.
      const studiesEnded = async () =>
        (await db.study.count({ where: { id: { in: [a.study.id, b.study.id] }, status: "SUCCEEDED" } })) === 2;
      await waitFor("both studies SUCCEEDED", studiesEnded, 30_000);

      // Each study was executed by a different worker (both had runs to load at the same time).
      const ranStudy = (w: WorkerProcess, id: string) => lines(w).some((l) => l.msg === "study started" && l.studyId === id);
      const [w1, w2] = workers as [WorkerProcess, WorkerProcess];
      expect([ranStudy(w1, a.study.id), ranStudy(w2, a.study.id)]).toContain(true);
      expect(ranStudy(w1, a.study.id) !== ranStudy(w1, b.study.id)).toBe(true);

      const windows = views
        .map((v) => ({ id: v.id, start: Date.parse(v.loadStartedAt!), end: Date.parse(v.loadFinishedAt!) }))
        .sort((x, y) => x.start - y.start);
      for (let i = 1; i < windows.length; i++) {
        expect(windows[i]!.start, `run ${windows[i]!.id} started loading before ${windows[i - 1]!.id} finished`).toBeGreaterThanOrEqual(
          windows[i - 1]!.end,
        );
      }
      await expectAllSettled(db, runIds);
    } finally {
      await studyQueue.close();
      await runQueue.close();
      for (const w of workers.splice(0)) await killWorker(w, "SIGTERM");
    }
  });

  it("a scheduler tick of the reconciler, the reaper and the retention sweep runs in one worker, not in each", async () => {
    // Every pass every 2 s; the log level shows each pass done.
    const env = {
      LOG_LEVEL: "debug",
      OPSBENCH_RECONCILE_SECONDS: "2",
      OPSBENCH_REAPER_SECONDS: "2",
      OPSBENCH_RETENTION_SWEEP_SECONDS: "2",
    };
    const created = Date.now();
    const pair = [await startWorker("tick-w1", env), await startWorker("tick-w2", env)];
    workers.push(...pair);
    const queue = createMaintenanceQueue(testRedisUrl());
    try {
      const passes = () =>
        pair.flatMap((w, i) =>
          lines(w).flatMap((l) =>
            l.msg === "maintenance pass done" ? [{ worker: i, job: String(l.job), id: String(l.jobId), at: Number(l.time) }] : [],
          ),
        );
      // Five more ticks of each pass with both workers consuming.
      const bothUp = Date.now();
      const after = (at: number) => passes().filter((p) => p.at >= at);
      await waitFor(
        "5 ticks of each pass with both workers up",
        () => MAINTENANCE_JOBS.every((name) => after(bothUp).filter((p) => p.job === name).length >= 5),
        60_000,
        200,
      );
      const end = Date.now();
      for (const w of pair) await killWorker(w, "SIGTERM");
      const done = passes();
      // No tick done twice: each job id (one per tick) in one worker's log only.
      const ids = done.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const name of MAINTENANCE_JOBS) {
        // One pass per 2 s tick over the whole installation (plus the one at creation), not one per worker.
        const all = done.filter((p) => p.job === name).length;
        const whileBoth = done.filter((p) => p.job === name && p.at >= bothUp).length;
        const [sAll, sBoth] = [(end - created) / 1000, (end - bothUp) / 1000];
        expect(all, `${name}: ${all} passes in ${sAll.toFixed(1)} s`).toBeLessThanOrEqual(Math.floor(sAll / 2) + 2);
        expect(whileBoth, `${name}: ${whileBoth} passes in ${sBoth.toFixed(1)} s with two workers`).toBeLessThanOrEqual(
          Math.floor(sBoth / 2) + 2,
        );
      }
      // Both workers consumed the queue (whichever was free took a tick).
      expect(new Set(done.map((p) => p.worker)).size).toBe(2);
      // Every tick that ran is a completed job of the queue's schedulers (there is one scheduler per pass).
      expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual([...MAINTENANCE_JOBS].sort());
      const completed = new Set((await queue.getJobs(["completed"], 0, 1000)).map((j) => j.id));
      for (const id of ids) expect(completed.has(id)).toBe(true);
    } finally {
      await queue.close();
      for (const w of workers.splice(0)) await killWorker(w, "SIGTERM");
    }
  });
});
