// npm run bench:soak [-- --minutes 60 --holdSeconds 5 --repetitions 10]
//
// Does the worker leak? A real worker process (apps/worker/src/main.ts) runs studies of
// short runs (one local-service replica, 2 VUs, a 2 s ramp and --holdSeconds of load) back
// to back for --minutes. Every minute it prints the worker's resident memory (VmRSS of the
// worker's own process, not its k6 or replicas) and the runs finished; at the end the
// least-squares slope of RSS over time in MB/hour (the goal: under 50 MB over an hour),
// with the first minute left out (module loading and JIT warm-up). The studies are deleted
// afterwards. Its queues use a prefix of their own, so a worker already running is not used.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { studyInput, targetInput, workloadInput } from "@opsbench/core";
import { defaultWorkspaceId, workspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, deleteStudy, queueWorkers, startStudy } from "@opsbench/jobs";
import { args, createDb, env } from "./bench-support";

const opt = args({ minutes: 60, holdSeconds: 5, repetitions: 10 });
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const redisUrl = new URL(env.REDIS_URL);
redisUrl.searchParams.set("prefix", `opsbench-soak-${process.pid}`);
const db = createDb(env.DATABASE_URL, { max: 3 });
const scope = workspaceScope(db, await defaultWorkspaceId(db));
const runQueue = createRunQueue(redisUrl.toString());
const studyQueue = createStudyQueue(redisUrl.toString());

const worker = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
  cwd: repoRoot,
  env: { ...process.env, DATABASE_URL: env.DATABASE_URL, REDIS_URL: redisUrl.toString(), LOG_LEVEL: "warn" },
  stdio: ["ignore", "ignore", "inherit"],
  detached: true,
});
const stopWorker = async () => {
  if (worker.exitCode !== null) return;
  const exited = new Promise((r) => worker.once("exit", r));
  process.kill(-worker.pid!, "SIGTERM");
  await exited;
};

/** The worker process's own resident memory, in MB. */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** Least-squares slope of y over x. */
function slope(points: Array<{ x: number; y: number }>): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const studies: string[] = [];
try {
  for (let i = 0; (await queueWorkers(runQueue)).length === 0; i++) {
    if (worker.exitCode !== null || i > 300) throw new Error("the worker did not start");
    await sleep(200);
  }
  await scope.targets.put(
    targetInput.parse({ name: "soak-taewa", kind: "local-service", spec: { app: "cpu-loop/node-http", replicas: 1 } }),
  );
  await scope.workloads.put(
    workloadInput.parse({
      name: "soak-short",
      spec: {
        kind: "ramping-vus",
        startVUs: 0,
        stages: [
          { duration: "2s", target: 2 },
          { duration: `${opt.holdSeconds}s`, target: 2 },
        ],
        gracefulRampDown: "1s",
        requestTimeout: "10s",
        requests: [{ name: "taewa", method: "GET", path: "/?n=500", headers: {} }],
        thresholds: {},
      },
    }),
  );
  const startStudyOfRuns = async () => {
    const input = studyInput.parse({
      name: `soak ${studies.length + 1}`,
      targets: ["soak-taewa"],
      workloads: ["soak-short"],
      repetitions: opt.repetitions,
      cooldownSeconds: 0,
      baselineWaitSeconds: 10,
    });
    studies.push((await startStudy(scope, studyQueue, input)).study.id);
  };
  const finishedRuns = () => db.run.count({ where: { studyId: { in: studies }, status: { in: ["SUCCEEDED", "FAILED", "ABORTED"] } } });

  const started = Date.now();
  const samples: Array<{ x: number; y: number }> = [];
  await startStudyOfRuns();
  console.log(`soak: ${opt.minutes} min of studies (${opt.repetitions} runs of ~${opt.holdSeconds + 3} s each), worker pid ${worker.pid}`);
  for (let minute = 0; minute <= opt.minutes; minute++) {
    await sleep(Math.max(0, started + minute * 60_000 - Date.now()));
    if (worker.exitCode !== null) throw new Error(`the worker exited (code ${worker.exitCode})`);
    const rss = rssMb(worker.pid!);
    samples.push({ x: minute, y: rss });
    const failed = await db.run.count({ where: { studyId: { in: studies }, status: { in: ["FAILED", "ABORTED"] } } });
    console.log(
      `minute ${String(minute).padStart(3)}: worker RSS ${rss.toFixed(1)} MB, runs finished ${await finishedRuns()} (${failed} not succeeded)`,
    );
    // A new study as soon as the last one has ended, so the worker is never idle.
    const last = await db.study.findUniqueOrThrow({ where: { id: studies.at(-1)! }, select: { status: true } });
    if (["SUCCEEDED", "FAILED", "ABORTED"].includes(last.status)) await startStudyOfRuns();
  }
  const steady = samples.length > 2 ? samples.slice(1) : samples;
  const perHour = slope(steady) * 60;
  const first = steady[0]!.y;
  const last = steady.at(-1)!.y;
  console.log(
    `soak done: ${await finishedRuns()} runs; RSS ${first.toFixed(1)} MB -> ${last.toFixed(1)} MB (minute ${steady[0]!.x} to ${steady.at(-1)!.x}); slope ${perHour.toFixed(1)} MB/hour (goal: under 50 MB/hour)`,
  );
} finally {
  for (const id of studies)
    await deleteStudy(scope, studyQueue, id, 120_000).catch((err) => console.error(`could not delete study ${id}: ${err}`));
  await stopWorker();
  await Promise.all([runQueue.close(), studyQueue.close()]);
  await db.$disconnect();
}
