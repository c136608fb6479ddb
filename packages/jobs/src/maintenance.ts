// The installation's periodic work (the reconciler's pass, the reaper, the retention
// sweep): BullMQ job schedulers on one queue, so each tick is one job that one worker
// takes, however many workers there are. Every worker upserts the same schedulers at
// start (same id: one scheduler, its next tick kept), and consumes the queue.
import { type Job, type Queue, UnrecoverableError, Worker } from "bullmq";
import { createOpsbenchQueue, queuePrefix, redisConnection } from "./queues";

export const MAINTENANCE_QUEUE = "maintenance";

/** The periodic passes, by job (and scheduler) name. */
export const MAINTENANCE_JOBS = ["reconcile", "reap", "retention-sweep"] as const;
export type MaintenanceJob = (typeof MAINTENANCE_JOBS)[number];

export const createMaintenanceQueue = (redisUrl: string, prefix?: string) =>
  createOpsbenchQueue<Record<string, never>>(MAINTENANCE_QUEUE, redisUrl, prefix);
export type MaintenanceQueue = ReturnType<typeof createMaintenanceQueue>;

/**
 * Creates or updates the schedulers, one per pass, each every `everyMs[name]`. A scheduler created now ticks at
 * once; one that exists keeps its next tick (a worker's restart does not add a pass). A pass not listed is removed.
 */
export async function upsertMaintenanceSchedulers(queue: Queue, everyMs: Partial<Record<MaintenanceJob, number>>): Promise<void> {
  for (const name of MAINTENANCE_JOBS) {
    const every = everyMs[name];
    if (every === undefined) {
      await queue.removeJobScheduler(name);
      continue;
    }
    await queue.upsertJobScheduler(
      name,
      { every },
      { name, data: {}, opts: { removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } } },
    );
  }
}

export interface MaintenanceConsumerOptions {
  redisUrl: string;
  /** What each pass does; a pass that throws fails its job (kept briefly), the next tick comes anyway. */
  passes: Record<MaintenanceJob, () => Promise<unknown>>;
  onDone?: (job: Job, ms: number) => void;
}

/**
 * A consumer of the maintenance queue. Up to one job of each pass at a time in this process (a long reaper
 * pass does not hold up the reconciler); a tick whose previous pass is still running here is skipped.
 */
export function startMaintenanceConsumer({ redisUrl, passes, onDone }: MaintenanceConsumerOptions): Worker {
  const busy = new Set<string>();
  return new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      const pass = passes[job.name as MaintenanceJob];
      if (!pass) throw new UnrecoverableError(`no maintenance pass named ${JSON.stringify(job.name)}`);
      if (busy.has(job.name)) return { skipped: "the previous pass is still running" };
      busy.add(job.name);
      const started = Date.now();
      try {
        await pass();
      } finally {
        busy.delete(job.name);
      }
      onDone?.(job, Date.now() - started);
      return { ms: Date.now() - started };
    },
    { connection: redisConnection(redisUrl), prefix: queuePrefix(redisUrl), concurrency: MAINTENANCE_JOBS.length },
  );
}
