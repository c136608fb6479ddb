// The worker process: consumes run jobs and study jobs, one load test at a time
// (two load tests on one machine would measure each other) and shuts down cleanly on SIGTERM/SIGINT:
// stop taking jobs, stop k6 gracefully, tear the target down, mark the run
// aborted, close Redis and Postgres.
import { Worker, UnrecoverableError } from "bullmq";
import { Redis } from "ioredis";
import { createDb } from "@opsbench/db";
import {
  createLoadQueue,
  LOAD_QUEUE,
  segmentJobPayload,
  type SegmentJobPayload,
  RUN_QUEUE,
  STUDY_QUEUE,
  queuePrefix,
  redisConnection,
  runJobPayload,
  studyJobPayload,
  type RunJobPayload,
  type StudyJobPayload,
} from "@opsbench/jobs";
import { loadEnv } from "./env";
import { k6Version, type K6Settings } from "./k6-process";
import { createLogger } from "./logger";
import { executeRun } from "./run-pipeline";
import { startHeartbeat } from "./heartbeat";
import { LoadLock } from "./load-lock";
import type { SegmentSettings } from "./segments/coordinator";
import { executeSegment } from "./segments/generator";
import { executeStudy } from "./study-runner";
import { startScriptValidationWorker } from "./validate-script";

const env = loadEnv();
/** `--role load` on the command line (opsbench worker --role load) wins over OPSBENCH_WORKER_ROLE. */
const roleArg = process.argv.indexOf("--role");
const role = roleArg >= 0 ? process.argv[roleArg + 1] : env.OPSBENCH_WORKER_ROLE;
if (role !== "all" && role !== "load") throw new Error(`--role must be "all" or "load", not ${JSON.stringify(role)}`);
const log = createLogger(env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL);
const publisher = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
publisher.on("error", (err) => log.error({ err }, "redis publisher error"));
const k6: K6Settings = {
  binary: env.OPSBENCH_K6,
  version: k6Version(env.OPSBENCH_K6),
  sandbox: {
    allowUnsandboxed: env.OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS,
    blockedRanges: env.OPSBENCH_K6_BLOCKED_RANGES,
    backingHosts: [new URL(env.DATABASE_URL).hostname, new URL(env.REDIS_URL).hostname],
  },
  deadline: { graceSeconds: env.OPSBENCH_K6_GRACE_SECONDS, maxSeconds: env.OPSBENCH_MAX_LOAD_SECONDS },
};
const loadQueue = createLoadQueue(env.REDIS_URL);
const segments: SegmentSettings = {
  queue: loadQueue,
  redis: publisher,
  redisUrl: env.REDIS_URL,
  readyDeadlineMs: env.OPSBENCH_SEGMENT_READY_SECONDS * 1000,
};
const running = new Map<string, AbortController>();
/** Load segments this worker generates, by "<runId>:<segment>". */
const runningSegments = new Map<string, AbortController>();
// Single runs and study runs share the machine: one load test at a time.
const loadLock = new LoadLock();
const stoppingStudies = new AbortController();

const worker = new Worker<RunJobPayload>(
  RUN_QUEUE,
  async (job) => {
    const parsed = runJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const { runId } = parsed.data;
    const abort = new AbortController();
    running.set(runId, abort);
    try {
      await loadLock.run(() =>
        executeRun(
          runId,
          { db, redis: publisher, log, k6, benchappsDir: env.OPSBENCH_BENCHAPPS_DIR, workDir: env.OPSBENCH_WORK_DIR, segments },
          abort.signal,
        ),
      );
    } finally {
      running.delete(runId);
    }
  },
  {
    connection: redisConnection(env.REDIS_URL),
    prefix: queuePrefix(env.REDIS_URL),
    concurrency: 1,
    lockDuration: 60_000,
    autorun: role === "all",
  },
);
worker.on("error", (err) => log.error({ err }, "worker error"));
// The job id is the run id.
worker.on("failed", (job, err) => log.error({ runId: job?.data.runId, jobId: job?.id, err }, "job failed"));
worker.on("ready", () => log.info({ k6: k6.version, queue: RUN_QUEUE }, "worker ready"));

const studyWorker = new Worker<StudyJobPayload>(
  STUDY_QUEUE,
  async (job) => {
    const parsed = studyJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const deps = {
      db,
      redis: publisher,
      log,
      k6,
      benchappsDir: env.OPSBENCH_BENCHAPPS_DIR,
      workDir: env.OPSBENCH_WORK_DIR,
      segments,
      lock: loadLock,
    };
    await executeStudy(parsed.data.studyId, deps, stoppingStudies.signal);
  },
  {
    connection: redisConnection(env.REDIS_URL),
    prefix: queuePrefix(env.REDIS_URL),
    concurrency: 1,
    lockDuration: 60_000,
    autorun: role === "all",
  },
);
studyWorker.on("error", (err) => log.error({ err }, "study worker error"));
studyWorker.on("failed", (job, err) => log.error({ studyId: job?.data.studyId, jobId: job?.id, err }, "study job failed"));

// Users' own k6 scripts are checked here before the web app saves them (it never spawns k6).
const scriptWorker =
  role === "all" ? startScriptValidationWorker({ redisUrl: env.REDIS_URL, k6Binary: k6.binary, sandbox: k6.sandbox, log }) : null;

// Load segments of runs split over several generators, on any worker. Not under the load lock: the run
// that split itself holds it on this machine while its segments run, one of them possibly here.
const loadWorker = new Worker<SegmentJobPayload>(
  LOAD_QUEUE,
  async (job) => {
    const parsed = segmentJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const abort = new AbortController();
    runningSegments.set(`${parsed.data.runId}:${parsed.data.segment}`, abort);
    try {
      await executeSegment(
        parsed.data,
        {
          db,
          redis: publisher,
          redisUrl: env.REDIS_URL,
          log,
          k6,
          workDir: env.OPSBENCH_WORK_DIR,
          keepSamples: env.OPSBENCH_K6_KEEP_SAMPLES,
        },
        abort.signal,
      );
    } finally {
      runningSegments.delete(`${parsed.data.runId}:${parsed.data.segment}`);
    }
  },
  { connection: redisConnection(env.REDIS_URL), prefix: queuePrefix(env.REDIS_URL), concurrency: 1, lockDuration: 60_000 },
);
loadWorker.on("error", (err) => log.error({ err }, "load worker error"));
loadWorker.on("ready", () => log.info({ role, queue: LOAD_QUEUE }, "load generator ready"));

let stopping = false;
const heartbeat = startHeartbeat(
  publisher,
  {
    isConsuming: () => !stopping && (role === "all" ? worker.isRunning() : loadWorker.isRunning()),
    runIds: () => [...new Set([...running.keys(), ...[...runningSegments.keys()].map((k) => k.split(":")[0]!)])],
  },
  log,
);
worker.on("ready", () => void heartbeat.beat());
loadWorker.on("ready", () => void heartbeat.beat());
log.info({ workerId: heartbeat.workerId }, "heartbeat started");

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: [...running.keys()] }, "shutting down");
  await heartbeat.stop();
  for (const abort of [...running.values(), ...runningSegments.values()]) abort.abort();
  stoppingStudies.abort();
  // Each waits for its current job, which now ends as ABORTED after teardown.
  await Promise.all([worker.close(), studyWorker.close(), scriptWorker?.close(), loadWorker.close()]);
  await loadQueue.close();
  await publisher.quit().catch(() => {});
  await db.$disconnect();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
