// Issue 36, schedules (docs/schedules.md). First in this process, no worker: a tick delivered twice starts one run
// (the tick's row is the guarantee), a tick is skipped while the previous run is still queued or when the workspace's
// limits refuse, with its reason, and a paused schedule's tick records nothing. Then with two real worker processes
// on one Redis prefix (as `docker compose up --scale worker=2`): a schedule ticking every 20 s runs three times in a
// row, never twice at one tick; paused, no tick comes; resumed, it ticks again. Real Postgres, Redis and BullMQ.
// The 20 s pattern has a seconds field, which BullMQ's job schedulers read but users cannot save (five fields only:
// cronProblem); it is given to the scheduler directly so the test takes one minute of ticks, not four.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db, defaultWorkspaceId, scheduleTicks, workspaceScope, type WorkspaceScope } from "@opsbench/db";
import {
  createRunQueue,
  createScheduleQueue,
  createStudyQueue,
  runScheduleTick,
  type ScheduleTickDeps,
  schedulerIdOf,
  syncScheduleSchedulers,
  tickTimeOf,
  upsertScheduleScheduler,
} from "@opsbench/jobs";
import { nextTicks } from "@opsbench/core";
import { Redis } from "ioredis";
import { killWorker, startWorker, waitFor, type WorkerProcess } from "./faults/fault-kit";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl } from "./helpers";

let db: Db;
let scope: WorkspaceScope;
let deps: ScheduleTickDeps;
let redis: Redis;
const scheduleQueue = () => (queue ??= createScheduleQueue(testRedisUrl()));
let queue: ReturnType<typeof createScheduleQueue> | undefined;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 4 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("sched-taewa", { replicas: 1 }));
  await scope.workloads.put(shortRamp("sched-ramp", { vus: 2, holdSeconds: 2 }));
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 3 });
  deps = { db, redis, runQueue: createRunQueue(testRedisUrl()), studyQueue: createStudyQueue(testRedisUrl()) };
});

afterAll(async () => {
  for (const w of workers) await killWorker(w, "SIGTERM");
  await Promise.all([deps.runQueue.close(), deps.studyQueue.close(), queue?.close()]);
  await redis.quit();
  await db.$disconnect();
});

const runSchedule = (name: string, cron = "0 3 1 1 *") =>
  scope.schedules.create({
    name,
    what: { kind: "run", target: "sched-taewa", workload: "sched-ramp" },
    cron,
    timeZone: "UTC",
    paused: false,
  });

describe("a schedule's tick, in this process", () => {
  it("starts one run when the same tick is delivered twice at once", async () => {
    const s = await runSchedule("sched-twice");
    const tickAt = new Date("2026-01-01T03:00:00Z");
    const results = await Promise.all([runScheduleTick(deps, s.id, tickAt), runScheduleTick(deps, s.id, tickAt)]);
    expect(results.map((r) => r.outcome).sort()).toEqual(["RAN", "duplicate"]);
    const ticks = await scheduleTicks(db).list(s.id);
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({ outcome: "RAN", reason: null, tickAt });
    const ran = results.find((r) => r.outcome === "RAN");
    expect(ran && "runId" in ran && ran.runId).toBe(ticks[0]!.runId);
    // The run queued is the API's: a QUEUED row with the schedule's target and workload, and its job enqueued.
    const run = await db.run.findUniqueOrThrow({ where: { id: ticks[0]!.runId! }, include: { target: true, workload: true } });
    expect([run.status, run.target?.name, run.workload?.name]).toEqual(["QUEUED", "sched-taewa", "sched-ramp"]);
    expect(await deps.runQueue.getJob(run.id)).toBeTruthy();

    // The next tick while that run is still queued is skipped, saying which run and why.
    const next = await runScheduleTick(deps, s.id, new Date("2027-01-01T03:00:00Z"));
    expect(next).toMatchObject({ outcome: "SKIPPED", reason: `the previous run ${run.id} is still queued` });
    expect((await scheduleTicks(db).list(s.id)).map((t) => [t.outcome, t.reason])).toEqual([
      ["SKIPPED", `the previous run ${run.id} is still queued`],
      ["RAN", null],
    ]);
    // Ended (here by hand: no worker runs in this part), the schedule's next tick starts again.
    await deps.runQueue.remove(run.id);
    await db.run.update({ where: { id: run.id }, data: { status: "ABORTED", finishedAt: new Date() } });
    const after = await runScheduleTick(deps, s.id, new Date("2028-01-01T03:00:00Z"));
    expect(after.outcome).toBe("RAN");
    if (after.outcome === "RAN") {
      await deps.runQueue.remove(after.runId!);
      await db.run.update({ where: { id: after.runId! }, data: { status: "ABORTED", finishedAt: new Date() } });
    }
  });

  it("skips a tick the workspace's limits refuse, with the limit's words, and starts nothing", async () => {
    const s = await runSchedule("sched-limited");
    const runsBefore = await db.run.count();
    const today = await scope.limits.runsToday();
    await scope.limits.set({ maxRunsPerDay: today });
    try {
      const r = await runScheduleTick(deps, s.id, new Date("2026-01-01T03:00:00Z"));
      expect(r).toMatchObject({
        outcome: "SKIPPED",
        reason: `the workspace's limits refuse it: ${today} runs were created in the last 24 hours and this adds 1; the workspace's limit maxRunsPerDay is ${today}`,
      });
      expect(await db.run.count()).toBe(runsBefore);
    } finally {
      await scope.limits.set({ maxRunsPerDay: 500 });
    }
  });

  it("records a tick that cannot start as failed, naming what is missing", async () => {
    await scope.workloads.put(shortRamp("sched-gone"));
    const s = await scope.schedules.create({
      name: "sched-missing",
      what: { kind: "run", target: "sched-taewa", workload: "sched-gone" },
      cron: "0 3 1 1 *",
      timeZone: "UTC",
      paused: false,
    });
    await db.workload.delete({ where: { workspaceId_name: { workspaceId: scope.workspaceId, name: "sched-gone" } } });
    const r = await runScheduleTick(deps, s.id, new Date("2026-01-01T03:00:00Z"));
    expect(r).toMatchObject({ outcome: "FAILED", reason: 'workload "sched-gone" does not exist' });
  });

  it("records nothing for a paused schedule's tick, and keeps job schedulers only for schedules not paused", async () => {
    const s = await runSchedule("sched-paused");
    await scope.schedules.setPaused(s.id, true);
    expect((await runScheduleTick(deps, s.id, new Date("2026-01-01T03:00:00Z"))).outcome).toBe("paused");
    expect(await scheduleTicks(db).list(s.id)).toEqual([]);

    // The worker's start-up sync from the rows: one scheduler per schedule not paused, a stale one removed.
    const q = scheduleQueue();
    await upsertScheduleScheduler(q, { id: "00000000-0000-4000-8000-00000000dead", cron: "0 3 1 1 *", timeZone: "UTC" });
    const r = await syncScheduleSchedulers(q, () => scheduleTicks(db).active());
    expect(r.removed).toBe(1);
    const keys = (await q.getJobSchedulers()).map((j) => j.key).sort();
    const active = (await db.schedule.findMany({ where: { paused: false } })).map((x) => schedulerIdOf(x.id)).sort();
    expect(keys).toEqual(active);
    expect(keys).not.toContain(schedulerIdOf(s.id));
    // Each scheduler holds its next tick as one delayed job, whose time is the pattern's next (what the page shows).
    const delayed = await q.getDelayed();
    expect(delayed).toHaveLength(active.length);
    const next = nextTicks("0 3 1 1 *", "UTC", 1)[0]!.toISOString();
    expect(delayed.map((j) => tickTimeOf(j).toISOString())).toEqual(delayed.map(() => next));
    // Nothing of this part is left to tick once the workers start.
    await syncScheduleSchedulers(q, async () => []);
    expect(await q.getJobSchedulers()).toEqual([]);
    await db.schedule.deleteMany({});
  });
});

describe("a schedule ticking every 20 s with two workers", () => {
  const PERIOD = 20_000;
  it(
    "runs three times at three consecutive ticks, each tick once; paused, no tick; resumed, it ticks again",
    async () => {
      workers.push(await startWorker("sched-w1"), await startWorker("sched-w2"));
      const s = await runSchedule("sched-every-20s", "*/20 * * * * *");
      await upsertScheduleScheduler(scheduleQueue(), s);
      const ticks = scheduleTicks(db);
      // n ticks, each settled (a tick's row is written first as "the worker stopped before...", then what happened).
      const ran = async (n: number) => {
        const list = await ticks.list(s.id);
        return list.length >= n && list.every((t) => !t.reason?.startsWith("the worker stopped")) && list;
      };
      const three = await waitFor("three ticks", () => ran(3), 4 * PERIOD + 60_000, 500);
      // Paused at once: the fourth tick is a period after the third.
      await scope.schedules.setPaused(s.id, true);
      await upsertScheduleScheduler(scheduleQueue(), { ...s, paused: true });
      const pausedAt = Date.now();

      const first = [...three].reverse();
      // Three consecutive ticks, on the pattern's seconds.
      for (const t of first) expect(t.tickAt.getTime() % PERIOD).toBe(0);
      expect(first[1]!.tickAt.getTime() - first[0]!.tickAt.getTime()).toBe(PERIOD);
      expect(first[2]!.tickAt.getTime() - first[1]!.tickAt.getTime()).toBe(PERIOD);
      // The first tick runs. A later one runs too, or, on a machine so busy that the previous run outlasted the
      // period, is skipped naming that run (checked below against the run's own finish time).
      expect([first[0]!.outcome, first[0]!.reason]).toEqual(["RAN", null]);
      const ranTicks = first.filter((t) => t.outcome === "RAN");
      const skippedTicks = first.filter((t) => t.outcome !== "RAN");
      for (const t of skippedTicks)
        expect([t.outcome, t.reason]).toEqual(["SKIPPED", expect.stringMatching(/^the previous run \S+ is still (queued|running)$/)]);
      // One run per tick that ran, and no run of this target and workload that no tick started.
      const runIds = ranTicks.map((t) => t.runId!);
      expect(new Set(runIds).size).toBe(ranTicks.length);
      const runs = await db.run.findMany({ where: { target: { name: "sched-taewa" }, createdAt: { gte: first[0]!.tickAt } } });
      expect(runs.map((r) => r.id).sort()).toEqual([...runIds].sort());
      // Both workers consumed the queue; between them the ticks were started three times in all.
      const started = workers.map(
        (w) =>
          w
            .output()
            .split("\n")
            .filter((l) => l.includes('"schedule tick started"')).length,
      );
      expect(started.reduce((a, b) => a + b, 0)).toBe(3);
      for (const id of runIds) {
        await waitFor(
          `run ${id} to finish`,
          async () => {
            const r = await db.run.findUniqueOrThrow({ where: { id } });
            return ["SUCCEEDED", "FAILED", "ABORTED"].includes(r.status) && r;
          },
          180_000,
          1000,
        );
      }
      const finished = await db.run.findMany({ where: { id: { in: runIds } } });
      expect(finished.map((r) => r.status)).toEqual(runIds.map(() => "SUCCEEDED"));
      // A skip was right: the run it names was still going at the skipped tick.
      for (const t of skippedTicks) {
        const named = finished.find((r) => t.reason!.includes(r.id));
        expect(named, `the run named by "${t.reason}"`).toBeDefined();
        expect(named!.finishedAt!.getTime()).toBeGreaterThan(t.tickAt.getTime());
      }
      console.log(
        `ticks: ${first.map((t) => t.outcome).join(", ")}; runs took ${finished.map((r) => ((r.finishedAt!.getTime() - r.createdAt.getTime()) / 1000).toFixed(1)).join(", ")} s`,
      );

      // Paused: past the next tick's time (and a margin for a busy worker), no tick was recorded.
      const nextTick = Math.ceil(pausedAt / PERIOD) * PERIOD;
      await new Promise((r) => setTimeout(r, Math.max(0, nextTick + 10_000 - Date.now())));
      expect(await ticks.list(s.id)).toHaveLength(3);
      expect((await scheduleQueue().getJobSchedulers()).map((j) => j.key)).not.toContain(schedulerIdOf(s.id));

      // Resumed: the next tick comes, after the resume, and runs.
      await scope.schedules.setPaused(s.id, false);
      await upsertScheduleScheduler(scheduleQueue(), { ...s, paused: false });
      const resumedAt = Date.now();
      const four = await waitFor("a tick after the resume", () => ran(4), PERIOD + 60_000, 500);
      expect(four).toHaveLength(4);
      expect(four[0]!.outcome).toBe("RAN");
      expect(four[0]!.tickAt.getTime()).toBeGreaterThan(resumedAt - 1000);
      await scope.schedules.setPaused(s.id, true);
      await upsertScheduleScheduler(scheduleQueue(), { ...s, paused: true });
      await waitFor(
        `run ${four[0]!.runId} to finish`,
        async () => {
          const r = await db.run.findUniqueOrThrow({ where: { id: four[0]!.runId! } });
          return ["SUCCEEDED", "FAILED", "ABORTED"].includes(r.status) && r;
        },
        180_000,
        1000,
      );
    },
    12 * 60_000,
  );
});
