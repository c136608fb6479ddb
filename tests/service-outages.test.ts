// Fault injection against services of the test's own (tests/private-services.ts): Postgres
// stopped for 10 s in the middle of a load and again as a run ends, Redis restarted in the
// middle of a study. A real worker child process, real k6, real local targets.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { studyInput } from "@opsbench/core";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, queueWorkers, startRun, startStudy } from "@opsbench/jobs";
import { shortRamp, taewaTarget } from "./helpers";
import { orphans } from "./orphan-rows";
import {
  alive,
  startPrivatePostgres,
  startPrivateRedis,
  startWorkerChild,
  type PrivatePostgres,
  type PrivateRedis,
  type WorkerChild,
} from "./private-services";

let pg: PrivatePostgres;
let redis: PrivateRedis;
let worker: WorkerChild;
let db: Db;
let scope: WorkspaceScope;
let runQueue: ReturnType<typeof createRunQueue>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = ["SUCCEEDED", "FAILED", "ABORTED"];

beforeAll(async () => {
  pg = await startPrivatePostgres();
  redis = await startPrivateRedis();
  worker = startWorkerChild({ DATABASE_URL: pg.url, REDIS_URL: redis.url });
  db = createDb(pg.url, { max: 2 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  runQueue = createRunQueue(redis.url);
  const until = Date.now() + 60_000;
  while ((await queueWorkers(runQueue)).length === 0) {
    if (worker.child.exitCode !== null || Date.now() > until) throw new Error(`the worker did not start:\n${worker.log()}`);
    await sleep(200);
  }
});

// A failing scenario shows what the worker said.
beforeEach((ctx) => ctx.onTestFailed(() => console.error(`worker log (end):\n${worker.log().slice(-8000)}`)));

afterAll(async () => {
  await runQueue?.close();
  await worker?.stop();
  await db?.$disconnect();
  redis?.destroy();
  pg?.destroy();
});

/** Polls `read` until `done` says so; errors while the database is down are waited out. */
async function waitUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch {
      /* the database is down: look again */
    }
    if (Date.now() > until)
      throw new Error(`${what}: not reached after ${timeoutMs} ms (last: ${JSON.stringify(last)})\n${worker.log().slice(-3000)}`);
    await sleep(250);
  }
}

const runRow = (id: string) => db.run.findUniqueOrThrow({ where: { id }, include: { steps: true } });

/** Every second between the first and the last row has a row (the series has no hole). */
async function secondsOf(table: "result_seconds" | "load_seconds", runId: string) {
  const rows = await db.$queryRawUnsafe<Array<{ s: number }>>(
    `SELECT DISTINCT extract(epoch FROM ts)::int AS s FROM ${table} WHERE run_id = $1::uuid ORDER BY 1`,
    runId,
  );
  const seconds = rows.map((r) => Number(r.s));
  const missing = seconds.length ? seconds.at(-1)! - seconds[0]! + 1 - seconds.length : 0;
  return { count: seconds.length, missing };
}

const k6Requests = (k6Summary: unknown) => (k6Summary as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs.count;

/** The pids the local target recorded (load balancer and replicas). */
const targetPids = (detail: unknown): number[] => {
  const state = (detail as { state?: { lb?: { pid: number }; replicas?: Array<{ pid: number }> } } | null)?.state;
  return [...(state?.lb ? [state.lb.pid] : []), ...(state?.replicas ?? []).map((r) => r.pid)];
};

/** Processes whose command line names the run (k6 runs from the run's work folder). */
function processesOfRun(runId: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(runId)) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}

describe("service outages (own Postgres and Redis, a real worker child)", () => {
  it("Postgres stopped for 10 s mid-load: the run completes with no missing second, counts equal k6's own", async () => {
    await scope.targets.put(taewaTarget("outage-taewa", { replicas: 1 }));
    await scope.workloads.put(shortRamp("outage-24s", { vus: 3, holdSeconds: 22, path: "/?n=500" }));
    const run = await startRun(scope, runQueue, { targetName: "outage-taewa", workloadName: "outage-24s" });
    // A few seconds of the series stored, then the database goes away for 10 s.
    await waitUntil(
      () => db.resultSecond.count({ where: { runId: run.id } }),
      (n) => n >= 3,
      90_000,
      "first results",
    );
    const stoppedAt = Date.now();
    pg.stop();
    await sleep(10_000);
    await pg.start();

    const final = await waitUntil(
      () => runRow(run.id),
      (r) => FINAL.includes(r.status),
      120_000,
      "final state",
    );
    expect(final.error).toBeNull();
    expect(final.status).toBe("SUCCEEDED");
    // The outage fell inside the load, and the worker waited for the database (its pool and writer retry).
    expect(final.loadStartedAt!.getTime()).toBeLessThan(stoppedAt);
    expect(final.loadFinishedAt!.getTime()).toBeGreaterThan(stoppedAt + 10_000);
    expect(worker.log()).toMatch(/database unreachable/);
    const results = await secondsOf("result_seconds", run.id);
    const load = await secondsOf("load_seconds", run.id);
    expect(results.count).toBeGreaterThanOrEqual(20);
    expect(results.missing).toBe(0);
    expect(load.missing).toBe(0);
    const stored = await db.resultSecond.aggregate({ where: { runId: run.id }, _sum: { requests: true } });
    const k6Count = k6Requests(final.k6Summary);
    expect(k6Count).toBeGreaterThan(100);
    expect(stored._sum.requests).toBe(k6Count);
    expect((final.summary as { requests: number }).requests).toBe(k6Count);
    // Only the caveats every single closed-loop run carries: no gap or missing-data flag from the outage.
    expect((final.flags as { code: string }[]).map((f) => f.code).sort()).toEqual(["closed-loop", "too-few-repetitions"]);
  });

  it("Postgres stopped as the run ends: teardown still happens and the run reaches a final state once it is back", async () => {
    await scope.workloads.put(shortRamp("outage-10s", { vus: 2, holdSeconds: 8, path: "/?n=500" }));
    const run = await startRun(scope, runQueue, { targetName: "outage-taewa", workloadName: "outage-10s" });
    const started = await waitUntil(
      () => runRow(run.id),
      (r) => r.loadStartedAt !== null,
      90_000,
      "load started",
    );
    const provision = started.steps.find((s) => s.name === "PROVISION");
    const pids = targetPids(provision?.detail);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    // Stopped as k6 finishes (10 s of stages, 2 s of ramp-down): bookkeeping and teardown meet a database that is away.
    await sleep(Math.max(0, started.loadStartedAt!.getTime() + 10_500 - Date.now()));
    pg.stop();
    await sleep(10_000);
    await pg.start();

    const final = await waitUntil(
      () => runRow(run.id),
      (r) => FINAL.includes(r.status),
      120_000,
      "final state",
    );
    expect(final.status, final.error ?? "").toBe("SUCCEEDED");
    expect(final.steps.find((s) => s.name === "TEARDOWN")?.status).toBe("SUCCEEDED");
    expect(pids.filter(alive)).toEqual([]);
    expect(processesOfRun(run.id)).toEqual([]);
    expect(k6Requests(final.k6Summary)).toBe((final.summary as { requests: number }).requests);
  });

  it("Redis restarted mid-study: the study finishes, every run executed exactly once", async () => {
    const studyQueue = createStudyQueue(redis.url);
    try {
      const { study, runs } = await startStudy(
        scope,
        studyQueue,
        studyInput.parse({
          name: "redis-restart",
          targets: [taewaTarget("redis-taewa", { replicas: 1 })],
          workloads: [shortRamp("redis-4s", { vus: 2, holdSeconds: 2, path: "/?n=500" })],
          repetitions: 3,
          cooldownSeconds: 0,
        }),
      );
      await waitUntil(
        () => runRow(runs[0]!.id),
        (r) => r.status === "RUNNING",
        90_000,
        "first run under way",
      );
      await redis.restart(1000);

      const done = await waitUntil(
        () => db.study.findUniqueOrThrow({ where: { id: study.id }, include: { runs: true } }),
        (s) => FINAL.includes(s.status),
        180_000,
        "study final",
      );
      expect(done.error).toBeNull();
      expect(done.status).toBe("SUCCEEDED");
      expect(done.runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
      const log = worker.log();
      for (const r of done.runs) {
        // Executed once: one start in the worker's log, one claim (no "interrupted" second delivery).
        expect(log.split("\n").filter((l) => l.includes(r.id) && l.includes('"study run starting"'))).toHaveLength(1);
        expect(log).not.toMatch(new RegExp(`${r.id}.*run was interrupted`));
        expect(k6Requests(r.k6Summary)).toBe((r.summary as { requests: number }).requests);
      }
    } finally {
      await studyQueue.close();
    }
  });

  it("ends with every run and study in a final state and no row without its parent", async () => {
    const notFinal = { status: { notIn: ["SUCCEEDED" as const, "FAILED" as const, "ABORTED" as const] } };
    expect(await db.run.count({ where: notFinal })).toBe(0);
    expect(await db.study.count({ where: notFinal })).toBe(0);
    expect(await db.run.count()).toBeGreaterThanOrEqual(5);
    expect(await orphans(db)).toBe(0);
  });
});
