// Queue contracts: names, payload schemas, default options and typed enqueue
// helpers. The web app and the CLI produce; the worker consumes; both parse.
import { Queue, type ConnectionOptions } from "bullmq";
import { z } from "zod";

export const RUN_QUEUE = "run-execute";

export const runJobPayload = z.object({ runId: z.uuid() }).strict();
export type RunJobPayload = z.infer<typeof runJobPayload>;

/** Redis connection options for BullMQ from a redis:// URL. */
export function redisConnection(redisUrl: string): ConnectionOptions {
  const u = new URL(redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: Number(u.pathname.slice(1) || 0),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    // BullMQ workers block on Redis; they must not give up on a slow reply.
    maxRetriesPerRequest: null,
  };
}

/**
 * The key prefix of opsbench's queues on a Redis: the URL's `?prefix=`, else
 * "opsbench". Several installations (the tests run one per file) can then share
 * one Redis database and never take each other's jobs.
 */
export function queuePrefix(redisUrl: string): string {
  return new URL(redisUrl).searchParams.get("prefix") || "opsbench";
}

/**
 * How the worker's run and study consumers notice a worker that died (BullMQ's stalled jobs).
 * - lockDuration 30 s: a live worker renews its job's lock every 15 s; a dead one's lock is gone
 *   within 30 s (the reconciler does not wait for it when the dead worker's heartbeat names the job).
 * - stalledInterval 15 s: how often a consumer looks for jobs whose lock expired and redelivers them.
 * - maxStalledCount 2: a job is redelivered after a crash, and again after a second crash during
 *   that recovery; a third marks the job failed. Redelivery is always safe: a run found in flight is
 *   torn down and ended FAILED (never loaded twice), a study resumes with the runs not yet finished.
 *   Whatever the count, the reconciler ends every run and study whose job is gone, failed or stalled.
 */
export const STALLED_JOB_SETTINGS = { lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 2 } as const;

/**
 * A queue of opsbench's, with the options every one of them shares: a load test
 * (or a study of them) is never repeated behind the user's back, so one attempt;
 * the rows record the outcome. Finished jobs are kept briefly for inspection.
 */
export function createOpsbenchQueue<T>(name: string, redisUrl: string, prefix = queuePrefix(redisUrl)) {
  const queue = new Queue<T>(name, {
    connection: redisConnection(redisUrl),
    prefix,
    defaultJobOptions: {
      attempts: 1,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  });
  queue.on("error", (err) => console.error(`${name} queue: ${err.message}`));
  return queue;
}

export const createRunQueue = (redisUrl: string, prefix?: string) => createOpsbenchQueue<RunJobPayload>(RUN_QUEUE, redisUrl, prefix);
export type RunQueue = ReturnType<typeof createRunQueue>;

/**
 * Workers consuming this queue. BullMQ lists every client of the Redis server by
 * name, whatever database it uses; only those on the queue's own database count.
 */
export async function queueWorkers(queue: Queue) {
  const db = String((queue.opts.connection as { db?: number }).db ?? 0);
  return (await queue.getWorkers()).filter((w) => (w as { db?: string }).db === db);
}

/** How many jobs a queue holds: waiting (incl. prioritized), delayed, and being worked on. */
export async function queueDepth(queue: Queue) {
  const c = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
  return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), delayed: c.delayed ?? 0, active: c.active ?? 0 };
}
export type QueueDepth = Awaited<ReturnType<typeof queueDepth>>;

/** Enqueues a run; jobId = runId, so enqueuing twice delivers once. */
export async function enqueueRun(queue: RunQueue, payload: RunJobPayload) {
  const data = runJobPayload.parse(payload);
  return queue.add("execute", data, { jobId: data.runId });
}
