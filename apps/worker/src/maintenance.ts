// The installation's periodic work, done once per tick by whichever worker takes the
// job: the reconciler's pass, the reaper and the retention sweep are BullMQ job
// schedulers on the "maintenance" queue (@opsbench/jobs maintenance.ts), not timers in
// every worker. Each worker upserts the schedulers at start (their intervals come from
// its settings; the last worker to start sets them) and consumes the queue. The
// reconciler's start-up pass is not one of these: each worker does its own before it
// takes jobs (main.ts).
import type { Db } from "@opsbench/db";
import { createMaintenanceQueue, type MaintenanceJob, startMaintenanceConsumer, upsertMaintenanceSchedulers } from "@opsbench/jobs";
import type { Logger } from "./logger";
import { errorMessage } from "./pipeline/run-failure";
import { reapOnce, type ReaperDeps } from "./reaper";
import { reconcile, type ReconcilerDeps } from "./reconciler";
import { sweepRetention } from "./retention-sweep";

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
