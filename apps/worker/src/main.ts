// The worker process: consumes run jobs one at a time (two load tests on one
// machine would measure each other) and shuts down cleanly on SIGTERM/SIGINT:
// stop taking jobs, stop k6 gracefully, tear the target down, mark the run
// aborted, close Redis and Postgres.
import { Worker, UnrecoverableError } from "bullmq";
import { Redis } from "ioredis";
import { createDb } from "@opsbench/db";
import { RUN_QUEUE, redisConnection, runJobPayload, type RunJobPayload } from "@opsbench/jobs";
import { loadEnv } from "./env";
import { k6Version } from "./k6-process";
import { createLogger } from "./logger";
import { executeRun } from "./run-pipeline";

const env = loadEnv();
const log = createLogger(env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL);
const publisher = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
publisher.on("error", (err) => log.error({ err }, "redis publisher error"));
const k6 = { binary: env.OPSBENCH_K6, version: k6Version(env.OPSBENCH_K6) };
const running = new Map<string, AbortController>();

const worker = new Worker<RunJobPayload>(
  RUN_QUEUE,
  async (job) => {
    const parsed = runJobPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const { runId } = parsed.data;
    const abort = new AbortController();
    running.set(runId, abort);
    try {
      await executeRun(runId, { db, redis: publisher, log, k6, benchappsDir: env.OPSBENCH_BENCHAPPS_DIR, workDir: env.OPSBENCH_WORK_DIR }, abort.signal);
    } finally {
      running.delete(runId);
    }
  },
  { connection: redisConnection(env.REDIS_URL), prefix: "opsbench", concurrency: 1, lockDuration: 60_000 },
);
worker.on("error", (err) => log.error({ err }, "worker error"));
worker.on("failed", (job, err) => log.error({ jobId: job?.id, err }, "job failed"));
worker.on("ready", () => log.info({ k6: k6.version, queue: RUN_QUEUE }, "worker ready"));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: [...running.keys()] }, "shutting down");
  for (const abort of running.values()) abort.abort();
  await worker.close(); // waits for the current job, which now ends as ABORTED after teardown
  await publisher.quit().catch(() => {});
  await db.$disconnect();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
