// A run split over two load generators: two worker processes on this machine, each pinned to its own
// core, one Go echo target. The result must equal what both k6 processes measured together: the request
// count exactly (their summaries), the percentiles within 1% of those of both raw JSON outputs together.
// Then one generator's worker is killed mid-run: the run ends final, partial, naming the lost segment.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, defaultWorkspaceId, segmentStore, workspaceScope, type Db } from "@opsbench/db";
import { createRunQueue, queueWorkers, startRun, type RunQueue } from "@opsbench/jobs";
import { removeLoadNetwork } from "@opsbench/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabaseUrl, testRedisUrl, waitForFinal } from "../../../tests/helpers";
import { startTestRunner } from "../../../tests/k6-runner";
import { durations, expectMergedPercentiles, k6Requests, twoGeneratorWorkload } from "../../../tests/generators-support";
import { nodeProgram } from "../../cli/src/processes";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-generators-"));
const cores = os.cpus().length;

/** A worker process pinned to one core (taskset), with k6's raw samples kept for the comparison. */
function startWorker(core: number, role: "all" | "load"): ChildProcess {
  const child = spawn("taskset", ["-c", String(core % cores), process.execPath, ...nodeProgram("worker"), "--role", role], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      REDIS_URL: testRedisUrl(),
      OPSBENCH_WORK_DIR: workDir,
      // Both workers share this machine's one runner, where k6 runs (and keeps its samples).
      OPSBENCH_RUNNER_SOCKET: runner.socket,
      OPSBENCH_K6_KEEP_SAMPLES: "1",
      OPSBENCH_SEGMENT_READY_SECONDS: "60",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  return child;
}

let db: Db;
let queue: RunQueue;
let runWorker: ChildProcess;
let loadWorker: ChildProcess;
let runner: Awaited<ReturnType<typeof startTestRunner>>;

beforeAll(async () => {
  runner = await startTestRunner();
  db = createDb(testDatabaseUrl(), { max: 3 });
  queue = createRunQueue(testRedisUrl());
  runWorker = startWorker(0, "all");
  loadWorker = startWorker(1, "load");
  const until = Date.now() + 60_000;
  // Both consume the load queue; the first also the run queue.
  while ((await queueWorkers(queue)).length < 1) {
    if (Date.now() > until) throw new Error("the workers did not connect within 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put({
    name: "gen-echo",
    kind: "local-service",
    spec: { app: "echo/go", replicas: 1, env: {}, startTimeoutMs: 30_000 },
  });
  await scope.workloads.put(twoGeneratorWorkload("gen-two", 6));
  await scope.workloads.put(twoGeneratorWorkload("gen-long", 20));
});

afterAll(async () => {
  for (const w of [runWorker, loadWorker]) if (w.exitCode === null) w.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 1000));
  await queue?.close();
  await db?.$disconnect();
  await runner?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe("a run on two load generators", () => {
  it("gives one result: the request count of both k6 summaries, and percentiles within 1% of both raw outputs together", async () => {
    const scope = workspaceScope(db, await defaultWorkspaceId(db));
    const { id } = await startRun(scope, queue, { targetName: "gen-echo", workloadName: "gen-two" });
    const view = await waitForFinal(db, id, 170_000);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const segments = await segmentStore(db, id).list();
    expect(segments.map((s) => s.status)).toEqual(["FINISHED", "FINISHED"]);
    // Two different workers took the two segments.
    expect(new Set(segments.map((s) => s.worker)).size).toBe(2);
    const counts = segments.map((s) => k6Requests(s.k6Summary));
    expect(view.summary!.requests).toBe(counts[0]! + counts[1]!);
    expect(Math.min(...counts)).toBeGreaterThan(0);

    const all = new Float64Array([
      ...(await durations(path.join(runner.workDir, "k6-samples", `${id}-segment-0.json`))),
      ...(await durations(path.join(runner.workDir, "k6-samples", `${id}-segment-1.json`))),
    ]).sort();
    const percentiles = expectMergedPercentiles(all, view.summary!);
    // Per generator: its CPU and its share of the requests.
    const generators = view.summary!.load!.generators!;
    expect(generators.map((g) => g.requests)).toEqual(counts);
    expect(generators.every((g) => g.clockOffsetMs.start !== null)).toBe(true);
    console.info(`generators: 2: ${view.summary!.requests} requests (k6 summaries ${counts.join(" + ")}), ${percentiles}`);
  });

  it("with one generator killed mid-run: final, partial, and names the lost segment", async () => {
    const scope = workspaceScope(db, await defaultWorkspaceId(db));
    const { id } = await startRun(scope, queue, { targetName: "gen-echo", workloadName: "gen-long" });
    const segments = segmentStore(db, id);
    const until = Date.now() + 120_000;
    while (!(await segments.list()).some((s) => s.status === "RUNNING" && s.worker?.endsWith(`:${loadWorker.pid}`))) {
      if (Date.now() > until) throw new Error("the load worker's segment never ran");
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 4000));
    const lost = (await segments.list()).find((s) => s.worker?.endsWith(`:${loadWorker.pid}`))!;
    loadWorker.kill("SIGKILL");
    const view = await waitForFinal(db, id, 170_000);
    expect(view.status).toBe("SUCCEEDED");
    const rows = await segments.list();
    expect(rows.find((s) => s.index === lost.index)!.status).toBe("LOST");
    expect(rows.find((s) => s.index !== lost.index)!.status).toBe("FINISHED");
    const flag = view.flags.find((f) => f.code === "lost-generator");
    expect(flag?.message).toContain(`segment ${lost.index + 1}/2`);
    // The totals say they are partial, with the code the faults' partial runs carry.
    expect(view.flags.find((f) => f.code === "partial")?.message).toMatch(/^partial results: 1 of 2 load generators were lost/);
    expect(view.events.some((e) => e.message.includes(`segment ${lost.index + 1}/2`) && e.message.includes("lost"))).toBe(true);
    // The survivor's requests are all there; the lost one's up to where it was lost.
    const survivor = rows.find((s) => s.index !== lost.index)!;
    expect(view.summary!.requests).toBeGreaterThan(k6Requests(survivor.k6Summary));
    // The killed worker could not remove its k6's network namespace: this test does.
    const started = await db.runEvent.findMany({ where: { runId: id, message: { contains: "starting k6" } } });
    for (const e of started) {
      const netns = (e.data as { netns?: string | null } | null)?.netns;
      if (netns) await removeLoadNetwork({ ns: netns, table: netns });
    }
  });
});
