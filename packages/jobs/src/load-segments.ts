// A run on N load generators (workload `generators: N`): the run's worker enqueues one job per k6
// execution segment on the "load" queue; any worker takes one, starts k6 paused, and says so here.
// The coordination lives in Redis under <prefix>:segments:<runId>:*, beside the queues:
//   ready      hash  segment index -> worker name (k6 is up and paused)
//   start      the agreed start, epoch ms on the database server's clock (every generator corrects its own)
//   cancel     set when the run gave up (deadline, abort): generators stop k6 and leave
//   alive:<i>  refreshed by a generator while its k6 runs; gone = the generator was lost
import type { Redis } from "ioredis";
import { z } from "zod";
import { createOpsbenchQueue, queuePrefix } from "./queues";

export const LOAD_QUEUE = "load";

export const segmentJobPayload = z
  .object({
    runId: z.uuid(),
    /** 0-based segment index, of `count` equal parts. */
    segment: z.number().int().min(0),
    count: z.number().int().min(2),
    /**
     * The host the run's worker loads from (its load lock's host id): a loopback target is on that host only, so a
     * generator elsewhere refuses the segment; a generator elsewhere takes its own host's load lock. Absent in jobs of
     * an older worker: the generator cannot tell and loads as before.
     */
    host: z.string().min(1).optional(),
  })
  .strict()
  .refine((p) => p.segment < p.count, { message: "segment must be below count", path: ["segment"] });
export type SegmentJobPayload = z.infer<typeof segmentJobPayload>;

export const createLoadQueue = (redisUrl: string, prefix?: string) => createOpsbenchQueue<SegmentJobPayload>(LOAD_QUEUE, redisUrl, prefix);
export type LoadQueue = ReturnType<typeof createLoadQueue>;

/** The job id of a segment (BullMQ ids cannot hold ':'). */
export const segmentJobId = (runId: string, segment: number) => `${runId}-segment-${segment}`;

/** Enqueues the N segment jobs of a run (`host`: the run's load host); enqueuing twice delivers once. */
export async function enqueueSegments(queue: LoadQueue, runId: string, count: number, host?: string) {
  const jobs = Array.from({ length: count }, (_, segment) => {
    const data = segmentJobPayload.parse({ runId, segment, count, ...(host ? { host } : {}) });
    return { name: "segment", data, opts: { jobId: segmentJobId(runId, segment) } };
  });
  return queue.addBulk(jobs);
}

/** Removes segment jobs no worker has taken yet (a run that gave up). */
export async function removeWaitingSegments(queue: LoadQueue, runId: string, count: number) {
  for (let i = 0; i < count; i++) {
    const job = await queue.getJob(segmentJobId(runId, i));
    if (job && (await job.isWaiting())) await job.remove().catch(() => {});
  }
}

/** How long a generator's alive key outlives its last refresh: past this, it is lost. */
export const SEGMENT_ALIVE_TTL_MS = 5_000;

/** The Redis side of one run's segments. */
export function segmentCoordination(redis: Redis, redisUrl: string, runId: string) {
  const key = (k: string) => `${queuePrefix(redisUrl)}:segments:${runId}:${k}`;
  const DAY = 24 * 3600;
  return {
    markReady: async (segment: number, worker: string) => {
      await redis.hset(key("ready"), String(segment), worker);
      await redis.expire(key("ready"), DAY);
    },
    readyCount: () => redis.hlen(key("ready")),
    /** The agreed start on the database server's clock (epoch ms). */
    setStart: (dbEpochMs: number) => redis.set(key("start"), String(Math.round(dbEpochMs)), "EX", DAY),
    start: async () => {
      const v = await redis.get(key("start"));
      return v === null ? null : Number(v);
    },
    cancel: (reason: string) => redis.set(key("cancel"), reason, "EX", DAY),
    cancelled: () => redis.get(key("cancel")),
    beat: (segment: number) => redis.set(key(`alive:${segment}`), String(Date.now()), "PX", SEGMENT_ALIVE_TTL_MS),
    alive: async (segment: number) => (await redis.exists(key(`alive:${segment}`))) === 1,
    clear: async (count: number) => {
      await redis.del(key("ready"), key("start"), key("cancel"), ...Array.from({ length: count }, (_, i) => key(`alive:${i}`)));
    },
  };
}
export type SegmentCoordination = ReturnType<typeof segmentCoordination>;
