// The clients a worker works with, opened together at start and closed together at the end: Postgres, Redis (the
// publisher, the load lock's and the heartbeat's commands), the host's k6 runner, the queues it enqueues on (and the
// schedules queue, whose job schedulers it keeps) and the
// host's load lock. pipelineDeps() hands them to the run pipeline, the study runner and the reconciler.
import { createDb, type Db } from "@opsbench/db";
import { createLoadQueue, createNotifier, createRunQueue, createScheduleQueue, createStudyQueue, queuePrefix } from "@opsbench/jobs";
import { Redis } from "ioredis";
import type { WorkerConfig } from "./config";
import { LoadLock } from "./load-lock";
import type { Logger } from "./logger";
import { DEFAULT_DB_OUTAGE_WAIT_MS, type PipelineDeps } from "./pipeline/run-context";
import { type K6Settings, RunnerClient } from "./runner-client";

export type Services = Awaited<ReturnType<typeof openServices>>;

export async function openServices({ env, blockHosts, blockPorts }: WorkerConfig, log: Logger) {
  // Queries wait (bounded) for a Postgres that is restarting instead of failing the run (docs/faults.md).
  const db = createDb(env.DATABASE_URL, {
    waitForDatabase: {
      maxWaitMs: DEFAULT_DB_OUTAGE_WAIT_MS,
      onWait: (err) => log.warn({ err: String(err) }, "database unreachable: waiting for it"),
    },
  });
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  redis.on("error", (err) => log.error({ err }, "redis publisher error"));
  const runner = new RunnerClient(env.OPSBENCH_RUNNER_SOCKET);
  const health = await waitForRunner(runner).catch(async (err: unknown) => {
    await closeClients(redis, db);
    throw err;
  });
  if (health.sandboxProblem)
    log.warn({ problem: health.sandboxProblem, allowUnsandboxed: health.allowUnsandboxed }, "the runner cannot sandbox k6");
  const k6: K6Settings = {
    runner,
    version: health.k6Version,
    deadline: { graceSeconds: env.OPSBENCH_K6_GRACE_SECONDS, maxSeconds: env.OPSBENCH_MAX_LOAD_SECONDS },
    blockHosts,
    remoteLoad: health.allowUnsandboxed || health.routedEgress === true,
    blockPorts,
  };
  // Single runs, study runs and other hosts' load segments of every worker on this host share it: one load test at a time (in Redis).
  const loadLock = new LoadLock({
    redis,
    prefix: queuePrefix(env.REDIS_URL),
    // The host is the runner's: every worker using one runner loads from the same machine.
    host: env.OPSBENCH_LOAD_HOST ?? health.hostId,
    leaseMs: env.OPSBENCH_LOAD_LEASE_SECONDS * 1000,
    log,
  });
  const queues = {
    run: createRunQueue(env.REDIS_URL),
    study: createStudyQueue(env.REDIS_URL),
    load: createLoadQueue(env.REDIS_URL),
    schedule: createScheduleQueue(env.REDIS_URL),
  };
  // Runs that end FAILED tell their workspace (docs/notifications.md); the deliveries are the "notifications" queue's.
  const notifier = createNotifier(db, env.REDIS_URL);
  return {
    db,
    redis,
    runner,
    k6,
    loadLock,
    queues,
    notifier,
    /** After the consumers: the queues, then Redis, then Postgres. */
    async close() {
      await Promise.all([queues.run.close(), queues.study.close(), queues.load.close(), queues.schedule.close(), notifier.close()]);
      await closeClients(redis, db);
    },
  };
}

async function closeClients(redis: Redis, db: Db) {
  await redis.quit().catch(() => {});
  await db.$disconnect();
}

/** What the run pipeline (and the study runner and reconciler built on it) gets; `live`: the runs executing here. */
export function pipelineDeps({ env, credentials }: WorkerConfig, services: Services, live: Set<string>, log: Logger): PipelineDeps {
  return {
    db: services.db,
    redis: services.redis,
    log,
    k6: services.k6,
    benchappsDir: env.OPSBENCH_BENCHAPPS_DIR,
    workDir: env.OPSBENCH_WORK_DIR,
    helm: env.OPSBENCH_HELM,
    appDatabaseUrl: env.OPSBENCH_APP_DATABASE_URL ?? env.DATABASE_URL,
    live,
    loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
    dnsServers: env.OPSBENCH_DNS_SERVERS,
    privateRanges: env.OPSBENCH_LOAD_PRIVATE_RANGES,
    notifier: services.notifier,
    ...credentials,
    segments: {
      host: services.loadLock.host,
      queue: services.queues.load,
      redis: services.redis,
      redisUrl: env.REDIS_URL,
      readyDeadlineMs: env.OPSBENCH_SEGMENT_READY_SECONDS * 1000,
    },
  };
}

/** The runner starts beside the worker (compose, the CLI): wait for it a while rather than fail at once. */
async function waitForRunner(client: RunnerClient, waitMs = 60_000) {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await client.health();
    } catch (err) {
      if (Date.now() > until) throw new Error(`${(err as Error).message} (waited ${waitMs / 1000} s; is the runner started?)`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
