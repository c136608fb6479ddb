// The worker process: consumes run jobs and study jobs, one load test at a time
// (two load tests on one machine would measure each other) and shuts down cleanly on SIGTERM/SIGINT:
// stop taking jobs, stop k6 gracefully, tear the target down, mark the run
// aborted, close Redis and Postgres.
import { Worker, UnrecoverableError } from "bullmq";
import { Redis } from "ioredis";
import { createDb } from "@opsbench/db";
import {
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
import { executeStudy } from "./study-runner";
import { startScriptValidationWorker } from "./validate-script";
import { startCredentialCheckWorker } from "./credential-check-worker";

const env = loadEnv();
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
// Credentials targets name are opened with this key; cloud API stand-ins come from here only, never from a request.
const endpoints = { aws: env.OPSBENCH_AWS_ENDPOINT_URL, gcp: env.OPSBENCH_GCP_ENDPOINT_URL };
const credentialDeps = { secretKey: env.OPSBENCH_SECRET_KEY, endpoints };
const running = new Map<string, AbortController>();
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
          { db, redis: publisher, log, k6, benchappsDir: env.OPSBENCH_BENCHAPPS_DIR, workDir: env.OPSBENCH_WORK_DIR, ...credentialDeps },
          abort.signal,
        ),
      );
    } finally {
      running.delete(runId);
    }
  },
  { connection: redisConnection(env.REDIS_URL), prefix: queuePrefix(env.REDIS_URL), concurrency: 1, lockDuration: 60_000 },
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
      ...credentialDeps,
      lock: loadLock,
    };
    await executeStudy(parsed.data.studyId, deps, stoppingStudies.signal);
  },
  { connection: redisConnection(env.REDIS_URL), prefix: queuePrefix(env.REDIS_URL), concurrency: 1, lockDuration: 60_000 },
);
studyWorker.on("error", (err) => log.error({ err }, "study worker error"));
studyWorker.on("failed", (job, err) => log.error({ studyId: job?.data.studyId, jobId: job?.id, err }, "study job failed"));

// Users' own k6 scripts are checked here before the web app saves them (it never spawns k6).
const scriptWorker = startScriptValidationWorker({ redisUrl: env.REDIS_URL, k6Binary: k6.binary, sandbox: k6.sandbox, log });

// Credentials being saved are checked here (the web app never calls a cloud API).
const credentialWorker = startCredentialCheckWorker({ redisUrl: env.REDIS_URL, secretKey: env.OPSBENCH_SECRET_KEY, endpoints, log });

let stopping = false;
const heartbeat = startHeartbeat(publisher, { isConsuming: () => !stopping && worker.isRunning(), runIds: () => [...running.keys()] }, log);
worker.on("ready", () => void heartbeat.beat());
log.info({ workerId: heartbeat.workerId }, "heartbeat started");

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: [...running.keys()] }, "shutting down");
  await heartbeat.stop();
  for (const abort of running.values()) abort.abort();
  stoppingStudies.abort();
  // Each waits for its current job, which now ends as ABORTED after teardown.
  await Promise.all([worker.close(), studyWorker.close(), scriptWorker.close(), credentialWorker.close()]);
  await publisher.quit().catch(() => {});
  await db.$disconnect();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
