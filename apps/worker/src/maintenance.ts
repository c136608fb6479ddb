// The installation's periodic work, done once per tick by whichever worker takes the
// job: the reconciler's pass, the reaper and the retention sweep are BullMQ job
// schedulers on the "maintenance" queue (@opsbench/jobs maintenance.ts), not timers in
// every worker. Each worker upserts the schedulers at start (their intervals come from
// its settings; the last worker to start sets them) and consumes the queue. The
// reconciler's start-up pass is not one of these: each worker does its own before it
// takes jobs (startWorkerMaintenance).
import type { Db } from "@opsbench/db";
import {
  createMaintenanceQueue,
  type MaintenanceJob,
  readWorkerHeartbeats,
  startMaintenanceConsumer,
  upsertMaintenanceSchedulers,
  type WorkerHeartbeat,
} from "@opsbench/jobs";
import type { WorkerConfig } from "./config";
import type { Logger } from "./logger";
import type { PipelineDeps } from "./pipeline/run-context";
import { errorMessage } from "./pipeline/run-failure";
import { reapOnce, type ReaperDeps } from "./reaper";
import { reconcile, type ReconcilerDeps } from "./reconciler";
import { sweepRetention } from "./retention-sweep";
import type { Services } from "./services";

export interface MaintenanceDeps {
  redisUrl: string;
  db: Db;
  log: Logger;
  reconciler: ReconcilerDeps;
  reaper: ReaperDeps;
  everyMs: Record<MaintenanceJob, number>;
}

export async function startMaintenance(deps: MaintenanceDeps) {
  const { log } = deps;
  const queue = createMaintenanceQueue(deps.redisUrl);
  await upsertMaintenanceSchedulers(queue, deps.everyMs);
  const consumer = startMaintenanceConsumer({
    redisUrl: deps.redisUrl,
    passes: {
      reconcile: () => reconcile(deps.reconciler),
      reap: () => reapOnce(deps.reaper),
      "retention-sweep": () => sweepRetention(deps.db, log),
    },
    onDone: (job, ms) => log.debug({ job: job.name, jobId: job.id, ms }, "maintenance pass done"),
  });
  consumer.on("failed", (job, err) => log.warn({ job: job?.name, jobId: job?.id, err: errorMessage(err) }, "maintenance pass failed"));
  consumer.on("error", (err) => log.error({ err }, "maintenance consumer error"));
  return {
    /** Stops taking ticks; waits for a pass under way. */
    async stop() {
      await consumer.close();
      await queue.close();
    },
  };
}

/**
 * A worker's maintenance: its own reconciler pass first, before it takes jobs (what a dead worker left unfinished
 * is ended or enqueued again), then, in a worker of role "all", the installation's periodic passes. A worker that
 * cannot start those leaves the ticks to the other workers (null: nothing to stop).
 */
export async function startWorkerMaintenance(
  { env, role, credentials, blockPorts, maintenanceEveryMs }: WorkerConfig,
  { db, redis, queues }: Services,
  self: { pipeline: PipelineDeps; executing: ReconcilerDeps["executing"]; workerId: string },
  /** The heartbeats read before this worker's first beat (a dead predecessor may share its id). */
  beatsAtStart: WorkerHeartbeat[] | undefined,
  log: Logger,
) {
  const reconciler: ReconcilerDeps = {
    ...self.pipeline,
    runQueue: queues.run,
    studyQueue: queues.study,
    queueRedis: redis,
    executing: self.executing,
    workerId: self.workerId,
    readHeartbeats: () => readWorkerHeartbeats(redis),
  };
  const startedAt = Date.now();
  try {
    const report = await reconcile(reconciler, beatsAtStart);
    log.info({ ms: Date.now() - startedAt, failed: report.failed.length }, "start-up reconciliation done");
  } catch (err) {
    // A database or Redis away at start: the periodic pass tries again.
    log.error({ err }, "start-up reconciliation failed");
  }
  if (role !== "all") return null;
  // The reconciler's periodic pass, the reaper (resources on real platforms of final runs) and the retention sweep
  // (raw series past a workspace's period): once per tick for the installation, by whichever worker takes it.
  const reaper = { db, log, ...credentials, loadHosts: env.OPSBENCH_LOAD_ALLOWED_HOSTS, protectedPorts: blockPorts };
  return startMaintenance({ redisUrl: env.REDIS_URL, db, log, reconciler, reaper, everyMs: maintenanceEveryMs }).catch((err: unknown) => {
    log.error({ err }, "the maintenance schedulers could not be started; other workers take their ticks");
    return null;
  });
}
